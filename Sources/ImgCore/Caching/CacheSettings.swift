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
            guard let limit = parseSizeLimit(chosen.text) else {
                throw .usage("bad size limit '\(chosen.text)' in \(chosen.place): expected a size such as 500M or 2G, or none")
            }
            (settings.sizeLimit, settings.sizeLimitOrigin) = (limit, chosen.origin)
        }
        if let chosen = pick(ttl, "ttl", .ttl) {
            guard let value = TimeToLive.parse(chosen.text) else {
                throw .usage("bad ttl '\(chosen.text)' in \(chosen.place): \(TimeToLive.expectation(for: chosen.text))")
            }
            (settings.ttl, settings.ttlOrigin) = (value, chosen.origin)
        }
        if let query {
            (settings.query, settings.queryOrigin) = (query, .option)
        } else if uses.contains(.query), let stored = stored["keep-query"], !stored.isEmpty {
            guard let query = QueryInKey(setting: stored) else {
                throw .usage("bad keep-query '\(stored)' in \(configName): expected all, none or NAME,NAME")
            }
            (settings.query, settings.queryOrigin) = (query, .config)
        }
        if let chosen = pick(failOn, "fail-on", .failOn) {
            guard let level = FailOn(name: chosen.text) else {
                throw .usage("bad fail-on '\(chosen.text)' in \(chosen.place): \(failOnLevels)")
            }
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

    // MARK: the config file

    /// Reads `DIR/config` (`key=value` lines, `#` comments); a missing file is empty.
    public static func readConfig(root: CacheRoot) throws(ImgError) -> [String: String] {
        let path = root.shown("config")
        // Non-blocking, so that a FIFO put there can't make every command wait.
        let descriptor = root.openFile("config", O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ENOENT { return [:] }
            throw .io("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .io("cannot read \(path): not a regular file")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let data = (try? handle.read(upToCount: 64 * 1024)) ?? Data()
        var values: [String: String] = [:]
        for (number, rawLine) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw .usage("\(path) line \(number + 1): expected key=value, found '\(line)'")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard keys.contains(key) else { throw .usage("\(path) line \(number + 1): unknown setting '\(key)'") }
            values[key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return values
    }

    /// The `key=value` assignments of `cache config`, checked: each key with its value, nil to reset it to its
    /// default (`KEY=` or `KEY=default`). A bad one is a usage error giving the problem; nothing is read or written.
    public static func checkedAssignments(_ assignments: [String]) throws(ImgError) -> [(key: String, value: String?)] {
        var checked: [(key: String, value: String?)] = []
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "=") else {
                throw .usage("bad setting '\(assignment)': expected key=value (keys: \(keys.joined(separator: ", ")))")
            }
            let key = String(assignment[..<equals]).trimmingCharacters(in: .whitespaces)
            let written = String(assignment[assignment.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
            // `KEY=default` and `KEY=` both reset a setting to its default (a query parameter named `default` can't
            // be stored: `keep-query=default` is the reset).
            let value = written.lowercased() == "default" ? "" : written
            switch key {
            case "size-limit":
                guard value.isEmpty || parseSizeLimit(value) != nil else {
                    throw .usage("bad size-limit '\(value)': expected a size such as 500M or 2G, or none")
                }
            case "ttl":
                guard value.isEmpty || TimeToLive.parse(value) != nil else {
                    throw .usage("bad ttl '\(value)': \(TimeToLive.expectation(for: value))")
                }
            case "keep-query":
                guard value.isEmpty || QueryInKey(setting: value) != nil else {
                    throw .usage("bad keep-query '\(value)': expected all, none or NAME,NAME")
                }
            case "fail-on":
                guard value.isEmpty || FailOn(name: value) != nil else { throw .usage("bad fail-on '\(value)': \(failOnLevels)") }
            default:
                throw .usage("unknown setting '\(key)' (keys: \(keys.joined(separator: ", ")))")
            }
            checked.append((key, value.isEmpty ? nil : value))
        }
        return checked
    }

    /// Checks, then merges `key=value` assignments into `DIR/config`, written atomically (temporary, then rename);
    /// a bad assignment is refused before the directory is made or opened. An empty value removes the key. Returns
    /// the stored values.
    @discardableResult
    public static func writeConfig(directory: String, assignments: [String]) throws(ImgError) -> [String: String] {
        let checked = try checkedAssignments(assignments)
        guard let root = try CacheRoot.open(directory, create: true) else { throw .io("cannot open \(directory)") }
        return try writeConfig(root: root, checked: checked)
    }

    /// `writeConfig(directory:…)` of a directory open already (its own folders made where missing), with the
    /// assignments `checkedAssignments` gave.
    @discardableResult
    public static func writeConfig(root: CacheRoot, checked: [(key: String, value: String?)]) throws(ImgError)
        -> [String: String] {
        try root.prepareFolders()
        var values = try readConfig(root: root)
        for (key, value) in checked { values[key] = value }
        var text = "# imgfetch cache settings (imgfetch cache config key=value)\n"
        for key in keys { if let value = values[key] { text += "\(key)=\(value)\n" } }
        let now = Date().timeIntervalSince1970
        let temporary = try EntryIO.writeTemporary(Data(text.utf8), in: root, accessed: now, expires: now)
        guard root.rename(temporary, "config") == 0 else {
            let reason = String(cString: strerror(errno))
            root.unlink(temporary)
            throw .io("cannot write \(root.shown("config")): \(reason)")
        }
        return values
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
