import Foundation
import Testing
@testable import ImgCore

/// What a local input's refusal may tell, and which file URLs are local (issue #38 item 11).
@Suite("Local inputs")
struct LocalInputTests {
    let work: TemporaryDirectory

    init() throws {
        work = try TemporaryDirectory()
    }

    /// Before: a local text file's refusal quoted its first 20 characters (`/etc/hostname`, a key file) into stderr,
    /// `--json` and the manifest. Now it says its kind and size only; a server's answer is still quoted.
    @Test func aLocalFileThatIsNoImageIsNotQuoted() throws {
        let secret = "s3cret-token-0123456789\n"
        let path = work.file("hostname")
        try Data(secret.utf8).write(to: URL(fileURLWithPath: path))
        let fetched = try Imgfetch.runInProcess([path, "--no-cache", "-o", work.file("out.png")])
        #expect(fetched.status == 5, "\(fetched.stderr)")
        #expect(fetched.stderr.contains("not an image (text/plain, \(secret.utf8.count) bytes)"), "\(fetched.stderr)")
        let list = work.file("list.txt"), manifest = work.file("m.jsonl")
        try Data("\(path)\n".utf8).write(to: URL(fileURLWithPath: list))
        let batch = try Imgfetch.runInProcess(["batch", list, "--no-cache", "-O", work.file("out"), "--json", "--manifest", manifest])
        let written = (try? String(contentsOfFile: manifest, encoding: .utf8)) ?? ""
        for (what, text) in [("fetch", fetched.stderr), ("batch stderr", batch.stderr), ("--json", batch.stdoutText),
                             ("manifest", written)] {
            #expect(!text.contains("s3cret"), "\(what): \(text)")
        }
        #expect(written.contains("not an image (text/plain"), "\(written)")
        let remote = "<html><body>Sign in to see this picture</body></html>"
        #expect(RefusalMessage.notAnImage(VipsInput(.memory(Data(remote.utf8))), quotingItsStart: true)
                .contains("'<html><body>Sign in …'"))
    }

    /// `file://HOST/PATH` names a file on HOST (RFC 8089): refused (exit 2) unless HOST is empty or localhost, even
    /// when PATH exists here; before, it was read locally.
    @Test func aFileURLNamingAnotherHostIsRefused() throws {
        let image = Paths.images + "/sample.png"
        let refused = try Imgfetch.runInProcess(["file://otherhost" + image, "--no-cache", "-o", work.file("a.png")])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("names the host 'otherhost'"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.file("a.png")))
        for accepted in ["file://" + image, "file://localhost" + image] {
            let result = try Imgfetch.runInProcess([accepted, "--no-cache", "-o", work.file("b.png")])
            #expect(result.status == 0, "\(accepted): \(result.stderr)")
        }
    }
}
