import Foundation
import Testing
@testable import ImgCore

/// A password in a URL is used for the request and shown or stored nowhere: not in cache entries, `cache inspect`,
/// messages, `-v` or `--json`. Entries record the full URL otherwise (its query too), so `cache inspect` tells
/// which URL an entry came from.
@Suite("Credentials in URLs", .serialized)
struct CredentialTests: EndToEndSuite {
    static let runsInProcess = true
    let server: FixtureServer
    let work: TemporaryDirectory
    static let password = "s3cret"
    static let token = "tok3n"

    /// `http://alice:s3cret@127.0.0.1:PORT/basic-auth/…/PATH`: the server wants exactly these credentials.
    func url(_ path: String, credentials: String = "alice:\(password)") -> String {
        let basic = Data("alice:\(Self.password)".utf8).base64EncodedString()
        return server.url("/basic-auth/\(basic)/\(path)").replacingOccurrences(of: "://", with: "://\(credentials)@")
    }

    /// Every byte of every file under the cache directory, file by file.
    func cacheFiles() -> [(String, Data)] {
        let files = FileManager.default.subpaths(atPath: cache) ?? []
        return files.compactMap { path in FileManager.default.contents(atPath: cache + "/" + path).map { (path, $0) } }
    }

    func expectNoSecret(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!text.contains(Self.password), "\(what): \(text)", sourceLocation: sourceLocation)
    }

    @Test func thePasswordIsSentButNeverStoredOrShown() throws {
        let refused = try fetch([url("sample.jpg", credentials: "alice:wrong"), "--no-cache", "-o", work.file("x.jpg")])
        #expect(refused.status == 4, "\(refused.stderr)")
        expectNoSecret(refused.stderr, "stderr of a 401")

        let withQuery = url("sample.jpg") + "?sig=\(Self.token)#frag"
        let fetched = try fetch([withQuery, "--resize", "20x", "-v", "--json", "-o", work.file("a.jpg")])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        expectNoSecret(fetched.stderr, "-v")
        expectNoSecret(fetched.stdoutText, "--json")
        #expect(fetched.stderr.contains("alice:***@"), "\(fetched.stderr)")
        let kept = try fetch([url("rgba.png") + "?b=2&a=1", "--keep-query", "-o", work.file("b.png")])
        #expect(kept.status == 0, "\(kept.stderr)")

        let files = cacheFiles()
        #expect(files.count >= 4)
        for (path, bytes) in files {
            #expect(bytes.range(of: Data(Self.password.utf8)) == nil, "the password is in \(path)")
            #expect(bytes.range(of: Data("#frag".utf8)) == nil, "the fragment is in \(path)")
        }
        let inspected = try fetch(["cache", "inspect", "--all"])
        expectNoSecret(inspected.stdoutText + inspected.stderr, "cache inspect")
        let json = try fetch(["cache", "inspect", "--all", "--json"])
        expectNoSecret(json.stdoutText + json.stderr, "cache inspect --json")
        let one = try fetch(["cache", "inspect", withQuery, "--json"])
        #expect(one.status == 0, "\(one.stderr)")
        expectNoSecret(one.stdoutText + one.stderr, "cache inspect URL --json")
        let oneText = try fetch(["cache", "inspect", withQuery])
        expectNoSecret(oneText.stdoutText + oneText.stderr, "cache inspect URL")

        let document = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let urls = Set((document["items"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String })
        let basic = Data("alice:\(Self.password)".utf8).base64EncodedString()
        #expect(urls == [server.url("/basic-auth/\(basic)/sample.jpg?sig=\(Self.token)"),
                         server.url("/basic-auth/\(basic)/rgba.png?b=2&a=1")])
    }

    @Test func failuresAndBatchesDoNotShowThePassword() throws {
        let missing = try fetch([url("nope.jpg"), "--json", "-o", work.file("a.jpg")])
        #expect(missing.status == 4, "\(missing.stderr)")
        #expect(missing.stderr.contains("alice:***@"), "\(missing.stderr)")
        expectNoSecret(missing.stderr, "stderr of a 404")
        expectNoSecret(missing.stdoutText, "--json of a 404")
        let malformed = try fetch(["http://alice:\(Self.password)@exa mple.com/a.jpg", "-o", work.file("a.jpg")])
        #expect(malformed.status == 2)
        expectNoSecret(malformed.stderr, "a malformed URL")

        let list = work.file("list.txt")
        try Data([url("sample.jpg"), url("nope.jpg")].joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: list))
        let batch = try fetch(["batch", list, "-O", work.file("out"), "--json", "-v"])
        #expect(batch.status == 1, "\(batch.stderr)")
        #expect(FileManager.default.fileExists(atPath: work.file("out/sample.jpg")))
        expectNoSecret(batch.stderr, "batch stderr")
        expectNoSecret(batch.stdoutText, "batch --json")
        for (path, bytes) in cacheFiles() {
            #expect(bytes.range(of: Data(Self.password.utf8)) == nil, "the password is in \(path)")
        }
    }
}
