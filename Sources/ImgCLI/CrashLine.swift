import Glibc

/// What a crash tells a user: one line on stderr, then the process ends by its signal (a shell sees 128 + N), in
/// place of the Swift runtime's backtrace, whose registers, memory bytes and build paths are for developers
/// (`IMGFETCH_BACKTRACE=1` keeps it). The handler only writes a fixed message and re-raises: nothing it calls
/// allocates or takes a lock.
enum CrashLine {
    /// The signals a crash raises: an arithmetic or bounds trap (SIGILL, SIGTRAP), a bad access (SIGSEGV, SIGBUS),
    /// a floating-point fault (SIGFPE) and an abort (SIGABRT).
    static let signals = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]

    /// Installs the handler, unless `environment` has IMGFETCH_BACKTRACE=1.
    static func install(environment: [String: String]) {
        guard environment["IMGFETCH_BACKTRACE"] != "1" else { return }
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let message: StaticString = "imgfetch: internal error: crashed (please report it with its command line)\n"
                _ = write(STDERR_FILENO, message.utf8Start, message.utf8CodeUnitCount)
                signal(number, SIG_DFL)
                raise(number)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0  // the handler puts the default action back itself
            sigaction(number, &action, nil)
        }
    }
}
