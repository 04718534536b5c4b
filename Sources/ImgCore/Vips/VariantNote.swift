/// The notes a rendering makes of what it read or wrote (the first of several frames or pages, the source's own
/// bytes): true of its variant whoever serves it, so they are kept in its cache entry and said again on a hit
/// (`CacheEntryMetadata.keeps(note:)`). A rendering's other notes tell of the making only.
enum VariantNote {
    static func firstPage(of pages: Int) -> String { "read the first of \(pages) pages" }

    static func firstFrame(in format: ImageFormat, of frames: Int) -> String {
        "\(format.rawValue) does not animate here: wrote the first of \(frames) frames"
    }

    static func firstOfPagesThatDiffer(_ pages: Int) -> String { "the pages differ in size: read the first of \(pages) pages" }

    static let sourceBytes = "unchanged: the source's own bytes, metadata included"

    /// Whether `note` is one of these.
    static func isOne(_ note: String) -> Bool {
        note.hasPrefix("read the first of ") || note.hasPrefix("the pages differ in size: read the first of ")
            || note.contains(" does not animate here: wrote the first of ") || note == sourceBytes
    }
}
