import Foundation
import Testing

/// Each option is declared once (Sources/ImgCLI/Options): the scanner refuses it on a command it does not apply
/// to, and help, completions and the man page's OPTIONS section are made from the same declarations.
@Suite("One declaration per option", .serialized)
struct OptionDeclarationTests: EndToEndSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    /// The examples of the contract issue: each exits 2 with one line naming the option and the command, and
    /// nothing is fetched, cached or written.
    @Test func anOptionGivenToACommandItDoesNotApplyToIsAUsageError() throws {
        let url = server.url("/img/sample.jpg")
        let list = work.file("list.txt")
        try Data((url + "\n").utf8).write(to: URL(fileURLWithPath: list))
        let cases: [([String], option: String, command: String)] = [
            (["cache", "prune", "--resize", "10x10"], "--resize", "cache prune"),
            ([url, "--variant", "a=resize(10x)", "-o", work.file("x.jpg")], "--variant", "fetch"),
            ([url, "--shard", "1/2", "-o", work.file("x.jpg")], "--shard", "fetch"),
            ([url, "-j", "4", "-o", work.file("x.jpg")], "-j", "fetch"),
            (["fetch", url, "--jobs=4", "-o", work.file("x.jpg")], "--jobs", "fetch"),
            (["cache", "inspect", "--dry-run"], "--dry-run", "cache inspect"),
            (["renderer", "status", "--resize", "10x10"], "--resize", "renderer status"),
            (["batch", list, "-O", work.file("out"), "-o", work.file("x.jpg")], "-o", "batch"),
            (["prefetch", url, "--name", "{hash}.{ext}"], "--name", "prefetch"),
            (["batch", list, "-O", work.file("out"), "--cache-key", "k"], "--cache-key", "batch"),
            (["cache", "clear", "--repair"], "--repair", "cache clear"),
        ]
        for (arguments, option, command) in cases {
            let result = try fetch(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("option \(option)") && result.stderr.contains("'\(command)'"), "\(result.stderr)")
        }
        #expect(try server.requests("/img/sample.jpg") == 0)
        for name in ["x.jpg", "out", "cache"] {
            #expect(!FileManager.default.fileExists(atPath: work.file(name)), "\(name) was created")
        }
    }

    /// Global options are taken by every command, so a wrapper can always pass them.
    @Test func globalOptionsApplyEverywhere() throws {
        for arguments in [["cache", "config", "-q"], ["renderer", "status", "-v"], ["help", "batch", "-q"],
                          ["completions", "bash", "-v"]] {
            let result = try fetch(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
    }

    @Test func helpFitsEightyColumnsAndDiffersByCommand() throws {
        var texts: [String: String] = [:]
        for topic in [["--help"], ["help"], ["help", "fetch"], ["help", "batch"], ["help", "prefetch"], ["help", "cache"],
                      ["help", "renderer"], ["help", "completions"], ["batch", "--help"]] {
            let result = try Imgfetch.runInProcess(topic)
            #expect(result.status == 0, "\(topic): \(result.stderr)")
            for line in result.stdoutText.split(separator: "\n") {
                #expect(line.count <= 80, "\(topic) has a line of \(line.count) columns: \(line)")
            }
            texts[topic.joined(separator: " ")] = result.stdoutText
        }
        let batch = try #require(texts["help batch"]), prefetch = try #require(texts["help prefetch"])
        #expect(batch != prefetch)
        #expect(batch.contains("\n      --name TEMPLATE") && !prefetch.contains("\n      --name "))
        #expect(prefetch.contains("\n      --from FILE") && !batch.contains("\n      --from"))
        #expect(texts["batch --help"] == batch)
        #expect(try #require(texts["help cache"]).contains("--dry-run"))
        // The default size limit is the one the cache keeps to (inspect shows it), not "no size limit".
        #expect(try #require(texts["help cache"]).contains("(size limit 1 GiB, ttl 7d, fail-on truncated)"))
        #expect(try #require(texts["help cache"]).contains("IMGFETCH_TTL / IMGFETCH_FAIL_ON"))
        #expect(prefetch.contains("2 usage, 7 unsafe or unusable cache directory"), "\(prefetch)")
        #expect(!(try #require(texts["help fetch"]).contains("--jobs")))
    }

    /// `make man` regenerates the OPTIONS section from the declarations; this fails when the committed page was not
    /// regenerated after a declaration changed.
    @Test func theManPageOptionsSectionIsTheGeneratedOne() throws {
        let generated = try Imgfetch.runInProcess(["--generate", "man-options"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let page = try String(contentsOfFile: Paths.packageRoot + "/man/imgfetch.1", encoding: .utf8)
        let lines = page.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: ".SH OPTIONS"))
        let end = try #require(lines[(start + 1)...].firstIndex { $0.hasPrefix(".SH ") })
        let committed = lines[start..<end].joined(separator: "\n") + "\n"
        #expect(committed == generated.stdoutText, "man/imgfetch.1's OPTIONS section is stale: run 'make man'")
        // Every visible option has its paragraph.
        for option in ["\\-\\-resize", "\\-\\-jobs", "\\-\\-dry\\-run", "\\-\\-cache\\-dir", "\\-\\-json"] {
            #expect(committed.contains("\\fB\(option)\\fR"), "\(option) missing from OPTIONS")
        }
        #expect(!committed.contains("generate"))
    }

    @Test func completionsAreMadeForEachShell() throws {
        for shell in ["bash", "zsh", "fish"] {
            let result = try Imgfetch.runInProcess(["completions", shell])
            #expect(result.status == 0, "\(shell): \(result.stderr)")
            #expect(result.stdoutText.contains("--resize") && result.stdoutText.contains("clean-expired"), "\(shell)")
        }
        let bad = try Imgfetch.runInProcess(["completions", "tcsh"])
        #expect(bad.status == 2 && bad.stderr.contains("bash, zsh, fish"), "\(bad.stderr)")
    }

    /// Each shell parses its completion script without running it (`bash -n`, `zsh -n`, `fish --no-execute`).
    /// zsh and fish come from `make test-deps`; where one is missing its test is reported as skipped, saying so.
    @Test func bashParsesItsCompletionScript() throws { try checkSyntax(of: "bash") }

    @Test(.enabled(if: Shells.path("zsh") != nil, "zsh is not installed (make test-deps installs it)"))
    func zshParsesItsCompletionScript() throws { try checkSyntax(of: "zsh") }

    @Test(.enabled(if: Shells.path("fish") != nil, "fish is not installed (make test-deps installs it)"))
    func fishParsesItsCompletionScript() throws { try checkSyntax(of: "fish") }

    private func checkSyntax(of shell: String) throws {
        let program = try #require(Shells.path(shell), "\(shell) is not installed (make test-deps installs it)")
        let script = work.file("completion.\(shell)")
        try Imgfetch.runInProcess(["completions", shell]).stdout.write(to: URL(fileURLWithPath: script))
        let check = Process()
        check.executableURL = URL(fileURLWithPath: program)
        check.arguments = shell == "fish" ? ["--no-execute", script] : ["-n", script]
        let errors = Pipe()
        check.standardError = errors
        try check.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "\(program) rejects the completion script: \(message)")
    }

    /// The bash completion offers the options of the command being typed, and only those.
    @Test func bashCompletionOffersTheCommandsOptions() throws {
        let script = work.file("imgfetch.bash")
        try Imgfetch.runInProcess(["completions", "bash"]).stdout.write(to: URL(fileURLWithPath: script))
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/bash")
            shell.arguments = ["-c", "source '\(script)'; COMP_WORDS=(imgfetch \(quoted)); COMP_CWORD=\(words.count); "
                               + "_imgfetch; printf '%s\\n' \"${COMPREPLY[@]}\""]
            let output = Pipe()
            shell.standardOutput = output
            try shell.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            shell.waitUntilExit()
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        #expect(try complete(["cache", "pr"]) == ["prune"])
        let prune = try complete(["cache", "prune", "--"])
        #expect(prune.contains("--dry-run") && prune.contains("--size-limit") && !prune.contains("--resize"))
        let batch = try complete(["batch", "list.txt", "-O", "out", "--j"])
        #expect(batch.sorted() == ["--jobs", "--json"])
        #expect(try complete(["-o", "x.jpg", "--va"]) == [], "fetch has no --variant")
        #expect(try complete(["--renderer", ""]) == ["auto", "off"])
    }

    /// info takes its decoding limits and --blurhash only with --facts: each shell offers them for info only once
    /// --facts has been typed (fetch, where they need nothing, offers them at once), and help info says so.
    @Test func infosDecodingLimitsAreOfferedOnlyAfterFacts() throws {
        let limits = ["--max-decode-memory", "--max-pixels", "--max-render-time"]
        let always = ["--max-bytes", "--max-redirects"]
        var shells = ["bash"]
        for shell in ["zsh", "fish"] where Shells.path(shell) != nil { shells.append(shell) }
        for shell in shells {
            #expect(try complete(shell, ["info", "u", "--max-"]) == always, "\(shell)")
            #expect(try complete(shell, ["info", "u", "--facts", "--max-"]) == (always + limits).sorted(), "\(shell)")
            #expect(try complete(shell, ["info", "--facts", "u", "--json", "--blurh"]) == ["--blurhash"], "\(shell)")
            #expect(try complete(shell, ["info", "u", "--blurh"]) == [], "\(shell)")
            #expect(try complete(shell, ["u", "--max-"]) == (always + limits + ["--max-frames"]).sorted(),
                    "\(shell): fetch's limits need no --facts")
            #expect(try complete(shell, ["u", "--blurh"]) == [], "\(shell): --blurhash needs --facts everywhere")
            #expect(try complete(shell, ["u", "--facts", "--blurh"]) == ["--blurhash"], "\(shell)")
        }
        let info = try Imgfetch.runInProcess(["help", "info"]).stdoutText, fetch = try Imgfetch.runInProcess(["help", "fetch"]).stdoutText
        for option in limits + ["--blurhash"] {
            #expect(Self.entry(option, in: info)?.hasSuffix("(needs --facts)") == true, "\(option): \(info)")
        }
        #expect(Self.entry("--max-pixels", in: fetch)?.contains("--facts") == false, "\(fetch)")
        #expect(Self.entry("--max-bytes", in: info)?.contains("--facts") == false, "\(info)")
    }

    /// batch's `--skip-duplicates` and `--duplicate-distance` need `--facts`, and info's `--fail-on` does: declared
    /// so, each is offered once `--facts` is typed and help says so (the batch ones were checked by hand, offered
    /// early, and help said nothing). info takes `--ttl` at once; help gives `--resize`'s mode `upscale`.
    @Test func optionsThatNeedFactsAreDeclaredSo() throws {
        var shells = ["bash"]
        for shell in ["zsh", "fish"] where Shells.path(shell) != nil { shells.append(shell) }
        for shell in shells {
            #expect(try complete(shell, ["batch", "l", "-O", "o", "--skip-d"]) == [], "\(shell)")
            #expect(try complete(shell, ["batch", "l", "--facts", "--skip-d"]) == ["--skip-duplicates"], "\(shell)")
            #expect(try complete(shell, ["batch", "l", "--duplicate-d"]) == [], "\(shell)")
            #expect(try complete(shell, ["batch", "--facts", "l", "--duplicate-d"]) == ["--duplicate-distance"], "\(shell)")
            #expect(try complete(shell, ["info", "u", "--fail-"]) == [], "\(shell)")
            #expect(try complete(shell, ["info", "u", "--facts", "--fail-"]) == ["--fail-on"], "\(shell)")
            #expect(try complete(shell, ["info", "u", "--tt"]) == ["--ttl"], "\(shell)")
        }
        let batch = try Imgfetch.runInProcess(["help", "batch"]).stdoutText
        let info = try Imgfetch.runInProcess(["help", "info"]).stdoutText
        let fetch = try Imgfetch.runInProcess(["help", "fetch"]).stdoutText
        for option in ["--skip-duplicates", "--duplicate-distance"] {
            #expect(Self.entry(option, in: batch)?.hasSuffix("(needs --facts)") == true, "\(option): \(batch)")
        }
        #expect(Self.entry("--fail-on", in: info)?.hasSuffix("(needs --facts)") == true, "\(info)")
        #expect(Self.entry("--ttl", in: info) != nil, "\(info)")
        #expect(Self.entry("--resize", in: fetch)?.contains("pad[=COLOR], upscale") == true, "\(fetch)")
        let refused = try Imgfetch.runInProcess(["batch", "l.txt", "-O", work.file("o"), "--skip-duplicates"])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr == "imgfetch: --skip-duplicates needs --facts (duplicates are found by their phash)\n")
    }

    /// A cluster of short options whose last letter takes a value (`-qo FILE`) takes the next word as that value, in
    /// every shell: the bash and fish scripts knew `-o` alone, took `x.jpg` for the command, and offered batch's
    /// options nowhere after it.
    @Test func aClusterEndingInAValuedOptionTakesTheNextWord() throws {
        var shells = ["bash"]
        for shell in ["zsh", "fish"] where Shells.path(shell) != nil { shells.append(shell) }
        for shell in shells {
            #expect(try complete(shell, ["-qo", "x.jpg", "batch", "l", "--shar"]) == ["--shard"], "\(shell)")
            #expect(try complete(shell, ["-qox.jpg", "batch", "l", "--shar"]) == ["--shard"], "\(shell)")
            #expect(try complete(shell, ["-qv", "batch", "l", "--shar"]) == ["--shard"], "\(shell)")
            #expect(try complete(shell, ["-qo", "x.jpg", "--va"]) == [], "\(shell): fetch has no --variant")
        }
    }

    /// An option's entry in help: from its name to the next option's line, joined.
    private static func entry(_ option: String, in help: String) -> String? {
        let lines = help.components(separatedBy: "\n")
        guard let first = lines.firstIndex(where: { $0.hasPrefix("      \(option) ") || $0 == "      \(option)" }) else { return nil }
        let rest = lines[(first + 1)...].prefix { $0.hasPrefix(String(repeating: " ", count: HelpColumn.start)) }
        return ([lines[first]] + rest).joined(separator: " ").split(separator: " ").joined(separator: " ")
    }

    /// What `shell`'s completion of imgfetch offers after `words` (the last one being completed), sorted.
    private func complete(_ shell: String, _ words: [String]) throws -> [String] {
        let script = work.file("completion-\(shell)")
        if !FileManager.default.fileExists(atPath: script) {
            try Imgfetch.runInProcess(["completions", shell]).stdout.write(to: URL(fileURLWithPath: script))
        }
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let command: String
        switch shell {
        case "bash":
            command = "source '\(script)'; COMP_WORDS=(imgfetch \(quoted)); COMP_CWORD=\(words.count); _imgfetch; "
                + "printf '%s\\n' \"${COMPREPLY[@]}\""
        case "zsh":
            // The completion system's functions stand in: _describe prints the entries offered, compadd its words.
            command = "_describe() { print -rl -- ${(P)2} }; compadd() { print -rl -- ${@:2} }; _files() { }; "
                + "words=(imgfetch \(quoted)); CURRENT=\(words.count + 1); PREFIX='\(words.last ?? "")'; source '\(script)'"
        default:
            command = "source '\(script)'; complete -C \"imgfetch \(quoted)\""
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Shells.path(shell)))
        process.arguments = shell == "zsh" ? ["-f", "-c", command] : ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let prefix = words.last ?? ""
        let offered = String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            String(line.prefix { $0 != "\t" && $0 != ":" })
        }
        return Array(Set(offered.filter { $0.hasPrefix(prefix) && !$0.isEmpty })).sorted()
    }
}

/// Where help's option descriptions start (HelpFormatter.helpColumn).
enum HelpColumn {
    static let start = 28
}

/// Where the shells the completions are for are installed.
enum Shells {
    /// The shell's executable in /bin or /usr/bin, or nil when it is not installed.
    static func path(_ shell: String) -> String? {
        ["/bin/\(shell)", "/usr/bin/\(shell)"].first(where: FileManager.default.isExecutableFile)
    }
}
