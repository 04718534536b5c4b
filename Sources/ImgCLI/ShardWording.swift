import ImgCore

extension ShardEngine.Failure {
    /// The usage error (exit 2) as the command line words it, naming `--shard` with the value given (`auto`,
    /// `auto/N`).
    func commandLineMessage(given: String) -> String {
        let looked = Self.lookedFor
        let lookedFor = "\(looked.slurm); with --shard auto/N also \(looked.withCount.joined(separator: ", "))"
        let option = "--shard \(given)"
        return switch self {
        case .noCount(let variable):
            "\(option): \(variable) is set but gives no count; use --shard auto/N with N the number of tasks"
        case .noIndex:
            "\(option): no job array index in the environment (looked for \(lookedFor))"
        case .outOfRange(let variable, let value, let first, let count):
            "\(option): \(variable)=\(value) is out of range (\(Self.range(first: first, count: count)))"
        case .slurmCountMissing:
            "\(option): SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not"
        case .slurmNotAnIndex(let decidedBy, let count):
            "\(option): \(decidedBy) is not an index from 0 to \(count - 1) "
                + "(an array like --array=0-7 or 5-12 is needed; use --shard K/N otherwise)"
        case .slurmCountDiffers(_, let count):
            "\(option): the Slurm array has SLURM_ARRAY_TASK_COUNT=\(count) tasks"
        case .notANumber(let variable, let value):
            "\(option): \(variable)='\(value)' is not a whole number"
        case .notPositive(let variable):
            "\(option): \(variable)=0, where Slurm sets at least 1"
        }
    }
}

/// `--shard`'s value when it asks for the job array engine's shard: `auto` (nil: the engine gives the count) or
/// `auto/N` (N ≥ 1); not an `auto` value at all (`K/N`): `.given`.
enum ShardAutoValue: Equatable {
    case given
    case auto(count: UInt64?)

    /// Reads `text` as `auto` or `auto/N`; a bad count is the problem `Options.shard` words.
    static func parse(_ text: String) throws(ImgError) -> ShardAutoValue {
        if text == "auto" { return .auto(count: nil) }
        guard text.hasPrefix("auto/") else { return .given }
        let digits = text.dropFirst("auto/".count)
        guard ValueFormat.isPlain(digits), let count = UInt64(digits), count >= 1 else {
            throw .usage("expected auto, auto/N with N >= 1, or K/N")
        }
        return .auto(count: count)
    }
}
