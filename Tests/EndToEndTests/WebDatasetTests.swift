import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// The venv's python (`IMGFETCH_PYREF_PYTHON`, made by `make test`) when it has the `webdataset` package.
private let webDatasetPython = PyrefPython.importing("webdataset")

/// `batch --output-format webdataset`: tar shards read back with GNU tar and with the `webdataset` package,
/// the X-Robots-Tag default, a full folder, refusals (runs again: WebDatasetResumeTests).
@Suite("WebDataset output")
struct WebDatasetTests {
    /// The members of a tar, as GNU tar lists them.
    static func members(_ tar: String) throws -> [String] {
        let listed = try Imgfetch.run(["-tf", tar], program: "/usr/bin/tar")
        guard listed.status == 0 else { throw TestFailure("tar -tf \(tar): \(listed.stderr)") }
        return listed.stdoutText.split(separator: "\n").map(String.init)
    }

    /// One member's bytes, as GNU tar extracts it.
    static func member(_ name: String, of tar: String) throws -> Data {
        let extracted = try Imgfetch.run(["-xOf", tar, name], program: "/usr/bin/tar")
        guard extracted.status == 0 else { throw TestFailure("tar -xOf \(tar) \(name): \(extracted.stderr)") }
        return extracted.stdout
    }

    /// The complete tars in `folder`, by name.
    static func tars(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".tar") }.sorted()
    }

    /// Every sample's key across the tars of `folder` (with repeats, if any), from GNU tar's listings; each sample
    /// has exactly an image and a JSON member.
    static func keys(_ folder: String) throws -> [String] {
        var keys: [String] = []
        for tar in tars(folder) {
            let members = try Self.members(folder + "/" + tar)
            let stems = members.map { String($0.split(separator: ".").first ?? "") }
            #expect(members.count == 2 * Set(stems).count, "\(tar): \(members)")
            keys += stems.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        }
        return keys
    }

    /// A TSV with a caption column: `count` photos, then a 404, then (tagged `noai`) `img{count+1}.jpg`.
    static func captionList(_ fixture: BatchFixture, count: Int) throws -> String {
        let tagged = "/robots-tag/" + "noai".addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "/img\(count + 1).jpg"
        var rows = ["url\tcaption"] + (1...count).map { "\(fixture.server.url("/img/img\($0).jpg"))\tphoto \($0)" }
        rows += ["\(fixture.server.url("/status/404"))\tgone", "\(fixture.server.url(tagged))\ttagged"]
        let path = fixture.root.file("captions.tsv")
        try (rows.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// GNU tar finds exactly the ok lines as samples, each image with its JSON (the line's URL and caption, its
    /// size and its original's, bytes and SHA-256 of the image in the tar, its key); stats beside each tar, the
    /// manifest names each sample's tar, no temporary is left, and the `noai` line is opted out by default.
    @Test func gnuTarFindsExactlyTheOkSamplesWithTheirJSON() throws {
        let fixture = try BatchFixture(count: 8)
        let list = try Self.captionList(fixture, count: 7)
        let manifest = fixture.root.file("m.jsonl")
        let result = try Imgfetch.run(["batch", list, "-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress",
                                       "--output-format", "webdataset", "--samples-per-shard", "3", "--keep-columns", "caption",
                                       "--resize", "40x40:fill", "--manifest", manifest, "--retry", "0"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("7 ok, 1 failed, 1 opted out, 7 samples written into 3 tars"), "\(result.stderr)")
        #expect(fixture.outputs() == ["00000.tar", "00000_stats.json", "00001.tar", "00001_stats.json", "00002.tar",
                                      "00002_stats.json"], "no temporary is left")
        let records = try JSONLines.objects(inFile: manifest).dropLast()
        #expect(records.map { $0["status"] as? String } == Array(repeating: "ok", count: 7) + ["failed", "opted_out"])
        #expect(records.last?["directive"] as? String == "noai")
        var keys: [String] = []
        for record in records where record["status"] as? String == "ok" {
            let line = try #require(record["line"] as? Int)
            let output = try #require((record["outputs"] as? [[String: Any]])?.first)
            let tar = try #require(output["tar"] as? String)
            let key = String(format: "%09d", line)
            #expect(output["member"] as? String == "\(key).jpg" && output["path"] == nil)
            let image = try Self.member("\(key).jpg", of: tar)
            let json = try #require(try JSONSerialization.jsonObject(with: Self.member("\(key).json", of: tar)) as? [String: Any])
            #expect(json["url"] as? String == fixture.server.url("/img/img\(line - 1).jpg"))
            #expect(json["caption"] as? String == "photo \(line - 1)" && json["key"] as? String == key)
            #expect(json["width"] as? Int == 40 && json["height"] as? Int == 40)
            #expect(json["original_width"] as? Int == 290 && json["original_height"] as? Int == 442)
            #expect(json["bytes"] as? Int == image.count && json["sha256"] as? String == Digest.sha256(image))
            #expect(output["sha256"] as? String == Digest.sha256(image))
            let stats = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath:
                tar.replacingOccurrences(of: ".tar", with: "_stats.json")))) as? [String: Any])
            #expect(stats["id"] as? String == output["tar_id"] as? String)
            keys.append(key)
        }
        #expect(try Self.keys(fixture.output) == keys)
        let last = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath:
            fixture.output + "/00002_stats.json"))) as? [String: Any])
        #expect(last["samples"] as? Int == 1 && last["statuses"] as? [String: Int] == ["ok": 1, "failed": 1, "opted_out": 1])
        #expect(last["bytes"] as? Int == (try FileManager.default.attributesOfItem(atPath: fixture.output + "/00002.tar")[.size] as? Int))

        // `none` turns the default off: the tagged line is a sample; with files there is no default.
        let none = try Imgfetch.run(["batch", list, "-O", fixture.root.file("none"), "--cache-dir", fixture.cache,
                                     "--output-format", "webdataset", "--disallow-robots-tags", "none", "--retry", "0"])
        #expect(none.stderr.contains("8 ok, 1 failed, 8 samples written into 1 tar"), "\(none.stderr)")
        let files = try Imgfetch.run(["batch", list, "-O", fixture.root.file("files"), "--cache-dir", fixture.cache, "--retry", "0"])
        #expect(files.stderr.contains("8 ok, 1 failed, 8 files written"), "\(files.stderr)")
    }

    /// The `webdataset` package reads every tar and finds exactly the ok samples, each with its JSON and an image
    /// whose SHA-256 is the one its JSON and the manifest give; with `--shard`, the tars carry the shard.
    @Test(.enabled(if: webDatasetPython != nil,
                   "IMGFETCH_PYREF_PYTHON is not set or lacks the webdataset package: run through `make test` (venv .build/pyref)"))
    func theWebdatasetPackageReadsEveryTar() throws {
        let fixture = try BatchFixture(count: 8)
        let list = try Self.captionList(fixture, count: 7)
        let manifest = fixture.root.file("m.jsonl")
        let result = try Imgfetch.run(["batch", list, "-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress",
                                       "--output-format", "webdataset", "--samples-per-shard", "2", "--keep-columns", "caption",
                                       "--resize", "32x", "--format", "webp", "--facts", "--manifest", manifest, "--retry", "0",
                                       "--shard", "0/1", "--caption-column", "caption"])
        #expect(result.status == 1, "\(result.stderr)")
        let tars = Self.tars(fixture.output)
        #expect(tars == ["s0000-00000.tar", "s0000-00001.tar", "s0000-00002.tar", "s0000-00003.tar"])
        let read = try Imgfetch.run([Paths.fixtures + "/pyref/read_webdataset.py"] + tars.map { fixture.output + "/" + $0 },
                                    program: try #require(webDatasetPython))
        #expect(read.status == 0, "\(read.stderr)")
        let samples = try BatchFixture.records(read)
        let ok = try JSONLines.objects(inFile: manifest).dropLast().filter { $0["status"] as? String == "ok" }
        #expect(samples.map { $0["key"] as? String } == ok.map { String(format: "%09d", $0["line"] as? Int ?? -1) })
        for (sample, record) in zip(samples, ok) {
            let json = try #require(sample["json"] as? [String: Any])
            let output = try #require((record["outputs"] as? [[String: Any]])?.first)
            #expect(sample["extensions"] as? [String] == ["json", "txt", "webp"])
            #expect(json["url"] as? String == record["url"] as? String && json["caption"] as? String != nil)
            #expect(sample["txt"] as? String == json["caption"] as? String, "KEY.txt holds the caption column")
            #expect(sample["sha256"] as? String == json["sha256"] as? String && json["sha256"] as? String == output["sha256"] as? String)
            #expect(json["format"] as? String == "webp" && json["width"] as? Int == 32)
            #expect((json["phash"] as? String)?.count == 16 && json["blurhash"] as? String != nil
                    && json["dominant_color"] as? String != nil)
        }
    }

    /// `--caption-column` writes each sample's `KEY.txt` from the row (a JSON Lines value that is not text as JSON
    /// writes it, null as nothing); a row without it fails naming the option; it needs WebDataset output and columns.
    @Test func aCaptionColumnIsEachSamplesTxt() throws {
        let fixture = try BatchFixture(count: 5)
        let captions = [#""a cat, \"quoted\"""#, "42", "null", #"{"b":[1,true],"a":"x"}"#]
        var rows = captions.enumerated().map { #"{"url":""# + fixture.server.url("/img/img\($0.offset + 1).jpg") + #"","caption":"# + $0.element + "}" }
        rows.append(#"{"url":""# + fixture.server.url("/img/img5.jpg") + #""}"#)
        let list = fixture.root.file("captions.jsonl")
        try (rows.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let result = try Imgfetch.run(["batch", list, "-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress",
                                       "--output-format", "webdataset", "--caption-column", "caption", "--resize", "20x"])
        #expect(result.status == 1 && result.stderr.contains("line 5: no column 'caption' (--caption-column)"), "\(result.stderr)")
        let tar = fixture.output + "/00000.tar"
        #expect(try Self.members(tar).filter { $0.hasSuffix(".txt") } == (1...4).map { String(format: "%09d.txt", $0) })
        let texts = try (1...4).map { String(decoding: try Self.member(String(format: "%09d.txt", $0), of: tar), as: UTF8.self) }
        #expect(texts == [#"a cat, "quoted""#, "42", "", #"{"a":"x","b":[1,true]}"#])

        let files = try Imgfetch.run(["batch", list, "-O", fixture.root.file("files"), "--caption-column", "caption"])
        #expect(files.status == 2 && files.stderr.contains("--caption-column applies with --output-format webdataset"),
                "\(files.stderr)")
        let plain = try fixture.batch([fixture.server.url("/img/img1.jpg")],
                                      ["--caption-column", "caption", "--output-format", "webdataset"])
        #expect(plain.status == 2 && plain.stderr.contains("--caption-column needs a list with columns"), "\(plain.stderr)")
    }

    /// A plain list's second column (a file name) names no sample and picks no format: the samples are KEY.jpg as
    /// the options make them (a name ending .png or .gif gave its sample that extension and format).
    @Test func aPlainListsNamesPickNoSampleFormat() throws {
        let fixture = try BatchFixture(count: 2)
        let lines = ["\(fixture.server.url("/img/img1.jpg")) thumb.png", "\(fixture.server.url("/img/img2.jpg")) x.gif"]
        let result = try fixture.batch(lines, ["--output-format", "webdataset", "--resize", "20x"])
        #expect(result.status == 0, "\(result.stderr)")
        let images = try Self.members(fixture.output + "/00000.tar").filter { !$0.hasSuffix(".json") }
        #expect(images == ["000000001.jpg", "000000002.jpg"])
    }

    /// A tar's stats count the seconds spent on it: from the batch's start for the first tar, from the tar before's
    /// completion for the next, so a line that waits for its server counts in its tar's seconds.
    @Test func aTarsSecondsIncludeTheWaitForItsLines() throws {
        let fixture = try BatchFixture(count: 2)
        let urls = (1...2).map { fixture.server.url("/delay/0.8/img\($0).jpg") }
        let started = Date()
        let result = try fixture.batch(urls, ["--output-format", "webdataset", "--samples-per-shard", "1", "-j", "1"])
        let wall = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.stderr)")
        let seconds = try (0...1).map { index in
            let stats = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath:
                fixture.output + "/0000\(index)_stats.json"))) as? [String: Any])
            return try #require(stats["seconds"] as? Double)
        }
        #expect(seconds.allSatisfy { $0 >= 0.8 } && seconds.reduce(0, +) <= wall, "\(seconds) in \(wall) s")
    }

    /// A folder that fills up while a tar is written: the batch stops (exit 7), the torn tar is removed (nothing at
    /// a tar's name but complete tars, each with its stats and, with `--parquet`, its table), and the lines not
    /// written are not done.
    @Test(arguments: [false, true]) func aFullFolderLeavesOnlyCompleteTars(withTables: Bool) throws {
        let root = try TemporaryDirectory()
        for index in 1...30 { try FileManager.default.copyItem(atPath: Paths.images + "/rgba.png", toPath: root.file("p\(index).png")) }
        let fixture = try CacheFixture(root: root.path)
        let list = fixture.home.file("urls.txt")
        try (1...30).map { fixture.server.url("/img/p\($0).png") }.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let out = fixture.home.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let manifest = fixture.home.file("m.jsonl")
        // Uncompressed 64 x 64 RGBA TIFFs are 16 KiB each: a 96 KiB tmpfs takes two tars of two, not fifteen. After
        // the run, still in its mount namespace, GNU tar reads every tar left and the folder is listed.
        let script = "mount -t tmpfs -o size=96k,mode=700 tmpfs \"$0\" || exit 99; \"$@\"; status=$?; "
            + "for t in \"$0\"/*.tar; do [ -e \"$t\" ] || continue; n=$(tar -tf \"$t\" | wc -l) || echo \"bad $t\"; "
            + "echo \"tar $(basename \"$t\") $n\"; done; ls -A \"$0\" | sed 's/^/file /'; exit $status"
        let namespace = geteuid() == 0 ? "-m" : "-rm"
        let result = try Imgfetch.run(["batch", list, "-O", out, "--resize", "64x64:fill", "--format", "tiff", "-j", "2",
                                       "--output-format", "webdataset", "--samples-per-shard", "2", "--manifest", manifest,
                                       "--cache-dir", fixture.cache, "--no-auto-clean"] + (withTables ? ["--parquet"] : []),
                                      program: "/usr/bin/unshare", prefix: [namespace, "sh", "-c", script, out, Paths.binary])
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stderr.contains("takes no more (No space left on device)"), "\(result.stderr)")
        let listed = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(!listed.contains { $0.hasPrefix("bad ") }, "\(listed)")
        let tars = listed.filter { $0.hasPrefix("tar ") }
        #expect(!tars.isEmpty && tars.allSatisfy { $0.hasSuffix(" 4") }, "every tar left is complete: \(listed)")
        let files = listed.filter { $0.hasPrefix("file ") }.map { String($0.dropFirst(5)) }
        let tarNames = tars.map { String($0.split(separator: " ")[1]) }
        #expect(files.filter { !$0.hasSuffix("_stats.json") && !$0.hasSuffix(".parquet") } == tarNames,
                "nothing but complete tars, their stats and tables: \(files)")
        #expect(files.filter { $0.hasSuffix(".parquet") } == (withTables ? tarNames.map { $0.replacingOccurrences(of: ".tar", with: ".parquet") } : []))
        let records = try JSONLines.objects(inFile: manifest).filter { $0["line"] != nil }
        let ok = records.filter { $0["status"] as? String == "ok" }
        #expect(records.allSatisfy { $0["status"] as? String != "failed" }, "\(records)")
        #expect(ok.count >= 2 * tars.count && ok.count < 30)
        withExtendedLifetime(root) {}
    }

    /// The options apply to batch only, and what contradicts a sample is refused before anything is fetched or
    /// written; so is a folder that holds tars already, without --resume.
    @Test func contradictionsAreRefusedBeforeAnything() throws {
        let fixture = try BatchFixture(count: 1)
        let url = fixture.server.url("/img/img1.jpg")
        let fetch = try Imgfetch.run([url, "--output-format", "webdataset", "-o", fixture.root.file("a.jpg")])
        #expect(fetch.status == 2 && fetch.stderr.contains("option --output-format does not apply to 'fetch'; it is for batch"),
                "\(fetch.stderr)")
        let prefetch = try Imgfetch.run(["prefetch", url, "--samples-per-shard", "5"])
        #expect(prefetch.status == 2 && prefetch.stderr.contains("does not apply to 'prefetch'"), "\(prefetch.stderr)")
        let refusals: [([String], String)] = [
            (["--samples-per-shard", "5"], "--samples-per-shard applies with --output-format webdataset"),
            (["--output-format", "webdataset", "--variant", "a=resize(10x)"], "--variant doesn't apply with --output-format webdataset"),
            (["--output-format", "webdataset", "--name", "{index}.{ext}"], "--name doesn't apply"),
            (["--output-format", "tar"], "bad --output-format 'tar'"),
            (["--output-format", "webdataset", "--samples-per-shard", "0"], "bad --samples-per-shard '0'"),
        ]
        for (arguments, message) in refusals {
            let refused = try fixture.batch([url], arguments + ["--manifest", fixture.root.file("m.jsonl")])
            #expect(refused.status == 2 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: fixture.output) && !FileManager.default.fileExists(atPath: fixture.root.file("m.jsonl")))
        }
        #expect(try fixture.batch([url], ["--output-format", "webdataset"]).status == 0)
        let again = try fixture.batch([url], ["--output-format", "webdataset", "--manifest", fixture.root.file("m.jsonl")])
        #expect(again.status == 2 && again.stderr.contains("already holds WebDataset tars (00000.tar)"), "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.root.file("m.jsonl")) && Self.tars(fixture.output) == ["00000.tar"])
        #expect(try fixture.server.requests("/img/img1.jpg") == 1)
        // libarchive is not linked: it is opened with the first tar, so a fetch never loads it.
        let linked = try Imgfetch.run([Paths.binary], program: "/usr/bin/ldd")
        #expect(linked.status == 0 && !linked.stdoutText.contains("libarchive"), "\(linked.stdoutText)")
    }
}
