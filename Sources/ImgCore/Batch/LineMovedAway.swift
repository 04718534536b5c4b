/// A line whose `ok` sample a complete WebDataset tar of this shard keeps, though the line is now another shard's
/// (its URL or its key options, and so its original key, or the shard count changed since): that shard's task
/// writes it again unless the manifest it resumes from records this sample, and the folder then holds the line's
/// key twice. What `BatchOptions.linesMovedAway` hears, once a line.
public struct LineMovedAway: Sendable, Equatable {
    /// The line's number in the list.
    public var line: Int
    /// The name of the tar keeping its sample.
    public var tar: String
    /// The sample's key.
    public var key: String
}
