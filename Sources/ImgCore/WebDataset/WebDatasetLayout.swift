import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How a batch lays its outputs out as a WebDataset: tar shards `00000.tar`, `00001.tar`, ... in the output folder
/// (`s0003-00000.tar` for shard 3 of a `Shard`), each holding up to `samplesPerShard` samples; a sample is
/// `KEY.EXT` (the image written) and `KEY.json` (its metadata), KEY being its list line's number zero-padded.
public struct WebDatasetLayout: Sendable {
    /// Samples a tar holds at most: img2dataset's default.
    public static let defaultSamplesPerShard = 10_000
    /// The fields of a sample's JSON (some only with facts): a kept column may not take one of these names.
    public static let sampleFields: Set<String> = ["url", "key", "width", "height", "original_width", "original_height",
                                                   "bytes", "sha256", "format", "blurhash", "thumbhash", "dominant_color",
                                                   "phash"]
    /// Samples a tar holds at most; default `defaultSamplesPerShard`.
    public var samplesPerShard: Int
    /// Whether each tar gets `NAME.parquet` beside it, a table of its lines: its samples' metadata and the lines
    /// that gave none (`SampleTableShape`); default false.
    public var writesParquet = false
    /// How a failed line's error reads in its table's `error_message`: the caller's one line for it, as its manifest
    /// record says it; default the error's own `message`.
    public var failureWording: @Sendable (ImgError) -> String = { $0.message }
    /// What every tar's name starts with: `sK-` (K of four digits or more) for a shard, empty without one.
    public let prefix: String
    /// The shards of the run (`--shard K/N`'s N); nil without one.
    public let shardCount: UInt64?

    public init(samplesPerShard: Int = WebDatasetLayout.defaultSamplesPerShard, shard: Shard?) {
        self.samplesPerShard = max(1, samplesPerShard)
        prefix = shard.map { "s" + Self.padded(Int($0.index), digits: 4) + "-" } ?? ""
        shardCount = shard?.count
    }

    /// The name of tar number `number`: `00000.tar`, `s0003-00012.tar`.
    public func tarName(_ number: Int) -> String { prefix + Self.padded(number, digits: 5) + ".tar" }

    /// The number of the tar called `name` when it is one of this layout's; nil otherwise.
    public func tarNumber(of name: String) -> Int? {
        guard name.hasPrefix(prefix), name.hasSuffix(".tar") else { return nil }
        let digits = name.dropFirst(prefix.count).dropLast(4)
        guard digits.count >= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }

    /// `00000_stats.json` beside `00000.tar`.
    public static func statsName(ofTar name: String) -> String {
        (name.hasSuffix(".tar") ? String(name.dropLast(4)) : name) + "_stats.json"
    }

    /// `00000.parquet` beside `00000.tar`.
    public static func parquetName(ofTar name: String) -> String {
        (name.hasSuffix(".tar") ? String(name.dropLast(4)) : name) + ".parquet"
    }

    /// A sample's key: its list line's number (as the manifest's `line`), zero-padded to 9 digits.
    public static func key(line: Int) -> String { padded(line, digits: 9) }

