/// What each origin's robots.txt said this run (`RobotsTxtGate`), for the origins used last: at most `capacity`
/// bytes of rules, counted roughly (16 MiB unless told). Past that, the origins used longest ago are forgotten
/// until half the capacity is left: a forgotten robots.txt is read again from the disk cache, or fetched again,
/// when one of its URLs comes up. An origin whose robots.txt could not be had is never forgotten: it stays
/// disallowed for the rest of the run, as `RobotsTxtGate` says, and nothing of it is cached on disk.
final class RobotsPolicies: Sendable {
    /// The most bytes of rules kept: 16 MiB unless told.
    let capacity: Int
    private struct Kept {
        var policy: RobotsPolicy
        var bytes: Int
        var lastUse: UInt64
    }
    private struct Contents {
        var kept: [String: Kept] = [:]
        var bytes = 0
        var uses: UInt64 = 0
    }
    private let contents = Locked(Contents())

    init(capacity: Int = 16 << 20) {
        self.capacity = capacity
    }

    /// Origins kept now.
    var count: Int { contents.withLock { $0.kept.count } }

    /// What `origin`'s robots.txt said, when it is kept.
    func policy(of origin: String) -> RobotsPolicy? {
        contents.withLock { contents in
            guard contents.kept[origin] != nil else { return nil }
            contents.uses += 1
            contents.kept[origin]!.lastUse = contents.uses
            return contents.kept[origin]!.policy
        }
    }

    /// Keeps what `origin`'s robots.txt said, forgetting the origins used longest ago when over `capacity`.
    func keep(_ policy: RobotsPolicy, of origin: String) {
        let bytes = Self.bytes(of: policy, origin: origin)
        contents.withLock { contents in
            contents.uses += 1
            contents.bytes += bytes - (contents.kept[origin]?.bytes ?? 0)
            contents.kept[origin] = Kept(policy: policy, bytes: bytes, lastUse: contents.uses)
            guard contents.bytes > capacity else { return }
            let forgettable = contents.kept.filter { !$0.value.policy.isDisallowAll }.sorted { $0.value.lastUse < $1.value.lastUse }
            for (name, entry) in forgettable where contents.bytes > capacity / 2 && name != origin {
                contents.kept[name] = nil
                contents.bytes -= entry.bytes
            }
        }
    }

    /// About what `policy` takes in memory: its rules' patterns (each as text and as pieces) and their overhead.
    static func bytes(of policy: RobotsPolicy, origin: String) -> Int {
        let base = 96 + origin.utf8.count
        switch policy {
        case .rules(let robots): return base + robots.rules.reduce(0) { $0 + 2 * $1.pattern.utf8.count + 96 }
        case .allowAll: return base
        case .disallowAll(let why, _): return base + why.utf8.count
        }
    }
}

extension RobotsPolicy {
    /// Whether the robots.txt could not be had (everything disallowed for the run).
    var isDisallowAll: Bool {
        if case .disallowAll = self { true } else { false }
    }
}
