/// Decides which originals and variants a pipeline's memory cache keeps, beyond `CachePolicy` (which says whether
/// memory is used at all). `KeepEverything` (a plain LRU) is the default (`PipelineConfiguration.memoryPolicy`);
/// a batch gives its pipeline a `BatchMemoryPolicy`, which keeps only what later lines will use. Thread-safe.
public protocol MemoryPolicy: Sendable {
    /// Whether memory keeps the original under `key`, now that a request loaded it.
    func keepsOriginal(forKey key: String) -> Bool
    /// Whether memory keeps a variant just made or read; `diskWillServe`: the disk cache holds it for later requests.
    func keepsVariant(diskWillServe: Bool) -> Bool
    /// A batch announces `count` more uses of the original under `key` as it reads its list. Default: nothing.
    func expect(_ key: String, count: Int)
    /// A batch ends `count` announced uses of `key`: true when none is left pending, so memory may drop the
    /// original. Default: false (nothing is tracked).
    func finish(_ key: String, count: Int) -> Bool
    /// The originals with announced uses pending (a batch's disk cache spares them). Default: none.
    func pendingKeys() -> [String]
}

extension MemoryPolicy {
    public func expect(_ key: String, count: Int) {}
    public func finish(_ key: String, count: Int) -> Bool { false }
    public func pendingKeys() -> [String] { [] }
}

/// Keeps everything the memory cache has room for.
public struct KeepEverything: MemoryPolicy {
    public init() {}
    public func keepsOriginal(forKey key: String) -> Bool { true }
    public func keepsVariant(diskWillServe: Bool) -> Bool { true }
}
