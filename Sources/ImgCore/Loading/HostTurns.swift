import Dispatch
import Foundation

/// The turns and connection slots (`HostLimiter`) of the hosts one load's hops reach: each hop waits for its own
/// host's, so a redirect to another host is held to that host's `--per-host`, `--rate`, `Retry-After` pauses and
/// giving up, and its outcome is recorded there, not at the host of the URL asked for. Used by the loading thread.
final class HostTurns {
    private let hosts: HostLimiter
    /// Whether each hop holds one of its host's slots while it is sent (a robots.txt takes turns only:
    /// `HTTPDataLoader.loadRobots`).
    private let holdsSlots: Bool
    /// The slot of the URL asked for, taken before the load's libcurl handle is lent (so that a host has no more
    /// handles in use than its limit), kept while the hops stay on its host and given back at the first that leaves
    /// it: a load never holds two slots (two loads redirected to each other's host would wait for ever).
    private var held: (host: String, slot: DispatchSemaphore)?

    /// With `holdsSlots`, takes a slot of `url`'s host now, waiting for one.
    init(hosts: HostLimiter, holdsSlots: Bool, url: URL) {
        (self.hosts, self.holdsSlots) = (hosts, holdsSlots)
        let host = HostLimiter.hostKey(url)
        if holdsSlots, let slot = hosts.acquire(for: host) { held = (host, slot) }
    }

    /// Gives back the slot still held; call once the load is done.
    func finish() {
        held?.slot.signal()
        held = nil
    }

    /// `send` (one hop to `url`) in its host's turn, holding one of the host's slots with `holdsSlots`, given how
    /// many seconds it waited for them; without `turns`, at once. Throws when the host was given up or the wait was
    /// cancelled.
    static func taking(_ turns: HostTurns?, for url: URL, cancellation: Cancellation?,
                       _ send: (_ waited: Double) -> HTTPLoader.Hop) throws(ImgError) -> HTTPLoader.Hop {
        guard let turns else { return send(0) }
        let waitStarted = Date()
        let host = HostLimiter.hostKey(url)
        var slot: DispatchSemaphore?
        if turns.holdsSlots, turns.held?.host != host {
            turns.finish()
            slot = turns.hosts.acquire(for: host)
        }
        defer { slot?.signal() }
        let gate = turns.hosts.gate(for: host)
        let started = try gate?.waitForTurn(cancellation: cancellation) ?? Date()
        let hop = send(Date().timeIntervalSince(waitStarted))
        gate?.record(hop.gateOutcome, started: started)
        return hop
    }
}
