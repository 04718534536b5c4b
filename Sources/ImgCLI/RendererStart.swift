import Foundation
import ImgCore
import ImgRenderer

/// Starting the warm renderer, for `renderer start` and for a fetch with `--renderer auto`, and what is said of a
/// renderer that does not answer.
enum RendererStart {
    /// `renderer start`: starts one unless one runs (holds the address's lock), then waits (5 s at most) until one
    /// holds it, so that of several starts at once only the one whose renderer won says `started`, the others
    /// `already running` with the winner's pid.
    static func start(_ client: RendererClient, idleLimit: Double) throws(ImgError) -> String {
        try client.checkDirectory(create: true)
        if let running = client.runningProcess() { return alreadyRunning(running, client) }
        guard let process = RendererLauncher.startDetached(idleLimit: idleLimit) else {
            throw .internalFailure("cannot start the renderer")
        }
        let started = "started: pid \(process), exits after \(idleLimit.canonicalText) s idle"
        let alive = { !RendererClient.waitForExit(of: [process], within: 0).isEmpty }
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            // The winner may have just taken the lock and not be listening yet: its pid is the answer.
            if let holder = client.runningProcess(), holder > 0 {
                return holder == process ? started : "already running: pid \(holder)"
            }
            if !alive() { break }
            usleep(10_000)
        }
        if let holder = client.runningProcess(), holder > 0, holder != process { return "already running: pid \(holder)" }
        guard alive() else { throw .internalFailure("cannot start the renderer: pid \(process) exited at once") }
        return started
    }

    /// `already running: pid N`, and why it does not answer when it doesn't.
    private static func alreadyRunning(_ holder: Int32, _ client: RendererClient) -> String {
        if let status = client.status() { return "already running: pid \(status.process)" }
        let process = holder > 0 ? "pid \(holder)" : "starting"
        guard holder > 0, client.connect() == nil else { return "already running: \(process), not answering" }
        return "already running: \(process), not answering" + notListening(at: client.address)
    }

    /// Why a renderer found by its lock alone does not answer: its socket file is gone, or what is there (another
    /// user's listener, refused) is not it.
    static func notListening(at address: RendererAddress) -> String {
        var status = stat()
        let there = lstat(address.path, &status) == 0
        return there ? " (what is at its socket file is not it; 'renderer stop' ends it)"
            : " (its socket file is gone; 'renderer stop' ends it)"
    }
}
