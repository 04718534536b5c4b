import CRenderer
import Foundation
import ImgCore
#if canImport(Glibc)
import Glibc
#endif

/// Talks to the warm renderer process (`imgfetch renderer serve`, see `RendererServer`): connections, status,
/// stop. `WarmRendering` uses it to hand renderings over. Every wait on the renderer is bounded by `patience`.
public struct RendererClient: Sendable {
    public let address: RendererAddress
    /// Seconds without a sign of life (a byte moving, a keep-alive frame) after which the renderer is taken for
    /// gone; default 3.
    public var patience = 3.0

    public init(address: RendererAddress) { self.address = address }

    /// The renderer's folder, nil when it doesn't exist or may not be used (another user's, writable by others).
    func directory() -> RendererDirectory? { try? RendererDirectory(address.directory, create: false) }

    /// Refuses a folder that exists (or, with `create`, is made) but may not be used: another user's, or one others
    /// may write to. A missing folder is fine (no renderer runs).
    public func checkDirectory(create: Bool = false) throws(ImgError) {
        do {
            _ = try RendererDirectory(address.directory, create: create)
        } catch {
            if case .cannotOpen(_, ENOENT) = error, !create { return }
            throw error.error
        }
    }

    /// A connection when a renderer of this user listens at the address; nil when none does, when the folder may
    /// not be used, or when the process listening there belongs to another user (it is never sent an image).
    public func connect() -> RendererConnection? {
        guard let directory = directory() else { return nil }
        return connect(directory, name: address.name)
    }

    func connect(_ directory: RendererDirectory, name: String) -> RendererConnection? {
        let descriptor = imgf_connect_unix(directory.descriptor, name)
        guard descriptor >= 0, let socket = RendererSocket(descriptor: descriptor), socket.peerIsSameUser else { return nil }
        return RendererConnection(socket: socket, patience: patience)
    }

    /// Whether a renderer holds this address's lock (it runs, whether or not it answers).
    public func isRunning() -> Bool { directory()?.isLocked(address.name + RendererServer.lockSuffix) ?? false }

    /// The process holding this address's lock (a renderer runs there, whether or not it answers or its socket
    /// file is still there): nil when none does, 0 when it has just taken it and not yet written its id.
    public func runningProcess() -> Int32? { directory()?.holder(address.name + RendererServer.lockSuffix) }

    /// The state of the renderer of this build, nil when none answers.
    public func status() -> RendererStatus? {
        connect()?.exchange(RendererRequest(command: .status))?.status
    }

    /// Every renderer of this executable path: this build's first, then those of other (older) builds found in
    /// the folder, e.g. after the binary at the path was replaced, then those found by their lock file alone (their
    /// socket file deleted, or named otherwise by `IMGFETCH_RENDERER_SOCKET` in this folder) whose process runs this
    /// executable's path. A socket file nobody listens at, and a lock nobody holds, are skipped. With
    /// `IMGFETCH_RENDERER_SOCKET` set, only the renderer at that socket.
    public func survey() -> [RendererSighting] {
        guard let directory = directory() else { return [] }
        let names = directory.names()
        var candidates = [address.name] + address.otherBuilds(in: names)
        if address.pathPrefix != nil {
            for lock in names.sorted() where lock.hasSuffix(RendererServer.lockSuffix) {
                let name = String(lock.dropLast(RendererServer.lockSuffix.count))
                if !candidates.contains(name) { candidates.append(name) }
            }
        }
        return candidates.compactMap { sighting(of: $0, in: directory) }
    }

    /// The renderer at the socket name `name` of the folder: by its socket when it listens, else by its lock.
    private func sighting(of name: String, in directory: RendererDirectory) -> RendererSighting? {
        let at = RendererAddress(directory: address.directory, name: name)
        let ofThisPath = address.isOfThisPath(name)
        if let connection = connect(directory, name: name),
           ofThisPath || RendererAddress.runsThisPath(connection.serverProcess) {
            let status = connection.exchange(RendererRequest(command: .status))?.status
            return RendererSighting(address: at, process: connection.serverProcess, status: status,
                                    isThisBuild: name == address.name, isOfThisPath: ofThisPath, listening: true)
        }
        guard let process = directory.holder(name + RendererServer.lockSuffix), process > 0,
              RendererAddress.runsThisPath(process) || (ofThisPath && RendererClient.isRunning(process)) else { return nil }
        return RendererSighting(address: at, process: process, status: nil, isThisBuild: name == address.name,
                                isOfThisPath: ofThisPath, listening: false)
    }

