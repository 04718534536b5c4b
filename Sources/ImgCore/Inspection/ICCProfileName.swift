import Foundation

/// The description of an ICC profile (its `desc` tag): what `info` names a profile by.
enum ICCProfileName {
    /// The description in `profile`, or nil when it has none that can be read. Reads ICC v2's `textDescriptionType`
    /// (`desc`: ASCII) and v4's `multiLocalizedUnicodeType` (`mluc`: the first record, UTF-16BE).
    static func description(_ profile: Data) -> String? {
        guard let table = ICCTagTable(profile), let tag = table.tags["desc"], tag.count >= 12 else { return nil }
        let (bytes, offset) = (table.bytes, tag.lowerBound)
        let type = table.signature(at: offset)
        if type == "desc", let length = table.uint32(at: offset + 8), length > 0, offset + 12 + length <= bytes.count {
            let text = bytes[(offset + 12)..<(offset + 12 + length)].prefix { $0 != 0 }
            return clean(String(decoding: text, as: UTF8.self))
        }
        if type == "mluc", let records = table.uint32(at: offset + 8), records > 0,
           let length = table.uint32(at: offset + 16 + 4), let start = table.uint32(at: offset + 16 + 8),
           offset + start + length <= bytes.count {
            let units = stride(from: offset + start, to: offset + start + length - 1, by: 2).map {
                UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
            }
            return clean(String(decoding: units, as: UTF16.self))
        }
        return nil
    }

    /// Trimmed, with the characters a terminal would act on dropped (C0 and C1 controls, DEL, bidirectional
    /// overrides and isolates); nil when nothing is left.
    private static func clean(_ text: String) -> String? {
        let kept = String(text.unicodeScalars.filter { !$0.isUnsafeForTerminal })
            .trimmingCharacters(in: .whitespaces)
        return kept.isEmpty ? nil : kept
    }
}
