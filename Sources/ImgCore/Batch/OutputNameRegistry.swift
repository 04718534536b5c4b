/// Hands out unique file names within one batch: a name taken earlier gets `-1`, `-2`, … before its extension.
/// Names are claimed strictly in input order by the caller, so the result doesn't depend on which work finishes first.
/// Taken names are remembered as 64-bit FNV-1a hashes (8 bytes each, not the strings), so a list of millions of lines
/// stays small; a false clash needs two different names with one hash, about 1 in 10^7 for a million names.
public struct OutputNameRegistry: Sendable {
    private var taken: Set<UInt64> = []

    public init() {}

    /// Claims `name`, or the first free of `stem-1.ext`, `stem-2.ext`, … (`name-1`, … when it has no extension).
    public mutating func claim(_ name: String) -> String {
        var stem = Substring(name), ext = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            stem = name[..<dot]
            ext = String(name[dot...])
        }
        var candidate = name
        var counter = 0
        while !taken.insert(Self.hash(candidate)).inserted {
            counter += 1
            candidate = "\(stem)-\(counter)\(ext)"
        }
        return candidate
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
