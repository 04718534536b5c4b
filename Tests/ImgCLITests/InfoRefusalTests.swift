import Foundation
import Testing
@testable import ImgCore

/// `imgfetch info`'s refusals and failures: one line each, with their exit codes, before any request.
@Suite("imgfetch info: refusals", .serialized)
struct InfoRefusalTests: EndToEndSuite {
    static let runsInProcess = true
    let server: FixtureServer
    let work: TemporaryDirectory

    func info(_ arguments: [String]) throws -> CommandResult {
        try fetch(["info"] + arguments)
    }

    @Test func refusalsAndFailuresAreOneLineWithTheirExitCodes() throws {
        for arguments in [["--resize", "10x"], ["-o", work.file("x.jpg")], ["--format", "png"], ["-j", "2"]] {
            let run = try info([server.url("/img/sample.jpg")] + arguments)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("does not apply to 'info'"))
        }
        #expect(try server.stats().total == 0, "a refused command made a request")
        // Without --facts nothing is decoded: a decoding limit would change nothing, so it is refused.
        for limit in [["--max-pixels", "1000"], ["--max-decode-memory", "1K"], ["--max-render-time", "1"], ["--blurhash", "3,3"]] {
            let run = try info([server.url("/img/sample.jpg")] + limit)
            #expect(run.status == 2 && run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("--facts"),
                    "\(limit): \(run.stderr)")
            #expect(try info([server.url("/img/sample.jpg"), "--facts"] + limit).status != 2, "\(limit) with --facts")
        }
        // Over libheif's own size limit: said as such in one line, not as libheif's "Memory allocation error".
        for input in [Paths.images + "/17000x17000.avif", server.url("/img/17000x17000.avif")] {
            let big = try info([input])
            #expect(big.status == 5 && big.stderr.split(separator: "\n").count == 1, "\(big.stderr)")
            #expect(big.stderr.contains("17000x17000 avif image: over the largest size libheif") && !big.stderr.contains("Security limit"),
                    "\(big.stderr)")
        }
        // -q: nothing but errors, as cache inspect -q; the --json records are still given.
        let quiet = try info([Paths.images + "/sample.jpg", "-q"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stdoutText)")
        #expect(try info([Paths.images + "/sample.jpg", "-q", "--json"]).stdoutText.contains("\"width\":290"))
        #expect(try info([]).status == 2)
        #expect(try info([server.url("/status/404")]).status == 4)
        let html = try info([server.url("/html")])
        #expect(html.status == 5 && html.stderr.split(separator: "\n").count == 1, "\(html.stderr)")
        #expect(try info([work.file("missing.jpg")]).status == 7)
        let mixed = try info([server.url("/img/sample.jpg"), server.url("/html"), "--json"])
        #expect(mixed.status == 1)
        let records = mixed.stdoutText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(records.map { $0["status"] as? String } == ["ok", "error"])
        #expect((records.last?["error"] as? [String: Any])?["exit"] as? Int == 5)
    }
}
