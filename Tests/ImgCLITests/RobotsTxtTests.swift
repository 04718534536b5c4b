import Foundation
import Testing
@testable import ImgCore

/// `--robots-txt`: each host's robots.txt, fetched once a run and cached, read as RFC 9309 says; a URL it
/// disallows is `robots_disallowed` and never requested.
@Suite("Opt-out: robots.txt")
struct RobotsTxtTests {
    private static func robots(_ text: String, agent: String = "imgfetch") -> RobotsTxt {
        RobotsTxt(parsing: Data(text.utf8), productToken: agent)
    }

    @Test func theMatcherFollowsRFC9309() {
        let robots = Self.robots("User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /a/b/c\nAllow: /x\nDisallow: /x\n")
        #expect(!robots.allows("/a") && !robots.allows("/abc") && robots.allows("/a/b") && !robots.allows("/a/b/c/d"))
        #expect(robots.allows("/x/y"), "allow wins a tie")
        #expect(robots.allows("/") && robots.allows("/b"))
        #expect(robots.deciding("/a/z")?.text == "disallow: /a")
        let wild = Self.robots("User-agent: *\nDisallow: /*.gif$\nDisallow: /p*q/r\nDisallow: /exact$\nAllow: /*.gif$?\n")
        #expect(!wild.allows("/f.gif") && !wild.allows("/d/e.gif") && wild.allows("/f.gif?x=1") && wild.allows("/f.gifs"))
        #expect(!wild.allows("/p1q/r2") && !wild.allows("/pq/r") && wild.allows("/pq/s"))
        #expect(!wild.allows("/exact") && wild.allows("/exact/more") && wild.allows("/no/exact"))
        // Percent-encoding: unreserved characters unescaped, hex case and raw UTF-8 alike; %2F stays apart from /.
        let encoded = Self.robots("User-agent: *\nDisallow: /caf%c3%a9/\nDisallow: /%7Euser\nDisallow: /a%2Fb\n")
        #expect(!encoded.allows("/caf%C3%A9/x") && !encoded.allows("/café/x") && !encoded.allows("/~user/p"))
        #expect(!encoded.allows("/a%2fb") && encoded.allows("/a/b"))
        #expect(Self.robots("User-agent: *\nDisallow: /\n").allows("/robots.txt"))
    }

    /// A file that starts with a UTF-8 byte order mark (saved on Windows) keeps its first line: it was read as the
    /// key "\u{FEFF}user-agent", so a site-wide `Disallow: /` belonged to no group and everything was allowed.
    @Test func aByteOrderMarkIsNoPartOfTheFirstLine() {
        let marked = RobotsTxt(parsing: Data([0xEF, 0xBB, 0xBF]) + Data("User-agent: *\nDisallow: /\n".utf8),
                               productToken: "imgfetch")
        #expect(!marked.allows("/img/a.jpg") && marked.rules.map(\.text) == ["disallow: /"])
    }

