import Foundation

/// Bytes of the bundled fixture images, and damaged copies of them.
enum FixtureBytes {
    /// The file `Tests/Fixtures/images/NAME`.
    static func image(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/" + name))
    }

    /// A PNG with the chunk of `type` changed by `change` (its CRC left as it was unless `fixChecksum`).
    static func png(_ data: Data, changing type: String, fixChecksum: Bool = false, _ change: (inout Data) -> Void) -> Data {
        var offset = 8
        var result = data.prefix(8)
        while offset + 12 <= data.count {
            let length = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            var chunk = Data(data[offset..<offset + 12 + length])
            if String(decoding: chunk[4..<8], as: UTF8.self) == type { change(&chunk) }
            result += chunk
            offset += 12 + length
        }
        return result
    }
}
