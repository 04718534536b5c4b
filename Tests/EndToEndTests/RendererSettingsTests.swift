import Foundation
import Testing
@testable import ImgRenderer

/// What the renderer's settings say and refuse: an idle limit said as given, `--idle` refused where nothing would
/// read it, and `stop` and `status` not held up by settings they don't read.
@Suite("Renderer settings", .serialized)
struct RendererSettingsTests: RendererSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    /// `renderer start --idle 0.5` said `exits after 0 s idle`; a bad `IMGFETCH_RENDERER` or `_IDLE` in the
    /// environment made `stop` and `status` usage errors, so a renderer could not be stopped.
    @Test func anIdleLimitIsSaidAsGivenAndStopAndStatusReadOnlyTheAddress() throws {
        defer { stopRenderer() }
        let started = try run(["renderer", "start", "--idle", "1.5"])
        #expect(started.status == 0 && started.stdoutText.contains("exits after 1.5 s idle"), "\(started.stdoutText)")
        for bad in [["IMGFETCH_RENDERER": "bogus"], ["IMGFETCH_RENDERER_IDLE": "0"]] {
            let status = try run(["renderer", "status"], environment: bad)
            #expect(status.status == 0, "\(bad): \(status.stderr)")
        }
        let stopped = try run(["renderer", "stop"], environment: ["IMGFETCH_RENDERER_IDLE": "0"])
        #expect(stopped.status == 0 && stopped.stdoutText.contains("stopping: pid"), "\(stopped.stderr)")
        let refused = try run(["renderer", "start"], environment: ["IMGFETCH_RENDERER_IDLE": "0"])
        #expect(refused.status == 2 && refused.stderr.contains("IMGFETCH_RENDERER_IDLE"), "\(refused.stderr)")
    }

    /// `--idle` on a fetch that starts no renderer (no `--renderer auto`) would do nothing: a usage error.
    @Test func idleWithoutTheRendererIsAUsageError() throws {
        let url = server.url("/img/sample.jpg")
        let off = try Imgfetch.run([url, "-o", work.file("a.jpg"), "--idle", "5"], environment: ["XDG_RUNTIME_DIR": runtime])
        #expect(off.status == 2 && off.stderr.contains("--idle applies with --renderer auto"), "\(off.stderr)")
        #expect(try server.requests("/img/sample.jpg") == 0)
    }
}
