import CRenderer
import Dispatch
import Foundation
import ImgCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The warm renderer: a process that keeps libvips loaded and renders for the imgfetch commands of its user, so
/// that each of them skips libvips' start (~20 ms of loading ~100 libraries on every cold run). Started only when
/// the user asks (`imgfetch renderer start|serve`, or `--renderer auto`).
///
/// It listens on `RendererAddress` (a socket file in a folder only its user may write to; a lock file beside it
/// makes the name its own), serves only peers of its own user, renders at most as many images at once as there
/// are cores, sends a keep-alive frame every `keepAliveInterval` while it renders, gives up a rendering whose
/// client has gone (before it starts, or mid-way: libvips is stopped and the result dropped), and exits after `idleLimit` seconds without a rendering, when asked
/// (`imgfetch renderer stop`) or on `stop()` (SIGTERM). A client that can't use it renders in its own process, so
/// a renderer that dies mid-way costs a retry, never a result.
public final class RendererServer: Sendable {
    public let address: RendererAddress
    /// Seconds without a rendering before it exits; default 300.
    public let idleLimit: Double
    /// Bodies larger than this are refused (clients send in-memory inputs only, at most `EncodedBytes.memoryLimit`).
    static let maxInputBytes = 64 << 20
    /// Connections served at once; more are closed at once (their clients render themselves).
    static let maxConnections = 64
    /// Seconds between keep-alive frames while a rendering runs.
    static let keepAliveInterval = 0.5
    /// Seconds a client may take to send its request, or to take a frame, before it is dropped.
    static let clientPatience = 10.0
    /// The lock file's name is the socket's name with this suffix.
    static let lockSuffix = ".lock"

    private let started = Date()
    /// Connections being served, and those of them rendering.
    private let active = Atomic<Int>(0)
    private let rendering = Atomic<Int>(0)
    private let renderings = Atomic<Int>(0)
    private let abandoned = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    /// When it started or last finished a rendering, in `DispatchTime` nanoseconds.
    private let lastActivity = Atomic<UInt64>(DispatchTime.now().uptimeNanoseconds)
    private let slots: DispatchSemaphore
    /// The threads of the connections being served, by number, each joined once it has ended (`joinEndedConnections`),
    /// the last ones before `serve` returns: none is left running beside the process's exit.
    private let connectionThreads = Locked<[Int: JoinableThread]>([:])
    /// The numbers of the connections whose thread has ended or is ending.
    private let endedConnections = Locked<[Int]>([])
    private let connectionsAccepted = Atomic<Int>(0)

    /// `slots` renderings at once; default one more than the active cores, as in a pipeline
    /// (`PipelineConfiguration.defaultRenderingSlots`).
    /// How long a renderer waits for work before it exits: 300 seconds.
    public static let defaultIdleLimit: Double = 300

    public init(address: RendererAddress, idleLimit: Double = defaultIdleLimit, slots: Int = PipelineConfiguration.defaultRenderingSlots) {
        self.address = address
        self.idleLimit = idleLimit
        self.slots = DispatchSemaphore(value: max(1, slots))
    }

