import Foundation

/// Bytes of cache entries by how long ago they were last accessed, in buckets fine enough that a prune can find the
/// least recently used without holding the entries: 1,024 buckets for each doubling of the age (a bucket spans
/// 0.07 % of its age: a minute for entries a day old), 41,985 buckets in all (~330 KB), ages up to 2^41 s.
/// A larger bucket index always means an older entry; entries in one bucket are ordered by their times.
struct AccessAges {
    static let bucketsPerDoubling = 1024.0
    static let bucketCount = 41 * 1024 + 1

    /// The time ages are measured from.
    let now: Double
    private(set) var bytes: [Int64]

    init(now: Double) {
        self.now = now
        bytes = Array(repeating: 0, count: Self.bucketCount)
    }

    /// The bucket of an entry last accessed at `lastAccess`: 0 for less than a second ago (or in the future).
    func bucket(of lastAccess: Double) -> Int {
        let age = now - lastAccess
        guard age >= 1 else { return 0 }
        return min(Self.bucketCount - 1, 1 + Int(log2(age) * Self.bucketsPerDoubling))
    }

    mutating func add(_ entry: CacheEntryStat) {
        bytes[bucket(of: entry.lastAccess)] += entry.size
    }

    /// Adds the bytes another count (from the same `now`) holds, bucket by bucket.
    mutating func merge(_ other: AccessAges) {
        precondition(other.now == now, "counts of different times")
        for index in bytes.indices { bytes[index] += other.bytes[index] }
    }

    /// Where to cut to free `needed` bytes, oldest first: every entry in a bucket above `bucket` goes, and of the
    /// entries in `bucket`, the oldest until `needed` is reached. Bucket 0 when all the entries together free less.
    func cut(freeing needed: Int64) -> Int {
        var freed: Int64 = 0
        for index in stride(from: bytes.count - 1, through: 0, by: -1) {
            freed += bytes[index]
            if freed >= needed { return index }
        }
        return 0
    }
}
