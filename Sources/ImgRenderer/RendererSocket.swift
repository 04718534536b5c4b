import CRenderer
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One connected Unix stream socket between a client and the renderer, non-blocking, closed when released.
/// Frames are a big-endian UInt32 length and a header (`RendererFields`), then a big-endian UInt64 length and the
/// body bytes. Every wait is bounded: by `patience` (seconds without a byte moving) and by `stop` (asked every
/// 100 ms), so that neither a peer that stops answering nor one that never reads can hold the other.
final class RendererSocket: Sendable {
    let descriptor: Int32
    /// The user and process at the other end, as the kernel saw them when the connection was made.
    let peerUser: uid_t
    let peerProcess: pid_t

    /// The largest header read (a render job or a reply is a few hundred bytes).
    static let maxHeaderBytes = 1 << 20

    /// Takes ownership of a connected, non-blocking descriptor; nil (and closed) when its peer's credentials
    /// can't be read.
    init?(descriptor: Int32) {
        var user = uid_t(0), process = pid_t(0)
        guard imgf_peer_credentials(descriptor, &user, &process) == 0 else {
            close(descriptor)
            return nil
        }
        (self.descriptor, peerUser, peerProcess) = (descriptor, user, process)
    }

    deinit { close(descriptor) }

    /// Whether the other end runs as this process's effective user: anything else is never trusted with an image.
    var peerIsSameUser: Bool { peerUser == geteuid() }

    /// Whether the other end has closed the connection or gone away (looked at without reading or waiting).
    var peerHasGone: Bool { imgf_peer_has_gone(descriptor) != 0 }

    /// Sends one frame; false when the other end is gone, `stop` says so, or no byte could be sent for `patience`
    /// seconds.
    func send(_ fields: RendererFields, body: Data = Data(), patience: Double, stop: () -> Bool = { false }) -> Bool {
        let header = fields.data
        guard header.count <= Self.maxHeaderBytes else { return false }
        var frame = Data(capacity: 12 + header.count)
        withUnsafeBytes(of: UInt32(header.count).bigEndian) { frame.append(contentsOf: $0) }
        frame.append(header)
        withUnsafeBytes(of: UInt64(body.count).bigEndian) { frame.append(contentsOf: $0) }
        return transfer(frame, patience: patience, stop: stop) && transfer(body, patience: patience, stop: stop)
    }

    /// Receives one frame whose body is at most `maxBody` bytes; nil when the other end closed, sent something
    /// that is not a frame, sent nothing for `patience` seconds, or when `stop` says so.
    func receive(maxBody: Int, patience: Double, stop: () -> Bool = { false }) -> (fields: RendererFields, body: Data)? {
        guard let headerLength = receive(count: 4, patience: patience, stop: stop).map({ Int(Self.integer($0, as: UInt32.self)) }),
              headerLength <= Self.maxHeaderBytes,
              let bytes = receive(count: headerLength, patience: patience, stop: stop),
              let fields = RendererFields(bytes),
              let bodyLength = receive(count: 8, patience: patience, stop: stop).map({ Self.integer($0, as: UInt64.self) }),
              bodyLength <= UInt64(maxBody),
              let body = receive(count: Int(bodyLength), patience: patience, stop: stop) else { return nil }
        return (fields, body)
    }

    private static func integer<T: FixedWidthInteger>(_ bytes: Data, as type: T.Type) -> T {
        bytes.reduce(T.zero) { ($0 << 8) | T($1) }
    }

    /// Sends all of `data`; a peer that went away is an error, never SIGPIPE.
    private func transfer(_ data: Data, patience: Double, stop: () -> Bool) -> Bool {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            guard let base = bytes.baseAddress else { return true }
            return move(count: bytes.count, events: POLLOUT, patience: patience, stop: stop) { offset in
                Glibc.send(descriptor, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
        }
    }

    private func receive(count: Int, patience: Double, stop: () -> Bool) -> Data? {
        var data = Data(count: count)
        let complete = data.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) -> Bool in
            guard let base = bytes.baseAddress else { return true }
            return move(count: count, events: POLLIN, patience: patience, stop: stop) { offset in
                recv(descriptor, base + offset, count - offset, 0)
            }
        }
        return complete ? data : nil
    }

    /// Moves `count` bytes with `step` (given the offset, returns the bytes moved or -1 with errno), waiting for
    /// `events` in between; false at end of stream, on an error, after `patience` seconds without progress, or
    /// when `stop` says so.
    private func move(count: Int, events: Int32, patience: Double, stop: () -> Bool, _ step: (Int) -> Int) -> Bool {
        var offset = 0
        var lastProgress = DispatchTime.now().uptimeNanoseconds
        while offset < count {
            let moved = step(offset)
            if moved > 0 {
                offset += moved
                lastProgress = DispatchTime.now().uptimeNanoseconds
                continue
            }
            if moved == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { return false }
            if stop() { return false }
            let waited = DispatchTime.now().uptimeNanoseconds.subtractingReportingOverflow(lastProgress)
            if !waited.overflow, Double(waited.partialValue) / 1e9 >= patience { return false }
            var poller = pollfd(fd: descriptor, events: Int16(events), revents: 0)
            _ = poll(&poller, 1, 100)
        }
        return true
    }
}
