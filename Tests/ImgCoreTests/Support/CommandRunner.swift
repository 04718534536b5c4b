import Foundation

/// Runs the built imgfetch binary and collects its exit status and output.
struct CommandResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

enum Imgfetch {
    /// Runs `imgfetch ARGUMENTS` with an environment where HOME and the cache point into `home` when given.
    /// `program` defaults to the built binary; `prefix` goes before the arguments.
    static func run(_ arguments: [String], stdin: Data? = nil, environment extra: [String: String] = [:],
                    program: String = Paths.binary, prefix: [String] = []) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = prefix + arguments
        var environment = Paths.childEnvironment
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let output = Pipe(), input = Pipe()
        let errorPath = NSTemporaryDirectory() + "imgfetch-stderr-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(stdin)
            try input.fileHandleForWriting.close()
        }
        let collected = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errors.close()
        let collectedErrors = FileManager.default.contents(atPath: errorPath) ?? Data()
        return CommandResult(status: process.terminationStatus, stdout: collected,
                             stderr: String(decoding: collectedErrors, as: UTF8.self))
    }
}
