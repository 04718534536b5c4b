import Foundation
import ImgCLI
import ImgCore

/// Runs the built imgfetch binary and collects its exit status and output.
struct CommandResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

enum Imgfetch {
    /// Runs `imgfetch ARGUMENTS` with the test environment (`Paths.childEnvironment`) and `extra` over it, `stdin`
    /// (else /dev/null) as its standard input. `program` defaults to the built binary; `prefix` goes before the arguments.
    static func run(_ arguments: [String], stdin: Data? = nil, environment extra: [String: String] = [:],
                    program: String = Paths.binary, prefix: [String] = []) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = prefix + arguments
        process.environment = Paths.childEnvironment.merging(extra) { $1 }
        let output = Pipe(), input = Pipe()
        let errors = try CapturedOutput()
        defer { errors.remove() }
        process.standardOutput = output
        process.standardError = errors.handle
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            // A command that refuses before reading its input closes the pipe (EPIPE, SIGPIPE being ignored): its
            // status and output are what the test checks.
            try? input.fileHandleForWriting.write(contentsOf: stdin)
            try? input.fileHandleForWriting.close()
        }
        let collected = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandResult(status: process.terminationStatus, stdout: collected,
                             stderr: String(decoding: try errors.collect(), as: UTF8.self))
    }

    /// Runs `imgfetch ARGUMENTS` in this process: the CLI front as a library (`CommandDispatcher.run`), with the test
    /// environment and `extra` over it, its standard output and error captured in files of its own, no standard
    /// input. For commands whose test needs no process of their own: no signal, no standard input, no process-wide
    /// fact (`-v`'s "libvips: not started", peak RSS, the proxy variables libcurl reads itself).
    static func runInProcess(_ arguments: [String], environment extra: [String: String] = [:]) throws -> CommandResult {
        let output = try CapturedOutput(), errors = try CapturedOutput()
        defer { output.remove(); errors.remove() }
        let console = Console(standardOutput: StandardStream(descriptor: output.handle.fileDescriptor, isOutput: true),
                              standardError: StandardStream(descriptor: errors.handle.fileDescriptor, isOutput: false))
        let status = CommandDispatcher.run(arguments, environment: Paths.childEnvironment.merging(extra) { $1 },
                                           console: console)
        return CommandResult(status: status, stdout: try output.collect(),
                             stderr: String(decoding: try errors.collect(), as: UTF8.self))
    }

    /// Runs `imgfetch ARGUMENTS` under a Python parent: exit status, peak RSS in KiB (the child's own, from
    /// `getrusage(RUSAGE_CHILDREN)` in a parent that has no other child) and stderr.
    static func measured(_ arguments: [String]) throws -> (status: Int, peakKiB: Int, stderr: String) {
        let result = try run(["-c", """
            import resource, subprocess, sys
            r = subprocess.run(sys.argv[1:], stderr=subprocess.PIPE)
            sys.stderr.write(r.stderr.decode())
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode)
            """, Paths.binary] + arguments, program: "/usr/bin/env", prefix: ["python3"])
        let fields = result.stdoutText.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard fields.count == 2 else { throw TestFailure("no measurement: \(result.stdoutText) \(result.stderr)") }
        return (fields[1], fields[0], result.stderr)
    }

    /// Starts `imgfetch ARGUMENTS` without waiting, its standard output and error on /dev/null (standard output to
    /// the file `output` when given, created empty; standard error to `errors` when given), with the test
    /// environment and `extra` over it.
    static func launch(_ arguments: [String], environment extra: [String: String] = [:], output: String? = nil,
                       errors: CapturedOutput? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.binary)
        process.arguments = arguments
        process.environment = Paths.childEnvironment.merging(extra) { $1 }
        if let output {
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        process.standardError = errors?.handle ?? FileHandle.nullDevice
        try process.run()
        return process
    }
}

/// A temporary file that takes a child's output: a file, not a pipe, so that no reader waits for ever on a pipe that
/// a process the child started still holds open. `remove()` it when done.
struct CapturedOutput {
    let path = NSTemporaryDirectory() + "imgfetch-output-\(UUID().uuidString)"
    let handle: FileHandle

    init() throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        do { handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path)) } catch { try? FileManager.default.removeItem(atPath: path); throw error }
    }

    /// Closes this side of the file and returns what the child wrote (call after it has ended).
    func collect() throws -> Data {
        try handle.close()
        return FileManager.default.contents(atPath: path) ?? Data()
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

extension Imgfetch {
    /// Copies the built binary to `destination` (mode 755) through a descriptor closed on exec: a process another
    /// test forks meanwhile must not inherit it open for writing, or running the copy fails with ETXTBSY.
    static func copyBinary(to destination: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Paths.binary))
        let descriptor = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw TestFailure("cannot create \(destination): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { FileWriting.writeAll(descriptor, $0) }
        guard written else { throw TestFailure("cannot write \(destination): \(String(cString: strerror(errno)))") }
    }

    /// Starts `imgfetch SERVER/img/sample.jpg` rendered slowly (a 9000 × 9000 blur of sigma 60, several seconds)
    /// into `output`, standard error to `errors`, and returns once its download is done and its rendering has
    /// begun: for tests that signal a rendering under way.
    static func launchSlowRendering(_ server: FixtureServer, output: String, errors: CapturedOutput) throws -> Process {
        let process = try launch([server.url("/img/sample.jpg"), "--no-cache", "--upscale", "--resize", "9000x9000",
                                  "--blur", "60", "-o", output], errors: errors)
        try server.waitForRequests("/img/sample.jpg")
        usleep(300_000)  // the 30 KB body is in; the rendering has begun
        return process
    }
}

extension Imgfetch {
    /// The id of a process that has ended (and been reaped): what a temporary left by a killed process is named by.
    static func endedProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }
}
