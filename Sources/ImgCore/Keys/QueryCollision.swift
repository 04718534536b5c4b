/// Inputs that may get another input's image because their original key drops the query (no kept query, no
/// custom key): what `PipelineConfiguration.queryCollisions` hears, once per key and run. Library wording names no
/// option; the CLI front words the advice.
public enum QueryCollision: Sendable, Equatable {
    /// Two inputs of this run, `earlier` and `later` (both without credentials), differ only in their query.
    case sameKey(earlier: String, later: String)
    /// `requested` is served from the cache entry recorded for `recorded`, whose query differs.
    case servedFromEntry(requested: String, recorded: String)

    /// The warning in the library's words.
    public var message: String {
        switch self {
        case .sameKey(let earlier, let later):
            "warning: \(earlier) and \(later) differ only in their query, which the cache key drops: "
                + "they will get one image"
        case .servedFromEntry(let requested, let recorded):
            "warning: \(requested) is served from the cache entry of \(recorded): their query differs, which the "
                + "cache key drops, so it may be another image"
        }
    }
}
