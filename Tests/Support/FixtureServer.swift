import Foundation
@testable import ImgCore

/// The Python fixture server (Tests/Fixtures/server) on 127.0.0.1, started per test and stopped on deinit.
final class FixtureServer: @unchecked Sendable { // holds a Process, touched by one test at a time
    let port: Int
    private let process: Process
    private let scheme: String

    /// Starts the server over `root` (default: the bundled images); with `tls`, serves https with that cert and key;
    /// `robots` is what `/robots.txt` answers (`file:PATH`, `status:N`, `redirect:LOCATION`; default a 404; several
    /// separated by `;` answer the requests in turn, the last one the rest), after `robotsDelay` seconds. With
    /// `aliases`, plain http is also served at as many more loopback addresses (each a host of its own to a client:
    /// `aliasURL`).
    init(root: String = Paths.fixtures + "/images", tls: (cert: String, key: String)? = nil, robots: String? = nil,
         robotsDelay: Double = 0, aliases: Int = 0) throws {
        let portFile = NSTemporaryDirectory() + "imgfetch-port-\(UUID().uuidString)"
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["python3", Paths.fixtures + "/server/fixture_server.py", "--root", root, "--port", "0", "--port-file", portFile]
        if let tls { arguments += ["--tls", tls.cert, tls.key] }
        if let robots { arguments += ["--robots", robots, "--robots-delay", String(robotsDelay)] }
        if aliases > 0 { arguments += ["--aliases", String(aliases)] }
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        scheme = tls == nil ? "http" : "https"
        // Python starts in well under a second on an idle machine; a loaded one may take several.
        let deadline = Date().addingTimeInterval(30)
        var found: Int?
        while Date() < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                found = value
                break
            }
            usleep(20_000)
        }
        try? FileManager.default.removeItem(atPath: portFile)
        guard let found else {
            process.terminate()
            throw TestFailure("fixture server did not start")
        }
        port = found
    }

    deinit {
        // Children of test threads inherit a blocked SIGTERM, so end the server with SIGKILL.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// `http://127.0.0.1:PORT/PATH`.
    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)" }

    /// `http://127.0.X.Y:PORT/PATH` for alias `index` (0-based: 127.0.0.2, 127.0.0.3, ..., 250 to each third octet,
    /// as the server's `alias_address`).
    func aliasURL(_ index: Int, _ path: String) -> String {
        "http://127.0.\(index / 250).\(index % 250 + 2):\(port)\(path.hasPrefix("/") ? path : "/" + path)"
    }

    struct Stats: Decodable {
        var total: Int
        var paths: [String: Int]
        var connections: Int
        var max_concurrent_connections: Int
        /// When each request arrived at the server, seconds since the epoch, per path.
        var times: [String: [Double]]?
        /// Response body bytes sent, per path.
        var bytes_by_path: [String: Int]?

        /// Arrival times of every counted request, sorted.
        var allTimes: [Double] { (times ?? [:]).values.flatMap { $0 }.sorted() }
    }

    /// The server's request counts.
    func stats() throws -> Stats {
        var options = NetworkOptions()
        options.retries = 0
        let response = try HTTPLoader(options: options).fetch(URL(string: "http://127.0.0.1:\(port)/_stats")!)
        return try JSONDecoder().decode(Stats.self, from: response.body)
    }

    func requests(_ path: String) throws -> Int { try stats().paths[path] ?? 0 }

    /// The response body bytes sent for `path` (without its query) since the start or the last reset.
    /// The body bytes served for `path` once the count has settled: a server still writing a reply the client
    /// stopped reading (a range, a refusal) records its bytes after the command may already have ended, so the
    /// count is read until two reads 50 ms apart agree (for at most 2 s).
    func bytesServed(_ path: String) throws -> Int {
        let deadline = Date().addingTimeInterval(2)
        var last = try stats().bytes_by_path?[path] ?? 0
        while Date() < deadline {
            usleep(50_000)
            let now = try stats().bytes_by_path?[path] ?? 0
            if now == last { return now }
            last = now
        }
        return last
    }

    /// Waits until the server has seen `count` requests for `path` (the path without its query), polling every
    /// 20 ms for at most `seconds` (default 30). A test that signals or kills a command waits on this, not on a
    /// fixed sleep: on a loaded machine the command may not have started its work yet.
    func waitForRequests(_ path: String, count: Int = 1, seconds: Double = 30) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try requests(path) < count {
            guard Date() < deadline else { throw TestFailure("the server never saw \(count) request(s) for \(path)") }
            usleep(20_000)
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension FixtureServer {
    /// A port on 127.0.0.1 that was just bound and closed, so that connecting to it is refused.
    static func closedPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestFailure("socket failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw TestFailure("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

extension FixtureServer {
    /// One request the server received: its target as sent and its headers.
    struct RecordedRequest: Decodable {
        var path: String
        var headers: [[String]]

        /// The value of header `name` (case-insensitive), or nil.
        func header(_ name: String) -> String? {
            headers.first { $0.first?.lowercased() == name.lowercased() }.flatMap { $0.count > 1 ? $0[1] : nil }
        }
    }

    /// Every counted request since the server started (or was reset), in order.
    func recordedRequests() throws -> [RecordedRequest] {
        var options = NetworkOptions()
        options.retries = 0
        let response = try HTTPLoader(options: options).fetch(URL(string: "http://127.0.0.1:\(port)/_requests")!)
        return try JSONDecoder().decode([RecordedRequest].self, from: response.body)
    }
}
