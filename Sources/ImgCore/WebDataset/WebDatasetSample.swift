import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a sample went: the tar (as `-O DIR/NAME.tar`), the tar's id (`TarShard.id`) and the image's member name.
public struct SamplePlacement: Sendable, Equatable {
    /// `DIR/00000.tar`.
    public var tar: String
    public var tarID: String
    /// `000000002.jpg`.
    public var member: String
}

/// A sample's `KEY.json`: the line's URL (its password shown as `***`), its kept columns (top-level, by name), the
/// image's size and its original's, bytes, SHA-256, the key, the format and, with facts, the facts.
struct WebDatasetSample: Encodable {
    static var fields: Set<String> { WebDatasetLayout.sampleFields }

    var key: String
    var url: String
    var columns: [String: ColumnValue]
    var image: ImagePayload
    var sha256: String

    private struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Name.self)
        for (name, value) in columns where !Self.fields.contains(name) { try container.encode(value, forKey: Name(name)) }
        for (name, value) in ownFields {
            switch value {
            case .string(let text): try container.encodeIfPresent(text, forKey: Name(name))
            case .integer(let number): try container.encodeIfPresent(number, forKey: Name(name))
            }
        }
    }

    /// The sample's own fields, in order, each a string or an integer (nil: the JSON leaves it out): the key, the URL, the image's size and its original's, bytes, SHA-256, format and, with facts, the facts.
    private var ownFields: [(name: String, value: ParquetRowGroup.Value)] {
        let integers: [(String, Int?)] = [("width", image.width), ("height", image.height),
                                          ("original_width", image.sourceSize?.width),
                                          ("original_height", image.sourceSize?.height), ("bytes", image.bytes.count)]
        var fields: [(name: String, value: ParquetRowGroup.Value)] = [("key", .string(key)), ("url", .string(url))]
        fields += integers.map { ($0.0, .integer($0.1.map(Int64.init))) }
        fields += [("sha256", .string(sha256)), ("format", .string(image.format?.rawValue))]
        if let facts = image.facts {
            fields += [("blurhash", .string(facts.blurhash)), ("thumbhash", .string(facts.thumbhash)),
                       ("dominant_color", .string(facts.dominantColor)), ("phash", .string(facts.phash))]
        }
        return fields
    }

    /// The JSON, keys sorted, slashes unescaped.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }
}

/// A tar's `NAME_stats.json`: what went into it and what became of the lines retired while it was written.
public struct TarStats: Codable, Sendable, Equatable {
    /// `00000.tar`.
    public var tar: String
    /// The tar's id (`SamplePlacement.tarID`).
    public var id: String
    /// Samples in the tar.
    public var samples: Int
    /// Lines retired while the tar was written, by status (`ok` lines are its samples; `duplicate`: an `ok` line
    /// not written as a near-duplicate).
    public var statuses: [String: Int]
    /// The tar's size.
    public var bytes: Int
    /// The images' bytes.
    public var imageBytes: Int
    /// Seconds from its first line retired to its completion.
    public var seconds: Double
    /// `K/N` with a shard.
    public var shard: String?

    enum CodingKeys: String, CodingKey {
        case tar, id, samples, statuses, bytes, imageBytes = "image_bytes", seconds, shard
    }

    /// The stats beside tar `name` in `folder`; nil when there are none or they don't read.
    static func read(ofTar name: String, in folder: OutputFolder) -> TarStats? {
        let opened = openat(folder.descriptor, WebDatasetLayout.statsName(ofTar: name), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard opened >= 0 else { return nil }
        var info = stat()
        guard fstat(opened, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size < 1 << 20 else {
            close(opened)
            return nil
        }
        guard let data = FileRegion(taking: opened, count: Int(info.st_size)).readAll() else { return nil }
        return try? JSONDecoder().decode(TarStats.self, from: data)
    }
}
