import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How politely one pipeline treats each host (`scheme://host:port`), across all its threads.
public struct HostPoliteness: Sendable, Equatable {
    /// Requests per second to one host, fractional allowed (`--rate`); every attempt, retries included, takes a
    /// turn. nil (the default) for no limit.
    public var requestsPerSecond: Double?
    /// Refusals in a row (an HTTP 429 or 503, or a connection refused or not made within `--connect-timeout`, each
    /// sent after the previous refusal was known) after which the host is given up for the rest of the run: its
    /// remaining requests fail at once, with one message for the host. nil (the default, and for a single fetch)
    /// never gives up.
    public var giveUpAfterRefusals: Int?

    public init(requestsPerSecond: Double? = nil, giveUpAfterRefusals: Int? = nil) {
        (self.requestsPerSecond, self.giveUpAfterRefusals) = (requestsPerSecond, giveUpAfterRefusals)
    }

    /// The longest pause one `Retry-After` imposes on a host, seconds (as for the retry of the request itself).
    public static let longestPause: Double = 30
}

/// The turns of one host: the `--rate` schedule, a pause a `Retry-After` imposed on every thread, and the refusals
/// in a row that give it up. Every attempt of `HTTPLoader.fetch` waits for its turn here.
public final class HostGate: Sendable {
    public let host: String
    private let politeness: HostPoliteness
    private struct State {
        var nextTurn = Date.distantPast
        var pausedUntil = Date.distantPast
        /// When the last refusal that counted became known: an attempt started before it counts as one with it.
        var lastCountedRefusal = Date.distantPast
        var refusals = 0
        var givenUp: String?
        /// Whether an attempt has made a connection to the host (an answer, or a 429 or 503).
        var reached = false
    }
    private let state = Locked(State())

    init(host: String, politeness: HostPoliteness) {
        (self.host, self.politeness) = (host, politeness)
    }

    /// Whether the gate holds nothing a new one would not at `now` (default: the current time): no refusal counted,
    /// not given up, no turn or pause still ahead. `HostLimiter` lets go of such gates that no attempt holds; that
    /// the host was reached is forgotten with it, so a host's gate made again counts overlapping attempts that find
    /// no connection one each, as for a host never reached.
    func isBlank(at now: Date = Date()) -> Bool {
        state.withLock { $0.refusals == 0 && $0.givenUp == nil && $0.nextTurn <= now && $0.pausedUntil <= now }
    }

    /// What an attempt got back, as far as the host's turns are concerned.
    enum Outcome {
        /// A reply that is not a refusal.
        case answered
        /// HTTP 429 or 503 (with its `Retry-After` in seconds, if any).
        case refused(retryAfter: Double?, what: String)
        /// A connection refused, or not made within the connect timeout.
        case unreachable(what: String)
        /// Anything else (a timeout, a reset): neither resets nor counts towards giving up.
        case other
    }

    /// Waits for the host's turn (its pause, then its rate) and returns the time the attempt may start; throws the
    /// host's one message once it is given up, or `interrupted` when `cancellation` fires while waiting.
    func waitForTurn(cancellation: Cancellation?) throws(ImgError) -> Date {
        let interval = politeness.requestsPerSecond.map { 1 / $0 } ?? 0
        while true {
            let now = Date()
            let wait = try state.withLock { state throws(ImgError) -> TimeInterval in
                if let message = state.givenUp { throw .network(message, cause: .hostGivenUp) }
                let start = max(state.pausedUntil, state.nextTurn)
                if start <= now {
                    state.nextTurn = now.addingTimeInterval(interval)
                    return 0
                }
                return start.timeIntervalSince(now)
            }
            if wait <= 0 { return now }
            if cancellation?.isCancelled == true { throw .network("interrupted", cause: .interrupted) }
            usleep(useconds_t(min(50_000, max(1_000, wait * 1_000_000))))
        }
    }

    /// Records what the attempt started at `started` got back, known at `now` (default: the current time).
    ///
    /// Refusals in a row give the host up. An attempt sent before the last counted refusal was known counts as one
    /// with it (a burst of parallel attempts refused at once is one refusal of a loaded host), except an attempt
    /// that found no connection to a host no attempt has reached: each of those counts, so a host with nothing
    /// there is given up after one round of parallel connect timeouts, not after as many rounds as the limit.
    func record(_ outcome: Outcome, started: Date, now: Date = Date()) {
        state.withLock { state in
            switch outcome {
            case .answered:
                state.refusals = 0
                state.reached = true
            case .other:
                break
            case .refused(let retryAfter, let what):
                state.reached = true
                if let retryAfter {
                    state.pausedUntil = max(state.pausedUntil, now.addingTimeInterval(min(HostPoliteness.longestPause, retryAfter)))
                }
                count(what: what, started: started, now: now, separately: false, in: &state)
            case .unreachable(let what):
                count(what: what, started: started, now: now, separately: !state.reached, in: &state)
            }
        }
    }

    /// Counts a refusal (`separately`: even when it overlaps the last one counted) and gives the host up at the limit.
    private func count(what: String, started: Date, now: Date, separately: Bool, in state: inout State) {
        // An attempt sent before the last counted refusal was known counts as one with it, and moves nothing: were
        // it to move the mark, workers whose attempts overlap (each sent while another's was in flight) would never
        // count a second refusal, and the host would never be given up.
        if separately || started >= state.lastCountedRefusal {
            state.refusals += 1
            state.lastCountedRefusal = max(state.lastCountedRefusal, now)
        }
        if let limit = politeness.giveUpAfterRefusals, state.refusals >= limit, state.givenUp == nil {
            state.givenUp = "giving up on \(host): \(state.refusals) requests in a row refused (\(what)); "
                + "its remaining lines are not fetched"
        }
    }
}

extension ImgError {
    /// Whether this is the one message of a host given up (`HostPoliteness.giveUpAfterRefusals`): a batch prints
    /// it once for the host, not once per line.
    public var isHostGivenUp: Bool {
        if case .network(_, .hostGivenUp) = self { true } else { false }
    }
}
