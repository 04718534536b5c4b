import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One line of a batch list that names an image: where it comes from and, optionally, the name its outputs take.
public struct BatchItem: Sendable {
    /// Position among the items handed to workers, from 0 in input order.
    public var sequence: Int
    /// The line number in its list (1-based, counting blank and comment lines), as `{index}` gives it; with several
    /// inputs (lists; prefetch's words and `--from` list), counted on through them (`position` is the line in its own).
    public var line: Int
    /// Its list and its line there, when the batch reads several inputs; nil with one, and for a word given on the
    /// command line.
    public var position: ListPosition?
    /// The first column as written.
    public var input: String
    /// The whole line as written (without its surrounding blanks) when it is not of the form `URL [NAME]` (it has
    /// more columns): messages name such a line by its number and the manifest records this, not a first column.
    /// Nil for a line of that form.
    public var malformedLine: String?
    /// The parsed source, or the reason the line is unusable (reported as that item's failure).
    public var source: Result<ImageSource, ImgError>
    /// The names claimed for its outputs (one per variant, in order) under `-O`; empty without an output directory.
    var outputNames: [ClaimedOutputName] = []
    /// The original key of its source; nil for an unusable line (or one with no key).
    var originalKey: String?
    /// The key each output is asked under (`BatchRequests.outputKey`), one per variant in order, worked out once when
    /// the line is read: its names' `{hash}`, `--resume` and the manifest take these. Empty when the line's first
    /// column has no original key.
    var outputKeys: [String] = []
    /// The output format the list's second column names by its extension (`thumb.png`), as `-o`'s would; nil when it
    /// names none.
    var format: ImageFormat?
    /// The record an earlier run's manifest settles this line with: it is not run.
    var carried: ManifestRecord?
    /// The columns `--keep-columns` names, by name, as the row gave them (strings for CSV and TSV, JSON values for
    /// JSON Lines): what the manifest, `--json` and a sample's metadata carry. Nil when none are kept.
    public var columns: [String: ColumnValue]?
    /// The caption column's text (`ListLayout.captionColumn`): a WebDataset sample's `KEY.txt`. Nil without one.
    public var caption: String?
    /// The SHA-256 its original must have (`ListLayout.sha256Column`), lower-case; nil: nothing is checked.
    public var expectedSHA256: String?
    /// With `carried` and `--verify-outputs`: the files whose SHA-256 a worker checks first (the line runs if one
    /// differs).
    var verifying: [RecordedFile] = []
    /// Why a line the earlier manifest records as `ok` runs again (`--resume`); nil when it has no such record.
    public var redone: ResumeMismatch?
    /// With a WebDataset output: why a line whose `ok` sample is in a complete tar would have run again, had its sample
    /// not been there (a tar's sample is never replaced: a second one would give the line twice); the line is
    /// carried as done earlier. Nil otherwise.
    public var keptInTar: ResumeMismatch?
}

/// Where batch lines come from: a file, standard input, or words given on the command line.
public enum BatchInput: Sendable {
    case file(String)
    case standardInput
    /// Words given on the command line: each one URL as given, not a list line.
    case words([String])
}

/// Streams batch lines in fixed-size reads, so a list of any length is read in constant memory.
/// Blank lines and lines starting with `#` are skipped; a line is `URL [NAME]`, columns separated by spaces or tabs.
/// A word given on the command line (`BatchInput.words`) is one URL whatever it holds: none of these rules apply.
/// A UTF-8 byte order mark at the start of a file or of standard input (Windows editors and Excel write one) is
/// ignored.
public final class BatchListReader {
    private let inputs: [BatchInput]
    private var inputIndex = 0
    private var descriptor: Int32 = -1
    private var ownsDescriptor = false
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    private var atEnd = true
    private var words: ArraySlice<String> = []
    /// The number of the last line read in the current input (its lines so far, when it is read to its end).
    private(set) var lineNumber = 0
    /// The current input is words given on the command line.
    private var readingWords = false
    /// True until the first line of the current file or standard input is taken: where a byte order mark may be.
    private var atStartOfInput = false

    /// Reads `inputs` one after the other.
    public init(_ inputs: [BatchInput]) {
        self.inputs = inputs
    }

    deinit { closeCurrent() }

    /// Why the lists could not be read to their end (a file that can't be opened, a read error): the lines before it
    /// were returned, none after it. Nil while all is well.
    public private(set) var failure: ImgError?

