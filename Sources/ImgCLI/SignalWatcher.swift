import Dispatch
import Foundation

/// Turns SIGINT and SIGTERM into a call of `handler` (on a global queue) instead of an abrupt exit, so that
/// transfers are cancelled and no partial output is left behind.
enum SignalWatcher {
    /// Keep the returned sources alive for as long as the signals should be watched.
    static func watch(_ handler: @escaping @Sendable (Int32) -> Void) -> [DispatchSourceSignal] {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        // A parent may have started us with these blocked (threads of libdispatch block them): unblock them here.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, SIGINT)
        sigaddset(&unblocked, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        return [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            let watcher = DispatchSource.makeSignalSource(signal: number, queue: .global())
            watcher.setEventHandler { handler(number) }
            watcher.resume()
            return watcher
        }
    }
}
