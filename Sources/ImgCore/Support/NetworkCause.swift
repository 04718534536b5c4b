/// What went wrong with a transfer: the structured cause of `ImgError.network`, decided where the failure is met
/// (libcurl's code, the address policy, the redirect policy, the host's gate), never from the message.
public enum NetworkCause: Sendable, Equatable {
    /// The transfer (or its redirects) took longer than `--timeout` / `--connect-timeout`.
    case timedOut
    /// The redirects of one attempt, together, took longer than `--timeout`.
    case redirectsTimedOut
    /// No connection could be made (refused, unreachable).
    case connectionFailed
    /// The reply stopped early: nothing came back, sending or receiving failed, or the body was cut short.
    case cutShort
    /// The reply did not start with an HTTP status line, or a partial reply did not match the range asked for.
    case malformedReply
    /// The image changed between the ranged requests that read its header (`imgfetch info`).
    case changedWhileRead
    /// No image header in the bytes `--max-bytes` lets a ranged read take (`imgfetch info`).
    case noHeaderWithinLimit
    /// The host was given up after refusals in a row (`HostPoliteness.giveUpAfterRefusals`).
    case hostGivenUp
    /// Stopped by an interrupt (SIGINT, SIGTERM).
    case interrupted
    /// `--deny-private-networks` refused the address the name resolved to.
    case privateAddress
    /// A redirect to a scheme other than http or https.
    case redirectScheme
    /// A redirect to a URL that can't be sent: one `URLSpelling` refuses (a port over 65535, a character no host may
    /// hold) or libcurl can't parse.
    case malformedRedirect
    /// The response's headers were larger than libcurl takes (one header over 100 KB, or all of them over 300 KB).
    case headersTooLarge
    /// TLS failed: the peer's certificate, the CA file, the handshake.
    case tls
    /// Any other libcurl failure (a name that did not resolve, a proxy that failed, …), with libcurl's code.
    case curl(code: Int)

    /// Whether trying again later may succeed: every cause but those a retry cannot change (a private address,
    /// a redirect's scheme or malformed target, TLS, a limit, headers too large). A name that did not resolve may
    /// resolve later; an interrupted run may be run again.
    public var isTransient: Bool {
        switch self {
        case .privateAddress, .redirectScheme, .malformedRedirect, .tls, .noHeaderWithinLimit, .headersTooLarge: false
        case .timedOut, .redirectsTimedOut, .connectionFailed, .cutShort, .malformedReply, .changedWhileRead,
             .hostGivenUp, .interrupted, .curl: true
        }
    }
}
