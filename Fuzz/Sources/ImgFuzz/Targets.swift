// The fuzz targets: each takes one input's bytes and must neither crash nor break the invariant it checks.
// A broken invariant is a `fatalError`, which libFuzzer reports as a crash and saves the input.
//
// `ImageDecoder`, `TruncationCheck` and the Parquet list reader are internal to ImgCore (the renderer's frames to ImgRenderer), so they need `@testable import`, which only works
// when ImgCore is built with testability: every debug build, and the fuzz build (scripts/fuzz.sh passes
// `-enable-testing`). A plain release build (`swift build -c release`) compiles this target without them.
#if DEBUG || FUZZING
@testable import ImgCore
@testable import ImgRenderer
#else
import ImgCore
#endif
import Foundation

/// One fuzz target: its name (for IMGFUZZ_TARGET and the corpus directory) and the function run on each input.
struct FuzzTarget: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (Data) -> Void

    static let all: [FuzzTarget] = [
        FuzzTarget(name: "chain", summary: "ProcessingChain.parse, and the canonical identifier parses back to itself", run: fuzzChain),
        FuzzTarget(name: "url", summary: "ImageSource(parsing:) then CacheKey.original(for:keepingQuery:), which must be a fixed point", run: fuzzURL),
        FuzzTarget(name: "entry", summary: "CacheEntryFile.parseHeader and decode, also on a slice; decoded entries re-encode to themselves", run: fuzzEntry),
        FuzzTarget(name: "header", summary: "ImageDecoder.checkHeader(isRemote: true) (libvips loader and lazy header) and TruncationCheck", run: fuzzHeader),
        FuzzTarget(name: "truncation", summary: "TruncationCheck.isTruncated for every ImageFormat", run: fuzzTruncation),
        FuzzTarget(name: "range", summary: "RangedDownload.contentRange, then whether it covers a body at extreme offsets and sizes", run: fuzzRange),
        FuzzTarget(name: "renderer", summary: "a renderer frame header: RendererFields, RendererRequest and RendererReply re-encode to themselves", run: fuzzRenderer),
        FuzzTarget(name: "parquet", summary: "ParquetFile's footer, then every row of its readable columns through ParquetRows", run: fuzzParquet),
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

private func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz invariant broken: \(message())") }
}

// MARK: chain

@Sendable func fuzzChain(_ data: Data) {
    let text = String(decoding: data, as: UTF8.self)
    guard let chain = try? ProcessingChain.parse(text) else { return }
    let identifier = chain.identifier
    check(!chain.isEmpty, "'\(text)' parsed to an empty chain")
    // The canonical identifier is itself a chain string, and a fixed point.
    do {
        let again = try ProcessingChain.parse(identifier)
        check(again.identifier == identifier, "identifier '\(identifier)' of '\(text)' re-parses as '\(again.identifier)'")
    } catch {
        fatalError("fuzz invariant broken: identifier '\(identifier)' of '\(text)' does not parse: \(error)")
    }
}

// MARK: url

@Sendable func fuzzURL(_ data: Data) {
    let text = String(decoding: data, as: UTF8.self)
    guard let source = try? ImageSource(parsing: text) else { return }
    _ = source.description
    guard case .remote(let url) = source else { return }
    for keepingQuery in [QueryInKey.none, .all] {
        // ImageSource accepted it with a non-empty host, so it must have a key.
        guard let key = CacheKey.original(for: url, query: keepingQuery) else {
            fatalError("fuzz invariant broken: accepted remote '\(text)' has no key (keepingQuery \(keepingQuery))")
        }
        // A key is a normalised URL: normalising it again changes nothing.
        guard let keySource = try? ImageSource(parsing: key), case .remote(let keyURL) = keySource else {
            fatalError("fuzz invariant broken: key '\(key)' of '\(text)' is not an accepted remote URL")
        }
        let again = CacheKey.original(for: keyURL, query: keepingQuery)
        check(again == key, "key '\(key)' of '\(text)' normalises to '\(again ?? "nil")' (keepingQuery \(keepingQuery))")
    }
}

// MARK: entry

@Sendable func fuzzEntry(_ data: Data) {
    checkEntry(data)
    // The same bytes as a slice that doesn't start at index 0, as a Data read at an offset would be.
    var padded = Data([0xAA])
    padded.append(data)
    checkEntry(padded[padded.startIndex + 1 ..< padded.endIndex])
}

