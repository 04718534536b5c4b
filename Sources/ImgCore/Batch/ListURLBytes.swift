/// A list's URL field whose bytes are not all UTF-8 (a list saved in Latin-1, a Parquet byte array): each byte that
/// is not part of valid UTF-8 is taken as its `%XX` escape (`caf\xE9.jpg` -> `caf%E9.jpg`), as browsers and curl
/// send such a byte, so that the request carries exactly the bytes given and two lines that differ only in them stay
/// two URLs and two keys; the records and `--json` show the escaped URL. Only an http or https URL is so taken: a
/// path or a file URL names a file by its bytes, which an escape does not, and any other scheme is refused anyway;
/// such a field fails its line (`notUTF8`). A list's other columns (a name, a caption, kept columns) are read as text
/// with U+FFFD for such bytes (`ColumnValue.notUTF8`).
enum ListURLBytes {
    /// `bytes` as text: valid UTF-8 as it is, every byte of an invalid sequence as `%` and two upper-case hex digits.
    static func escaping(_ bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar):
                output.append(contentsOf: scalar)
                offset += scalar.count
            case .error(let length):
                for byte in bytes[offset..<offset + length] { ASCIIBytes.appendEscape(byte, to: &output) }
                offset += length
            case .emptyInput:
                return String(decoding: output, as: UTF8.self)
            }
        }
    }

    /// Whether `text` begins with `http://` or `https://` (in any case): a URL whose bytes that are not UTF-8 are sent
    /// as escapes.
    static func isHTTP(_ text: String) -> Bool {
        ImageSource.hasPrefix("http://", text) || ImageSource.hasPrefix("https://", text)
    }

    /// The URL a field of `bytes`, not all UTF-8, gives: escaped (`escaping`) and without surrounding blanks;
    /// `notUTF8` when that is no http or https URL.
    static func url(_ bytes: [UInt8]) throws(ImgError) -> String {
        let url = ASCIIBytes.trimmed(escaping(bytes)[...])
        guard isHTTP(url) else { throw notUTF8 }
        return url
    }

    /// Why a URL field that is not UTF-8 and no http or https URL fails its line (named by its line).
    static let notUTF8 = ImgError.usage("the URL is not UTF-8 (only an http or https URL may hold bytes that are not: "
                                        + "they are sent as %XX escapes)")
}
