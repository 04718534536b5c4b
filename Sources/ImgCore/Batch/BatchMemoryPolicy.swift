/// The memory policy of a batch: memory keeps an original only while a use of it that the batch announced is
/// pending, and a variant only when no disk cache entry will serve a later line. A batch reads its list ahead
/// (`BatchOptions.window`), so it knows every later line and variant that will ask for an original; it announces
/// them (`expect`) as it reads and finishes them (`finish`) as items end, dropping the original from memory after
/// the last one, so a batch of distinct URLs holds no original it has finished with, whatever `--memory-limit`
/// allows. `BatchRunner` announces to the memory policy of its pipeline, whatever it is. Thread-safe.
public final class BatchMemoryPolicy: MemoryPolicy {
    private let pending = Locked<[String: Int]>([:])

    public init() {}

    /// Announces `count` more uses of the original under `key` (one per output of a line read ahead).
    public func expect(_ key: String, count: Int) {
        guard count > 0 else { return }
        pending.withLock { $0[key, default: 0] += count }
    }

    /// Ends `count` announced uses of `key`; true when none is left pending.
    public func finish(_ key: String, count: Int) -> Bool {
        pending.withLock { pending in
            let left = (pending[key] ?? 0) - count
            pending[key] = left > 0 ? left : nil
            return left <= 0
        }
    }

    /// The keys with announced uses pending.
    public func pendingKeys() -> [String] {
        pending.withLock { Array($0.keys) }
    }

    /// Only when a use other than the one running now is pending.
    public func keepsOriginal(forKey key: String) -> Bool {
        pending.withLock { ($0[key] ?? 0) > 1 }
    }

    /// Only when no disk cache entry will serve a later line naming it.
    public func keepsVariant(diskWillServe: Bool) -> Bool { !diskWillServe }
}
