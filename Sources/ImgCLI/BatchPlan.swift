import Foundation
import ImgCore

/// What a batch's (or prefetch's) command line decides before anything runs: the fetch settings, the batch's
/// options, its lists, and its manifest records (the earlier manifest read, the new one opened). Every refusal is
/// a usage error (or the error opening a list, the output folder or a manifest) before anything is fetched.
struct BatchPlan {
    var settings: FetchSettings
    var options: BatchOptions
    var inputs: [BatchInput]
    var records: BatchRecords

    init(_ arguments: ScannedArguments, words: [String], prefetchOnly: Bool, environment: [String: String],
         console: Console) throws(ImgError) {
        settings = try FetchSettings(arguments, environment: environment, console: console)
        // A list holds URLs: a proxy libcurl would take from the environment must be one it can use.
        if let refusal = settings.proxyRefusal { throw refusal }
        inputs = try Self.parseInputs(arguments, words: words, prefetchOnly: prefetchOnly, settings: settings)
        options = try Self.parseOptions(arguments, settings: settings, prefetchOnly: prefetchOnly)
        if let template = options.nameTemplate {
            try FetchSettings.applyNamedFormat(of: template, to: &settings.template.encoding)
        }
        let reporter = Reporter(console: console, verbose: settings.verbose)
        options.shard = try Self.shard(arguments, environment: environment, reporter: reporter)
        settings.configuration.connectionsPerHost = try arguments[Options.perHost] ?? Options.perHost.defaultValue
        settings.configuration.politeness = try Self.politeness(arguments, retries: settings.configuration.network.retries)
        try BatchListReader.checkReadable(inputs)
        options.listLayout = try ListSettings.layout(arguments, inputs: inputs)
        try options.listLayout.prepare(inputs)
        options.sizeFilter = try FilterSettings.sizeFilter(arguments)
        options.webDataset = try DatasetSettings.layout(arguments, shard: options.shard,
                                                        keptColumns: options.listLayout.keptColumns)
        settings.template.robotsTags = try OptOutSettings.robotsTagRule(
            arguments, userAgent: settings.configuration.network.userAgent, webDataset: options.webDataset != nil)
        options.robotsTxt = arguments[Options.robotsTxt]
        options.outputFolder = try options.outputDirectory.map { directory throws(ImgError) in
            try OutputWriter.prepareDirectory(directory)
        }
        do throws(ImgError) {
            let (layout, folder) = (options.webDataset, options.outputFolder)
            // The tar names are locked before the folder is judged and before the manifest is opened (emptied).
            if let layout, let folder { options.tarNameLock = try DatasetSettings.lockTarNames(of: layout, in: folder) }
            records = try BatchRecords.open(arguments, lists: ListLayout.files(of: inputs), shard: options.shard,
                                            verbose: settings.verbose, console: console) { previous throws(ImgError) in
                if let layout, let folder { try DatasetSettings.checkFolder(folder, layout: layout, previous: previous) }
            }
        } catch {
            options.tarNameLock?.release()
            options.outputFolder?.removeIfUnused()
            throw error
        }
        options.previous = records.previous
        // Worth a line even with -q: the dataset will give the line twice.
        options.linesMovedAway = { moved in
            console.error("warning: line \(moved.line)'s sample stays in \(moved.tar), but the line is now another "
                          + "shard's (its URL, its key options or the shard count changed): that shard's task writes "
                          + "it again unless the manifest it resumes from records this sample, and the folder then "
                          + "holds key \(moved.key) twice")
        }
    }

    /// `--shard K/N`, or `auto` from the job array's environment (which `-v` names); nil without the option.
    private static func shard(_ arguments: ScannedArguments, environment: [String: String],
                              reporter: Reporter) throws(ImgError) -> Shard? {
        guard let text = try arguments[Options.shard] else { return nil }
        guard case .auto(let count) = try Options.shard.reading(text, with: ShardAutoValue.parse) else {
            return try Options.shard.reading(text, with: Shard.init(parsing:))
        }
        let engine: ShardEngine
        do {
            engine = try ShardEngine(count: count, environment: environment)
        } catch {
            throw .usage(error.commandLineMessage(given: text))
        }
        reporter.info("--shard \(text): shard \(engine.shard.index)/\(engine.shard.count) from \(engine.decidedBy)")
        return engine.shard
    }

