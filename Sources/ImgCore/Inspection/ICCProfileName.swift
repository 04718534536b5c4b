import Foundation

/// The description of an ICC profile (its `desc` tag): what `info` names a profile by.
enum ICCProfileName {
    /// The description in `profile`, or nil when it has none that can be read. Reads ICC v2's `textDescriptionType`
    /// (`desc`: ASCII) and v4's `multiLocalizedUnicodeType` (`mluc`: the first record, UTF-16BE).
    static func description(_ profile: Data) -> String? {
        let bytes = [UInt8](profile)
        func uint32(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 4 <= bytes.count else { return nil }
            return Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        }
        guard let count = uint32(128), count < 1000 else { return nil }
        for index in 0..<count {
            let entry = 132 + index * 12
            guard let signature = uint32(entry), let offset = uint32(entry + 4), let size = uint32(entry + 8) else { return nil }
            guard signature == 0x6465_7363 /* desc */, size >= 12, offset + size <= bytes.count else { continue }
            let tag = bytes[offset..<(offset + size)]
            let type = String(decoding: tag.prefix(4), as: UTF8.self)
            if type == "desc", let length = uint32(offset + 8), length > 0, offset + 12 + length <= bytes.count {
                let text = bytes[(offset + 12)..<(offset + 12 + length)].prefix { $0 != 0 }
                return clean(String(decoding: text, as: UTF8.self))
            }
            if type == "mluc", let records = uint32(offset + 8), records > 0,
               let length = uint32(offset + 16 + 4), let start = uint32(offset + 16 + 8),
               offset + start + length <= bytes.count {
                let units = stride(from: offset + start, to: offset + start + length - 1, by: 2).map {
                    UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
                }
                return clean(String(decoding: units, as: UTF16.self))
            }
        }
        return nil
    }

    /// Trimmed, control characters dropped; nil when nothing is left.
    private static func clean(_ text: String) -> String? {
        let kept = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
            .trimmingCharacters(in: .whitespaces)
        return kept.isEmpty ? nil : kept
    }
}
