import CCurl
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Downloads over http and https with one reusable libcurl handle, so several URLs to a host share a connection.
/// A loader is used by one thread at a time; `LoaderPool` hands them out.
public final class HTTPLoader: @unchecked Sendable { // wraps a CURL* easy handle, used by one thread at a time
    /// Replaced for a retry (`renewHandle`): a new handle has no connection, so the one that failed is closed.
    private(set) var handle: UnsafeMutableRawPointer
    let options: NetworkOptions

    public init(options: NetworkOptions) throws(ImgError) {
        if let failure = HTTPLoader.openLibrary() { throw .internalFailure(failure) }
        guard let handle = imgf_curl_easy_init() else { throw .internalFailure("libcurl failed to start") }
        self.handle = handle
        self.options = options
    }

    deinit { imgf_curl_easy_cleanup(handle) }

    /// Replaces the handle with a new one, closing the connection it kept.
    private func renewHandle() throws(ImgError) {
        guard let renewed = imgf_curl_easy_init() else { throw .internalFailure("libcurl failed to start") }
        imgf_curl_easy_cleanup(handle)
        handle = renewed
    }

    /// Opens libcurl (on first use only: a run that downloads nothing never loads it) and initialises it, once;
    /// returns why that failed, or nil. Call before libvips starts loading in the background where both are
    /// needed, since the dynamic loader opens one library at a time.
    @discardableResult
    public static func openLibrary() -> String? { loaded }
    private static let loaded: String? = {
        var error = [CChar](repeating: 0, count: 512)
        guard imgf_curl_load(&error, error.count) == 0 else {
            return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        wasLoadedFlag.store(true, ordering: .relaxed)
        return imgf_curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK ? nil : "libcurl failed to initialise"
    }()
    private static let wasLoadedFlag = Atomic<Bool>(false)

    /// libcurl's receive buffer: 256 KiB (libcurl's default is 16 KiB). A body arrives in 16 times fewer reads and
    /// write callbacks; on 400 photos (465 MB over loopback) a batch used 0.3–0.5 s less CPU.
    static let receiveBufferSize = 256 << 10

    /// Whether this process has loaded libcurl (`-v` reports it: a cache hit must not).
    public static var wasLoaded: Bool { wasLoadedFlag.load(ordering: .relaxed) }

    /// Fetches `url`, retrying as the options say. With `validators`, a 304 comes back as `notModified`; without,
    /// a 304 is `ImgError.http` (it answers no question that was asked).
    /// With `turns`, every hop of an attempt waits for its own host's turn (and slot), and a refusal is recorded at
    /// that host (see `HostTurns`, `HostGate`).
    /// With `range` (inclusive byte offsets), asks for those bytes only (`Range: bytes=A-B`, no compression): a 206
    /// carries them and its `contentRange`, a server that ignores ranges answers 200 with the whole body.
    func fetch(_ url: URL, validators: Validators? = nil, range: ClosedRange<Int64>? = nil,
               turns: HostTurns?) throws(ImgError) -> HTTPResponse {
        var backoff = options.initialBackoff
        var attempt = 0
        while true {
            let outcome = try attemptFetch(url, validators: validators, range: range, turns: turns)
            attempt += 1
            switch outcome {
            case .success(let response):
                return response
            case .failure(let failure):
                guard failure.retryable, attempt <= options.retries, options.cancellation?.isCancelled != true else {
                    throw failure.error
                }
                // A retry opens a new connection, closing the one that failed at once (it may hold the rest of an
                // earlier reply; kept, it stayed open beside the new one, one more to the host for each retry).
                try renewHandle()
                let wait = min(30, failure.retryAfter ?? backoff)
                backoff *= 2
                sleepInterruptibly(wait)
            }
        }
    }

    public func fetch(_ url: URL, validators: Validators? = nil, range: ClosedRange<Int64>? = nil) throws(ImgError) -> HTTPResponse {
        try fetch(url, validators: validators, range: range, turns: nil)
    }

    /// One attempt: the request and the redirects it leads to, followed here rather than by libcurl so that each hop
    /// is sent what `RedirectPolicy` allows it, in its own host's turn (`turns`). `--timeout` bounds the whole
    /// chain. Throws when a hop's host was given up, or its wait cancelled.
    private func attemptFetch(_ url: URL, validators: Validators?, range: ClosedRange<Int64>?,
                              turns: HostTurns?) throws(ImgError) -> Result<HTTPResponse, TransferFailure> {
        let policy = RedirectPolicy(first: url, trusted: options.locationTrusted)
        var deadline = Date().addingTimeInterval(options.timeout)
        var hop = url
        var redirects = 0
        while true {
            let sent = try HostTurns.taking(turns, for: hop, cancellation: options.cancellation) { waited in
                // The wait for a host's slot and turn is not the transfer's: --timeout bounds the hops' own time.
                deadline.addTimeInterval(waited)
                let remaining = deadline.timeIntervalSinceNow
                guard remaining > 0 else {
                    let error = redirects == 0
                        ? ImgError.network("timed out before the request was sent: the time allowed is too short", cause: .timedOut)
                        : ImgError.network("timed out: the redirects took longer than the time allowed", cause: .redirectsTimedOut)
                    return .end(.failure(TransferFailure(error: error, retryable: true)))
                }
                return send(hop, policy: policy, validators: validators, range: range, redirects: redirects,
                            timeout: remaining)
            }
            switch sent {
            case .end(let outcome): return outcome
            case .redirect(let next): (hop, redirects) = (next, redirects + 1)
            }
        }
    }

    /// One hop: `url` requested, its answer a redirect to follow (the `redirects` followed before it under
    /// `--max-redirects`) or the attempt's end.
    private func send(_ url: URL, policy: RedirectPolicy, validators: Validators?, range: ClosedRange<Int64>?,
                      redirects: Int, timeout: Double) -> Hop {
        let (code, transfer, detail) = perform(url, policy: policy, validators: validators, range: range,
                                               timeout: timeout)
        let status = Int(imgf_info_long(handle, CURLINFO_RESPONSE_CODE))
        if code != CURLE_OK, !(code == CURLE_WRITE_ERROR && transfer.keptPrefix) {
            let shown = ProxyAddress.maskingPassword(of: options.proxy, in: detail)
            if code == CURLE_URL_MALFORMAT {
                return .end(.failure(TransferFailure.unusableURL(url, redirected: redirects > 0, detail: shown)))
            }
            let connected = imgf_info_double(handle, CURLINFO_CONNECT_TIME) > 0
            var failure = TransferFailure.classify(code, detail: shown, status: status, transfer: transfer,
                                                   maxBytes: options.maxBytes, connected: connected)
            // A redirect's hop has what the chain left of --timeout: its libcurl text would name only the hop's time.
            if redirects > 0, code == CURLE_OPERATION_TIMEDOUT, imgf_info_double(handle, CURLINFO_TOTAL_TIME) >= timeout - 0.05 {
                failure.error = .network("timed out: the redirects took longer than the time allowed", cause: .redirectsTimedOut)
            }
            return .end(.failure(failure))
        }
        guard RedirectPolicy.follows(status: status), let target = imgf_info_string(handle, CURLINFO_REDIRECT_URL) else {
            return .end(response(status: status, transfer: transfer, validators: validators, range: range))
        }
        guard redirects < options.maxRedirects else {
            return .end(.failure(TransferFailure(error: .overLimit(.redirects(limit: options.maxRedirects)), retryable: false)))
        }
        switch RedirectPolicy.target(String(cString: target), judge: options.redirectJudge) {
        case .success(let next): return .redirect(next)
        case .failure(let failure): return .end(.failure(failure))
        }
    }

    /// Makes one request (no redirect followed) and returns libcurl's code, the transfer and libcurl's message.
    private func perform(_ url: URL, policy: RedirectPolicy, validators: Validators?, range: ClosedRange<Int64>?,
                         timeout: Double) -> (CURLcode, Transfer, String) {
        let transfer = Transfer(options: options)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        var headerList: UnsafeMutablePointer<curl_slist>?
        var requestHeaders = policy.sendsCredentials(to: url) ? options.headers : []
        if let etag = validators?.etag { requestHeaders.append("If-None-Match: \(etag)") }
        if let lastModified = validators?.lastModified { requestHeaders.append("If-Modified-Since: \(lastModified)") }
        for header in requestHeaders { headerList = imgf_curl_slist_append(headerList, header) }
        defer { imgf_curl_slist_free_all(headerList) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errorPointer in
            imgf_curl_easy_reset(handle)
            configure(url: policy.requestURL(for: url), headerList: headerList, errorBuffer: errorPointer.baseAddress!,
                      context: context)
            _ = imgf_setopt_long(handle, CURLOPT_TIMEOUT_MS, NetworkOptions.curlMilliseconds(timeout))
            if let (user, password) = policy.extraCredentials(for: url) {
                _ = imgf_setopt_string(handle, CURLOPT_USERNAME, user)
                _ = imgf_setopt_string(handle, CURLOPT_PASSWORD, password)
            }
            if let range {
                // Byte offsets of the body as sent: a compressed reply's offsets would be of the compressed bytes.
                _ = imgf_setopt_string(handle, CURLOPT_RANGE, "\(range.lowerBound)-\(range.upperBound)")
                _ = imgf_setopt_pointer(handle, CURLOPT_ACCEPT_ENCODING, nil)
                // A whole file sent instead is read to --max-bytes only: its length is no refusal.
                transfer.prefixEnd = options.maxBytes
                _ = imgf_setopt_offset(handle, CURLOPT_MAXFILESIZE_LARGE, 0)
            }
            return imgf_curl_easy_perform(handle)
        }
        withExtendedLifetime(transfer) {}
        let detail = String(decoding: errorBuffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (code, transfer, detail)
    }

    /// The outcome of a final (not redirected) response with `status` to a request for `range` (nil: all of it).
    private func response(status: Int, transfer: Transfer, validators: Validators?,
                          range: ClosedRange<Int64>?) -> Result<HTTPResponse, TransferFailure> {
        let retryAfter = transfer.headers["retry-after"].flatMap(TransferFailure.retryAfterSeconds)
        if status == 206, range == nil, !RangedDownload.isWholeFile(transfer.headers["content-range"], count: transfer.body.count) {
            // Maybe a part of the image, to a request for all of it: it would be taken for the image.
            let shown = transfer.headers["content-range"] ?? "(none)"
            let error = ImgError.network("the server answered a request for the whole image with a part (206 Partial "
                                         + "Content, Content-Range \(shown), \(transfer.body.count) bytes) that does not "
                                         + "show it is the whole file", cause: .malformedReply)
            return .failure(TransferFailure(error: error, retryable: false))
        }
        switch status {
        // A 304 is a success only for a request that sent validators.
        case let code where (200..<300).contains(code) || (code == 304 && validators.map({ !$0.isEmpty }) == true):
            let contentType = imgf_info_string(handle, CURLINFO_CONTENT_TYPE).map { String(cString: $0) }
            guard let body = transfer.body.finish() else {
                return .failure(TransferFailure(error: .io(transfer.body.failure ?? "cannot spool the body"), retryable: false))
            }
            return .success(HTTPResponse(status: status, content: body, contentType: contentType,
                                         etag: transfer.headers["etag"], lastModified: transfer.headers["last-modified"],
                                         cacheControl: transfer.headers["cache-control"],
                                         contentRange: transfer.headers["content-range"], robotsTags: transfer.robotsTags,
                                         contentEncoding: transfer.headers["content-encoding"], isPrefix: transfer.keptPrefix))
        case 304:
            // Only a conditional request can be answered "not modified": there is nothing to keep using.
            return .failure(TransferFailure(error: .http(status: status, message: "HTTP 304 Not Modified to a request that was not conditional"),
                                    retryable: false))
        case 408, 429, 500..<600:
            return .failure(TransferFailure(error: .http(status: status, message: HTTPReasonPhrase.message(for: status)),
                                    retryable: true, retryAfter: retryAfter))
        default:
            return .failure(TransferFailure(error: .http(status: status, message: HTTPReasonPhrase.message(for: status)),
                                    retryable: false))
        }
    }

    private func configure(url: URL, headerList: UnsafeMutablePointer<curl_slist>?, errorBuffer: UnsafeMutablePointer<CChar>,
                           context: UnsafeMutableRawPointer) {
        _ = imgf_setopt_string(handle, CURLOPT_URL, url.absoluteString)
        _ = imgf_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        // Two connections kept between transfers, the last two used: a redirect's first host and the one it leads to
        // (http to https, a site to its CDN) both stay alive for the next URL, and no more.
        _ = imgf_setopt_long(handle, CURLOPT_MAXCONNECTS, 2)
        _ = imgf_setopt_long(handle, CURLOPT_BUFFERSIZE, Self.receiveBufferSize)
        _ = imgf_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        // Redirects are followed by `attemptFetch`, one request at a time.
        _ = imgf_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        if options.denyPrivateNetworks {
            // "" is no proxy at all, not even one from the environment: a proxy would connect in our stead, where
            // the address check can't see.
            _ = imgf_setopt_string(handle, CURLOPT_PROXY, "")
        } else if let proxy = options.proxy {
            _ = imgf_setopt_string(handle, CURLOPT_PROXY, proxy)
            // Every transfer, as given: "" keeps NO_PROXY from the environment from sending some around it.
            _ = imgf_setopt_string(handle, CURLOPT_NOPROXY, "")
        }
        _ = imgf_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        _ = imgf_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, NetworkOptions.curlMilliseconds(options.connectTimeout))
        _ = imgf_setopt_string(handle, CURLOPT_USERAGENT, options.userAgent)
        _ = imgf_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        _ = imgf_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        if let caBundle = options.caBundle { _ = imgf_setopt_string(handle, CURLOPT_CAINFO, caBundle) }
        _ = imgf_setopt_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(options.maxBytes))
        _ = imgf_setopt_list(handle, CURLOPT_HTTPHEADER, headerList)
        _ = imgf_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        installCallbacks(context: context)
    }

    /// Sleeps in short steps so that a cancellation ends the wait early.
    private func sleepInterruptibly(_ seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, options.cancellation?.isCancelled != true {
            usleep(useconds_t(min(50_000, max(1_000, deadline.timeIntervalSinceNow * 1_000_000))))
        }
    }
}
