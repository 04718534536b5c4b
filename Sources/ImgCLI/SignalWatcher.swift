import CSignals
import Dispatch
import Foundation

/// Turns SIGINT and SIGTERM into a call of `handler` (on a global queue) instead of an abrupt exit, so that
/// transfers are cancelled and no partial output is left behind. A signal the process was started with ignored
/// stays ignored (a shell starts a script's background jobs with SIGINT ignored, so that Ctrl-C spares them).
///
/// The signals are caught by a handler that writes them into a pipe (`imgf_signal_pipe_catch`), read by a dispatch
/// source: one that comes before the source is armed waits in the pipe. (A libdispatch signal source arms itself
/// later, on its manager thread; a signal in between found the signal ignored and was lost, and a command then ran on
/// as if never told.)
enum SignalWatcher {
    /// Watches until the returned watch ends (`SignalWatch.end`), when `console` takes signals (the process's does);
    /// else watches nothing.
    static func watch(for console: Console, _ handler: @escaping @Sendable (Int32) -> Void) -> SignalWatch {
        let watched = console.takesSignals ? [SIGINT, SIGTERM].filter { !ignoredAtStart.contains($0) } : []
        var ends: [Int32] = [-1, -1]
        guard !watched.isEmpty, imgf_signal_pipe_open(&ends) == 0 else { return SignalWatch() }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let reader = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
        reader.setEventHandler {
            var number: UInt8 = 0
            while read(readEnd, &number, 1) == 1 { handler(Int32(number)) }
        }
        reader.setCancelHandler {
            close(readEnd)
            close(writeEnd)
        }
        let replaced = imgf_signal_pipe_use(writeEnd)
        var previous: [(number: Int32, action: sigaction)] = []
        for number in watched {
            var before = sigaction()
            imgf_signal_pipe_catch(number, &before)
            previous.append((number, before))
        }
        // A parent may have started us with these blocked (threads of libdispatch block them): unblock them here.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for number in watched { sigaddset(&unblocked, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        reader.resume()
        return SignalWatch(reader: reader, writeEnd: writeEnd, replaced: replaced, previous: previous)
    }

    /// The signals the process was started with ignored: read once, at the first watch, before it changes any.
    static let ignoredAtStart: Set<Int32> = Set([SIGINT, SIGTERM].filter(isIgnored))

    /// Whether `number`'s disposition is to be ignored.
    private static func isIgnored(_ number: Int32) -> Bool {
        var current = sigaction()
        sigaction(number, nil, &current)
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}

/// A watch of SIGINT and SIGTERM (`SignalWatcher.watch`). Its end puts back what each signal did before, so that
/// a process that goes on (the CLI front run as a library) neither catches them nor hands that on to its children.
struct SignalWatch {
    fileprivate var reader: DispatchSourceRead?
    fileprivate var writeEnd: Int32 = -1
    /// The pipe in use before this watch's (an enclosing watch's, -1: none), in use again after it.
    fileprivate var replaced: Int32 = -1
    fileprivate var previous: [(number: Int32, action: sigaction)] = []

    func end() {
        for (number, action) in previous {
            var action = action
            sigaction(number, &action, nil)
        }
        if writeEnd >= 0 { imgf_signal_pipe_forget(writeEnd, replaced) }
        reader?.cancel()  // closes the pipe: no handler writes to it any more
    }
}
