import Foundation

/// `--shard auto` and `--shard auto/N`: the shard a job array engine gives this process in its environment.
///
/// Looked for in this order: Slurm (`SLURM_ARRAY_TASK_ID` minus `SLURM_ARRAY_TASK_MIN`, divided by
/// `SLURM_ARRAY_TASK_STEP` when set, of `SLURM_ARRAY_TASK_COUNT`); then, only with the count given as `auto/N`,
/// a Kubernetes indexed Job (`JOB_COMPLETION_INDEX`, 0-based), AWS Batch (`AWS_BATCH_JOB_ARRAY_INDEX`, 0-based)
/// and GNU parallel (`PARALLEL_SEQ`, 1-based). The first one set decides.
public struct ShardEngine: Sendable, Equatable {
    /// The shard this process handles.
    public var shard: Shard
    /// Which variables decided, for `-v`: e.g. `SLURM_ARRAY_TASK_ID=7 - SLURM_ARRAY_TASK_MIN=4 of SLURM_ARRAY_TASK_COUNT=4`.
    public var decidedBy: String

    /// What `--shard auto` looks for, for the usage error when nothing is found.
    static let lookedFor = "SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT; with --shard auto/N also JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX, PARALLEL_SEQ"

    /// Whether `text` asks for the engine's shard (`auto` or `auto/N`) rather than giving `K/N`.
    public static func isAuto(_ text: String) -> Bool {
        text == "auto" || text.hasPrefix("auto/")
    }

    /// Resolves `auto` or `auto/N` from `environment`; a usage error names what was looked for or what is wrong.
    public init(parsing text: String, environment: [String: String]) throws(ImgError) {
        var count: UInt64?
        if text != "auto" {
            guard let value = UInt64(text.dropFirst("auto/".count)), value >= 1 else {
                throw .usage("bad --shard '\(text)': expected auto, auto/N with N >= 1, or K/N")
            }
            count = value
        }
        if let id = environment["SLURM_ARRAY_TASK_ID"], !id.isEmpty {
            self = try ShardEngine.slurm(id: id, environment: environment, count: count)
            return
        }
        guard let count else {
            let others = ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX", "PARALLEL_SEQ"].filter { environment[$0] != nil }
            if let found = others.first {
                throw .usage("--shard auto: \(found) is set but gives no count; use --shard auto/N with N the number of tasks")
            }
            throw .usage("--shard auto: no job array index in the environment (looked for \(ShardEngine.lookedFor))")
        }
        for (name, base) in [("JOB_COMPLETION_INDEX", UInt64(0)), ("AWS_BATCH_JOB_ARRAY_INDEX", 0), ("PARALLEL_SEQ", 1)] {
            guard let text = environment[name], !text.isEmpty else { continue }
            let value = try ShardEngine.number(text, name: name)
            guard value >= base, value - base < count else {
                let range = base == 0 ? "0 to \(count - 1)" : "1 to \(count)"
                throw .usage("--shard auto/\(count): \(name)=\(text) is out of range (\(range))")
            }
            shard = Shard(index: value - base, count: count)
            decidedBy = "\(name)=\(text)" + (base == 1 ? " (1-based)" : "")
            return
        }
        throw .usage("--shard auto/\(count): no job array index in the environment (looked for \(ShardEngine.lookedFor))")
    }

    private static func slurm(id: String, environment: [String: String], count expected: UInt64?) throws(ImgError) -> ShardEngine {
        let taskID = try number(id, name: "SLURM_ARRAY_TASK_ID")
        guard let countText = environment["SLURM_ARRAY_TASK_COUNT"], !countText.isEmpty else {
            throw .usage("--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")
        }
        let count = try number(countText, name: "SLURM_ARRAY_TASK_COUNT")
        let minimum = try environment["SLURM_ARRAY_TASK_MIN"].map { text throws(ImgError) in
            try number(text, name: "SLURM_ARRAY_TASK_MIN")
        } ?? 0
        let step = try environment["SLURM_ARRAY_TASK_STEP"].map { text throws(ImgError) in
            try number(text, name: "SLURM_ARRAY_TASK_STEP")
        } ?? 1
        var decided = "SLURM_ARRAY_TASK_ID=\(taskID) - SLURM_ARRAY_TASK_MIN=\(minimum)"
        if step > 1 { decided = "(\(decided)) / SLURM_ARRAY_TASK_STEP=\(step)" }
        decided += " of SLURM_ARRAY_TASK_COUNT=\(count)"
        guard count >= 1, taskID >= minimum, step >= 1, (taskID - minimum) % step == 0, (taskID - minimum) / step < count else {
            throw .usage("--shard auto: \(decided) is not an index from 0 to \(max(1, count) - 1) "
                         + "(an array like --array=0-7 or 5-12 is needed; use --shard K/N otherwise)")
        }
        if let expected, expected != count {
            throw .usage("--shard auto/\(expected): the Slurm array has SLURM_ARRAY_TASK_COUNT=\(count) tasks")
        }
        return ShardEngine(shard: Shard(index: (taskID - minimum) / step, count: count), decidedBy: decided)
    }

    private init(shard: Shard, decidedBy: String) {
        (self.shard, self.decidedBy) = (shard, decidedBy)
    }

    private static func number(_ text: String, name: String) throws(ImgError) -> UInt64 {
        guard let value = UInt64(text.trimmingCharacters(in: .whitespaces)) else {
            throw .usage("--shard auto: \(name)='\(text)' is not a whole number")
        }
        return value
    }
}
