import Glibc
import ImgCore

/// How the command line words an interruption by a signal.
enum Interruption {
    /// The signal's name as users know it: "SIGINT", "SIGTERM", else "signal N".
    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        default: return "signal \(signal)"
        }
    }

    /// When `cancellation` was cancelled by a signal: says so in one line on stderr and gives the exit status a
    /// shell gives a process ended by it (128 + N). Nil when it was not cancelled.
    static func exitStatus(of cancellation: Cancellation, console: Console) -> Int32? {
        guard cancellation.isCancelled else { return nil }
        console.error("interrupted by \(signalName(cancellation.signal))")
        return 128 + cancellation.signal
    }
}
