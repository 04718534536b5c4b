/// Where a pipeline keeps encoded images for the life of the process (originals and variants, by key):
/// `MemoryCache`, a size-bounded LRU, is the default (`PipelineConfiguration.memoryCache`). Thread-safe.
public protocol ImageCaching: Sendable {
    /// The value under `key`, if any (marking it recently used).
    func value(forKey key: String) -> ImagePayload?
    /// Stores `value` under `key`; a cache may decline to keep it (too large, bytes in a file).
    func store(_ value: ImagePayload, forKey key: String)
    /// Drops the value under `key`, if any.
    func remove(forKey key: String)
}

extension MemoryCache: ImageCaching {}
