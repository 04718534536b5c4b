import Dispatch
import Foundation

/// Turns SIGINT and SIGTERM into a call of `handler` (on a global queue) instead of an abrupt exit, so that
/// transfers are cancelled and no partial output is left behind. A signal the process was started with ignored
/// stays ignored (a shell starts a script's background jobs with SIGINT ignored, so that Ctrl-C spares them).
enum SignalWatcher {
    /// Watches until the returned watch ends (`SignalWatch.end`), when `console` takes signals (the process's does);
    /// else watches nothing.
    static func watch(for console: Console, _ handler: @escaping @Sendable (Int32) -> Void) -> SignalWatch {
        let watched = console.takesSignals ? [SIGINT, SIGTERM].filter { !ignoredAtStart.contains($0) } : []
        var previous: [(number: Int32, action: sigaction)] = []
        for number in watched {
            var ignoring = sigaction()
            ignoring.__sigaction_handler.sa_handler = SIG_IGN
            var before = sigaction()
            sigaction(number, &ignoring, &before)
            previous.append((number, before))
        }
        // A parent may have started us with these blocked (threads of libdispatch block them): unblock them here.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for number in watched { sigaddset(&unblocked, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        let sources = watched.map { number -> DispatchSourceSignal in
            let watcher = DispatchSource.makeSignalSource(signal: number, queue: .global())
            watcher.setEventHandler { handler(number) }
            watcher.resume()
            return watcher
        }
        return SignalWatch(sources: sources, previous: previous)
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
/// a process that goes on (the CLI front run as a library) neither ignores them nor hands that on to its children.
struct SignalWatch {
    fileprivate let sources: [DispatchSourceSignal]
    fileprivate let previous: [(number: Int32, action: sigaction)]

    func end() {
        sources.forEach { $0.cancel() }
        for (number, action) in previous {
            var action = action
            sigaction(number, &action, nil)
        }
    }
}
