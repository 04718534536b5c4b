import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// SIGINT stops a rendering in this process as it stops a warm renderer's (issue #33 item 3): libvips is told to
/// stop at the next part of the image it computes.
@Suite("Interrupting a local rendering")
struct LocalInterruptTests {
    /// Before: the command waited for the rendering to end (a 9000 × 9000 blur of sigma 60, several seconds) and
    /// only then said it was interrupted. Now it ends within a moment of the signal, exit 130, no output written.
    @Test func anInterruptStopsALocalRendering() throws {
        let server = try FixtureServer()
        let work = try TemporaryDirectory()
        let errors = try CapturedOutput()
        defer { errors.remove() }
        let output = work.file("big.png")
        let process = try Imgfetch.launchSlowRendering(server, output: output, errors: errors)
        let signalled = Date()
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(signalled)
        let stderr = String(decoding: try errors.collect(), as: UTF8.self)
        #expect(process.terminationStatus == 130, "\(stderr)")
        #expect(stderr.contains("interrupted by SIGINT"), "\(stderr)")
        #expect(seconds < 2, "\(seconds) s after the signal")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// In process: what waits on a cancellation runs once, at once when it came already; forgotten, it does not.
    @Test func aCancellationTellsWhoWaitsOnIt() {
        let cancellation = Cancellation()
        let runs = Locked<[String]>([])
        let first = cancellation.whenCancelled { runs.withLock { $0.append("first") } }
        let forgotten = cancellation.whenCancelled { runs.withLock { $0.append("forgotten") } }
        cancellation.forget(forgotten)
        #expect(first != nil && runs.withLock { $0 }.isEmpty)
        cancellation.cancel(signal: SIGINT)
        #expect(runs.withLock { $0 } == ["first"])
        #expect(cancellation.whenCancelled { runs.withLock { $0.append("late") } } == nil)
        #expect(runs.withLock { $0 } == ["first", "late"])
    }
}
