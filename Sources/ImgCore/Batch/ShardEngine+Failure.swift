extension ShardEngine {
    /// Why the environment gives no shard: the structured cause the command line words (naming its option).
    public enum Failure: Error, Sendable, Equatable {
        /// `variable` (an engine that gives no count) is set, but no count was given.
        case noCount(variable: String)
        /// No engine's index is in the environment; `count` as given (nil: none).
        case noIndex(count: UInt64?)
        /// `variable` is `value`, which is not an index from `first` to `first + count - 1`.
        case outOfRange(variable: String, value: String, first: UInt64, count: UInt64)
        /// `SLURM_ARRAY_TASK_ID` is set but `SLURM_ARRAY_TASK_COUNT` is not.
        case slurmCountMissing
        /// Slurm's variables (`decidedBy`, as `ShardEngine.decidedBy` spells them) give no index below `count`.
        case slurmNotAnIndex(decidedBy: String, count: UInt64)
        /// The count given (`expected`) is not the Slurm array's (`count`).
        case slurmCountDiffers(expected: UInt64, count: UInt64)
        /// `variable` is `value`, which is not a whole number.
        case notANumber(variable: String, value: String)
        /// `variable` (Slurm's count or step) is 0, where it must be at least 1.
        case notPositive(variable: String)

        /// The variables looked for: Slurm's, and with a count those of the engines that give none.
        public static var lookedFor: (slurm: String, withCount: [String]) {
            ("SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT", ShardEngine.countlessEngines.map(\.variable))
        }

        /// The range `outOfRange` expects, as `0 to N-1` or `1 to N`.
        public static func range(first: UInt64, count: UInt64) -> String {
            "\(first) to \(first + count - 1)"
        }
    }
}