    /// Serves until idle or stopped. Returns false at once when another renderer holds the address; throws when
    /// its folder may not be used (another user's, or writable by others) or the socket can't be made.
    public func serve() throws(ImgError) -> Bool {
        let directory: RendererDirectory
        do {
            directory = try RendererDirectory(address.directory, create: true)
        } catch {
            throw error.error
        }
        let lockName = address.name + Self.lockSuffix
        guard let lock = directory.lock(lockName) else { return false }
        let listener = imgf_listen_unix(directory.descriptor, address.name, 64)
        if listener < 0 {
            let reason = String(cString: strerror(errno))
            directory.remove(lockName)
            close(lock)
            throw .io("cannot listen at \(address): \(reason)")
        }
        defer {
            // Gone before the lock is let go: the next renderer never finds a name of ours.
            directory.remove(address.name)
            directory.remove(lockName)
            close(lock)
        }
        // Warm now, so that the first rendering asked of it is already fast.
        do throws(ImgError) {
            try VipsRuntime.start()
        } catch {
            close(listener)
            throw error
        }
        while !stopping.load(ordering: .relaxed) {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 250)
            if ready > 0 {
                acceptWaiting(listener)
            } else if ready < 0, errno != EINTR {
                break
            }
            joinEndedConnections()
            // (A rendering may end between the two reads: never subtract a later time from an earlier one.)
            let last = lastActivity.load(ordering: .relaxed)
            let idleNanoseconds = DispatchTime.now().uptimeNanoseconds.subtractingReportingOverflow(last)
            if rendering.load(ordering: .relaxed) == 0, !idleNanoseconds.overflow,
               Double(idleNanoseconds.partialValue) / 1e9 >= idleLimit { break }
        }
        // New clients now find nobody and render themselves; those connected already are served first.
        close(listener)
        directory.remove(address.name)
        while active.load(ordering: .relaxed) > 0 { usleep(5_000) }
        joinEndedConnections()
        return true
    }

    /// Joins the threads of the connections that have ended.
    private func joinEndedConnections() {
        let ended = endedConnections.withLock { numbers in
            defer { numbers = [] }
            return numbers
        }
        let threads = connectionThreads.withLock { threads in ended.compactMap { threads.removeValue(forKey: $0) } }
        for thread in threads { thread.join() }
    }

    /// Makes `serve` return once the renderings in progress are done (SIGTERM, `renderer stop`).
    public func stop() { stopping.store(true, ordering: .relaxed) }

    private func acceptWaiting(_ listener: Int32) {
        while true {
            let descriptor = imgf_accept(listener)
            guard descriptor >= 0 else { return }
            guard let socket = RendererSocket(descriptor: descriptor) else { continue }
            guard socket.peerIsSameUser, active.load(ordering: .relaxed) < Self.maxConnections else { continue }
            active.add(1, ordering: .relaxed)
            let number = connectionsAccepted.add(1, ordering: .relaxed).newValue
            // Counted ended before it stops counting as active, so that none is left to join once none is active.
            let thread = JoinableThread(stackSize: 8 << 20) { [self] in
                serve(socket)
                endedConnections.withLock { $0.append(number) }
                active.subtract(1, ordering: .relaxed)
            }
            guard let thread else {
                // No thread left: the connection is closed, and its client renders itself.
                active.subtract(1, ordering: .relaxed)
                continue
            }
            connectionThreads.withLock { $0[number] = thread }
        }
    }

    /// Answers one request. A client that sends nothing for `clientPatience` is dropped.
    private func serve(_ socket: RendererSocket) {
        guard let (fields, body) = socket.receive(maxBody: Self.maxInputBytes, patience: Self.clientPatience),
              let request = RendererRequest(fields: fields) else { return }
        var reply = RendererReply()
        switch request.command {
        case .status:
            reply.status = status()
        case .stop:
            stop()
        case .render:
            guard let job = request.job else { return }
            rendering.add(1, ordering: .relaxed)
            defer {
                lastActivity.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
                rendering.subtract(1, ordering: .relaxed)
            }
            let rendered: RendererReply, output: Data
            switch renderKeepingAlive(body, job: job, socket: socket) {
            case .rendered(let reply, let data): (rendered, output) = (reply, data)
            case .abandoned:
                abandoned.add(1, ordering: .relaxed)
                return
            case .hungUp: return
            }
            renderings.add(1, ordering: .relaxed)
            _ = socket.send(rendered.fields, body: output, patience: Self.clientPatience)
            // Idle once answered: give the decoders' freed memory back (a long-lived process would keep it otherwise).
            if rendering.load(ordering: .relaxed) == 1 { imgf_release_free_memory() }
            return
        }
        _ = socket.send(reply.fields, patience: Self.clientPatience)
    }

    /// Renders on a thread of its own while this one watches the client's socket: every `keepAliveInterval` it
    /// tells the client that the work goes on, and as soon as the client has gone (closed the connection, or died)
    /// it stops the rendering (`RenderStop`: libvips' evaluation is killed, as by `--max-render-time`) and drops
    /// its result, so that the rendering slot and the worker are free for the next client at once.
    private func renderKeepingAlive(_ input: Data, job: WireJob, socket: RendererSocket) -> Rendered {
        guard let wake = Wakeup() else { return .hungUp }
        let stop = RenderStop()
        if socket.peerHasGone { stop.stop() }
        let result = Locked<(RendererReply, Data)?>(nil)
        // Joined before this returns, a stopped rendering too (it ends soon, killed): the connection is counted
        // `active` until its rendering's thread has ended, so the server never exits beside a thread still rendering
        // or destroying its libvips buffers (`JoinableThread`).
        guard let worker = JoinableThread(stackSize: 8 << 20, { [self] in
            let outcome = render(input, job: job, stop: stop)
            result.withLock { $0 = outcome }
            wake.signal()
        }) else { return .hungUp }
        defer { worker.join() }
        var watched = stop.isStopped ? -1 : socket.descriptor
        while true {
            let woke = imgf_wait_peer_or_wake(watched, wake.descriptor, Int32(Self.keepAliveInterval * 1000))
            if woke > 0, woke & 2 != 0 { break }
            if watched >= 0, woke > 0 || !socket.send(RendererReply.keepAlive, patience: Self.clientPatience) {
                // Gone: from now on only the rendering's end is waited for (it ends soon, killed).
                stop.stop()
                watched = -1
            }
        }
        if stop.isStopped { return .abandoned }
        return result.withLock { $0 }.map { .rendered($0.0, $0.1) } ?? .abandoned
    }

    /// What `renderKeepingAlive` came to.
    private enum Rendered {
        case rendered(RendererReply, Data)
        /// The client went away, before the rendering started or during it: nothing was (or will be) sent.
        case abandoned
        /// The rendering could not be watched (no descriptor or thread left): the client is hung up on and renders
        /// itself.
        case hungUp
    }

    /// nil when `stop` was stopped before a rendering slot was free (the work is then not started).
    private func render(_ input: Data, job: WireJob, stop: RenderStop) -> (RendererReply, Data)? {
        while slots.wait(timeout: .now() + 0.1) == .timedOut {
            if stop.isStopped { return nil }
        }
        defer { slots.signal() }
        if stop.isStopped { return nil }
        var reply = RendererReply()
        do throws(ImgError) {
            // No processing (a format conversion) is the empty identifier, which is not a chain one may type.
            let chain = job.chain.isEmpty ? ProcessingChain() : try ProcessingChain.parse(job.chain)
            let rendering = Rendering.Job(isRemote: job.isRemote, chain: chain, encoding: job.encoding,
                                              decoding: job.decoding)
            let image = try Rendering.render(.memory(input), job: rendering, stop: stop)
            (reply.format, reply.width, reply.height, reply.frames) = (image.format, image.width, image.height, image.frames)
            reply.notes = image.notes
            (reply.sourceWidth, reply.sourceHeight) = (image.sourceSize?.width, image.sourceSize?.height)
            reply.damage = image.damage
            reply.chosen = image.chosen
            return (reply, image.data)
        } catch {
            reply.failure = error.rendererFailure
            return (reply, Data())
        }
    }

    private func status() -> RendererStatus {
        RendererStatus(process: getpid(), version: Version.current, uptime: Date().timeIntervalSince(started),
                       renderings: renderings.load(ordering: .relaxed), active: active.load(ordering: .relaxed),
                       idleLimit: idleLimit, abandoned: abandoned.load(ordering: .relaxed),
                       executable: RendererAddress.link("/proc/self/exe"))
    }
}

/// An eventfd that the rendering thread signals when it is done, waited on beside the client's socket; closed when
/// the last of the two threads lets it go.
private final class Wakeup: Sendable {
    let descriptor: Int32

    init?() {
        descriptor = imgf_wake_open()
        if descriptor < 0 { return nil }
    }

    deinit { close(descriptor) }

    func signal() { imgf_wake_signal(descriptor) }
}