    /// Ends every renderer of this executable path (this build's and older ones): asks each to exit once its
    /// renderings are done, and sends SIGTERM (and SIGCONT, for a stopped one) to one that does not answer.
    /// The renderers asked, in `survey` order.
    public func stop() -> [RendererSighting] {
        survey().map { sighting in
            // One that did not answer its status won't answer this either: don't wait for it again.
            let connection = sighting.status == nil ? nil : directory().flatMap { connect($0, name: sighting.address.name) }
            if connection?.exchange(RendererRequest(command: .stop)) == nil {
                kill(sighting.process, SIGTERM)
                kill(sighting.process, SIGCONT)
            }
            return sighting
        }
    }
}

extension RendererClient {
    /// Waits until none of `processes` is running (a zombie counts as ended), polling every 20 ms for at most
    /// `seconds` (default 10); returns those still running then.
    public static func waitForExit(of processes: [Int32], within seconds: Double = 10) -> [Int32] {
        let deadline = Date().addingTimeInterval(seconds)
        var running = processes.filter(isRunning)
        while !running.isEmpty, Date() < deadline {
            usleep(20_000)
            running = running.filter(isRunning)
        }
        return running
    }

    /// Whether `process` exists and is not a zombie (its state in `/proc/PID/stat` is not `Z`).
    static func isRunning(_ process: Int32) -> Bool {
        guard kill(process, 0) == 0 || errno == EPERM else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }
}

/// A renderer found by `RendererClient.survey`.
public struct RendererSighting: Sendable {
    public let address: RendererAddress
    /// Its process (from the connection's peer credentials).
    public let process: Int32
    /// What it said of itself; nil when it did not answer (stopped, or another protocol version).
    public let status: RendererStatus?
    /// Whether it is the renderer of this very build (else an older build of the same path, or one of this path
    /// at a socket named otherwise).
    public let isThisBuild: Bool
    /// Whether its socket name is one of this executable path's builds (else named by `IMGFETCH_RENDERER_SOCKET`).
    public let isOfThisPath: Bool
    /// Whether it listens at its socket file (else it was found by its lock alone: the socket file is gone).
    public let listening: Bool
}

/// One connection to the renderer, for one request.
public final class RendererConnection: Sendable {
    let socket: RendererSocket
    let patience: Double

    init(socket: RendererSocket, patience: Double) { (self.socket, self.patience) = (socket, patience) }

    /// The renderer's process id.
    public var serverProcess: Int32 { socket.peerProcess }

    enum Outcome {
        case rendered(EncodedImage)
        /// The renderer could not be used, and why (for `-v`).
        case unusable(String)
    }

    /// Renders `input` with `job` in the renderer. Throws what the rendering failed with, or that `cancellation`
    /// stopped the wait.
    func render(_ input: Data, job: WireJob, cancellation: Cancellation? = nil) throws(ImgError) -> Outcome {
        let stop = { cancellation?.isCancelled ?? false }
        let interrupted = ImgError.internalFailure("interrupted while the renderer worked")
        guard socket.send(RendererRequest(command: .render, job: job).fields, body: input, patience: patience, stop: stop) else {
            if stop() { throw interrupted }
            return .unusable("did not take the input within \(Int(patience)) s")
        }
        while true {
            guard let (fields, body) = socket.receive(maxBody: Int(Int32.max), patience: patience, stop: stop) else {
                if stop() { throw interrupted }
                return .unusable("hung up or did not answer within \(Int(patience)) s")
            }
            if fields["alive"] != nil { continue }
            guard let reply = RendererReply(fields: fields) else { return .unusable("sent a reply that is not one") }
            if let failure = reply.failure { throw ImgError(rendererFailure: failure) }
            if let problem = ReplyCheck.problem(body, reply: reply, job: job) { return .unusable("sent \(problem)") }
            guard let format = reply.format else { return .unusable("sent no format") }
            var image = EncodedImage(data: body, format: format, width: reply.width, height: reply.height, frames: reply.frames)
            image.notes = reply.notes + ["rendered by the warm renderer (pid \(serverProcess))"]
            if let width = reply.sourceWidth, let height = reply.sourceHeight { image.sourceSize = (width, height) }
            image.damage = reply.damage
            image.chosen = reply.chosen
            return .rendered(image)
        }
    }

    /// Sends a request that has no body and waits for the reply; nil when none came within `patience`.
    func exchange(_ request: RendererRequest) -> RendererReply? {
        guard socket.send(request.fields, patience: patience),
              let (fields, _) = socket.receive(maxBody: 0, patience: patience) else { return nil }
        return RendererReply(fields: fields)
    }
}
