import ImgCore

/// `imgfetch --version [--json]`: VersionReport of the libraries read now, as text or one JSON object; exit 0 even
/// when a library is unavailable (the line says so).
enum VersionCommand {
    /// `--version` refuses any word beside it and any option but `--json` (`ScannedArguments.checkAlone`).
    static func checkAlone(_ scanned: ScannedArguments) throws(ImgError) {
        try scanned.checkAlone(Options.version.long, besides: [Options.json.long])
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
