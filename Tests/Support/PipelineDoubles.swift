import Dispatch
import Foundation
@testable import ImgCore

/// What the doubles saw, in order, across all of them (e.g. "lock a", "load a", "store original a", "release a").
final class EventLog: Sendable {
    private let events = Locked<[String]>([])
    private let headers = Locked<[ImageHeader?]>([])
    private let threads = Locked<[Int?]>([])

    func record(_ event: String) { events.withLock { $0.append(event) } }
    /// What each rendering was given as already inspected (`RenderingContext.inspected`), in order.
    func noteInspected(_ header: ImageHeader?) { headers.withLock { $0.append(header) } }
    var inspectedByRendering: [ImageHeader?] { headers.withLock { $0 } }
    /// What each rendering was given as its libvips threads (`RenderingContext.threadsPerRendering`), in order.
    func noteThreads(_ count: Int?) { threads.withLock { $0.append(count) } }
    var threadsByRendering: [Int?] { threads.withLock { $0 } }
    var all: [String] { events.withLock { $0 } }
    func count(_ prefix: String) -> Int { all.filter { $0.hasPrefix(prefix) }.count }
}

/// A blocked stage, released by the test.
final class Gate: Sendable {
    private let open = DispatchSemaphore(value: 0)
    private let entered = Locked(0)

    /// Called by a double: counts the caller and waits until `release`.
    func pass() {
        entered.withLock { $0 += 1 }
        open.wait()
        open.signal()
    }

    var callers: Int { entered.withLock { $0 } }
    func release() { open.signal() }
}

/// Answers each URL with the bytes `"original of URL"` (ETag `"v2"`), or a 304 when the request sends `If-None-Match`
/// and `notModified` is set; counts loads and records the validators sent.
struct CountingLoader: DataLoading {
    let log: EventLog
    var notModified = false
    var gate: Gate?

    func load(_ url: URL, validators: Validators?) throws(ImgError) -> HTTPResponse {
        log.record("load \(url.path) validators=\(validators?.etag ?? "none")")
        gate?.pass()
        if notModified, validators?.etag != nil {
            return HTTPResponse(status: 304, content: .memory(Data()), contentType: nil, etag: nil, lastModified: nil)
        }
        return HTTPResponse(status: 200, content: .memory(Data("original of \(url.path)".utf8)), contentType: "image/png",
                            etag: "\"v2\"", lastModified: nil)
    }
}

/// Renders `original` into `"<chain>(<original>)"`; fails on originals that contain "corrupt"; counts renderings.
struct CountingRendering: ImageRendering {
    let log: EventLog
    var gate: Gate?

    func inspect(_ original: EncodedBytes, for request: ImageRequest) throws(ImgError) -> ImageHeader? {
        log.record("inspect")
        return ImageHeader(format: .png, width: 8, height: 6)
    }

    func render(_ request: ImageRequest, from original: EncodedBytes, context: RenderingContext) throws(ImgError)
        -> EncodedImage {
        log.record("render \(request.chain.identifier)")
        log.noteInspected(context.inspected)
        log.noteThreads(context.threadsPerRendering)
        gate?.pass()
        let text = String(decoding: original.data, as: UTF8.self)
        if text.contains("corrupt") { throw .image("corrupt image") }
        return EncodedImage(data: Data("\(request.chain.identifier)(\(text))".utf8), format: .png, width: 4, height: 3, frames: 1)
    }
}

/// Entries in memory, each fresh or expired as the test says; its download lock and every write go to the log.
final class MemoryEntryStore: EntryStoring {
    struct Entry: Sendable {
        var metadata: CacheEntryMetadata
        var body: Data
        var expired: Bool
    }

    let log: EventLog
    private let entries = Locked<[EntryName: Entry]>([:])

    init(log: EventLog) { self.log = log }

    subscript(entry: EntryName) -> Entry? {
        get { entries.withLock { $0[entry] } }
        set { entries.withLock { $0[entry] = newValue } }
    }

    /// Puts an entry in, fresh or expired, with an ETag or none.
    func put(_ entry: EntryName, body: String, expired: Bool, etag: String?) {
        let kind: CacheEntryMetadata.Kind = if case .original = entry { .original } else { .variant }
        let metadata = CacheEntryMetadata(url: "http://127.0.0.1/x", key: entry.originalKey, variant: nil, kind: kind,
                                          size: body.utf8.count, xxh3: "", format: "png", width: 4, height: 3,
                                          created: 0, ttl: 60, etag: etag, lastModified: nil, contentType: "image/png")
        self[entry] = Entry(metadata: metadata, body: Data(body.utf8), expired: expired)
    }

