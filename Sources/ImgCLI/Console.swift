import Foundation
import ImgCore

/// Where a command's output and messages go: the process's standard output and error (`process`), or, for a command
/// run in process (a test), streams on descriptors of the caller's. Every command, report and progress line writes
/// through the console it was given.
public struct Console: Sendable {
    /// Results, `--json` records and listings.
    public var standardOutput: StandardStream
    /// Errors, warnings, `-v` details and the progress line.
    public var standardError: StandardStream
    /// Whether a command watches SIGINT and SIGTERM while it runs (to cancel its transfers, stop a batch, end a
    /// renderer): a disposition of the whole process, so the program's own console does (`process`), and one a
    /// library caller gives `CommandDispatcher.run` does not unless it says so (default false).
    public var takesSignals = false

    /// The process's standard output and error, and its signals.
    public static let process = Console(standardOutput: .output, standardError: .error, takesSignals: true)

    public init(standardOutput: StandardStream, standardError: StandardStream, takesSignals: Bool = false) {
        (self.standardOutput, self.standardError, self.takesSignals) = (standardOutput, standardError, takesSignals)
    }

    /// Prints `text` and a newline on standard output; a failure to write it (a full disk, a closed stdout) is a
    /// local I/O error (exit 7). What a terminal would act on beyond JSON's own escapes (a C1 control, a
    /// right-to-left override in a URL or a header a `--json` record quotes) is written as a `\uXXXX` escape.
    func printLine(_ text: String, terminator: String = "\n") throws(ImgError) {
        do {
            try standardOutput.write(text.escapingTerminalControlsInJSON + terminator)
        } catch {
            throw error.error
        }
    }

    /// One line on standard error, `imgfetch: TEXT`, with line breaks and other control characters in `text` escaped.
    func error(_ text: String) {
        standardError.writeIgnoringFailure("imgfetch: \(text.escapingControlCharacters)\n")
    }
}