private func checkEntry(_ file: Data) {
    if let (_, offset) = CacheEntryFile.parseHeader(file) {
        check(offset > 0 && offset <= file.count, "body offset \(offset) outside 1...\(file.count)")
    }
    guard let (metadata, body) = CacheEntryFile.decode(file) else { return }
    check(body.count == metadata.size, "decoded body is \(body.count) bytes, metadata says \(metadata.size)")
    let encoded = CacheEntryFile.encode(metadata, body: body)
    guard let (metadata2, body2) = CacheEntryFile.decode(encoded) else {
        fatalError("fuzz invariant broken: a decoded entry re-encodes to bytes that don't decode")
    }
    check(metadata2 == metadata && body2 == body, "a decoded entry does not survive encode/decode")
}

// MARK: header and truncation

@Sendable func fuzzHeader(_ data: Data) {
    #if DEBUG || FUZZING
    var input = VipsInput(.memory(data))
    if let header = try? ImageDecoder.checkHeader(&input, isRemote: true, options: DecodeOptions()) {
        check(header.width > 0 && header.frameHeight > 0 && header.frames > 0,
              "header \(header.width)x\(header.frameHeight)x\(header.frames) frames accepted")
    }
    fuzzTruncation(data)
    #else
    _ = try? Rendering.probe(data)
    #endif
}

@Sendable func fuzzTruncation(_ data: Data) {
    #if DEBUG || FUZZING
    let input = VipsInput(.memory(data))
    for format in ImageFormat.allCases { _ = try? IntegrityCheck.damage(in: input, format: format) }
    #endif
}

// MARK: range

/// A `Content-Range` value (the server's numbers, up to Int64.max), matched against bodies at offsets and sizes
/// up to the extremes: no overflow, and a match means the range's offsets are the body's.
@Sendable func fuzzRange(_ data: Data) {
    #if DEBUG || FUZZING
    let text = String(decoding: data, as: UTF8.self)
    guard let range = RangedDownload.contentRange(text) else { return }
    check(range.last >= range.first, "'\(text)' parsed with last \(range.last) before first \(range.first)")
    for offset in [0, range.first, Int64.max, Int64.max - 1] {
        for count in [0, 1, 10, Int.max, Int(clamping: range.last - range.first)] {
            if RangedDownload.range(range, covers: count, from: offset) {
                check(range.first == offset && range.last - range.first == Int64(count) - 1,
                      "'\(text)' matched \(count) bytes from \(offset)")
            }
        }
    }
    #endif
}

// MARK: renderer

@Sendable func fuzzRenderer(_ data: Data) {
    #if DEBUG || FUZZING
    guard let fields = RendererFields(data) else { return }
    // Whatever parses re-encodes to the same pairs.
    guard let again = RendererFields(fields.data) else { fatalError("fuzz invariant broken: fields of \(data as NSData) do not re-parse") }
    check(again.pairs.map(\.key) == fields.pairs.map(\.key) && again.pairs.map(\.value) == fields.pairs.map(\.value),
          "fields of \(data as NSData) re-parse differently")
    if let request = RendererRequest(fields: fields) {
        let reparsed = RendererRequest(fields: request.fields)
        check(reparsed?.command == request.command && reparsed?.job == request.job, "request \(fields.pairs) does not round-trip")
        if let job = request.job { _ = try? ProcessingChain.parse(job.chain) }
    }
    if let reply = RendererReply(fields: fields) {
        let reparsed = RendererReply(fields: reply.fields)
        check(reparsed?.format == reply.format && reparsed?.width == reply.width && reparsed?.notes == reply.notes
              && reparsed?.failure?.message == reply.failure?.message, "reply \(fields.pairs) does not round-trip")
    }
    #endif
}

// MARK: parquet

/// The Parquet list reader on a file of these bytes (in /dev/shm, unlinked once opened): its footer, then the rows of
/// every column it can read, up to 100,000. No more rows than the row groups declare, each with exactly the columns
/// asked for.
@Sendable func fuzzParquet(_ data: Data) {
    #if DEBUG || FUZZING
    let path = "/dev/shm/imgfuzz-parquet-\(getpid())"
    guard FileManager.default.createFile(atPath: path, contents: data) else { fatalError("cannot write \(path)") }
    let file = try? ParquetFile(path: path)
    unlink(path)
    guard let file else { return }
    let names = Set(file.columns.filter { $0.unreadableReason == nil }.map(\.name))
    let declared = file.rowGroups.reduce(Int64(0)) { $0 &+ max(0, min($1.rows, Int64(1) << 40)) }
    let rows = ParquetRows(file, columns: Array(names))
    var count: Int64 = 0
    while count < 100_000, let row = try? rows.next() {
        count += 1
        check(count <= declared, "row \(count) of \(declared) declared")
        check(Set(row.keys) == names, "a row with columns \(row.keys.sorted()) where \(names.sorted()) were asked")
    }
    #endif
}
