import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A cache directory's settings: its size limit and the TTL of entries written to it.
///
/// Each value comes from the first of: a value chosen by the caller (the command line's option or environment
/// variable), the directory's own `config` file (written by `imgfetch cache config`), the built-in default.
public struct CacheSettings: Sendable, Equatable {
    /// Where a value came from, for `cache config` to show.
    public enum Origin: String, Sendable {
        case option, environment, config, builtIn = "default"
    }

    /// The size limit unless one is set: 1 GiB, a fixed modest default as ccache and Nuke have (Kingfisher has
    /// none); `none` turns it off.
    public static let defaultSizeLimit: Int64 = 1 << 30

    /// The size limit in bytes; default `defaultSizeLimit`; nil for none (`none` or 0).
    public var sizeLimit: Int64? = defaultSizeLimit
    /// Time to live of new entries; default 7 days.
    public var ttl: TimeToLive = .defaultValue
    /// Where `sizeLimit` came from.
    public var sizeLimitOrigin: Origin = .builtIn
    /// Where `ttl` came from.
    public var ttlOrigin: Origin = .builtIn
    /// Which query parameters original keys keep; default none.
    public var query: QueryInKey = .none
    /// Where `query` came from.
    public var queryOrigin: Origin = .builtIn
    /// How damaged an input may be and still be decoded (`--fail-on`, `IMGFETCH_FAIL_ON`, `fail-on=`); default
    /// `truncated`.
    public var failOn = FailOn.standard
    /// Where `failOn` came from.
    public var failOnOrigin: Origin = .builtIn

    public init(sizeLimit: Int64? = defaultSizeLimit, ttl: TimeToLive = .defaultValue) {
        self.sizeLimit = sizeLimit
        self.ttl = ttl
    }

    /// The keys `cache config` knows.
    public static let keys = ["size-limit", "ttl", "keep-query", "fail-on"]

    /// A value chosen before the directory's config is read (by the caller: the command line picks its option,
    /// else its environment variable): the text, where it came from and how a message names that place.
    public struct Chosen: Sendable, Equatable {
        public let text: String
        public let origin: Origin
        /// `--ttl`, `IMGFETCH_TTL`: what a message about a bad value names.
        public let place: String

        public init(_ text: String, origin: Origin, place: String) {
            (self.text, self.origin, self.place) = (text, origin, place)
        }
    }

    /// The settings a command uses (`resolve`'s `uses`).
    public struct Uses: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let sizeLimit = Uses(rawValue: 1)
        public static let ttl = Uses(rawValue: 2)
        public static let failOn = Uses(rawValue: 4)
        public static let query = Uses(rawValue: 8)
        public static let all: Uses = [.sizeLimit, .ttl, .failOn, .query]
    }

    /// Resolves the settings: each value `chosen` already, else the directory's `config` (read only when the
    /// directory is open: nil, there is none), else the built-in default; a malformed value is `ImgError.usage`
    /// naming its place. `query` is a keep-query already chosen (nil: none); it wins over the directory's. A setting
    /// not in `uses` (default all) is taken only from a value chosen with origin `option`: one the environment or the
    /// config gives is neither read nor judged (a bad one there stops no command that does not use it).
    public static func resolve(root: CacheRoot?, sizeLimit: Chosen?, ttl: Chosen?, failOn: Chosen? = nil,
                               query: QueryInKey? = nil, uses: Uses = .all) throws(ImgError) -> CacheSettings {
        var settings = CacheSettings()
        let stored = try root.map { root throws(ImgError) in try readConfig(root: root) } ?? [:]
        let configName = root?.shown("config") ?? "config"
        func pick(_ chosen: Chosen?, _ key: String, _ use: Uses) -> Chosen? {
            uses.contains(use) ? Self.pick(chosen, stored[key], configName) : chosen.flatMap { $0.origin == .option ? $0 : nil }
        }
        if let chosen = pick(sizeLimit, "size-limit", .sizeLimit) {
            guard let limit = parseSizeLimit(chosen.text) else { throw .usage(badValue("size-limit", chosen.text, in: chosen.place)) }
            (settings.sizeLimit, settings.sizeLimitOrigin) = (limit, chosen.origin)
        }
        if let chosen = pick(ttl, "ttl", .ttl) {
            guard let value = TimeToLive.parse(chosen.text) else { throw .usage(badValue("ttl", chosen.text, in: chosen.place)) }
            (settings.ttl, settings.ttlOrigin) = (value, chosen.origin)
        }
        if let query {
            (settings.query, settings.queryOrigin) = (query, .option)
        } else if uses.contains(.query), let stored = stored["keep-query"], !stored.isEmpty {
            guard let query = QueryInKey(setting: stored) else { throw .usage(badValue("keep-query", stored, in: configName)) }
            (settings.query, settings.queryOrigin) = (query, .config)
        }
        if let chosen = pick(failOn, "fail-on", .failOn) {
            guard let level = FailOn(name: chosen.text) else { throw .usage(badValue("fail-on", chosen.text, in: chosen.place)) }
            (settings.failOn, settings.failOnOrigin) = (level, chosen.origin)
        }
        return settings
    }

    /// The value chosen, else the config's (not empty), else nil.
    private static func pick(_ chosen: Chosen?, _ stored: String?, _ configName: String) -> Chosen? {
        if let chosen { return chosen }
        if let stored, !stored.isEmpty { return Chosen(stored, origin: .config, place: configName) }
        return nil
    }

    static let failOnLevels = "expected none, truncated, error or warning"

    /// Parses a size limit: `500M`, `2G`…; `0` and `none` mean no limit (nil inside `.some`). No blanks around it
    /// (a config file's values are trimmed as they are read).
    public static func parseSizeLimit(_ text: String) -> Int64?? {
        let trimmed = text.lowercased()
        if trimmed == "none" || trimmed == "0" { return .some(nil) }
        guard let value = ByteSize.parse(trimmed), value > 0 else { return nil }
        return .some(value)
    }
}

extension QueryInKey {
    /// Parses a stored `keep-query`: `all`, `none` or `NAME,NAME`.
    public init?(setting text: String) {
        switch text.lowercased() {
        case "all": self = .all
        case "none": self = .none
        default: self.init(names: text)
        }
    }
}
