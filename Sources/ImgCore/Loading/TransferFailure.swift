import CCurl
import Foundation

/// Why one attempt of an `HTTPLoader` fetch failed, and whether another attempt may succeed.
struct TransferFailure: Error {
    var error: ImgError
    /// Whether a retry may succeed (a timeout, a cut-short transfer, a 5xx); false for refusals and limits.
    var retryable: Bool
    /// Seconds the server asked to wait (`Retry-After`), nil when it did not say.
    var retryAfter: Double?
    /// A connection refused, or not made within `--connect-timeout` (counts towards giving a host up).
    var refusedConnection = false

    /// The failure of a transfer libcurl ended with `code`: `detail` is libcurl's error buffer, `status` that of the
    /// last response received (0 for none: a 3xx means a redirect was being followed), `maxBytes` the body limit,
    /// `connected` whether a connection to the server was made.
    static func classify(_ code: CURLcode, detail: String, status: Int, transfer: Transfer, maxBytes: Int64,
                         connected: Bool) -> TransferFailure {
        let text = detail.isEmpty ? String(cString: imgf_curl_easy_strerror(code)) : detail
        if let failure = transfer.body.failure {
            return TransferFailure(error: .io(failure), retryable: false)
        }
        if transfer.exceededLimit || code == CURLE_FILESIZE_EXCEEDED {
            return TransferFailure(error: .overLimit(.bodyBytes(limit: maxBytes)), retryable: false)
        }
        if let address = transfer.blockedAddress {
            return TransferFailure(error: .network("refusing to connect to private address \(address)",
                                                   cause: .privateAddress),
                                   retryable: false)
        }
        if transfer.headersTooLarge(code) {
            return TransferFailure(error: .network("response headers too large (libcurl takes a header of at most 100 KB, 300 KB in all)",
                                                   cause: .headersTooLarge),
                                   retryable: false)
        }
        switch code {
        case CURLE_ABORTED_BY_CALLBACK:
            return TransferFailure(error: .network("interrupted", cause: .interrupted), retryable: false)
        case CURLE_OPERATION_TIMEDOUT:
            // A host that takes no connection (dropped, filtered) is as unreachable as one that refuses it.
            return TransferFailure(error: .network("timed out: \(text)", cause: .timedOut), retryable: true,
                                   refusedConnection: !connected)
        case CURLE_COULDNT_CONNECT:
            return TransferFailure(error: .network(text, cause: .connectionFailed), retryable: true,
                                   refusedConnection: true)
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE:
            let message = code == CURLE_PARTIAL_FILE ? "transfer cut short: \(text)" : text
            return TransferFailure(error: .network(message, cause: .cutShort), retryable: true)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_WEIRD_SERVER_REPLY:
            // Not a redirect: the reply did not start with an HTTP status line (libcurl calls that HTTP/0.9, which it
            // refuses), e.g. bytes an earlier response left on a kept-alive connection, or a header after a valid
            // status line could not be read (a Content-Length that is no size). Retried on a new connection.
            return TransferFailure(error: .network(malformedReplyMessage(detail: detail, statusLine: transfer.status > 0),
                                                   cause: .malformedReply),
                                   retryable: true)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CONNECT_ERROR:
            return TransferFailure(error: .network("TLS: \(text)", cause: .tls), retryable: false)
        default:
            return TransferFailure(error: .network(text, cause: .curl(code: Int(code.rawValue))), retryable: false)
        }
    }

    /// What a malformed reply is said to be: with no `statusLine` received, one with no valid status line; else
    /// one whose headers libcurl refused, as its message `detail` says (its `Invalid Content-Length: value` named
    /// plainly).
    private static func malformedReplyMessage(detail: String, statusLine: Bool) -> String {
        guard statusLine else { return "malformed HTTP response (no valid status line)" }
        if detail.hasPrefix("Invalid Content-Length") { return "malformed HTTP response: its Content-Length is not a size" }
        return detail.isEmpty ? "malformed HTTP response" : "malformed HTTP response: \(detail)"
    }

    /// The failure of a request libcurl could not make because it can't parse `url` (its message `detail`): the
    /// URL asked for is a bad input (`ImgError.usage`, as `URLSpelling`'s refusals), a redirect's target a malformed
    /// redirect; neither is retried.
    static func unusableURL(_ url: URL, redirected: Bool, detail: String) -> TransferFailure {
        let shown = URLCredentials.maskingPassword(in: url.absoluteString).escapingControlCharacters
        let error: ImgError = redirected
            ? .network("refusing a redirect to a malformed URL '\(shown)': \(detail)", cause: .malformedRedirect)
            : .usage("malformed URL '\(shown)': \(detail)")
        return TransferFailure(error: error, retryable: false)
    }

    /// Seconds from a `Retry-After` of delta-seconds or an HTTP date; nil when it is neither.
    static func retryAfterSeconds(_ value: String) -> Double? {
        if let seconds = Double(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSinceNow) }
    }
}

/// Reason phrases for the statuses users meet most; "" for others.
enum HTTPReasonPhrase {
    /// How a failing status is said: `HTTP 404 Not Found`, `HTTP 418` (no phrase known, no trailing space), and a
    /// redirect status that was not followed `HTTP 302 (a redirect with no Location)`.
    static func message(for status: Int) -> String {
        let phrase = phrase(for: status)
        if RedirectPolicy.follows(status: status) { return "HTTP \(status) (a redirect with no Location)" }
        return phrase.isEmpty ? "HTTP \(status)" : "HTTP \(status) \(phrase)"
    }

    static func phrase(for status: Int) -> String {
        [400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 408: "Request Timeout",
         410: "Gone", 429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
         503: "Service Unavailable", 504: "Gateway Timeout"][status] ?? ""
    }
}
