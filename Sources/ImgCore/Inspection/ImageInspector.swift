import Foundation

/// What `imgfetch info` does for one input: reads its header (and with `facts`, decodes it) and says where the
/// bytes came from. A remote input already fresh in the disk cache is read from there with no request; otherwise
/// only the first bytes are asked for (`RangedDownload`), widened until libvips can read the header. A prefix is
/// never cached (an expired entry found unchanged by a 304 keeps its expiry); a download that read the whole file
/// is kept as `fetch` keeps it, so a later fetch needs no request.
public struct ImageInspector: Sendable {
    /// Network options of the requests (`--max-bytes` bounds how far a range widens).
    public var network: NetworkOptions
    /// Limits of the decode `--facts` needs, and `--allow-untrusted-formats`.
    public var decoding: DecodeOptions
    /// The disk cache looked in, and where a whole download is kept (created only then); nil for none.
    public var cacheDirectory: String?
    /// That directory opened already (`CacheRoot.open`), used instead of opening it again; nil (the default): opened
    /// when needed.
    public var cacheRoot: CacheRoot?
    /// `--only-from-cache`: no request; an input not in the cache, fresh or expired, is `.notCached`. Default false.
    public var onlyFromCache = false
    /// Time to live of an original kept; default 7 days.
    public var ttl = TimeToLive.defaultValue
    /// The cache's size limit: an original larger than it allows one entry (`CacheBound.largestEntry`) is not
    /// kept, as by every command; default none.
    public var sizeLimit: Int64?
    /// With `--facts`: decode the image (whole: no ranges) and compute its facts as `fetch --facts` does.
    public var facts: FactsRequest?
    /// How the original key is made (`--keep-query`, `--cache-key`).
    public var query: QueryInKey = .none
    public var cacheKey: String?

    public init(network: NetworkOptions, decoding: DecodeOptions, cacheDirectory: String?, facts: FactsRequest?) {
        self.network = network
        self.decoding = decoding
        self.cacheDirectory = cacheDirectory
        self.facts = facts
    }

    /// The report on one input and what `-v` says about how it was read.
    public func inspect(_ source: ImageSource) throws(ImgError) -> (info: ImageInfo, notes: [String]) {
        switch source {
        case .standardInput:
            let bytes = try BodySpool.read(STDIN_FILENO, directory: nil)
            var info = try describe(bytes, isRemote: false).info
            info.fileSize = Int64(bytes.count)
            return (info, [])
        case .file(let path):
            guard let region = FileRegion.open(wholeFile: path) else { throw .io(LocalFileError.reason(path)) }
            var info = try describe(.file(region), isRemote: false).info
            info.fileSize = Int64(region.count)
            return (info, [])
        case .remote(let url):
            return try inspectRemote(url, source: source)
        }
    }

    /// Whether the original key keeps the query (`--keep-query`) or is given (`--cache-key`): then an entry found is
    /// the input's own.
    private var queryInKey: Bool { cacheKey != nil || query != .none }

