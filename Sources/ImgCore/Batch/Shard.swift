/// `--shard K/N`: this process handles only the items whose original key hashes to K modulo N,
/// so N processes given the same list split it with no overlap and no gap.
public struct Shard: Sendable, Equatable {
    /// This shard, from 0 to `count - 1`.
    public var index: UInt64
    /// How many shards there are; at least 1.
    public var count: UInt64

    /// Parses `K/N` with 0 <= K < N; a usage error gives the problem (the caller names the option).
    public init(parsing text: String) throws(ImgError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        // Digits only: UInt64's parser also takes a leading "+".
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let index = UInt64(parts[0]), let count = UInt64(parts[1]), count >= 1, index < count else {
            throw .usage("expected K/N with 0 <= K < N, e.g. 0/3")
        }
        (self.index, self.count) = (index, count)
    }

    /// Shard `index` of `count`; `index < count`.
    public init(index: UInt64, count: UInt64) {
        (self.index, self.count) = (index, count)
    }

    /// `K-of-N`, what `{shard}` in a `--manifest` name expands to.
    public var fileLabel: String { "\(index)-of-\(count)" }

    /// Whether the item with this original key belongs to this shard: the first 8 bytes of the key's SHA-256,
    /// read as a big-endian integer, modulo `count`.
    public func contains(key: String) -> Bool {
        Shard.hash(key) % count == index
    }

    /// The first 8 bytes of the SHA-256 of `key` as a big-endian integer.
    public static func hash(_ key: String) -> UInt64 {
        UInt64(Digest.sha256(key).prefix(16), radix: 16) ?? 0
    }
}
