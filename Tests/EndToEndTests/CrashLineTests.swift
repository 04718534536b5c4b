import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// A crash tells a user one line, not the Swift runtime's backtrace with registers, memory bytes and build paths
/// (issue #38 item 11); the process still ends by its signal, so a shell and `wait` see what happened.
@Suite("A crash's one line")
struct CrashLineTests {
    @Test func aCrashSaysOneLineAndEndsByItsSignal() throws {
        let server = try FixtureServer()
        let work = try TemporaryDirectory()
        let errors = try CapturedOutput()
        defer { errors.remove() }
        let process = try Imgfetch.launchSlowRendering(server, output: work.file("big.png"), errors: errors)
        kill(process.processIdentifier, SIGSEGV)  // as a bad access in the rendering would raise it
        process.waitUntilExit()
        let stderr = String(decoding: try errors.collect(), as: UTF8.self)
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGSEGV, "\(stderr)")
        #expect(stderr == "imgfetch: internal error: crashed (please report it with its command line)\n", "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.file("big.png")))
    }
}
