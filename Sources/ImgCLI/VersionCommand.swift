import ImgCore

/// `imgfetch --version [--json]`: VersionReport of the libraries read now, as text or one JSON object; exit 0 even
/// when a library is unavailable (the line says so).
enum VersionCommand {
    /// `--version` refuses any word beside it (a command's name included: `imgfetch batch --version` is no way to
    /// ask for a version), so that `--version extra` is a usage error rather than a silent version, and any option
    /// but `--json` (`--version -o FILE` wrote nothing and said nothing of it).
    static func checkAlone(_ scanned: ScannedArguments) throws(ImgError) {
        if let extra = scanned.positionals.first { throw .usage("--version takes no arguments; got '\(extra)'") }
        let allowed = [Options.version.long, Options.json.long]
        if let other = scanned.options.first(where: { !allowed.contains($0.name) }) {
            throw .usage("--version takes no option but --json; got --\(other.name)")
        }
    }

    /// Prints the report as `--json` asks or as text.
    static func print(json: Bool, console: Console) throws(ImgError) {
        let report = VersionReport(RuntimeVersions.read())
        if json, let data = Reporter.jsonLine(report) {
            try console.printLine(String(decoding: data, as: UTF8.self), terminator: "")
        } else {
            try console.printLine(report.text, terminator: "")
        }
    }
}