    private func inspectRemote(_ url: URL, source: ImageSource) throws(ImgError) -> (info: ImageInfo, notes: [String]) {
        var key = cacheKey
        if key == nil { key = try CacheKey.original(for: source, query: query, headers: network.headers) }
        // Without a cache (`--no-cache`: no directory given) its state is not known: left out.
        var state: String? = cacheDirectory == nil ? nil : "absent"
        var expired: (metadata: CacheEntryMetadata, body: EncodedBytes)?
        if let key, let cache = try openCache() {
            switch cache.lookup(at: cache.originalPath(originalKey: key), key: key, inPlace: true) {
            case .fresh(let metadata, let body):
                var info = try describe(body, isRemote: true).info
                info.cacheState = "fresh"
                info.fill(from: metadata, bytesRead: 0, requests: 0, requested: url, queryInKey: queryInKey)
                return (info, ["read from the cache (fresh): no request"])
            case .expired(let metadata, let body) where onlyFromCache:
                var info = try describe(body, isRemote: true).info
                info.cacheState = "expired"
                info.fill(from: metadata, bytesRead: 0, requests: 0, requested: url, queryInKey: queryInKey)
                return (info, ["read from the cache (expired; only the cache may be read): no request"])
            case .expired(let metadata, let body):
                (state, expired) = ("expired", (metadata, body))
            case .missing:
                break
            }
        }
        if onlyFromCache { throw .notCached("not in the cache") }
        let validators = expired.map { Validators(etag: $0.metadata.etag, lastModified: $0.metadata.lastModified) }
        var download = RangedDownload(url: url, loader: try HTTPLoader(options: network), maxBytes: network.maxBytes)
        try download.start(validators: validators.flatMap { $0.isEmpty ? nil : $0 }, whole: facts != nil)
        var info: ImageInfo
        if download.last == nil, let expired {
            // 304: the expired copy is the image as it is.
            info = try describe(expired.body, isRemote: true).info
            info.fill(from: expired.metadata, bytesRead: download.bytesRead, requests: download.requests, requested: url,
                      queryInKey: queryInKey)
            info.httpStatus = 304
        } else {
            let checked: ImageDecoder.Header?
            (info, checked) = try readHeader(&download)
            info.fileSize = download.fileSize
            info.bytesRead = download.bytesRead
            info.requests = download.requests
            info.httpStatus = download.last?.status
            info.contentType = download.last?.contentType
            info.etag = download.last?.etag
            info.lastModified = download.last?.lastModified
            if download.isWhole, let key, let note = keep(download, key: key, url: url, checked: checked) {
                return (info.with(state), download.notes + [note])
            }
        }
        return (info.with(state), download.notes)
    }

    /// Keeps a download that read the whole file as fetch keeps an original (`EntryStoring.publishOriginal`: same
    /// key and entry, written whole), once it passes the header check fetch makes (`checked`: already made on these
    /// bytes, by `--facts`); what `-v` says, nil without a cache.
    private func keep(_ download: RangedDownload, key: String, url: URL, checked: ImageDecoder.Header?) -> String? {
        guard cacheDirectory != nil, let response = download.last else { return nil }
        var image = ImagePayload(data: download.bytes, format: ImageFormat.sniff(download.bytes.prefix(64)),
                                validators: Validators(etag: response.etag, lastModified: response.lastModified),
                                contentType: response.contentType)
        image.noStore = response.noStore
        do throws(ImgError) {
            if image.noStore {
                // Nothing to keep, and what an earlier reply let be kept is stale now (no directory made for it).
                try openCache()?.removeEverything(ofOriginal: key)
                return "not cached: the server said no-store"
            }
            let header = if let checked { checked } else { try checkHeader(image.bytes) }
            (image.width, image.height) = (header.width, header.frameHeight)
            // Refused before a directory is made for it (the store refuses it too).
            if let sizeLimit, Int64(image.bytes.count) > CacheBound.largestEntry(underLimit: sizeLimit) {
                return "not cached: \(CacheBound.tooLarge(Int64(image.bytes.count)).message)"
            }
            guard let cache = try openCache(create: true) else { return "not cached: the cache directory can't be used" }
            return cache.publishOriginal(image, key: key, url: URLCredentials.removingUserInfo(from: url), ttl: ttl)
                .map { "caching failed: \($0.message)" } ?? "cached the original (read whole)"
        } catch {
            return "not cached: \(error.message)"
        }
    }

    /// The header check fetch makes on a download before it keeps it.
    private func checkHeader(_ bytes: EncodedBytes) throws(ImgError) -> ImageDecoder.Header {
        try VipsErrorScope.run { () throws(ImgError) -> ImageDecoder.Header in
            try VipsInput.borrowing(bytes) { input throws(ImgError) in
                try ImageDecoder.checkHeader(&input, isRemote: true, options: decoding)
            }
        }
    }

