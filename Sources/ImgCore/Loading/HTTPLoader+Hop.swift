import Foundation

extension HTTPLoader {
    /// What one hop of an attempt came to: a redirect to follow, or the attempt's end.
    enum Hop {
        case redirect(URL)
        case end(Result<HTTPResponse, TransferFailure>)

        /// What the hop's host is told of it: a redirect is an answer.
        var gateOutcome: HostGate.Outcome {
            switch self {
            case .redirect: .answered
            case .end(let outcome): HTTPLoader.gateOutcome(outcome)
            }
        }
    }

    /// What an attempt's outcome tells its host's turns (`HostGate`): a refusal (429, 503, a connection refused or
    /// not made), an answer, or neither.
    static func gateOutcome(_ outcome: Result<HTTPResponse, TransferFailure>) -> HostGate.Outcome {
        switch outcome {
        case .success: return .answered
        case .failure(let failure):
            if case .http(let status, let message) = failure.error, status == 429 || status == 503 {
                return .refused(retryAfter: failure.retryAfter, what: message)
            }
            if failure.refusedConnection { return .unreachable(what: failure.error.message) }
            if case .http = failure.error { return .answered }
            return .other
        }
    }
}
