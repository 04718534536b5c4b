import Dispatch
import Foundation

/// A counting semaphore per host: at most `limit` holders at once for each `scheme://host:port`. The semaphores and
/// the hosts' gates are kept in `HostTable`s, which let go of those of hosts no transfer holds and that remember
/// nothing (no refusal, no turn ahead).
final class HostLimiter: Sendable {
    /// Holders at once per host; nil for no limit.
    let limit: Int?
    let politeness: HostPoliteness
    private let semaphores: HostTable<DispatchSemaphore>
    private let gates: HostTable<HostGate>

    init(limit: Int?, politeness: HostPoliteness = HostPoliteness()) {
        let limit = limit.map { max(1, $0) }
        self.limit = limit
        self.politeness = politeness
        // A semaphore no transfer holds is back at its full count: a new one equals it.
        semaphores = HostTable(make: { _ in DispatchSemaphore(value: limit ?? 1) }, isBlank: { _ in true })
        gates = HostTable(make: { HostGate(host: $0, politeness: politeness) }, isBlank: { $0.isBlank() })
    }

    /// The turns of `host`, shared by every thread; nil when neither a rate nor giving up applies.
    func gate(for host: String) -> HostGate? {
        guard politeness != HostPoliteness() else { return nil }
        return gates.value(for: host)
    }

    /// `scheme://host:port`, lower-cased, with the scheme's default port spelled out.
    static func hostKey(_ url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "http"
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }

    /// Takes one of the host's slots, waiting for one if all are taken, to be given back with `signal()`; nil when
    /// there is no limit.
    func acquire(for host: String) -> DispatchSemaphore? {
        guard limit != nil else { return nil }
        let semaphore = semaphores.value(for: host)
        semaphore.wait()
        return semaphore
    }
}