    func lookup(_ entry: EntryName, inPlace: Bool) -> EntryLookup {
        guard let found = self[entry] else { return .missing }
        return found.expired ? .expired(found.metadata, .memory(found.body)) : .fresh(found.metadata, .memory(found.body))
    }

    func recordedMetadata(of entry: EntryName) -> CacheEntryMetadata? { self[entry]?.metadata }

    func touch(_ entry: EntryName, ttl: Int64?) -> Bool {
        log.record("touch \(Self.name(entry))")
        return entries.withLock { entries in
            entries[entry]?.expired = false
            return entries[entry] != nil
        }
    }

    func store(_ body: EncodedBytes, metadata: CacheEntryMetadata, as entry: EntryName) throws(ImgError) {
        log.record("store \(Self.name(entry))")
        self[entry] = Entry(metadata: metadata, body: body.data, expired: false)
    }

    func remove(_ entry: EntryName) {
        log.record("remove \(Self.name(entry))")
        self[entry] = nil
    }

    func removeVariants(ofOriginal key: String) {
        entries.withLock { entries in entries = entries.filter { if case .variant = $0.key { $0.key.originalKey != key } else { true } } }
    }

    func removeEverything(ofOriginal key: String) {
        entries.withLock { entries in entries = entries.filter { $0.key.originalKey != key } }
    }

    func downloadLock(ofOriginal key: String, timeout: Double, cancellation: Cancellation?) -> (any EntryLock)? {
        log.record("lock")
        return LoggedLock(log: log)
    }

    var spoolDirectory: String? { nil }

    /// The limit a batch asked this store to keep within, and the originals it spared when asked last.
    let keptWithin = Locked<(limit: Int64, spared: [String])?>(nil)
    /// Whether a batch asked for the pages of large entries to be released, and to settle.
    let upkeep = Locked<[String]>([])

    func keepWithin(limit: Int64, sparingOriginals needed: @escaping @Sendable () -> [String]) {
        keptWithin.withLock { $0 = (limit, needed()) }
    }

    func releasePagesOfLargeEntries() { upkeep.withLock { $0.append("release pages") } }

    func settle() { upkeep.withLock { $0.append("settle") } }

    static func name(_ entry: EntryName) -> String {
        if case .variant = entry { "variant" } else { "original" }
    }
}

final class LoggedLock: EntryLock {
    let log: EventLog
    private let released = Locked(false)

    init(log: EventLog) { self.log = log }

    func release() {
        if released.withLock({ was in defer { was = true }; return !was }) { log.record("release") }
    }
}

/// A pipeline over the doubles.
struct DoubledPipeline {
    let log = EventLog()
    let store: MemoryEntryStore
    let memory = MemoryCache()
    let pipeline: ImagePipeline

    init(loader: (EventLog) -> CountingLoader = { CountingLoader(log: $0) },
         rendering: (EventLog) -> CountingRendering = { CountingRendering(log: $0) },
         adjust: (inout PipelineConfiguration) -> Void = { _ in }) throws {
        store = MemoryEntryStore(log: log)
        var configuration = PipelineConfiguration()
        configuration.dataLoader = loader(log)
        configuration.rendering = rendering(log)
        configuration.entryStore = store
        configuration.memoryCache = memory
        adjust(&configuration)
        pipeline = try ImagePipeline(configuration: configuration)
    }

    static let url = "http://127.0.0.1:9/a.png"

    static func request(_ chain: String = "resize(10x10)", url: String = DoubledPipeline.url) throws -> ImageRequest {
        var request = ImageRequest(source: .remote(URL(string: url)!))
        request.chain = try ProcessingChain.parse(chain)
        request.encoding = OutputEncoding(format: .png)
        return request
    }

    /// The keys of `request`: original, variant.
    func keys(_ request: ImageRequest) throws -> (original: String, variant: String) {
        let original = try pipeline.originalKey(for: request)!
        return (original, CacheKey.variant(original: original, variantIdentifier: request.variantIdentifier))
    }
}

/// Waits (up to 30 s, polling) until `condition` holds; false if it never did.
func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(30)
    while !condition() {
        if Date() > deadline { return false }
        usleep(1_000)
    }
    return true
}

/// Starts `count` threads, each running `body` with its index (0 to count - 1); wait on the group for them all.
func startThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> DispatchGroup {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    return group
}