    /// Checks up front that every listed file can be opened and is not a directory (a usage error otherwise).
    public static func checkReadable(_ inputs: [BatchInput]) throws(ImgError) {
        for case .file(let path) in inputs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
                  FileManager.default.isReadableFile(atPath: path) else {
                throw .usage("cannot read list '\(path)': no such readable file")
            }
            if isDirectory.boolValue { throw .usage("cannot read list '\(path)': it is a directory") }
        }
    }

    /// The longest line read, in bytes: 64 KiB. A longer line is not kept (the list is read in constant memory
    /// whatever it holds): `nextLine` gives it with `tooLong` and its first 100 characters and `…` as the first column.
    public static let maxLineBytes = 64 << 10

    /// The next non-blank, non-comment line as a plain list's row (`ListRowReader.plainRow`, its `failure` included:
    /// a path or a URL of another scheme that is not UTF-8), or nil at the end. A word given on the command line is
    /// one first column as given: not trimmed, split or skipped.
    public func nextLine() -> ListRow? {
        while let physical = nextPhysicalLine() {
            if let row = ListRowReader.plainRow(physical) { return row }
        }
        return nil
    }

    /// The next physical line, blank and comment lines included, or nil at the end: what a list with columns
    /// (`ListRowReader`) is assembled from.
    func nextPhysicalLine() -> PhysicalLine? {
        guard let raw = nextRawLine() else { return nil }
        let isWord = readingWords
        if let start = tooLongStart {
            tooLongStart = nil
            return (lineNumber, start, true, isWord, nil)
        }
        return (lineNumber, raw, false, isWord, isWord ? nil : lineBytes)
    }

    /// The bytes of the line `nextRawLine` read last from a file or standard input (without a byte order mark) when
    /// they are not all UTF-8; nil when they are.
    private var lineBytes: [UInt8]?

    /// Lines of standard input read before this reader took it (a list's header, read by `ListLayout.prepare`):
    /// its line numbers count on from them. Default 0.
    var standardInputLinesTaken = 0

    /// The start of the line just returned by `nextRawLine` when it was over `maxLineBytes` (its rest was skipped).
    private var tooLongStart: String?
    /// Skipping the rest of a line over `maxLineBytes`, up to its newline.
    private var skippingLongLine = false

    private func nextRawLine() -> String? {
        while true {
            if descriptor < 0, words.isEmpty, !openNext() { return nil }
            if !words.isEmpty {
                lineNumber += 1
                return words.popFirst()
            }
            if let newline = buffer[bufferStart...].firstIndex(of: 0x0A) {
                if skippingLongLine {
                    skippingLongLine = false
                    bufferStart = newline + 1
                    return ""
                }
                guard newline - bufferStart <= Self.maxLineBytes else {
                    startSkipping()
                    bufferStart = newline + 1
                    skippingLongLine = false
                    return ""
                }
                let line = text(of: buffer[bufferStart..<newline])
                bufferStart = newline + 1
                lineNumber += 1
                return line
            }
            if skippingLongLine {
                buffer.removeAll(keepingCapacity: true)
                bufferStart = 0
            } else if buffer.count - bufferStart > Self.maxLineBytes {
                startSkipping()
                buffer.removeAll(keepingCapacity: true)
                bufferStart = 0
            }
            if atEnd {
                closeCurrent()
                if skippingLongLine {
                    skippingLongLine = false
                    return ""
                }
                if bufferStart < buffer.count {
                    let line = text(of: buffer[bufferStart...])
                    buffer.removeAll(keepingCapacity: true)
                    bufferStart = 0
                    lineNumber += 1
                    return line
                }
                buffer.removeAll(keepingCapacity: true)
                bufferStart = 0
                continue
            }
            fill()
        }
    }

    /// Notes that the line at `bufferStart` is over `maxLineBytes`: its first 100 characters and `…` are kept for the
    /// report, the rest is skipped as it is read.
    private func startSkipping() {
        lineNumber += 1
        // The cut is marked, so that no report gives the start for the whole line.
        tooLongStart = String(text(of: buffer[bufferStart..<min(buffer.count, bufferStart + 400)]).prefix(100)) + "…"
        skippingLongLine = true
    }

    /// A raw line as text, U+FFFD for each sequence that is not UTF-8 (its bytes then kept as `lineBytes`); the
    /// first of an input loses its byte order mark (EF BB BF), if any.
    private func text(of bytes: ArraySlice<UInt8>) -> String {
        var bytes = bytes
        if atStartOfInput, bytes.starts(with: Self.byteOrderMark) { bytes = bytes.dropFirst(Self.byteOrderMark.count) }
        atStartOfInput = false
        if let text = String(validating: bytes, as: UTF8.self) {
            lineBytes = nil
            return text
        }
        lineBytes = Array(bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Reads up to 64 KiB more, dropping what was consumed.
    private func fill() {
        if bufferStart > 0 {
            buffer.removeFirst(bufferStart)
            bufferStart = 0
        }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            let code = errno
            if code == EINTR { return }
            stop(because: "\(String(cString: strerror(code)))")
            return
        }
        if count == 0 {
            atEnd = true
            return
        }
        buffer.append(contentsOf: chunk[0..<count])
    }

    private func openNext() -> Bool {
        while inputIndex < inputs.count {
            let input = inputs[inputIndex]
            inputIndex += 1
            lineNumber = 0
            readingWords = false
            switch input {
            case .words(let list):
                guard !list.isEmpty else { continue }
                words = list[...]
                readingWords = true
                return true
            case .standardInput:
                descriptor = STDIN_FILENO
                ownsDescriptor = false
                lineNumber = standardInputLinesTaken
            case .file(let path):
                descriptor = open(path, O_RDONLY | O_CLOEXEC)
                ownsDescriptor = true
                guard descriptor >= 0 else {
                    stop(because: "\(String(cString: strerror(errno)))")
                    return false
                }
            }
            atEnd = false
            atStartOfInput = true
            return true
        }
        return false
    }

    /// Ends the reading at a failure of the current input: what was read before it stands, nothing more is read.
    private func stop(because reason: String) {
        let name: String = switch inputs[inputIndex - 1] {
        case .file(let path): "'\(path)'"
        case .standardInput: "'-' (standard input)"
        case .words: "arguments"
        }
        failure = .io("cannot read list \(name): \(reason)")
        closeCurrent()
        buffer.removeAll()
        bufferStart = 0
        inputIndex = inputs.count
    }

    private func closeCurrent() {
        if descriptor >= 0, ownsDescriptor { close(descriptor) }
        descriptor = -1
        atEnd = true
    }
}
