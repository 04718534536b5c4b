import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `-o` onto an existing file that an ordinary user may not replace (run as nobody, through `runuser`: root may
/// replace any): refused before the download, the file left as it was, as `>` or `cp` would refuse it.
@Suite("-o onto a file the user may not write", .serialized, .enabled(if: geteuid() == 0 && NobodyCache.canRun))
struct OutputPermissionTests {
    /// Writes `contents` at `path` with `mode`, owned by `owner`.
    func place(_ path: String, mode: mode_t, owner: uid_t) throws {
        #expect(FileManager.default.createFile(atPath: path, contents: Data("kept".utf8)))
        #expect(chown(path, owner, owner) == 0 && chmod(path, mode) == 0)
    }

    @Test func aFileTheUserMayNotWriteIsRefusedBeforeTheDownload() throws {
        let cache = try NobodyCache()
        let own = cache.home.file("nobody")
        let sticky = cache.home.file("sticky")
        try FileManager.default.createDirectory(atPath: sticky, withIntermediateDirectories: true)
        #expect(chmod(sticky, 0o1777) == 0)
        let cases = [(own + "/read-only.jpg", mode_t(0o444), uid_t(65534), "Permission denied"),
                     (own + "/roots.jpg", mode_t(0o644), uid_t(0), "Permission denied"),
                     (sticky + "/roots.jpg", mode_t(0o666), uid_t(0), "another user's file in a sticky folder")]
        for (path, mode, owner, reason) in cases {
            try place(path, mode: mode, owner: owner)
            let result = try cache.run(["fetch", cache.server.url("/img/sample.jpg"), "-o", path])
            #expect(result.status == 7, "\(path): \(result.stderr)")
            #expect(result.stderr.hasPrefix("imgfetch: cannot write \(path): ") && result.stderr.contains(reason),
                    "\(result.stderr)")
            #expect(FileManager.default.contents(atPath: path) == Data("kept".utf8))
        }
        #expect(try cache.server.requests("/img/sample.jpg") == 0)
        // Its own file in a sticky folder, writable, is replaced.
        let mine = sticky + "/mine.jpg"
        try place(mine, mode: 0o644, owner: 65534)
        let written = try cache.run(["fetch", cache.server.url("/img/sample.jpg"), "-o", mine])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(FileManager.default.contents(atPath: mine) != Data("kept".utf8))
    }
}
