import Foundation

/// One `--variant NAME=CHAIN`: an extra output per item, its chain applied after the shared processing options.
public struct BatchVariant: Sendable {
    /// `[A-Za-z0-9._-]`, not starting with a dot; `{variant}` in names.
    public var name: String
    public var chain: ProcessingChain

    public init(name: String, chain: ProcessingChain) {
        (self.name, self.chain) = (name, chain)
    }

    /// Parses `NAME=CHAIN`, e.g. `thumb=resize(200x200,fill)`; a usage error gives the problem (the caller names the
    /// option).
    public init(parsing text: String) throws(ImgError) {
        guard let equals = text.firstIndex(of: "=") else { throw .usage("expected NAME=CHAIN") }
        let name = String(text[..<equals])
        let allowed = name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) }
        guard !name.isEmpty, allowed, !name.hasPrefix("."), !name.hasPrefix("-"), name.count <= 64 else {
            throw .usage("the name must be letters, digits, '.', '_' or '-', not starting with '.' or '-'")
        }
        let chain: ProcessingChain
        do {
            chain = try ProcessingChain.parse(String(text[text.index(after: equals)...]))
        } catch {
            throw .usage(error.message)
        }
        self.init(name: name, chain: chain)
    }
}

/// How a batch runs; the defaults are those of the man page.
public struct BatchOptions: Sendable {
    /// Worker threads, so transfers at once; default `defaultJobs`. (Transfers per host are bounded by the
    /// pipeline's `connectionsPerHost`, renderings by its `renderingSlots`.)
    public var jobs = BatchOptions.defaultJobs
    /// Twice the active processor cores, at least 16: enough transfers to cover a network's round trips, not only
    /// a loopback's. On 2 cores, 400 small JPEGs from 400 hosts that answer after 150 ms took 15.8 s with 4 workers
    /// and 4.0 s with 16 (32: 2.1 s); from a loopback server without delay, 16 workers took the same CPU and wall
    /// as 4 for 2,000 small images (4 MiB more peak RSS) and for 400 real photos (15 MiB more: bodies waiting for a
    /// rendering slot).
    public static var defaultJobs: Int { max(16, 2 * ProcessInfo.processInfo.activeProcessorCount) }
    /// Extra outputs per item; default none (one output per item, the shared processing options only).
    public var variants: [BatchVariant] = []
    /// Output names; nil (the default) is `{name}-{variant}.{ext}` with variants, else `{name}.{ext}`.
    public var nameTemplate: NameTemplate?
    /// Where outputs go; nil (prefetch) writes none and only fills the cache.
    public var outputDirectory: String?
    /// `outputDirectory` already opened (`OutputWriter.prepareDirectory`), so that the runner neither opens it nor
    /// looks for abandoned temporaries in it a second time; default nil (the runner opens it).
    public var outputFolder: OutputFolder?
    /// Stop starting items after the first failure; default false.
    public var failFast = false
    /// Only the items of this shard; default nil (all).
    public var shard: Shard?
    /// An earlier run's manifest (`--resume`, `--retry-failed`): the lines it settles are carried into this run's
    /// report as they were, with no request and their outputs untouched; default nil (every line runs).
    public var previous: PreviousManifest?
    /// With `--resume`: skip a line only when its outputs' SHA-256 is still the recorded one (`--verify-outputs`,
    /// every output read whole); default false (their size is compared).
    public var verifyOutputs = false
    /// Refuse local paths and `file://` lines (`--deny-local`); default false.
    public var denyLocal = false
    /// Items read ahead of the oldest unfinished one (queued, in work, or finished and waiting for their name):
    /// bounds memory and temporary files whatever the list's length; default 1024.
    public var window = 1024
    /// Mark an output whose `phash` (`--facts`) is within this many bits of an earlier line's output of the same
    /// variant as a duplicate of it (`BatchOutput.duplicateOf`); nil (the default) marks none.
    public var duplicateDistance: Int?
    /// Write no file for an output marked as a duplicate; default false.
    public var skipDuplicates = false
    /// How the list is read: its format and the columns of a CSV, TSV or JSON Lines list; default plain lines
    /// (`auto` by extension), URLs in column `url`.
    public var listLayout = ListLayout()
    /// Originals whose size is outside it are `filtered` (`--min-size`, `--max-aspect-ratio`); default none.
    public var sizeFilter = SizeFilter()
    /// Judge each URL by its host's robots.txt before asking for it (`--robots-txt`): a disallowed one is
    /// `robots_disallowed`, never requested; default false.
    public var robotsTxt = false
    /// Write the outputs as WebDataset tar shards in `outputDirectory` (one image and its JSON a sample) instead of
    /// files; default nil (files).
    public var webDataset: WebDatasetLayout?
    /// With `webDataset`: the lock on its tar names in `outputFolder`, held for the run so that no other run writes
    /// tars of those names there meanwhile (`TarNameLock`); default nil (none taken).
    public var tarNameLock: TarNameLock?
    /// With `shard`, `previous` and `webDataset`: told of each line of another shard whose sample a complete tar of
    /// this shard keeps (`LineMovedAway`); default nil (not told).
    public var linesMovedAway: (@Sendable (LineMovedAway) -> Void)?

    public init() {}

    /// The template in effect.
    public var effectiveTemplate: NameTemplate {
        nameTemplate ?? (variants.isEmpty ? .plain : .withVariants)
    }
}