    /// The complete tars of this layout in `folder` (regular files with a tar's name), by number.
    public func existingTars(in folder: OutputFolder) -> [Int: String] {
        var found: [Int: String] = [:]
        for (name, _) in DirectoryListing.children(of: folder.descriptor) {
            guard let number = tarNumber(of: name) else { continue }
            var info = stat()
            guard fstatat(folder.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG
            else { continue }
            found[number] = name
        }
        return found
    }

    /// The complete tars in `folder` of another layout, by name, each with the shard its stats record (nil for a
    /// tar without one): a tar without a shard when this run has one, or one with a shard when this run has none or
    /// has another count of shards. Their samples are keyed by the same list lines, so this run would write them
    /// again under its own names (a tar of shard 0 of 2 is no tar of shard 0 of 4's, though their names are alike).
    /// The tars of this run's other shards (the same count) are not.
    public func tarsOfOtherLayouts(in folder: OutputFolder) -> [(name: String, shard: String?)] {
        var found: [(name: String, shard: String?)] = []
        for (name, _) in DirectoryListing.children(of: folder.descriptor) where name.hasSuffix(".tar") {
            var info = stat()
            guard fstatat(folder.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG
            else { continue }
            if Self.unsharded.tarNumber(of: name) != nil {
                if shardCount != nil { found.append((name, nil)) }
            } else if Self.isShardTarName(name), let recorded = TarStats.read(ofTar: name, in: folder)?.shard,
                      recorded.split(separator: "/").last.flatMap({ UInt64($0) }) != shardCount {
                found.append((name, recorded))
            }
        }
        return found.sorted { $0.name < $1.name }
    }

    /// The layout of a run without a shard, whose tar names (`00012.tar`) a shard's end with.
    static let unsharded = WebDatasetLayout(shard: nil)

    /// `s0003-00012.tar`: a shard's tar name, whatever the shard.
    static func isShardTarName(_ name: String) -> Bool {
        guard name.hasPrefix("s"), let dash = name.firstIndex(of: "-") else { return false }
        let shard = name[name.index(after: name.startIndex)..<dash]
        return shard.count >= 4 && shard.allSatisfy { $0.isASCII && $0.isNumber }
            && unsharded.tarNumber(of: String(name[name.index(after: dash)...])) != nil
    }

    /// What the complete tars of this layout in `folder` say against `previous`, by number, each tar's stats read
    /// once: `unlikeTheirStats`, those whose size is not the one their stats record (cut short or grown since they
    /// were written: a reader gets other samples from them than their stats and the manifest say); and
    /// `notRecorded`, those holding samples that `previous` does not record (by the id in their stats; a tar whose
    /// stats don't read counts as one, a tar of no sample never does): a run resumed from it would write those
    /// samples again.
    public func tarsAgainst(_ previous: PreviousManifest, in folder: OutputFolder)
        -> (unlikeTheirStats: [String], notRecorded: [String]) {
        var found: (unlikeTheirStats: [String], notRecorded: [String]) = ([], [])
        for name in existingTars(in: folder).sorted(by: { $0.key < $1.key }).map(\.value) {
            guard let stats = TarStats.read(ofTar: name, in: folder) else {
                found.notRecorded.append(name)
                continue
            }
            var info = stat()
            if fstatat(folder.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, Int(info.st_size) != stats.bytes {
                found.unlikeTheirStats.append(name)
            }
            if stats.samples > 0, !previous.recordsTar(id: stats.id) { found.notRecorded.append(name) }
        }
        return found
    }

    /// Removes the `NAME.parquet` and `NAME_stats.json` in `folder` of this layout's tars not among `tars` (the
    /// complete ones, `existingTars`): a run killed after writing them and before its tar took its name leaves them
    /// beside nothing, and a table there would count samples no tar holds (they are done again in another). Only
    /// this layout's names: another shard's task may be completing a tar in the same folder.
    public func removeOrphanedCompanions(in folder: OutputFolder, besides tars: [Int: String]) {
        let complete = Set(tars.values)
        for (name, _) in DirectoryListing.children(of: folder.descriptor) {
            guard let tar = companionTar(of: name), !complete.contains(tar) else { continue }
            unlinkat(folder.descriptor, name, 0)
        }
    }

    /// The tar `name` stands beside when it is a `NAME.parquet` or `NAME_stats.json` of this layout's.
    func companionTar(of name: String) -> String? {
        guard let suffix = [".parquet", "_stats.json"].first(where: name.hasSuffix) else { return nil }
        let tar = String(name.dropLast(suffix.count)) + ".tar"
        return tarNumber(of: tar) == nil ? nil : tar
    }

    static func padded(_ number: Int, digits: Int) -> String {
        let text = String(number)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