    @Test func theGroupIsTheCrawlersElseTheWildcards() throws {
        let text = try String(contentsOfFile: Paths.fixtures + "/server/robots/agents.txt", encoding: .utf8)
        let own = Self.robots(text)
        #expect(own.rules.map(\.text) == ["disallow: /img/private/", "allow: /img/private/ok", "disallow: /*.png$",
                                          "disallow: /img/caf%C3%A9/", "disallow: /img/tail*.jpg"])
        #expect(Self.robots(text, agent: "somebot").rules.count == 4)
        #expect(Self.robots(text, agent: "nobody").rules.map(\.text) == ["disallow: /img/", "allow: /img/public/"])
        #expect(!Self.robots(text, agent: "otherbot").allows("/anything"))
        #expect(Self.robots("Disallow: /\nUser-agent: x\n").allows("/"), "a rule before any group is no one's")
        #expect(Self.robots("User-agent: other\nDisallow: /\n").allows("/"), "no group for us nor *: allowed")
        #expect(RobotsTagRule.productToken(ofUserAgent: "ImgFetch/2.0 (+x)") == "imgfetch")
    }

    @Test func patternsAreSplitOnceAndMatchPieceAfterPiece() {
        let doubled = RobotsPattern("/a**b")
        #expect(doubled.pieces == [Array("/a".utf8), [], Array("b".utf8)] && !doubled.anchored)
        #expect(doubled.matches(Array("/ab".utf8)) && doubled.matches(Array("/a/x/b/y".utf8)) && !doubled.matches(Array("/b".utf8)))
        // The anchored last piece must come after what the pieces before it matched, not overlap them.
        let ends = RobotsPattern("/a*a$")
        #expect(ends.anchored && !ends.matches(Array("/a".utf8)) && ends.matches(Array("/aa".utf8)))
        #expect(ends.matches(Array("/a/b/a".utf8)) && !ends.matches(Array("/a/b/a/".utf8)))
        #expect(RobotsPattern("/x$").matches(Array("/x".utf8)) && !RobotsPattern("/x$").matches(Array("/xy".utf8)))
        #expect(RobotsPattern("*.jpg").matches(Array("/p/q.jpg?s=1".utf8)) && !RobotsPattern("*.jpg").matches(Array("/p.png".utf8)))
    }

    @Test func aFileAtTheReadLimitIsJudgedByItsLongestMatchingRule() {
        // Thousands of rules, as a large site's robots.txt has, past the 500 KiB that are read.
        var text = "User-agent: *\n"
        var rule = 0
        while text.utf8.count < RobotsTxt.readLimit {
            text += "Disallow: /d/\(rule)/*/page*.html\nAllow: /d/\(rule)/open/page1*.html\n"
            rule += 1
        }
        text += "Disallow: /after-the-limit/\n"
        let robots = Self.robots(text)
        #expect(robots.rules.count > 15_000 && robots.rules.count <= 2 * rule)
        #expect(!robots.allows("/d/1234/x/page7.html") && !robots.allows("/d/1234/open/page7.html"))
        #expect(robots.deciding("/d/1234/open/page12.html")?.text == "allow: /d/1234/open/page1*.html")
        #expect(robots.allows("/d/1234/x/other.html") && robots.allows("/after-the-limit/a.jpg"))
    }

    /// A server whose www holds the files the agents.txt lines name.
    private static func server(robots: String, delay: Double = 0) throws -> (TemporaryDirectory, FixtureServer) {
        let root = try TemporaryDirectory()
        let sample = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        for name in ["img1.jpg", "private/a.jpg", "private/ok.jpg", "tail1.jpg", "café/a.jpg", "public/p.jpg", "secret.jpg"] {
            let path = root.path + "/www/" + name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try sample.write(to: URL(fileURLWithPath: path))
        }
        try FileManager.default.copyItem(atPath: Paths.images + "/sample.png", toPath: root.path + "/www/a.png")
        try FileManager.default.copyItem(atPath: Paths.fixtures + "/server/robots/redirected.txt", toPath: root.path + "/www/redirected.txt")
        return (root, try FixtureServer(root: root.path + "/www", robots: robots, robotsDelay: delay))
    }

    /// `batch` of `urls` with `--robots-txt`, recording into `manifest` (default a new file): its result and records.
    private static func batch(_ root: TemporaryDirectory, _ urls: [String], _ extra: [String],
                              manifest: String? = nil) throws -> (CommandResult, [[String: Any]]) {
        let list = root.file("list-\(UUID().uuidString).txt")
        try (urls.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let manifest = manifest ?? root.file("m-\(UUID().uuidString).jsonl")
        let result = try Imgfetch.runInProcess(["batch", list, "-O", root.file("out-\(UUID().uuidString)"), "--cache-dir", root.file("cache"),
                                       "--no-progress", "--robots-txt", "--manifest", manifest] + extra)
        return (result, try JSONLines.objects(inFile: manifest))
    }

    @Test func disallowedURLsAreRecordedAndNeverRequested() throws {
        let (root, server) = try Self.server(robots: "file:" + Paths.fixtures + "/server/robots/agents.txt", delay: 0.3)
        let paths = ["/img/img1.jpg", "/img/private/a.jpg", "/img/private/ok.jpg", "/img/a.png", "/img/a.png?v=1",
                     "/img/tail1.jpg", "/img/caf%C3%A9/a.jpg", "/img/%70rivate/a.jpg"]
        let (result, records) = try Self.batch(root, paths.map(server.url), ["-j", "8"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("3 ok, 0 failed, 5 disallowed by robots.txt"), "\(result.stderr)")
        #expect(records.dropLast().map { $0["status"] as? String } == ["ok", "robots_disallowed", "ok", "robots_disallowed",
                                                                        "ok", "robots_disallowed", "robots_disallowed", "robots_disallowed"])
        #expect(records[1]["rule"] as? String == "disallow: /img/private/")
        #expect(records[1]["reason"] as? String == "robots.txt disallows /img/private/a.jpg (disallow: /img/private/)")
        #expect(records[7]["rule"] as? String == "disallow: /img/private/")
        #expect(records.last?["robots_disallowed"] as? Int == 5)
        // One robots.txt for eight workers; no disallowed path was ever asked for.
        let asked = try server.recordedRequests().map(\.path)
        #expect(asked.filter { $0 == "/robots.txt" }.count == 1)
        #expect(Set(asked) == ["/robots.txt", "/img/img1.jpg", "/img/private/ok.jpg", "/img/a.png?v=1"], "\(asked)")
        // Another crawler, the same cache: the * group, from the cached robots.txt.
        let (other, otherRecords) = try Self.batch(root, ["/img/public/p.jpg", "/img/img1.jpg"].map(server.url),
                                                   ["--user-agent", "nobody/1.0", "--json"])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(otherRecords.dropLast().map { $0["status"] as? String } == ["ok", "robots_disallowed"])
        #expect(try BatchFixture.records(other).last?["robotsDisallowed"] as? Int == 1)
        #expect(try server.requests("/robots.txt") == 1)
        #expect(try server.requests("/img/public/p.jpg") == 1)
        let inspect = try Imgfetch.runInProcess(["cache", "inspect", "--cache-dir", root.file("cache"), "--json"])
        #expect(inspect.stdoutText.contains(#""kind":"robots""#) && inspect.stdoutText.contains(server.url("/robots.txt")),
                "\(inspect.stdoutText)")
    }

    @Test func answersOtherThanABodyAllowOrDisallowTheHost() throws {
        for (spec, allowed, cached) in [("status:404", true, true), ("status:500", false, false), ("status:429", false, false)] {
            let (root, server) = try Self.server(robots: spec)
            let (result, records) = try Self.batch(root, [server.url("/img/img1.jpg")], ["--retry", "0"])
            // A 5xx or a 429 disallows the host for this run only: to be tried again (exit 75).
            #expect(result.status == (allowed ? 0 : 75), "\(spec): \(result.stderr)")
            #expect(records.first?["status"] as? String == (allowed ? "ok" : "robots_disallowed"), "\(spec)")
            #expect(records.first?["exit_class"] as? String == (allowed ? nil : "transient"), "\(spec)")
            if !allowed {
                #expect((records.first?["reason"] as? String)?.contains("could not be fetched (HTTP \(spec.dropFirst(7))") == true, "\(records)")
                #expect(try server.requests("/img/img1.jpg") == 0)
            }
            _ = try Self.batch(root, [server.url("/img/img1.jpg")], ["--retry", "0"])
            #expect(try server.requests("/robots.txt") == (cached ? 1 : 2), "\(spec)")
        }
        // Redirects are followed; a host that can't be reached is disallowed, for this run.
        let (root, server) = try Self.server(robots: "redirect:/img/redirected.txt")
        let (_, records) = try Self.batch(root, ["/img/secret.jpg", "/img/img1.jpg"].map(server.url), [])
        #expect(records.dropLast().map { $0["status"] as? String } == ["robots_disallowed", "ok"])
        let closed = "http://127.0.0.1:\(try FixtureServer.closedPort())/img/img1.jpg"
        let (refused, refusedRecords) = try Self.batch(root, [closed], ["--retry", "0"])
        #expect(refused.status == 75 && refusedRecords.first?["status"] as? String == "robots_disallowed", "\(refused.stderr)")
        #expect(refusedRecords.first?["exit_class"] as? String == "transient")
    }

    /// Before: a robots.txt that answered 503 (or a refused connection) recorded every line of its host
    /// `robots_disallowed` and the batch exited 0; `--retry-failed` then carried those lines as done earlier and
    /// never asked again. Now such a line is disallowed for this run only: exit class `transient`, exit 75 (1 beside
    /// a permanent failure), and `--retry-failed` and `--resume` run it again, robots.txt fetched again. A line a
    /// rule disallows stays done.
    @Test func aRobotsTxtThatCouldNotBeFetchedDisallowsForThisRunOnly() throws {
        let agents = "file:" + Paths.fixtures + "/server/robots/agents.txt"
        let (root, server) = try Self.server(robots: "status:503;" + agents)
        let urls = ["/img/img1.jpg", "/img/private/a.jpg"].map(server.url)
        let firstManifest = root.file("first.jsonl")
        let (first, firstRecords) = try Self.batch(root, urls, ["--retry", "0"], manifest: firstManifest)
        #expect(first.status == 75, "\(first.stderr)")
        #expect(first.stderr.contains("0 ok, 0 failed, 2 disallowed by robots.txt (2 only because robots.txt could not be fetched: try again later)"),
                "\(first.stderr)")
        #expect(firstRecords.dropLast().allSatisfy { $0["status"] as? String == "robots_disallowed" && $0["exit_class"] as? String == "transient" },
                "\(firstRecords)")
        #expect((firstRecords.first?["reason"] as? String)?.hasSuffix("disallowed for this run, to be tried again later") == true)
        let summary = try #require(firstRecords.last)
        #expect(summary["status"] as? String == "error" && summary["exit"] as? Int == 75, "\(summary)")
        #expect(summary["robots_disallowed"] as? Int == 2 && summary["robots_disallowed_transient"] as? Int == 2)

        // The retry asks robots.txt again (now a 200): one line is fetched, the other a rule disallows, for good.
        let manifest = root.file("retry.jsonl")
        let (retry, retryRecords) = try Self.batch(root, urls, ["--retry", "0", "--retry-failed", firstManifest],
                                                   manifest: manifest)
        #expect(retry.status == 0, "\(retry.stderr)")
        #expect(retryRecords.dropLast().map { $0["status"] as? String } == ["ok", "robots_disallowed"], "\(retryRecords)")
        #expect(retryRecords[1]["rule"] as? String == "disallow: /img/private/" && retryRecords[1]["exit_class"] == nil)
        #expect(try server.requests("/robots.txt") == 2 && server.requests("/img/img1.jpg") == 1)
        let (again, _) = try Self.batch(root, urls, ["--retry-failed", manifest])
        #expect(again.status == 0 && again.stderr.contains("2 done earlier"), "\(again.stderr)")

        // --resume runs such a line again too; a permanent failure beside it makes the exit status 1.
        let (resumeRoot, resumeServer) = try Self.server(robots: "status:503;status:404")
        let resumeManifest = resumeRoot.file("resume.jsonl")
        let (down, _) = try Self.batch(resumeRoot, [resumeServer.url("/img/img1.jpg")], ["--retry", "0", "--json"],
                                       manifest: resumeManifest)
        #expect(down.status == 75, "\(down.stderr)")
        #expect(try BatchFixture.records(down).last?["robotsDisallowedTransient"] as? Int == 1, "\(down.stdoutText)")
        let (resumed, resumedRecords) = try Self.batch(resumeRoot, ["/img/img1.jpg", "/img/missing.jpg"].map(resumeServer.url),
                                                       ["--retry", "0", "--resume", resumeManifest])
        #expect(resumed.status == 1, "\(resumed.stderr)")
        #expect(resumedRecords.dropLast().map { $0["status"] as? String } == ["ok", "failed"], "\(resumedRecords)")
        #expect(try resumeServer.requests("/robots.txt") == 2)
    }

    @Test func onlyFromCacheAndOtherCommands() throws {
        let (root, server) = try Self.server(robots: "status:404")
        let (result, records) = try Self.batch(root, [server.url("/img/img1.jpg")], ["--only-from-cache"])
        #expect(result.status == 1 && records.first?["status"] as? String == "failed", "\(result.stderr)")
        #expect(try server.requests("/robots.txt") == 0)
        let prefetch = try Imgfetch.runInProcess(["prefetch", server.url("/img/img1.jpg"), "--robots-txt", "--cache-dir", root.file("c2"), "--json"])
        let prefetched = try BatchFixture.records(prefetch)
        #expect(prefetch.status == 0 && prefetched.first?["status"] as? String == "ok", "\(prefetch.stderr)")
        for command in [["fetch", server.url("/img/img1.jpg"), "-o", root.file("a.jpg")], ["info", server.url("/img/img1.jpg")]] {
            let refused = try Imgfetch.runInProcess(command + ["--robots-txt"])
            #expect(refused.status == 2 && refused.stderr.contains("--robots-txt"), "\(refused.stderr)")
        }
    }

    /// Before: only the list's URL was judged, and a redirect to a path or a host that robots.txt disallows was
    /// followed. Now every hop is judged by its own host's robots.txt before it is requested.
    @Test func everyRedirectHopIsJudgedByItsHostsRobotsTxt() throws {
        let (root, server) = try Self.server(robots: "file:" + Paths.fixtures + "/server/robots/agents.txt")
        let closedRobots = root.file("closed.txt")
        try "User-agent: *\nDisallow: /\n".write(toFile: closedRobots, atomically: true, encoding: .utf8)
        let closed = try FixtureServer(root: root.path + "/www", robots: "file:" + closedRobots)
        func hop(_ target: String) -> String {
            server.url("/redirect-to?url=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        }
        let urls = [hop("/img/private/a.jpg"), hop("/img/private/ok.jpg"), hop(closed.url("/img/img1.jpg"))]
        // --keep-query: the lines differ only in their query, which chooses the image here.
        let (result, records) = try Self.batch(root, urls, ["-j", "2", "--keep-query"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(records.dropLast().map { $0["status"] as? String } == ["robots_disallowed", "ok", "robots_disallowed"],
                "\(records)")
        #expect(records.first?["rule"] as? String == "disallow: /img/private/")
        #expect(records.dropLast().last?["rule"] as? String == "disallow: /")
        #expect(try server.requests("/img/private/a.jpg") == 0)
        #expect(try closed.requests("/img/img1.jpg") == 0)
        #expect(try closed.requests("/robots.txt") == 1)
    }
}
