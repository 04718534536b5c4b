import Foundation
import Testing
@testable import ImgCore
#if canImport(Glibc)
import Glibc
#endif

/// Signals where they are easy to miss: one imgfetch was started with ignored, and one that comes while another
/// process's download is waited for.
@Suite("Signals: ignored from the start, and while a lock is waited for")
struct SignalEdgeTests {
    /// A signal imgfetch was started with ignored stays ignored: a shell starts a script's background jobs with
    /// SIGINT ignored, so that Ctrl-C on the foreground job spares them (`cache prune` kept it; batch and fetch
    /// replaced it).
    @Test func aBatchStartedWithSIGINTIgnoredRunsOnThroughIt() throws {
        let fixture = try BatchFixture(count: 2)
        let lines = (1...2).map { fixture.server.url("/slow/img\($0).jpg?delay=0.02") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // `trap '' INT` makes SIGINT ignored in the shell, and so in what it executes.
        process.arguments = ["-c", "trap '' INT; exec \"$0\" \"$@\"", Paths.binary, "batch", try fixture.list(lines),
                             "-O", fixture.output, "--no-cache", "-q"]
        process.environment = Paths.childEnvironment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try fixture.server.waitForRequests("/slow/img1.jpg")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(fixture.outputs() == ["img1.jpg", "img2.jpg"])
    }

    /// A process waiting for another's download of the same original (the download lock) stops waiting when it is
    /// signalled: it waited for the other download to end, up to the transfer's worst case (90 s by default).
    @Test func aSignalEndsTheWaitForAnotherProcesssDownload() throws {
        let home = try TemporaryDirectory()
        _ = try DiskCache(directory: home.path)
        let held = KeyLock.acquire(root: try CacheRoot.at(home.path), key: "http://h/a.png", timeout: 1)
        #expect(held != nil)
        let cancellation = Cancellation()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { cancellation.cancel(signal: SIGINT) }
        let started = Date()
        let waited = KeyLock.acquire(root: try CacheRoot.at(home.path), key: "http://h/a.png", timeout: 30,
                                     cancellation: cancellation)
        #expect(waited == nil)
        #expect(Date().timeIntervalSince(started) < 5, "the wait went on after the signal")
        withExtendedLifetime(held) {}
    }
}
