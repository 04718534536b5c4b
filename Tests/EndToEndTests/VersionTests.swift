import Foundation
@testable import ImgCore
import Testing

/// `--version`: the VERSION file as the one source (binary and man page agree with it), the libraries the binary
/// runs with one line each (checked against what pkg-config says is installed), `--json`, and refusals.
@Suite struct VersionTests {
    static let fileVersion = (try? String(contentsOfFile: Paths.packageRoot + "/VERSION", encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""

    /// What pkg-config says of an installed library (the -dev package's version, the runtime's on Debian).
    static func installedVersion(_ module: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["pkg-config", "--modversion", module]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func theVersionFileIsWhatTheBinaryAndTheManPageSay() throws {
        #expect(!Self.fileVersion.isEmpty)
        #expect(Version.current == Self.fileVersion, "make version writes VERSION into Version.swift")
        let page = try String(contentsOfFile: Paths.packageRoot + "/man/imgfetch.1", encoding: .utf8)
        let title = page.split(separator: "\n").first { $0.hasPrefix(".TH ") }.map(String.init) ?? ""
        #expect(title.contains("\"imgfetch \(Self.fileVersion)\""), "make version writes VERSION into man/imgfetch.1")
    }

    @Test func versionPrintsTheProgramAndItsLibrariesOneLineEach() throws {
        let result = try Imgfetch.run(["--version"])
        #expect(result.status == 0 && result.stderr.isEmpty)
        let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(lines.count == 5 && lines[4].isEmpty, "four lines: \(lines)")
        #expect(lines[0] == "imgfetch \(Self.fileVersion)")
        #expect(lines[1] == "libvips \(try Self.installedVersion("vips"))")
        #expect(lines[2].hasPrefix("libcurl \(try Self.installedVersion("libcurl")) ("))
        #expect(lines[2].contains("SSL/") && lines[2].hasSuffix(")"), "libcurl's TLS library: \(lines[2])")
        #expect(lines[3] == "libxxhash \(try Self.installedVersion("libxxhash"))")
    }

    @Test func versionWithJSONIsOneObjectOfTheSameVersions() throws {
        let text = try Imgfetch.run(["--version"]).stdoutText.split(separator: "\n").map(String.init)
        let result = try Imgfetch.run(["--version", "--json"])
        #expect(result.status == 0)
        #expect(result.stdoutText.hasSuffix("}\n") && result.stdoutText.split(separator: "\n").count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: String])
        #expect(Set(object.keys) == ["imgfetch", "libvips", "libcurl", "tls", "libxxhash"])
        #expect(text == ["imgfetch \(object["imgfetch"] ?? "")", "libvips \(object["libvips"] ?? "")",
                         "libcurl \(object["libcurl"] ?? "") (\(object["tls"] ?? ""))", "libxxhash \(object["libxxhash"] ?? "")"])
    }

    @Test(arguments: [["--version", "extra"], ["batch", "--version"], ["--version", "--", "x"]])
    func versionWithAWordBesideItIsAUsageError(arguments: [String]) throws {
        let result = try Imgfetch.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("imgfetch: --version takes no arguments") && result.stderr.split(separator: "\n").count == 1)
    }

    @Test(arguments: [["--version", "-o", "x"], ["--version", "--resize", "10x"]])
    func versionWithAnotherOptionIsAUsageError(arguments: [String]) throws {
        let result = try Imgfetch.run(arguments)
        #expect(result.status == 2 && result.stdout.isEmpty, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("imgfetch: --version takes no option but --json; got --")
                && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test func xxhashVersionNumberReadsAsDottedVersion() {
        #expect(RuntimeVersions.xxhashVersion(801) == "0.8.1")
        #expect(RuntimeVersions.xxhashVersion(10_203) == "1.2.3")
    }

    @Test func aLibraryThatCannotBeOpenedIsSaidSo() {
        let versions = RuntimeVersions(vips: .unavailable("cannot open libvips: gone"), curl: .version("8.0.0"),
                                       curlTLS: nil, xxhash: "0.8.1")
        let report = VersionReport(versions, imgfetch: "9.9.9")
        #expect(report.text == "imgfetch 9.9.9\nlibvips unavailable (cannot open libvips: gone)\nlibcurl 8.0.0\nlibxxhash 0.8.1\n")
        #expect(report.unavailable == ["libvips": "cannot open libvips: gone"])
    }
}
