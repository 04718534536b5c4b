import Synchronization

/// The uses of originals a running batch has announced and not yet finished: what decides which originals the
/// memory cache keeps during a batch. A batch reads its list ahead (`BatchOptions.window`), so it knows every later
/// line and variant that will ask for an original; the original is kept in memory while such a use is pending and
/// dropped after the last one, so a batch of distinct URLs holds no original it has finished with, whatever
/// `--memory-limit` allows. Outside a batch (never activated) it changes nothing: the memory cache is a plain LRU.
/// Thread-safe.
final class OriginalDemand: Sendable {
    private let active = Atomic<Bool>(false)
    private let pending = Locked<[String: Int]>([:])

    init() {}

    /// Whether a batch announces its uses; false (the default) until `activate()`.
    var isActive: Bool { active.load(ordering: .acquiring) }

    /// From now on, originals are kept only while announced uses are pending.
    func activate() {
        active.store(true, ordering: .releasing)
    }

    /// Announces `count` more uses of the original under `key` (one per output of a line read ahead).
    func expect(_ key: String, count: Int) {
        guard count > 0 else { return }
        pending.withLock { $0[key, default: 0] += count }
    }

    /// Ends `count` announced uses of `key`; true when none is left pending.
    func finish(_ key: String, count: Int) -> Bool {
        pending.withLock { pending in
            let left = (pending[key] ?? 0) - count
            pending[key] = left > 0 ? left : nil
            return left <= 0
        }
    }

    /// The keys with announced uses pending.
    func pendingKeys() -> [String] {
        pending.withLock { Array($0.keys) }
    }

    /// Whether the memory cache should keep the original under `key`, now that one of its uses loaded it: always
    /// when inactive; in a batch, only when a use other than the one running now is pending.
    func keepsOriginal(_ key: String) -> Bool {
        guard isActive else { return true }
        return pending.withLock { ($0[key] ?? 0) > 1 }
    }
}
