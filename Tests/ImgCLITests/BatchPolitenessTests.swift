import Foundation
import Testing
@testable import ImgCore

/// `--rate`, a host paused by `Retry-After` for every worker, a host given up with one message. Times are the
/// server's arrival times of the requests: the assertions are lower bounds a correct run cannot miss.
@Suite("Batch politeness per host: --rate, Retry-After, giving up")
struct BatchPolitenessTests {
    @Test func rateHoldsAcrossAllWorkersPerHost() throws {
        let fixture = try BatchFixture(count: 6, inProcess: true)
        let other = try FixtureServer(root: fixture.root.path + "/www")
        let lines = (1...6).map { fixture.server.url("/img/img\($0).jpg") } + (1...6).map { other.url("/img/img\($0).jpg") }
        let result = try fixture.batch(lines, ["--rate", "2.5", "-j", "8", "--no-cache"])
        #expect(result.status == 0, "\(result.stderr)")
        let first = try fixture.server.stats().allTimes, second = try other.stats().allTimes
        #expect(first.count == 6 && second.count == 6)
        for times in [first, second] {
            // 2.5 a second: turns 0.4 s apart, so six requests are sent over at least 2 s and any three over 0.8 s.
            // The server sees when a request arrives, not when it was sent, and a loaded 2-core machine delays one by
            // 0.3 s at times: the bounds keep that slack and still tell a paced host from an unpaced one, whose six
            // requests arrive within a few milliseconds of each other.
            #expect(times.last! - times.first! > 1.2, "\(times)")
            for (earlier, later) in zip(times, times.dropFirst(2)) { #expect(later - earlier > 0.3, "\(times)") }
        }
        // Each host has its own turns: the second host did not wait for the first to finish.
        #expect(second.first! < first.last! && first.first! < second.last!)
        for bad in ["0", "-1", "x", "inf", "nan", "0x10", "1e", "."] {
            let refused = try fixture.batch(lines, ["--rate", bad])
            #expect(refused.status == 2 && refused.stderr.contains("--rate"), "\(bad): \(refused.stderr)")
        }
    }

    /// A redirect's hop to another host takes that host's turn: three requests sent to a host directly and three
    /// redirected to it by another are paced as six (the redirected ones were paced by the first host's turns).
    @Test func aRedirectedRequestTakesItsOwnHostsTurn() throws {
        let fixture = try BatchFixture(count: 6, inProcess: true)
        let other = try FixtureServer(root: fixture.root.path + "/www")
        let redirected = (4...6).map { n in
            fixture.server.url("/redirect-to?url=" + other.url("/img/img\(n).jpg").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        }
        let result = try fixture.batch((1...3).map { other.url("/img/img\($0).jpg") } + redirected,
                                       ["--rate", "2.5", "-j", "8", "--no-cache", "--keep-query"])
        #expect(result.status == 0, "\(result.stderr)")
        let times = try other.stats().allTimes
        #expect(times.count == 6 && times.last! - times.first! > 1.2, "\(times)")
        for (earlier, later) in zip(times, times.dropFirst(2)) { #expect(later - earlier > 0.3, "\(times)") }
    }

    /// The wait for a hop's turn is not the transfer's time: lines redirected to a host paced at one request every
    /// 2 s all arrive within a 1.5 s `--timeout` (they failed as "the redirects took longer than the time allowed").
    /// A handle keeps the connections of both hosts of a redirect alive for the next line: one connection each for
    /// ten lines redirected from one host to another (keeping one, each line opened both again).
    @Test func aRedirectKeepsBothHostsConnectionsAlive() throws {
        let fixture = try BatchFixture(count: 10, inProcess: true)
        let server = try FixtureServer(root: fixture.root.path + "/www", aliases: 1)
        let lines = (1...10).map { n in
            server.url("/redirect-to?url=" + server.aliasURL(0, "/img/img\(n).jpg").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        }
        let result = try fixture.batch(lines, ["-j", "1", "--no-cache", "--keep-query"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try server.stats().connections == 2)
    }

    @Test func waitingForARedirectsTurnIsNotTheTimeout() throws {
        let fixture = try BatchFixture(count: 3, inProcess: true)
        let other = try FixtureServer(root: fixture.root.path + "/www")
        let redirected = (1...3).map { n in
            fixture.server.url("/redirect-to?url=" + other.url("/img/img\(n).jpg").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        }
        let result = try fixture.batch(redirected, ["--rate", "0.5", "--timeout", "1.5", "-j", "3", "--no-cache", "--keep-query"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try other.stats().allTimes.count == 3)
    }

    /// The host that refuses is the one given up, not the one whose URL redirected there: lines of a host that
    /// only redirects to a refusing one are that host's refusals, and the redirecting host's own lines still run.
    @Test func theHostARedirectReachesIsTheOneGivenUp() throws {
        let fixture = try BatchFixture(count: 3, inProcess: true)
        let refusing = try FixtureServer(root: fixture.root.path + "/www")
        let redirected = (1...6).map { n in
            fixture.server.url("/redirect-to?url=" + refusing.url("/status/503?k=\(n)").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        }
        let result = try fixture.batch(redirected + (1...3).map { fixture.server.url("/img/img\($0).jpg") },
                                       ["-j", "1", "--retry", "0", "--no-cache", "--keep-query"])
        let messages = result.stderr.split(separator: "\n")
        #expect(messages.filter { $0.contains("giving up on http://127.0.0.1:\(refusing.port)") }.count == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("giving up on http://127.0.0.1:\(fixture.server.port)"), "\(result.stderr)")
        #expect(try (1...3).map { try fixture.server.requests("/img/img\($0).jpg") } == [1, 1, 1], "\(result.stderr)")
    }

    /// A 429 with `Retry-After` (seconds, then an HTTP date) pauses its host for every worker: no other request
    /// reaches the host while it is paused; the request that got it is retried after the pause and succeeds.
    @Test(arguments: ["retry_after=2", "retry_after_date=3"])
    func retryAfterPausesTheHostForEveryWorker(query: String) throws {
        let fixture = try BatchFixture(count: 12, inProcess: true)
        let lines = [fixture.server.url("/flaky/1/img1.jpg?code=429&\(query)")]
            + (2...12).map { fixture.server.url("/delay/0.2/img\($0).jpg") }
        let result = try fixture.batch(lines, ["-j", "4", "--no-cache"])
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try fixture.server.stats()
        let refusal = try #require(stats.times?["/flaky/1/img1.jpg"]?.first)
        #expect(stats.paths["/flaky/1/img1.jpg"] == 2)
        // Requests sent before the 429 came back arrive at once; none in the next second and a half.
        let during = stats.allTimes.filter { $0 > refusal + 0.5 && $0 < refusal + 1.8 }
        #expect(during.isEmpty, "requests during the pause at \(during.map { $0 - refusal })")
        let retried = try #require(stats.times?["/flaky/1/img1.jpg"]?.last)
        #expect(retried - refusal > 1.8)
    }

    /// Refusals are counted by when each attempt was sent: attempts in flight together count as one refusal, and
    /// two workers whose attempts overlap (each sent while the other's was in flight, as on a loaded machine) still
    /// count one refusal per round, so the host is given up. Times are given, so the test does not depend on timing.
    @Test func overlappingAttemptsOfTwoWorkersStillGiveUpTheHost() throws {
        let start = Date(timeIntervalSince1970: 1_000_000)
        func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }
        let refused = HostGate.Outcome.refused(retryAfter: nil, what: "HTTP 429")

        // Sent together, refused together: one refusal per pair, so four pairs stay under a limit of five.
        let together = HostGate(host: "http://127.0.0.1:1", politeness: HostPoliteness(giveUpAfterRefusals: 5))
        for round in 0..<4 {
            let sent = at(Double(round))
            together.record(refused, started: sent, now: sent.addingTimeInterval(0.5))
            together.record(refused, started: sent, now: sent.addingTimeInterval(0.6))
        }
        _ = try together.waitForTurn(cancellation: nil)

        // A sends at 0, B at 0.5; each sends again just after its own refusal, while the other's is in flight.
        let overlapping = HostGate(host: "http://127.0.0.1:2", politeness: HostPoliteness(giveUpAfterRefusals: 5))
        var sentA = at(0), sentB = at(0.5)
        for _ in 0..<5 {
            overlapping.record(refused, started: sentA, now: sentA.addingTimeInterval(1))
            sentA = sentA.addingTimeInterval(1.1)
            overlapping.record(refused, started: sentB, now: sentB.addingTimeInterval(1))
            sentB = sentB.addingTimeInterval(1.1)
        }
        let givenUp = #expect(throws: ImgError.self) { try overlapping.waitForTurn(cancellation: nil) }
        #expect(givenUp?.isHostGivenUp == true && givenUp?.message.contains("5 requests in a row refused (HTTP 429)") == true,
                "\(givenUp?.message ?? "")")

        // An answer in between starts the count again.
        let answered = HostGate(host: "http://127.0.0.1:3", politeness: HostPoliteness(giveUpAfterRefusals: 2))
        answered.record(refused, started: at(0), now: at(1))
        answered.record(.answered, started: at(1), now: at(2))
        answered.record(refused, started: at(2), now: at(3))
        _ = try answered.waitForTurn(cancellation: nil)
        answered.record(refused, started: at(3), now: at(4))
        #expect(throws: ImgError.self) { try answered.waitForTurn(cancellation: nil) }
    }

    /// Attempts that find no connection to a host never reached count one each even when they overlap; once the
    /// host has been reached, overlapping ones count as one, as refusals do.
    @Test func parallelAttemptsThatFindNoConnectionCountEach() throws {
        let start = Date(timeIntervalSince1970: 1_000_000)
        func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }
        let unreachable = HostGate.Outcome.unreachable(what: "timed out")
        let never = HostGate(host: "http://127.0.0.1:4", politeness: HostPoliteness(giveUpAfterRefusals: 5))
        for index in 0..<5 { never.record(unreachable, started: at(0), now: at(10 + 0.01 * Double(index))) }
        #expect(throws: ImgError.self) { try never.waitForTurn(cancellation: nil) }

        let reached = HostGate(host: "http://127.0.0.1:5", politeness: HostPoliteness(giveUpAfterRefusals: 5))
        reached.record(.answered, started: at(0), now: at(0.1))
        for index in 0..<8 { reached.record(unreachable, started: at(1), now: at(11 + 0.01 * Double(index))) }
        _ = try reached.waitForTurn(cancellation: nil)
    }

    /// Eight lines at once on a port that takes no connection: the host is given up when their connects time out,
    /// so the lines after them are not tried (counted as one wave, the twelve lines would never reach the limit).
    @Test func oneWaveOfConnectTimeoutsGivesUpAHostNeverReached() throws {
        let fixture = try BatchFixture(count: 1, inProcess: true)
        let silent = try UnacceptingPort()
        let result = try fixture.batch((1...12).map { silent.url("/img\($0).jpg") },
                                       ["--retry", "0", "--connect-timeout", "2", "-j", "8", "--no-cache"])
        #expect(result.status == 75, "\(result.stderr)")
        let messages = result.stderr.split(separator: "\n")
        #expect(messages.filter { $0.contains("giving up on http://127.0.0.1:\(silent.port)") }.count == 1, "\(result.stderr)")
        #expect(messages.filter { $0.contains("timed out") && !$0.contains("giving up") }.count < 12, "\(result.stderr)")
    }

    /// A host that keeps refusing is given up with one message for the host, not one per line; the lines are
    /// failures worth retrying (exit 75, `transient` in the manifest), and another host goes on.
    @Test func aHostThatKeepsRefusingIsGivenUpWithOneMessage() throws {
        let fixture = try BatchFixture(count: 2, inProcess: true)
        let other = try FixtureServer(root: fixture.root.path + "/www")
        let refusing = (1...30).map { fixture.server.url("/status/429?n=\($0)") }
        let manifest = fixture.root.file("m.jsonl")
        let result = try fixture.batch(refusing + [other.url("/img/img1.jpg")], ["--retry", "1", "-j", "2", "--no-cache",
                                                                                   "--manifest", manifest])
        #expect(result.status == 75, "\(result.stderr)")
        let messages = result.stderr.split(separator: "\n")
        #expect(messages.filter { $0.contains("giving up on http://127.0.0.1:\(fixture.server.port)") }.count == 1, "\(result.stderr)")
        #expect(messages.count < 12, "\(result.stderr)")
        #expect(try fixture.server.stats().total < 20)
        #expect(try other.stats().total == 1)
        let records = try JSONLines.objects(inFile: manifest)
        #expect(records.filter { $0["status"] as? String == "failed" && $0["exit_class"] as? String == "transient" }.count == 30)
        #expect(records.filter { $0["status"] as? String == "ok" }.count == 1)
    }

    /// A host that takes no connection (its packets dropped) counts as refusing: each connect that runs into
    /// --connect-timeout is one refusal, and the host is given up with one message, as one that refuses.
    @Test func aHostThatTakesNoConnectionIsGivenUpToo() throws {
        let fixture = try BatchFixture(count: 2, inProcess: true)
        let silent = try UnacceptingPort()
        let lines = (1...40).map { silent.url("/img\($0).jpg") }
        let manifest = fixture.root.file("m.jsonl")
        let result = try fixture.batch(lines + [fixture.server.url("/img/img1.jpg")],
                                       ["--retry", "0", "--connect-timeout", "1", "-j", "2", "--no-cache", "--manifest", manifest])
        #expect(result.status == 75, "\(result.stderr)")
        let messages = result.stderr.split(separator: "\n")
        #expect(messages.filter { $0.contains("giving up on http://127.0.0.1:\(silent.port)") }.count == 1, "\(result.stderr)")
        #expect(messages.count < 16, "a line each for the waves before the host is given up, not one for each of the 40")
        let records = try JSONLines.objects(inFile: manifest)
        #expect(records.filter { $0["status"] as? String == "failed" && $0["exit_class"] as? String == "transient" }.count == 40)
        #expect(records.filter { $0["status"] as? String == "ok" }.count == 1)
    }
}
