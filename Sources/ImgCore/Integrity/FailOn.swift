/// How damaged an input may be and still be decoded: libvips' own scale and names (`--fail-on`).
/// Each level refuses what the levels before it refuse, and more.
public enum FailOn: String, CaseIterable, Sendable, Comparable, Codable {
    /// Decode whatever can be decoded, as vipsthumbnail does; a damaged input gives a result marked damaged.
    case none
    /// Refuse inputs whose pixel data is cut short (the default), decided by imgfetch's own deterministic checks.
    case truncated
    /// Also refuse what the decoder reports as an error (libvips `fail_on=error`).
    case error
    /// Also refuse on any decoder warning (libvips `fail_on=warning`), and the quirks of complete files that libvips
    /// reads (`DataDamage.Severity.warning`): bad ancillary PNG checksums, a GIF frame whose data ends early.
    case warning

    /// The default: `truncated`.
    public static let standard = FailOn.truncated

    /// Parses a level name (any case); nil when it is none of them.
    public init?(name: String) { self.init(rawValue: name.lowercased()) }

    public static func < (left: FailOn, right: FailOn) -> Bool {
        allCases.firstIndex(of: left)! < allCases.firstIndex(of: right)!
    }

    /// The libvips loader option for this level. Truncation is imgfetch's check, so at `truncated` libvips
    /// decodes as under `none` (a JPEG missing only its end marker after complete data is then read, as browsers
    /// read it); `error` and `warning` hand libvips their own level.
    var loaderOption: String {
        switch self {
        case .none, .truncated: "fail_on=none"
        case .error: "fail_on=error"
        case .warning: "fail_on=warning"
        }
    }
}

/// What an integrity check (`IntegrityCheck.damage`) found wrong with an input's data; it depends on the bytes
/// alone, not on the `--fail-on` level, so bytes checked once need not be scanned again
/// (`ImageDecoder.checkHeader(earlier:)`).
struct DataDamage: Equatable, Sendable {
    enum Severity: Int, Comparable, Sendable {
        /// A decoder quirk inside a complete file (a bad PNG chunk checksum on data that inflates whole, a GIF
        /// frame's data ending early): decoded as libvips decodes it, refused only at `--fail-on warning`.
        case warning
        /// Pixel data is missing: refused from `--fail-on truncated` up.
        case truncated
        /// Data that every decoder refuses (a bad checksum on IHDR, PLTE or IDAT): refused from `truncated` up.
        case corrupt

        static func < (left: Severity, right: Severity) -> Bool { left.rawValue < right.rawValue }
    }

    var severity: Severity
    /// One line in the user's terms: `truncated: pixel data ends at row 1210 of 3000`.
    var message: String
    /// For a GIF frame whose data holds an invalid code (`invalidGIFCode`): the frames before it, the most a decode
    /// reads (`n=`), so that libvips never decodes the frame it fails, which under its thread pool it does only now
    /// and then; 0 when it is the first, which is refused at every level. Nil for other damage: the decode reads all.
    var wholeFrames: Int?
    /// Data that libvips would take unbounded time to decode (PNG image data inflating far past the image, which
    /// libpng inflates in one call that nothing stops): refused at every level. Default false.
    var undecodable = false

    /// Whether `level` refuses an input with this damage (every level, when no frame before it is whole or when
    /// it is undecodable).
    func refused(at level: FailOn) -> Bool {
        if wholeFrames == 0 || undecodable { return true }
        return switch severity {
        case .warning: level == .warning
        case .truncated, .corrupt: level != .none
        }
    }

    /// A GIF frame (0-based `frame`) whose LZW data holds a code that can't be, `row` being where its pixels stop.
    static func invalidGIFCode(row: Int, of height: Int, frame: Int) -> DataDamage {
        let place = frame > 0 ? " of frame \(frame + 1)" : ""
        return DataDamage(severity: .corrupt, message: "corrupt gif data: an invalid LZW code at row \(row) of \(height)\(place)",
                          wholeFrames: frame)
    }

    /// A GIF frame (0-based `frame`) whose LZW data ends at `row` inside a complete file: decoded with the rest of
    /// its pixels transparent, as libnsgif decodes it; refused only at `--fail-on warning`.
    static func shortGIFFrame(row: Int, of height: Int, frame: Int) -> DataDamage {
        DataDamage(severity: .warning, message: "gif frame \(frame + 1)'s data ends at row \(row) of \(height): "
                   + "the rest of it left transparent")
    }

    static func truncated(row: Int, of height: Int, frame: Int? = nil) -> DataDamage {
        let place = frame.map { " of frame \($0 + 1)" } ?? ""
        return DataDamage(severity: .truncated, message: "truncated: pixel data ends at row \(row) of \(height)\(place)")
    }
}
