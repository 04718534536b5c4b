import CSystem
import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The warm renderer: a process that keeps libvips loaded and renders for the imgfetch commands of its user, so
/// that each of them skips libvips' start (~20 ms of loading ~100 libraries on every cold run).
///
/// It listens on `RendererAddress` (an abstract Unix socket), serves only peers of its own user, renders at most
/// as many images at once as there are cores, and exits after `idleLimit` seconds without a rendering, or when
/// asked (`imgfetch renderer stop`). A client that can't use it renders in its own process, so a renderer that
/// dies mid-way costs a retry, never a result.
public final class RendererServer: Sendable {
    public let address: RendererAddress
    /// Seconds without a rendering before it exits; default 300.
    public let idleLimit: Double
    /// Bodies larger than this are refused (clients send in-memory inputs only, at most `EncodedBytes.memoryLimit`).
    static let maxInputBytes = 64 << 20
    /// Connections served at once; more are closed at once (their clients render themselves).
    static let maxConnections = 64

    private let started = Date()
    /// Connections being served, and those of them rendering.
    private let active = Atomic<Int>(0)
    private let rendering = Atomic<Int>(0)
    private let renderings = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    /// When it started or last finished a rendering, in `DispatchTime` nanoseconds.
    private let lastActivity = Atomic<UInt64>(DispatchTime.now().uptimeNanoseconds)
    private let slots = DispatchSemaphore(value: max(1, ProcessInfo.processInfo.activeProcessorCount))

    public init(address: RendererAddress, idleLimit: Double = 300) {
        self.address = address
        self.idleLimit = idleLimit
    }

    /// Serves until idle or stopped. Returns false at once when another process already listens at the address.
    public func serve() throws(ImgError) -> Bool {
        let listener = imgf_listen_abstract(address.name, 64)
        if listener < 0 {
            if errno == EADDRINUSE { return false }
            throw .io("cannot listen at \(address): \(String(cString: strerror(errno)))")
        }
        // Warm now, so that the first rendering asked of it is already fast.
        try VipsRuntime.start()
        while !stopping.load(ordering: .relaxed) {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 250)
            if ready > 0 {
                acceptOne(listener)
            } else if ready < 0, errno != EINTR {
                break
            }
            // (A rendering may end between the two reads: never subtract a later time from an earlier one.)
            let last = lastActivity.load(ordering: .relaxed)
            let idleNanoseconds = DispatchTime.now().uptimeNanoseconds.subtractingReportingOverflow(last)
            if rendering.load(ordering: .relaxed) == 0, !idleNanoseconds.overflow,
               Double(idleNanoseconds.partialValue) / 1e9 >= idleLimit { break }
        }
        // New clients now find nobody and render themselves; those connected already are served first.
        close(listener)
        while active.load(ordering: .relaxed) > 0 { usleep(5_000) }
        return true
    }

    private func acceptOne(_ listener: Int32) {
        let descriptor = imgf_accept(listener)
        guard descriptor >= 0, let socket = RendererSocket(descriptor: descriptor) else { return }
        guard socket.peerIsSameUser, active.load(ordering: .relaxed) < Self.maxConnections else { return }
        active.add(1, ordering: .relaxed)
        Thread.detachNewThread { [self] in
            serve(socket)
            active.subtract(1, ordering: .relaxed)
        }
    }

    /// Answers one request. A client that sends nothing for a minute is dropped.
    private func serve(_ socket: RendererSocket) {
        imgf_socket_timeouts(socket.descriptor, 60_000)
        guard let (request, body) = socket.receive(RendererRequest.self, maxBody: Self.maxInputBytes) else { return }
        var reply = RendererReply()
        var output = Data()
        switch request.command {
        case .status:
            reply.status = status()
        case .stop:
            stopping.store(true, ordering: .relaxed)
        case .render:
            guard let job = request.job else { return }
            rendering.add(1, ordering: .relaxed)
            defer {
                lastActivity.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
                rendering.subtract(1, ordering: .relaxed)
            }
            do {
                let image = try render(body, job: job)
                (reply.format, reply.width, reply.height, reply.frames) = (image.format, image.width, image.height, image.frames)
                reply.notes = image.notes
                (reply.sourceWidth, reply.sourceHeight) = (image.sourceSize?.width, image.sourceSize?.height)
                output = image.data
            } catch {
                reply.failure = (error.kind, error.message)
            }
            renderings.add(1, ordering: .relaxed)
        }
        _ = socket.send(reply, body: output)
        // Idle once answered: give the decoders' freed memory back (a long-lived process would keep it otherwise).
        if request.command == .render, rendering.load(ordering: .relaxed) == 0 { imgf_release_free_memory() }
    }

    private func render(_ input: Data, job: RenderJob) throws(ImgError) -> EncodedImage {
        // No processing (a format conversion) is the empty identifier, which is not a chain one may type.
        let chain = job.chain.isEmpty ? ProcessingChain() : try ProcessingChain.parse(job.chain)
        slots.wait()
        defer { slots.signal() }
        return try ImageRenderer.render(.memory(input), isRemote: job.isRemote, chain: chain, encoding: job.encoding,
                                        decoding: job.decoding)
    }

    private func status() -> RendererStatus {
        RendererStatus(process: getpid(), version: Version.current, uptime: Date().timeIntervalSince(started),
                       renderings: renderings.load(ordering: .relaxed), active: active.load(ordering: .relaxed),
                       idleLimit: idleLimit)
    }
}