    /// `--rate` (requests per second per host; none by default), and a host given up after
    /// max(5, 2 × (`--retry` + 1)) refusals.
    private static func politeness(_ arguments: ScannedArguments, retries: Int) throws(ImgError) -> HostPoliteness {
        var politeness = HostPoliteness(giveUpAfterRefusals: max(5, 2 * (retries + 1)))
        politeness.requestsPerSecond = try arguments[Options.rate]
        return politeness
    }

    private static func parseInputs(_ arguments: ScannedArguments, words: [String], prefetchOnly: Bool,
                                    settings: FetchSettings) throws(ImgError) -> [BatchInput] {
        if prefetchOnly {
            if settings.outputFile != nil || settings.outputDirectory != nil {
                throw .usage("prefetch only fills the cache: -o and -O don't apply (use batch)")
            }
            // Each word is one URL, checked as fetch checks its inputs (an empty word is no blank line to skip, as
            // in a list): refused here, before anything is made, not failed as a line.
            if words.contains("-") {
                throw .usage("prefetch takes URLs, not '-': to read a list from standard input, give --from -")
            }
            _ = try settings.sources(words)
            var inputs: [BatchInput] = words.isEmpty ? [] : [.words(words)]
            if let from = try arguments[Options.from] { inputs.append(from == "-" ? .standardInput : .file(from)) }
            guard !inputs.isEmpty else { throw .usage("prefetch needs URLs or --from FILE") }
            return inputs
        }
        guard !words.isEmpty else { throw .usage("batch needs a list: imgfetch batch LIST...|- -O DIR") }
        // A folder stands for the lists in it, in name order.
        let format = try arguments[Options.inputFormat] ?? .auto
        var lists: [String] = []
        for word in words {
            lists += word != "-" && ListFolder.isFolder(word) ? try ListFolder.lists(in: word, format: format) : [word]
        }
        if lists.count > 1 {
            if lists.contains("-") { throw .usage("standard input (-) can only be batch's one list, not one of \(lists.count)") }
            try refuseListsGivenTwice(lists)
        }
        if settings.outputFile != nil { throw .usage("batch writes under -O DIR; -o doesn't apply") }
        guard settings.outputDirectory != nil else { throw .usage("batch needs -O DIR") }
        return lists.map { $0 == "-" ? .standardInput : .file($0) }
    }

    /// Refuses a list given twice, under the same spelling or another that names the same file (`./x.txt`, a link):
    /// each of its lines would be done twice.
    private static func refuseListsGivenTwice(_ lists: [String]) throws(ImgError) {
        var spellings = Set<String>()
        var files: [FileIdentity: String] = [:]
        for list in lists {
            if !spellings.insert(list).inserted { throw .usage("list '\(list)' is given twice") }
            guard let identity = FileIdentity(path: list) else { continue }
            if let first = files.updateValue(list, forKey: identity) {
                throw .usage("list '\(list)' is given twice: it is the file '\(first)' names")
            }
        }
    }

    private static func parseOptions(_ arguments: ScannedArguments, settings: FetchSettings,
                                     prefetchOnly: Bool) throws(ImgError) -> BatchOptions {
        var options = BatchOptions()
        if let jobs = try arguments[Options.jobs] { options.jobs = jobs }
        options.variants = try Options.variant.values(in: arguments).map { text throws(ImgError) in
            try Options.variant.reading(text, with: BatchVariant.init(parsing:))
        }
        var seen = Set<String>()
        for variant in options.variants where !seen.insert(variant.name).inserted {
            throw .usage("--variant \(variant.name) is given twice")
        }
        if let text = try arguments[Options.name] {
            options.nameTemplate = try Options.name.reading(text, with: NameTemplate.init)
        }
        options.failFast = arguments[Options.failFast]
        options.verifyOutputs = arguments[Options.verifyOutputs]
        if options.verifyOutputs, try arguments[Options.resume] == nil {
            throw .usage("--verify-outputs checks what --resume skips: give --resume FILE")
        }
        options.denyLocal = settings.denyLocal
        options.outputDirectory = prefetchOnly ? nil : settings.outputDirectory
        // Both need --facts (declared so: `OptionCatalog.duplicatesNeedFacts`).
        options.skipDuplicates = arguments[Options.skipDuplicates]
        if settings.template.facts != nil {
            options.duplicateDistance = try arguments[Options.duplicateDistance] ?? Options.duplicateDistance.defaultValue
        }
        return options
    }
}
