/// Splits CSV (RFC 4180) or TSV records into fields, one physical line at a time: a field may be quoted (`"a, b"`),
/// a quote inside a quoted field is doubled (`""`), and a quoted field may hold delimiters and line breaks, so one
/// record may take several lines. A quote inside an unquoted field is kept as it is; text after a closing quote
/// (`"a"b`) is malformed. TSV is read alike with a tab for the comma (fields are seldom quoted there, and a caption
/// holding a tab must be). A line's trailing carriage return (CRLF line ends) is not part of it, but for a line break
/// inside a quoted field: that is kept as written (CR LF or LF), as RFC 4180 keeps a quoted field's bytes. A field
/// whose bytes are not all UTF-8 reads as text with U+FFFD for each invalid sequence, and its bytes are kept too.
struct DelimitedRecordParser {
    enum Outcome: Equatable {
        /// The record's fields, in order, as text; the bytes of those that are not all UTF-8, by position (default
        /// none).
        case complete([String], notUTF8: [Int: [UInt8]] = [:])
        /// A quoted field goes on on the next line.
        case incomplete
        /// Why the record is not CSV (its remaining lines are not fed).
        case malformed(String)
    }

    /// The delimiter byte: a comma (0x2C) or a tab (0x09).
    let delimiter: UInt8
    private var fields: [String] = []
    /// The bytes of the fields so far that are not all UTF-8, by position.
    private var notUTF8: [Int: [UInt8]] = [:]
    private var field: [UInt8] = []
    private var inQuotes = false
    /// A quote closed the field just now: a second quote is a quote in it, the delimiter ends it.
    private var afterClosingQuote = false
    /// The current field has a byte (or an opening quote) already: a quote is no longer an opening one.
    private var fieldStarted = false
    /// Bytes in the record so far.
    private(set) var bytes = 0

    init(delimiter: UInt8) { self.delimiter = delimiter }

    /// Whether a record has begun and is waiting for its next line.
    var isInsideRecord: Bool { inQuotes }

    /// Reads one physical line (without its newline) into the record: `bytes` when the line is not all UTF-8 (its
    /// text has U+FFFD for those bytes), else `line`.
    mutating func feed(_ line: String, bytes lineBytes: [UInt8]? = nil) -> Outcome {
        if let lineBytes { return feed(bytesOf: lineBytes) }
        return feed(bytesOf: line.utf8)
    }

    private mutating func feed(bytesOf line: some BidirectionalCollection<UInt8>) -> Outcome {
        let carriageReturn = line.last == 0x0D
        let text = carriageReturn ? line.dropLast() : line[...]
        bytes += line.count + 1
        for byte in text {
            if inQuotes {
                if byte == 0x22 { (inQuotes, afterClosingQuote) = (false, true) } else { field.append(byte) }
            } else if afterClosingQuote {
                if byte == 0x22 {
                    field.append(byte)
                    (inQuotes, afterClosingQuote) = (true, false)
                } else if byte == delimiter {
                    endField()
                } else {
                    // Named before `reset()` forgets the fields before it: the field's place from 1.
                    let field = fields.count + 1
                    reset()
                    return .malformed("text after the closing quote of field \(field)")
                }
            } else if byte == delimiter {
                endField()
            } else if byte == 0x22, !fieldStarted {
                (inQuotes, fieldStarted) = (true, true)
            } else {
                field.append(byte)
                fieldStarted = true
            }
        }
        if inQuotes {
            field.append(contentsOf: carriageReturn ? [0x0D, 0x0A] : [0x0A])
            return .incomplete
        }
        endField()
        let (record, invalid) = (fields, notUTF8)
        reset()
        return .complete(record, notUTF8: invalid)
    }

    /// Forgets the record begun (a quoted field that never closed).
    mutating func reset() {
        fields = []
        notUTF8 = [:]
        field = []
        (inQuotes, afterClosingQuote, fieldStarted, bytes) = (false, false, false, 0)
    }

    private mutating func endField() {
        if let text = String(validating: field, as: UTF8.self) {
            fields.append(text)
        } else {
            notUTF8[fields.count] = field
            fields.append(String(decoding: field, as: UTF8.self))
        }
        field.removeAll(keepingCapacity: true)
        (afterClosingQuote, fieldStarted) = (false, false)
    }
}
