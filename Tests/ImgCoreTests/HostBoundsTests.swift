import Foundation
import Synchronization
import Testing
@testable import ImgCore

/// What a run keeps per host stays bounded however many hosts its list names: idle transfer handles
/// (`IdleHandles`), per-host semaphores and turns (`HostTable`), and what each origin's robots.txt said
/// (`RobotsPolicies`).
@Suite("Per-host state, bounded")
struct HostBoundsTests {
    /// How many `Handle`s are alive.
    final class Census: Sendable {
        private let alive = Atomic<Int>(0)
        var count: Int { alive.load(ordering: .relaxed) }
        func born() { alive.add(1, ordering: .relaxed) }
        func died() { alive.subtract(1, ordering: .relaxed) }
    }

    /// Counts itself in a `Census` while alive, as a libcurl handle holds its connections until released.
    final class Handle: Sendable {
        let census: Census
        init(_ census: Census) {
            self.census = census
            census.born()
        }
        deinit { census.died() }
    }

    @Test func idleHandlesKeepTheHostsUsedLastUpToTheirCapacity() {
        let alive = Census()
        let idle = IdleHandles<Handle>(capacity: 3)
        for host in ["a", "b", "c", "d"] { idle.give(Handle(alive), for: host) }
        #expect(idle.count == 3 && alive.count == 3, "the one given back first is let go")
        #expect(idle.take(for: "a") == nil)
        let second = Handle(alive)
        idle.give(second, for: "d")
        #expect(idle.count == 3 && idle.take(for: "d") === second, "a host's handle given back last is taken first")
        #expect(idle.take(for: "d") != nil && idle.take(for: "d") == nil)
        for host in 0..<10_000 { idle.give(Handle(alive), for: "host\(host)") }
        #expect(idle.count == 3 && alive.count == 4, "three kept, and `second` still held here")
    }

    final class Entry: Sendable {
        let blank: Bool
        init(blank: Bool) { self.blank = blank }
    }

    @Test func aHostTableLetsGoOfBlankEntriesNoOneHolds() {
        let table = HostTable<Entry>(sweepSize: 8, make: { Entry(blank: !$0.hasPrefix("keep")) }, isBlank: \.blank)
        let held = table.value(for: "held")
        for host in 0..<4 { _ = table.value(for: "keep\(host)") }
        for host in 0..<100_000 { _ = table.value(for: "h\(host)") }
        #expect(table.count < 40, "\(table.count) hosts kept")
        #expect(table.value(for: "held") === held, "an entry a caller holds is never replaced")
        let kept = (0..<4).map { table.value(for: "keep\($0)") }
        #expect(kept.allSatisfy { !$0.blank }, "entries that remember something stay")
    }

    @Test func aHostGateIsBlankUntilItRemembersSomething() {
        let gate = HostGate(host: "h", politeness: HostPoliteness(requestsPerSecond: 1, giveUpAfterRefusals: 3))
        #expect(gate.isBlank())
        let now = Date()
        gate.record(.refused(retryAfter: nil, what: "HTTP 503"), started: now, now: now)
        #expect(!gate.isBlank(at: now.addingTimeInterval(100)), "a refusal is remembered")
        gate.record(.answered, started: now, now: now)
        #expect(gate.isBlank(at: now.addingTimeInterval(100)))
        _ = try? gate.waitForTurn(cancellation: nil)
        #expect(!gate.isBlank(), "the next turn is a second away")
        #expect(gate.isBlank(at: Date().addingTimeInterval(2)))
    }

    @Test func robotsPoliciesForgetTheOriginsUsedLongestAgoButNeverAnUnreachableOne() {
        let robots = RobotsTxt(parsing: Data("User-agent: *\nDisallow: /private/\n".utf8), productToken: "imgfetch")
        let size = RobotsPolicies.bytes(of: .rules(robots), origin: "http://o0")
        let policies = RobotsPolicies(capacity: 12 * size)
        policies.keep(.disallowAll("HTTP 503", transient: true), of: "http://down")
        for origin in 0..<10 { policies.keep(.rules(robots), of: "http://o\(origin)") }
        #expect(policies.policy(of: "http://o0") != nil, "o0 is used again: the others are older now")
        for origin in 10..<1_000 { policies.keep(.rules(robots), of: "http://o\(origin)") }
        #expect(policies.count <= 13, "\(policies.count) origins kept")
        #expect(policies.policy(of: "http://o999") != nil && policies.policy(of: "http://o1") == nil)
        #expect(policies.policy(of: "http://down")?.isDisallowAll == true)
    }
}
