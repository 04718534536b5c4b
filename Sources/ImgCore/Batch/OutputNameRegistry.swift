/// Hands out unique file names within one batch: a name taken earlier gets `-1`, `-2`, … before its extension.
/// Names are compared with letter case aside: on a case-insensitive file system (macOS, exFAT, SMB shares)
/// `Cat.jpg` and `cat.jpg` are one file, so the later one gets `Cat-1.jpg`.
/// Names are claimed strictly in input order by the caller, so the result doesn't depend on which work finishes first.
/// Taken names are remembered as 64-bit FNV-1a hashes (8 bytes each, not the strings), so a list of millions of lines
/// stays small; a false clash needs two different names with one hash, about 1 in 10^7 for a million names.
public struct OutputNameRegistry: Sendable {
    private var taken: Set<UInt64> = []
    /// For a name that was found taken, the number its next claim starts from (by the name's hash): names are never
    /// given back, so the numbers before it are taken still, and the thousandth `image.jpg` of a crawl costs one
    /// look-up, not a thousand.
    private var nextNumber: [UInt64: Int] = [:]

    public init() {}

    /// How many names are taken.
    public var count: Int { taken.count }

    /// Claims `name`, or the first free of `stem-1.ext`, `stem-2.ext`, … (`name-1`, … when it has no extension).
    public mutating func claim(_ name: String) -> String {
        claim { counter in Self.numbered(name, counter) }
    }

    /// Claims the first free of `candidate(0)`, `candidate(1)`, …: for names that must change with their number
    /// beyond the suffix (shortened to make room for it).
    public mutating func claim(_ candidate: (Int) -> String) -> String {
        let first = candidate(0)
        let base = Self.hash(first.lowercased())
        var counter = nextNumber[base] ?? 0
        var name = counter == 0 ? first : candidate(counter)
        while !taken.insert(Self.hash(name.lowercased())).inserted {
            counter += 1
            name = candidate(counter)
        }
        if counter > 0 || nextNumber[base] != nil { nextNumber[base] = counter + 1 }
        return name
    }

    /// `name` itself for 0, else `stem-N.ext` (`name-N` when it has no extension).
    public static func numbered(_ name: String, _ counter: Int) -> String {
        guard counter > 0 else { return name }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return "\(name[..<dot])-\(counter)\(name[dot...])"
        }
        return "\(name)-\(counter)"
    }

    private static func hash(_ text: String) -> UInt64 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01B3
        }
        return value
    }
}
