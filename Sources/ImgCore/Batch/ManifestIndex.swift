import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An earlier manifest, read once in windows of `windowBytes` and kept open: for each list line, where the record
/// that settles it starts in the file and how long it is, packed in one `UInt64` (`offset << 24 | length`). That is
/// its last record, but a `skipped` one (not done: a run was stopping) never replaces an earlier record of its line,
/// which still says what became of the line (unless it withdraws that run's record, `ManifestRecord.withdrawsOK`); a
/// line with only `skipped` records keeps its first. Records are read
/// back with `pread(2)` (safe from any thread) when their line comes up. The index is never changed after `init`.
final class ManifestIndex: @unchecked Sendable { // owns a file descriptor, closed on deinit; the index is immutable
    /// What a read takes at once: 1 MiB.
    static let windowBytes = 1 << 20
    /// A record longer than this (16 MiB less a byte: its length takes 24 bits) is not one imgfetch wrote; ignored.
    static let maxRecordBytes = (1 << 24) - 1

    private let descriptor: Int32
    private let offsets: [Int32: UInt64]
    /// The ids of the WebDataset tars its records name (`ManifestOutput.tarID`), in any record.
    let tarIDs: Set<String>

    var count: Int { offsets.count }

    /// Reads `path` to its end; an `io` error when it can't be opened or read.
    init(reading path: String) throws(ImgError) {
        // Not blocking: a FIFO there would wait for a writer for ever. Only a regular file is read.
        let opened = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard opened >= 0 else { throw .io(String(cString: strerror(errno))) }
        var status = stat()
        guard fstat(opened, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(opened)
            throw .io("not a regular file")
        }
        var offsets: [Int32: UInt64] = [:]
        var tarIDs = Set<String>()
        let scanned = Self.scan(opened) { record, ids, offset, length in
            tarIDs.formUnion(ids)
            if record.status == "skipped", record.withdrawsOK != true, offsets[record.line] != nil { return }
            offsets[record.line] = UInt64(offset) << 24 | UInt64(length)
        }
        guard scanned else {
            let reason = String(cString: strerror(errno))
            close(opened)
            throw .io(reason)
        }
        (descriptor, self.offsets, self.tarIDs) = (opened, offsets, tarIDs)
    }

    deinit { close(descriptor) }

    /// The record that settles `line` (see the type), decoded from the file; nil when it has none or it no longer
    /// decodes.
    func record(line: Int) -> ManifestRecord? {
        guard let key = Int32(exactly: line), let packed = offsets[key] else { return nil }
        let offset = off_t(packed >> 24), length = Int(packed & 0xFF_FFFF)
        var data = Data(count: length)
        let got = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, length, offset) }
        guard got == length, let record = try? JSONDecoder().decode(ManifestRecord.self, from: data),
              record.line == line else { return nil }
        return record
    }

    /// The fields a record's line is indexed by (decoding checks the whole line is JSON).
    private struct IndexedFields: Decodable {
        var line: Int32
        var status: String
        var withdrawsOK: Bool?
        enum CodingKeys: String, CodingKey { case line, status, withdrawsOK = "withdraws_ok" }
    }

    /// A record's WebDataset tars, decoded only from a line that names one (`tar_id`): most manifests have none.
    private struct TarFields: Decodable {
        struct Output: Decodable {
            var tarID: String?
            enum CodingKeys: String, CodingKey { case tarID = "tar_id" }
        }
        var outputs: [Output]?

        static let marker = Array(#""tar_id""#.utf8)

        /// The ids the record in `bytes` names.
        static func ids(in bytes: ArraySlice<UInt8>, decoder: JSONDecoder) -> [String] {
            guard bytes.firstRange(of: marker) != nil,
                  let fields = try? decoder.decode(TarFields.self, from: Data(bytes)) else { return [] }
            return (fields.outputs ?? []).compactMap(\.tarID)
        }
    }

    /// Calls `found(fields, tarIDs, offset, length)` for each line of the file that is a record, in file order;
    /// false when a read failed (`errno` says why).
    private static func scan(_ descriptor: Int32, found: (IndexedFields, [String], Int, Int) -> Void) -> Bool {
        var window = [UInt8](repeating: 0, count: windowBytes)
        var pending: [UInt8] = []  // the start of a line the previous window ended inside
        var pendingStart = 0, position = 0, tooLong = false
        let decoder = JSONDecoder()
        func consider(_ bytes: ArraySlice<UInt8>, _ start: Int) {
            guard bytes.first == UInt8(ascii: "{"), bytes.count <= maxRecordBytes,
                  let record = try? decoder.decode(IndexedFields.self, from: Data(bytes)) else { return }
            found(record, TarFields.ids(in: bytes, decoder: decoder), start, bytes.count)
        }
        while true {
            let got = window.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, windowBytes) }
            if got < 0 { if errno == EINTR { continue } else { return false } }
            if got == 0 { break }
            var lineStart = 0
            for index in 0..<got where window[index] == 0x0A {
                if pending.isEmpty && !tooLong {
                    consider(window[lineStart..<index], position + lineStart)
                } else {
                    if !tooLong { pending += window[lineStart..<index] }
                    if !tooLong { consider(pending[...], pendingStart) }
                    (pending, tooLong) = ([], false)
                }
                lineStart = index + 1
            }
            if lineStart < got {
                if pending.isEmpty && !tooLong { pendingStart = position + lineStart }
                if !tooLong { pending += window[lineStart..<got] }
                if pending.count > maxRecordBytes { (pending, tooLong) = ([], true) }
            }
            position += got
        }
        // A last line without a newline: the torn line of a killed run does not decode and is ignored.
        if !pending.isEmpty, !tooLong { consider(pending[...], pendingStart) }
        return true
    }
}
