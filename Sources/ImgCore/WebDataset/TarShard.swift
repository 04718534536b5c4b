import CArchive
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One WebDataset tar being written: members are appended with libarchive (pax restricted: plain ustar for a
/// sample's short names) to a named temporary in the output folder, which takes the tar's name only once the tar
/// is complete, its `NAME_stats.json` written beside it first. Until then nothing is at the tar's name; a process
/// killed meanwhile leaves only the temporary, removed by the next run that opens the folder.
final class TarShard {
    /// `00000.tar`.
    let name: String
    /// Set in the tar's stats file and in the manifest records of its samples: a sample recorded in a tar of this
    /// name is in it only when the stats beside it carry this id (a later run may have written another tar there).
    let id: String
    /// Samples appended.
    private(set) var samples = 0
    /// Bytes of the images appended.
    private(set) var imageBytes = 0
    /// Lines retired while this tar was being written, by status (`ok`, `failed`, ...).
    var statuses: [String: Int] = [:]
    /// Its lines as a Parquet table (`SampleTableShape`) (`NAME.parquet`), written beside it under a temporary as it fills;
    /// nil when none is written.
    private var table: (writer: ParquetWriter, descriptor: Int32, staged: StagedOutput)?
    private let folder: OutputFolder
    private let descriptor: Int32
    private let staged: StagedOutput
    private var archive: OpaquePointer?

    /// A tar's id as its stats and the manifest give it: always 16 lowercase hex digits, a leading zero kept.
    static func idText(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// A new tar `name` in `folder`, written under a temporary; with `table`, its Parquet table too.
    init(name: String, folder: OutputFolder, table: Bool) throws(ImgError) {
        self.name = name
        self.folder = folder
        id = Self.idText(UInt64.random(in: 0...UInt64.max))
        let shown = "\(folder.path)/\(name)"
        (descriptor, staged) = try folder.createGrowing(shownAs: shown)
        guard let opened = imgf_tar_open(descriptor) else {
            close(descriptor)
            staged.discard()
            let reason = String(cString: imgf_archive_load_error())
            throw .io("cannot write \(shown): \(reason.isEmpty ? "libarchive could not make a tar writer" : reason)")
        }
        archive = opened
        if table {
            do throws(ImgError) {
                self.table = try Self.openTable(WebDatasetLayout.parquetName(ofTar: name), in: folder)
            } catch {
                abandon()
                throw error
            }
        }
    }

    /// A Parquet writer into a new temporary of `folder`, to be named `name`.
    private static func openTable(_ name: String, in folder: OutputFolder) throws(ImgError)
        -> (writer: ParquetWriter, descriptor: Int32, staged: StagedOutput) {
        let shown = "\(folder.path)/\(name)"
        let (descriptor, staged) = try folder.createGrowing(shownAs: shown)
        do throws(ImgError) {
            let writer = try ParquetWriter { (data: Data) throws(ImgError) in
                guard data.withUnsafeBytes({ FileWriting.writeAll(descriptor, $0) }) else {
                    folder.noteWriteFailure(errno)
                    throw .io("cannot write \(shown): \(String(cString: strerror(errno)))")
                }
            }
            return (writer, descriptor, staged)
        } catch {
            close(descriptor)
            staged.discard()
            throw error
        }
    }

    deinit { abandon() }

    /// Appends a member `member` with `bytes`, a sample's image or JSON.
    func add(member: String, bytes: EncodedBytes) throws(ImgError) {
        guard let archive else { throw .internalFailure("tar \(name) written after it was closed") }
        var failed = imgf_tar_begin(archive, member, Int64(bytes.count), time(nil)) != ARCHIVE_OK
        if !failed {
            switch bytes {
            case .memory(let data):
                failed = !data.isEmpty && data.withUnsafeBytes { imgf_tar_data(archive, $0.baseAddress, $0.count) } != data.count
            case .file(let region):
                var written = 0
                let read = region.forEachWindow { window in
                    if imgf_tar_data(archive, window.baseAddress, window.count) == window.count { written += window.count }
                }
                failed = !read || written != region.count
            }
        }
        if !failed { failed = imgf_tar_end(archive) != ARCHIVE_OK }
        if failed { throw failure(member) }
    }

    /// Appends one sample: its image as `KEY.EXT`, its caption (if any) as `KEY.txt`, then its metadata as
    /// `KEY.json`.
    func add(key: String, ext: String, image: EncodedBytes, caption: String?, metadata: Data,
             row: @autoclosure () -> [(name: String, value: ParquetRowGroup.Value)]) throws(ImgError) {
        try add(member: "\(key).\(ext)", bytes: image)
        if let caption { try add(member: "\(key).txt", bytes: .memory(Data(caption.utf8))) }
        try add(member: "\(key).json", bytes: .memory(metadata))
        try table?.writer.append(row())
        samples += 1
        imageBytes += image.count
    }

    /// Appends the row of a line that gave no sample to the table, if any.
    func addRow(_ row: [(name: String, value: ParquetRowGroup.Value)]) throws(ImgError) {
        try table?.writer.append(row)
    }

    /// Ends the tar, writes its table (if any) as `NAME.parquet` and `stats(tarBytes)` as `NAME_stats.json`, and gives
    /// the tar its name; returns the tar's size. Each takes its name only where nothing has it (`commitNew`): a tar of
    /// that name written meanwhile by another process is never replaced, and this one fails. On failure the
    /// temporaries are removed, and so are the table and stats this tar named; what another process named stays.
    func complete(stats: (Int) -> Data) throws(ImgError) -> Int {
        guard let archive else { throw .internalFailure("tar \(name) completed twice") }
        self.archive = nil
        let ended = imgf_tar_close(archive) == ARCHIVE_OK
        var info = stat()
        let measured = fstat(descriptor, &info) == 0
        let closed = close(descriptor) == 0
        guard ended, measured, closed else {
            folder.noteWriteFailure(errno)
            staged.discard()
            discardTable()
            throw .io("cannot write \(folder.path)/\(name): \(String(cString: strerror(errno)))")
        }
        let size = Int(info.st_size)
        var named: [String] = []
        do throws(ImgError) {
            if try completeTable() { named.append(WebDatasetLayout.parquetName(ofTar: name)) }
            let statsName = WebDatasetLayout.statsName(ofTar: name)
            try folder.writeNew(stats(size), as: statsName)
            named.append(statsName)
            try folder.commitNew(staged, as: name)
        } catch {
            // Nothing of this tar stands at the names of a tar that did not take its own.
            staged.discard()
            discardTable()
            for companion in named { unlinkat(folder.descriptor, companion, 0) }
            throw error
        }
        return size
    }

    /// Gives the tar up: the writer freed, the temporaries removed. Nothing happens once it is complete.
    func abandon() {
        discardTable()
        guard let archive else { return }
        self.archive = nil
        imgf_tar_abandon(archive)
        close(descriptor)
        staged.discard()
    }

    /// Ends the table, if any, and gives it its name where nothing has it; whether there was one. On failure its
    /// temporary is removed.
    private func completeTable() throws(ImgError) -> Bool {
        guard var table else { return false }
        do throws(ImgError) {
            try table.writer.finish(createdBy: "imgfetch")
        } catch {
            discardTable()
            throw error
        }
        self.table = nil
        let tableName = WebDatasetLayout.parquetName(ofTar: name)
        guard close(table.descriptor) == 0 else {
            table.staged.discard()
            throw .io("cannot write \(folder.path)/\(tableName): \(String(cString: strerror(errno)))")
        }
        try folder.commitNew(table.staged, as: tableName)
        return true
    }

    /// Gives the table up, if any: its descriptor closed, its temporary removed.
    private func discardTable() {
        guard let table else { return }
        self.table = nil
        close(table.descriptor)
        table.staged.discard()
    }

    private func failure(_ member: String) -> ImgError {
        let code = archive.map { imgf_tar_errno($0) }.flatMap { $0 > 0 ? $0 : nil } ?? errno
        folder.noteWriteFailure(code)
        let reason = code > 0 ? String(cString: strerror(code)) : archive.map { String(cString: imgf_tar_error($0)) } ?? ""
        return .io("cannot write \(member) into \(folder.path)/\(name): \(reason)")
    }
}
