import Dispatch
import Foundation
import ImgCore
import Synchronization

/// The one line redrawn on a terminal's stderr while downloading (`fetch`) or running a list (`batch`): it fits the
/// terminal's width, read at the start and again on each SIGWINCH, and with a known size shows the percentage, the
/// rate and the time left, as curl and wget do.
final class ProgressLine: Sendable {
    private struct State {
        var columns: Int
        var lastDrawn = -1.0
    }
    private let state: Mutex<State>
    private let started = Date()
    /// Re-reads the width when the terminal is resized; cancelled with the line (in a Mutex, which makes it Sendable).
    private let resized: Mutex<(any DispatchSourceSignal)?>
    /// Where the line is drawn: the console's standard error.
    private let stream: StandardStream

    init(on stream: StandardStream) {
        self.stream = stream
        state = Mutex(State(columns: Self.terminalColumns()))
        resized = Mutex(nil)
        resized.withLock { slot in
            let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
            source.setEventHandler { [weak self] in
                let columns = Self.terminalColumns()
                self?.state.withLock { $0.columns = columns }
            }
            source.resume()
            slot = source
        }
    }

    deinit { resized.withLock { $0?.cancel() } }

    var elapsed: Double { Date().timeIntervalSince(started) }

    /// Draws `text(columns)` unless a line was drawn less than a tenth of a second ago.
    func draw(_ text: (Int) -> String) {
        let now = elapsed
        guard let columns = state.withLock({ state -> Int? in
            guard now - state.lastDrawn >= 0.1 else { return nil }
            state.lastDrawn = now
            return state.columns
        }) else { return }
        stream.writeIgnoringFailure("\r\u{1B}[K" + text(columns))
    }

    /// The columns of the terminal on stderr; else `COLUMNS`; else 80.
    static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        return 80
    }

    // MARK: the lines

    /// `downloading  45%  10.3 KiB / 22.4 KiB [#####.....] 20.1 KiB/s, 0:01 left`, shortened to fit `columns`:
    /// the bar goes first, then the sizes, then the time left.
    static func download(label: String, received: Int64, total: Int64?, elapsed: Double, columns: Int) -> String {
        let rate = elapsed > 0 ? Double(received) / elapsed : 0
        let speed = ByteSize.format(Int64(rate)) + "/s"
        guard let total, total > 0 else {
            return fit(["\(label) \(ByteSize.format(received))", speed], columns: columns)
        }
        let fraction = min(1, Double(received) / Double(total))
        let percent = String(format: "%3d%%", Int(fraction * 100))
        let sizes = "\(ByteSize.format(received)) / \(ByteSize.format(total))"
        let left = rate > 0 ? duration(Double(total - received) / rate) + " left" : nil
        let fixed = [label, percent, sizes, speed] + (left.map { [$0] } ?? [])
        // The bar takes what is left of the line, 10 to 30 columns, or is left out.
        let room = columns - 1 - fixed.joined(separator: "  ").count - 4
        if room >= 10 {
            let width = min(30, room)
            let filled = Int(fraction * Double(width))
            let bar = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
            return fit([label, percent, sizes, bar, speed] + (left.map { [$0] } ?? []), columns: columns)
        }
        return fit(fixed, columns: columns, dropping: [2, 4])
    }

    /// `12/100 done, 1 failed, 3.4/s, 0:26 left` (the total and the time left once the list's length is known).
    static func batch(_ progress: BatchProgress, columns: Int) -> String {
        var parts = ["\(progress.done)" + (progress.total.map { "/\($0)" } ?? "") + " done", "\(progress.failed) failed",
                     String(format: "%.1f/s", progress.rate)]
        if let total = progress.total, progress.rate > 0, total >= progress.done {
            parts.append(duration(Double(total - progress.done) / progress.rate) + " left")
        } else {
            parts.append(duration(progress.elapsed))
        }
        return fit(parts, columns: columns, separator: ", ", dropping: [3, 2])
    }

    /// The parts joined, leaving out those at `dropping` (in that order) and at last cutting the line, so that it
    /// is shorter than `columns` (the last column would wrap on some terminals).
    static func fit(_ parts: [String], columns: Int, separator: String = "  ", dropping: [Int] = []) -> String {
        var kept = parts.indices.map { Optional(parts[$0]) }
        var line = kept.compactMap { $0 }.joined(separator: separator)
        for index in dropping where line.count >= columns && kept.indices.contains(index) {
            kept[index] = nil
            line = kept.compactMap { $0 }.joined(separator: separator)
        }
        return line.count >= columns ? String(line.prefix(max(0, columns - 1))) : line
    }

    /// `0:07`, `12:34`, `1:02:03`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(min(seconds.rounded(.up), 359_999))
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}
