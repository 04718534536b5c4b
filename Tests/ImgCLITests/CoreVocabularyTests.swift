import Foundation
import Testing
@testable import ImgCLI

/// ImgCore knows no option names: `Sources/ImgCLI` words errors (ErrorWording) and chooses settings
/// (CacheSettingsChoice). This scans ImgCore's string literals for a declared option (`--ttl`) or `-o`/`-O`.
@Suite("ImgCore speaks its own terms")
struct CoreVocabularyTests {

    static let core = URL(fileURLWithPath: Paths.packageRoot).appendingPathComponent("Sources/ImgCore")

    /// How many string literals of `line` name an option (`--NAME` of a declared one, or `-o`/`-O` alone).
    static func optionNames(in line: String, options: Set<String>) throws -> Int {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("//") { return 0 }
        let literal = try Regex(#""((?:[^"\\]|\\.)*)""#)
        let long = try Regex(#"--([a-z][a-z0-9-]*)"#)
        let short = try Regex(#"(^|[\s(])-[oO]( |$)"#)
        var count = 0
        for match in line.matches(of: literal) {
            let text = String(line[match.range])
            count += text.matches(of: long).filter { options.contains(String(text[$0.range].dropFirst(2))) }.count
            if text.dropFirst().dropLast().contains(short) { count += 1 }
        }
        return count
    }

    static func scan() throws -> [String: Int] {
        let options = Set(OptionCatalog.all.map(\.long))
        var found: [String: Int] = [:]
        let files = FileManager.default.enumerator(atPath: core.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: core.appendingPathComponent(file), encoding: .utf8)
            let count = try text.split(separator: "\n").reduce(0) { $0 + (try optionNames(in: String($1), options: options)) }
            if count > 0 { found[file] = count }
        }
        return found
    }

    @Test func theScanSeesAnOptionName() throws {
        let options = Set(OptionCatalog.all.map(\.long))
        #expect(try Self.optionNames(in: #"throw .usage("bad --ttl '\(x)'")"#, options: options) == 1)
        #expect(try Self.optionNames(in: #"throw .usage("-o \(path) is a directory")"#, options: options) == 1)
        #expect(try Self.optionNames(in: #"/// `--ttl` in a doc comment"#, options: options) == 0)
        #expect(try Self.optionNames(in: #"let place = "IMGFETCH_TTL""#, options: options) == 0)
    }

    /// A value ImgCore parses (a name template, a variant, a shard, a header) is refused in the command line's words:
    /// ImgCore gives the problem, the command line names the option and the value, before anything is fetched.
    @Test func aValueImgCoreRefusesIsWordedWithItsOption() throws {
        let root = try TemporaryDirectory()
        let list = root.file("list.txt"), output = root.file("out")
        try "http://127.0.0.1:1/a.jpg\n".write(toFile: list, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["--name", "{x"], "bad --name '{x': unclosed '{'"),
            (["--name", ".{name}.{ext}"], "bad --name '.{name}.{ext}': a name may not start with '.' or '-'"),
            (["--variant", "bad"], "bad --variant 'bad': expected NAME=CHAIN"),
            (["--variant", "a=nope(1)"], "bad --variant 'a=nope(1)': bad chain 'nope(1)'"),
            (["--shard", "3/3"], "bad --shard '3/3': expected K/N with 0 <= K < N, e.g. 0/3"),
            (["-H", "bad"], "bad --header '***': expected 'Name: value' (or 'Name;' for an empty value)"),
            (["-H", "a\rb: c"], "bad --header 'a\\rb: ***': CR, LF and NUL are not allowed in a header"),
        ]
        for (arguments, message) in cases {
            let result = try Imgfetch.runInProcess(["batch", list, "-O", output] + arguments)
            #expect(result.status == 2 && result.stderr.contains("imgfetch: \(message)"), "\(arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        // A cause ImgCore reports is worded with the option that led to it.
        let cache = root.file("cache")
        for command in [["http://127.0.0.1:1/a.jpg", "-o", root.file("a.jpg")], ["info", "http://127.0.0.1:1/a.jpg"]] {
            let result = try Imgfetch.runInProcess(command + ["--only-from-cache", "--cache-dir", cache])
            #expect(result.status == 6 && result.stderr.contains("not in the cache (--only-from-cache) [not-cached, exit 6]"),
                    "\(command): \(result.stderr)")
        }
    }

    @Test func imgCoreNamesNoOption() throws {
        for (file, count) in try Self.scan().sorted(by: { $0.key < $1.key }) {
            Issue.record("\(file) names \(count) options: give its error a cause and word it in ImgCLI")
        }
    }
}
