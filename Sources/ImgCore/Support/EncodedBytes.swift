import Foundation

/// The encoded bytes of an image: in memory, or (when large) in a file region that is only ever read in windows.
/// Bodies up to `EncodedBytes.memoryLimit` stay in memory, as they always did; larger downloads are spooled to a
/// file as they arrive, and large cached originals and local files are read where they lie.
public enum EncodedBytes: Sendable {
    case memory(Data)
    case file(FileRegion)

    /// The largest body kept in memory: 8 MiB. Larger ones are spooled to, or read from, files.
    public static let memoryLimit = 8 << 20

    /// How many bytes there are.
    public var count: Int {
        switch self {
        case .memory(let data): data.count
        case .file(let region): region.count
        }
    }

    /// Whether the bytes are held in memory.
    public var isInMemory: Bool {
        if case .memory = self { return true }
        return false
    }

    /// The first `length` bytes, for sniffing the format.
    public func prefix(_ length: Int) -> Data {
        switch self {
        case .memory(let data): data.prefix(length)
        case .file(let region): region.prefix(length)
        }
    }

    /// The bytes as one `Data`: reads a file region whole (empty if it can't be read), so use it only where the
    /// bytes are small or must be in memory anyway.
    public var data: Data {
        switch self {
        case .memory(let data): data
        case .file(let region): region.readAll() ?? Data()
        }
    }

    /// The integrity digest (XXH3-128, hex), streamed for a file region; empty when the file can't be read.
    public var integrityDigest: String {
        switch self {
        case .memory(let data): Digest.integrity(data)
        case .file(let region): region.integrityDigest() ?? ""
        }
    }

    /// The lower-case hex SHA-256 (what `sha256sum` prints), streamed for a file region; empty when the file can't
    /// be read.
    public var sha256: String {
        switch self {
        case .memory(let data): Digest.sha256(data)
        case .file(let region): region.sha256() ?? ""
        }
    }
}
