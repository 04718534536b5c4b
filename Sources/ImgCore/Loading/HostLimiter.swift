import Dispatch
import Foundation

/// A counting semaphore per host: at most `limit` holders at once for each `scheme://host:port`.
final class HostLimiter: Sendable {
    /// Holders at once per host; nil for no limit.
    let limit: Int?
    let politeness: HostPoliteness
    private let semaphores = Locked<[String: DispatchSemaphore]>([:])
    private let gates = Locked<[String: HostGate]>([:])

    init(limit: Int?, politeness: HostPoliteness = HostPoliteness()) {
        self.limit = limit.map { max(1, $0) }
        self.politeness = politeness
    }

    /// The turns of `host`, shared by every thread; nil when neither a rate nor giving up applies.
    func gate(for host: String) -> HostGate? {
        guard politeness != HostPoliteness() else { return nil }
        return gates.withLock { table in
            if let existing = table[host] { return existing }
            let created = HostGate(host: host, politeness: politeness)
            table[host] = created
            return created
        }
    }

    /// `scheme://host:port`, lower-cased, with the scheme's default port spelled out.
    static func hostKey(_ url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "http"
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }

    /// Runs `body` while holding one of the host's slots, waiting for one if all are taken.
    func withSlot<T>(for host: String, _ body: () throws(ImgError) -> T) throws(ImgError) -> T {
        guard let limit else { return try body() }
        let semaphore = semaphores.withLock { table -> DispatchSemaphore in
            if let existing = table[host] { return existing }
            let created = DispatchSemaphore(value: limit)
            table[host] = created
            return created
        }
        semaphore.wait()
        defer { semaphore.signal() }
        return try body()
    }
}