    /// The header from the bytes read so far, widening the download while libvips needs more; with `--facts`, also
    /// the header check their decode made.
    private func readHeader(_ download: inout RangedDownload) throws(ImgError) -> (info: ImageInfo, checked: ImageDecoder.Header?) {
        while true {
            if download.isWhole || facts != nil { return try describe(.memory(download.bytes), isRemote: true) }
            let outcome = try VipsInput.borrowing(.memory(download.bytes)) { input throws(ImgError) in
                try HeaderReader.read(input, isWhole: false, isRemote: true, allowUntrusted: decoding.allowUntrustedFormats)
            }
            switch outcome {
            case .header(let info): return (info, nil)
            case .needsMoreBytes: try download.widen()
            case .needsWholeFile: try download.widen(toEnd: true)
            }
        }
    }

    /// The header of the whole file, and its facts when asked for, with the header check (`ImageDecoder.checkHeader`)
    /// their decode made: a whole download is kept on it, not checked again.
    private func describe(_ bytes: EncodedBytes, isRemote: Bool) throws(ImgError) -> (info: ImageInfo, checked: ImageDecoder.Header?) {
        guard let facts else { return (try report(bytes, isRemote: isRemote), nil) }
        // --facts: the decode's header check reads the header once for the report too. When it refuses, the report's
        // own reading says why where it has a reason of its own, as when it was read first.
        var headerRefused = false
        do throws(ImgError) {
            let read = try FactsReader.read(bytes, isRemote: isRemote, decoding: decoding, request: facts,
                                            headerRefused: &headerRefused)
            var info = read.info
            info.facts = read.facts
            return (info, read.header)
        } catch {
            if headerRefused { _ = try report(bytes, isRemote: isRemote) }
            throw error
        }
    }

    /// The header's report of the whole file (`HeaderReader`), no pixel decoded.
    private func report(_ bytes: EncodedBytes, isRemote: Bool) throws(ImgError) -> ImageInfo {
        let outcome = try VipsInput.borrowing(bytes) { input throws(ImgError) in
            try HeaderReader.read(input, isWhole: true, isRemote: isRemote, allowUntrusted: decoding.allowUntrustedFormats)
        }
        guard case .header(let info) = outcome else {
            throw .image("truncated: no image header")
        }
        return info
    }

    /// The disk cache when its directory exists (info creates none unless `create`: to keep a whole download); a
    /// directory that can't be used is no cache, one that another user could swap is refused (exit 7).
    private func openCache(create: Bool = false) throws(ImgError) -> DiskCache? {
        guard let cacheDirectory else { return nil }
        do throws(ImgError) {
            let opened = if let cacheRoot { cacheRoot } else { try CacheRoot.open(cacheDirectory, create: create) }
            guard let root = opened, create || root.exists("entries") else { return nil }
            let cache = try DiskCache(root: root)
            if let sizeLimit { cache.refuseEntries(largerThan: CacheBound.largestEntry(underLimit: sizeLimit)) }
            return cache
        } catch {
            if case .cacheUnavailable = error { return nil }
            throw error
        }
    }
}

extension ImageInfo {
    /// The same with `cacheState` set (nil: unknown, left out).
    func with(_ state: String?) -> ImageInfo {
        var info = self
        info.cacheState = state
        return info
    }

    /// Size, type and validators from a cached original's entry; with `queryInKey` false (the key drops the query),
    /// the URL it was recorded for when its query differs from `requested`'s.
    mutating func fill(from metadata: CacheEntryMetadata, bytesRead: Int64, requests: Int, requested: URL,
                       queryInKey: Bool) {
        if !queryInKey, URLComponents(string: metadata.url)?.percentEncodedQuery != requested.query(percentEncoded: true) {
            recordedURL = metadata.url
        }
        fileSize = Int64(metadata.size)
        contentType = metadata.contentType
        etag = metadata.etag
        lastModified = metadata.lastModified
        self.bytesRead = bytesRead
        self.requests = requests
    }
}
