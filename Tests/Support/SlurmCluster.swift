import Foundation

/// A one-node Slurm cluster started by scripts/slurm-cluster.sh under a test's directory, stopped by `stop()`.
final class SlurmCluster: @unchecked Sendable { // paths only; used by one test
    let directory: String
    let configuration: String

    /// Root, with the daemons and the client installed.
    static let available: Bool = getuid() == 0
        && ["/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/bin/sbatch"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        }

    init(directory: String) throws {
        self.directory = directory
        configuration = directory + "/slurm.conf"
        let started = try SlurmCluster.shell(["timeout", "60", Paths.packageRoot + "/scripts/slurm-cluster.sh", "start", directory], environment: [:])
        guard started.status == 0 else {
            stop()
            throw TestFailure("the Slurm cluster did not start: \(started.output)\n\(logs())")
        }
    }

    func stop() {
        _ = try? SlurmCluster.shell([Paths.packageRoot + "/scripts/slurm-cluster.sh", "stop", directory], environment: [:])
    }

    /// A job array script of four tasks, as the man page's recipe: each task writes NAME-out-K and
    /// NAME-m-K-of-4.jsonl under `root`, resuming from its own manifest.
    func script(name: String, list: String, root: String) throws -> String {
        let path = "\(directory)/\(name).sh"
        let text = """
            #!/bin/sh
            #SBATCH --array=0-3
            #SBATCH --output=\(directory)/\(name)-%a.log
            exec \(Paths.binary) -q batch \(list) -O \(root)/\(name)-out-$SLURM_ARRAY_TASK_ID --shard auto \\
                --manifest \(root)/\(name)-m-{shard}.jsonl --resume \(root)/\(name)-m-{shard}.jsonl \\
                --resize 64x64 --no-cache -j 1 --no-progress

            """
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `sbatch ARGUMENTS`, bounded to two minutes.
    func sbatch(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try run(["timeout", "120", "sbatch"] + arguments)
    }

    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try SlurmCluster.shell(arguments, environment: ["SLURM_CONF": configuration])
    }

    /// Waits (at most a minute) until no task of `job` is queued or running.
    func waitUntilGone(_ job: String) throws {
        let deadline = Date().addingTimeInterval(60)
        while true {
            let queue = try run(["squeue", "-h", "-j", job])
            if queue.status != 0 || queue.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return }
            guard Date() < deadline else { throw TestFailure("job \(job) still in the queue after 60 s: \(queue.output)") }
            usleep(200_000)
        }
    }

    /// The daemons' and tasks' logs, for a failure's message.
    func logs() -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.filter { $0.hasSuffix(".log") }.sorted() ?? []
        return names.map { name in
            let text = (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
            return "== \(name)\n" + text.split(separator: "\n").suffix(15).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    private static func shell(_ arguments: [String], environment extra: [String: String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = Paths.childEnvironment.merging(extra) { $1 }
        // Output to a file, not a pipe: a daemon started by the command could hold a pipe open for ever.
        let output = try CapturedOutput()
        defer { output.remove() }
        process.standardOutput = output.handle
        process.standardError = output.handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: try output.collect(), as: UTF8.self))
    }
}
