import ImgCore

/// Chooses the cache directory's settings as the command line gives them: each from its option, else its
/// environment variable (`IMGFETCH_SIZE_LIMIT`, `IMGFETCH_TTL`, `IMGFETCH_FAIL_ON`; an empty one is unset), then
/// hands them to `CacheSettings.resolve`, which falls back to the directory's config, then the defaults.
enum CacheSettingsChoice {
    /// The settings the options of `arguments` and `environment` give, with the directory open already (nil: none).
    /// Only those in `uses` (default all) are taken from the environment or the config: a variable is judged only by
    /// a command that uses it (`CacheSettings.resolve`); an option given is always read.
    static func resolve(_ arguments: ScannedArguments, root: CacheRoot?, environment: [String: String],
                        uses: CacheSettings.Uses = .all) throws(ImgError) -> CacheSettings {
        try resolve(root: root, sizeLimitOption: try arguments[Options.sizeLimit], ttlOption: try arguments[Options.ttl],
                    failOnOption: try arguments[Options.failOn], queryOption: try FetchSettings.queryOption(arguments),
                    environment: environment, uses: uses)
    }

    /// The same from the options' texts (nil: not given).
    static func resolve(root: CacheRoot?, sizeLimitOption: String?, ttlOption: String?, failOnOption: String? = nil,
                        queryOption: QueryInKey? = nil, environment: [String: String],
                        uses: CacheSettings.Uses = .all) throws(ImgError) -> CacheSettings {
        try CacheSettings.resolve(
            root: root,
            sizeLimit: choose(sizeLimitOption, Options.sizeLimit.long, environment, "IMGFETCH_SIZE_LIMIT"),
            ttl: choose(ttlOption, Options.ttl.long, environment, "IMGFETCH_TTL"),
            failOn: choose(failOnOption, Options.failOn.long, environment, "IMGFETCH_FAIL_ON"),
            query: queryOption, uses: uses)
    }

    /// `resolve(root:…)` of a directory by its path, opened when it exists and is safe (else no config is read).
    static func resolve(directory: String, sizeLimitOption: String?, ttlOption: String?, failOnOption: String? = nil,
                        queryOption: QueryInKey? = nil, environment: [String: String]) throws(ImgError) -> CacheSettings {
        try resolve(root: try? CacheRoot.open(directory, create: false), sizeLimitOption: sizeLimitOption,
                    ttlOption: ttlOption, failOnOption: failOnOption, queryOption: queryOption, environment: environment)
    }

    /// The option's text, else the variable's when not empty, else nil.
    private static func choose(_ option: String?, _ long: String, _ environment: [String: String],
                               _ variable: String) -> CacheSettings.Chosen? {
        if let option { return CacheSettings.Chosen(option, origin: .option, place: "--" + long) }
        if let value = environment[variable], !value.isEmpty {
            return CacheSettings.Chosen(value, origin: .environment, place: variable)
        }
        return nil
    }
}
