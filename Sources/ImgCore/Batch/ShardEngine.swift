import Foundation

/// The shard a job array engine gives this process in its environment (the command line's `--shard auto`).
///
/// Looked for in this order: Slurm (`SLURM_ARRAY_TASK_ID` minus `SLURM_ARRAY_TASK_MIN`, divided by
/// `SLURM_ARRAY_TASK_STEP` when set, of `SLURM_ARRAY_TASK_COUNT`, or of the count given when Slurm sets none);
/// then, only with the count given, a Kubernetes indexed Job (`JOB_COMPLETION_INDEX`, 0-based), AWS Batch (`AWS_BATCH_JOB_ARRAY_INDEX`, 0-based) and GNU parallel
/// (`PARALLEL_SEQ`, 1-based). The first one set decides.
public struct ShardEngine: Sendable, Equatable {
    /// The shard this process handles.
    public var shard: Shard
    /// Which variables decided, for `-v`: e.g. `SLURM_ARRAY_TASK_ID=7 - SLURM_ARRAY_TASK_MIN=4 of SLURM_ARRAY_TASK_COUNT=4`,
    /// or `SLURM_ARRAY_TASK_ID=3 (SLURM_ARRAY_TASK_MIN unset, taken as 0) of SLURM_ARRAY_TASK_COUNT=4`.
    public var decidedBy: String

    /// The engines that give an index but no count, in the order they are looked for, with their first index.
    static let countlessEngines: [(variable: String, base: UInt64)] = [
        ("JOB_COMPLETION_INDEX", 0), ("AWS_BATCH_JOB_ARRAY_INDEX", 0), ("PARALLEL_SEQ", 1),
    ]

    /// Resolves the shard from `environment`; `count` is the number of tasks when the caller knows it (nil: only
    /// Slurm, which gives its count, can decide). A `Failure` names what was looked for or what is wrong.
    public init(count: UInt64?, environment: [String: String]) throws(Failure) {
        if let id = environment["SLURM_ARRAY_TASK_ID"], !id.isEmpty {
            self = try ShardEngine.slurm(id: id, environment: environment, count: count)
            return
        }
        guard let count else {
            if let found = Self.countlessEngines.first(where: { environment[$0.variable] != nil }) {
                throw .noCount(variable: found.variable)
            }
            throw .noIndex(count: nil)
        }
        for (name, base) in Self.countlessEngines {
            guard let text = environment[name], !text.isEmpty else { continue }
            let value = try ShardEngine.number(text, name: name)
            guard value >= base, value - base < count else {
                throw .outOfRange(variable: name, value: text, first: base, count: count)
            }
            shard = Shard(index: value - base, count: count)
            decidedBy = "\(name)=\(text)" + (base == 1 ? " (1-based)" : "")
            return
        }
        throw .noIndex(count: count)
    }

    private static func slurm(id: String, environment: [String: String], count expected: UInt64?) throws(Failure) -> ShardEngine {
        let taskID = try number(id, name: "SLURM_ARRAY_TASK_ID")
        let countText = environment["SLURM_ARRAY_TASK_COUNT"].flatMap { $0.isEmpty ? nil : $0 }
        guard countText != nil || expected != nil else { throw .slurmCountMissing }
        let count = try countText.map { text throws(Failure) in try number(text, name: "SLURM_ARRAY_TASK_COUNT") } ?? expected!
        let minimumText = environment["SLURM_ARRAY_TASK_MIN"]
        let minimum = try minimumText.map { text throws(Failure) in try number(text, name: "SLURM_ARRAY_TASK_MIN") } ?? 0
        let step = try environment["SLURM_ARRAY_TASK_STEP"].map { text throws(Failure) in
            try number(text, name: "SLURM_ARRAY_TASK_STEP")
        } ?? 1
        if count == 0 { throw .notPositive(variable: "SLURM_ARRAY_TASK_COUNT") }
        if step == 0 { throw .notPositive(variable: "SLURM_ARRAY_TASK_STEP") }
        // An unset minimum is named as such: the variables given are what the message shows.
        var decided = minimumText == nil ? "SLURM_ARRAY_TASK_ID=\(taskID) (SLURM_ARRAY_TASK_MIN unset, taken as 0)"
            : "SLURM_ARRAY_TASK_ID=\(taskID) - SLURM_ARRAY_TASK_MIN=\(minimum)"
        if step > 1 {
            decided = (minimumText == nil ? decided : "(\(decided))") + " / SLURM_ARRAY_TASK_STEP=\(step)"
        }
        decided += countText == nil ? " of \(count) (SLURM_ARRAY_TASK_COUNT not set)" : " of SLURM_ARRAY_TASK_COUNT=\(count)"
        guard taskID >= minimum, (taskID - minimum) % step == 0, (taskID - minimum) / step < count else {
            throw .slurmNotAnIndex(decidedBy: decided, count: count)
        }
        if let expected, expected != count { throw .slurmCountDiffers(expected: expected, count: count) }
        return ShardEngine(shard: Shard(index: (taskID - minimum) / step, count: count), decidedBy: decided)
    }

    private init(shard: Shard, decidedBy: String) {
        (self.shard, self.decidedBy) = (shard, decidedBy)
    }

    private static func number(_ text: String, name: String) throws(Failure) -> UInt64 {
        guard let value = UInt64(text.trimmingCharacters(in: .whitespaces)) else {
            throw .notANumber(variable: name, value: text)
        }
        return value
    }
}
