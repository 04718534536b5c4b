import CSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One connected Unix stream socket between a client and the renderer, closed when released. Frames are a
/// big-endian UInt32 length and a header (`RendererFields`), then a big-endian UInt64 length and the body bytes.
final class RendererSocket: Sendable {
    let descriptor: Int32
    /// The user and process at the other end, as the kernel saw them when the connection was made.
    let peerUser: uid_t
    let peerProcess: pid_t

    /// The largest header read (a render job or a reply is a few hundred bytes).
    static let maxHeaderBytes = 1 << 20

    /// Takes ownership of a connected descriptor; nil (and closed) when its peer's credentials can't be read.
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

    /// Sends one frame; false when the other end is gone or the send timed out.
    func send(_ message: some RendererMessage, body: Data) -> Bool {
        let header = message.fields.data
        guard header.count <= Self.maxHeaderBytes else { return false }
        var frame = Data(capacity: 12 + header.count)
        withUnsafeBytes(of: UInt32(header.count).bigEndian) { frame.append(contentsOf: $0) }
        frame.append(header)
        withUnsafeBytes(of: UInt64(body.count).bigEndian) { frame.append(contentsOf: $0) }
        return sendAll(frame) && sendAll(body)
    }

    /// Receives one frame whose body is at most `maxBody` bytes; nil when the other end closed, timed out or sent
    /// something that is not a frame, or when `stop` says so (asked every 100 ms while nothing arrives).
    func receive<Message: RendererMessage>(_ type: Message.Type, maxBody: Int,
                                           stop: () -> Bool = { false }) -> (header: Message, body: Data)? {
        guard waitForData(unless: stop),
              let headerLength = receive(count: 4).map({ Int(Self.integer($0, as: UInt32.self)) }),
              headerLength <= Self.maxHeaderBytes,
              let bytes = receive(count: headerLength),
              let fields = RendererFields(bytes), let header = Message(fields: fields),
              let bodyLength = receive(count: 8).map({ Self.integer($0, as: UInt64.self) }),
              bodyLength <= UInt64(maxBody),
              let body = receive(count: Int(bodyLength)) else { return nil }
        return (header, body)
    }

    private static func integer<T: FixedWidthInteger>(_ bytes: Data, as type: T.Type) -> T {
        bytes.reduce(T.zero) { ($0 << 8) | T($1) }
    }

    /// Waits until there is something to read; false when `stop` says so first.
    private func waitForData(unless stop: () -> Bool) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&poller, 1, 100)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return false }
            if stop() { return false }
        }
    }

    /// Sends all of `data`; a peer that went away is an error, never SIGPIPE.
    private func sendAll(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            FileWriting.writeAll(descriptor, bytes) { Glibc.send($0, $1, $2, Int32(MSG_NOSIGNAL)) }
        }
    }

    private func receive(count: Int) -> Data? {
        var data = Data(count: count)
        let complete = data.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) -> Bool in
            guard let base = bytes.baseAddress else { return true }
            var offset = 0
            while offset < count {
                let received = recv(descriptor, base + offset, count - offset, 0)
                if received < 0, errno == EINTR { continue }
                if received <= 0 { return false }
                offset += received
            }
            return true
        }
        return complete ? data : nil
    }
}
