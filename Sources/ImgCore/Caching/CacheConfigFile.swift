import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A cache directory's `config` file: `key=value` lines (`#` comments), written by `imgfetch cache config`.
extension CacheSettings {
    /// One setting line of a config file as read: its number (from 1; 0 for one an assignment adds), its key (nil
    /// for a line with no `=`) and its value (the whole line for one with no `=`), blanks trimmed.
    public struct ConfigLine: Sendable, Equatable {
        public var number: Int
        public var key: String?
        public var value: String
    }

    /// What a config file holds that a command reading it refuses: a line with no `=` (`key` nil), an unknown key,
    /// or a bad value; `message` is the refusal's words, naming the file (and the line, or the value).
    public struct ConfigProblem: Sendable, Equatable {
        public var key: String?
        public var message: String
    }

    /// Reads `DIR/config` (`key=value` lines, `#` comments); a missing file is empty. A line with no `=` or an
    /// unknown key is a usage error naming the line; the values are judged by `resolve`, which uses them.
    public static func readConfig(root: CacheRoot) throws(ImgError) -> [String: String] {
        let lines = try readConfigLines(root: root)
        if let problem = problem(in: lines, file: root.shown("config"), judgingValues: false) {
            throw .usage(problem.message)
        }
        return values(of: lines)
    }

    /// The setting lines of `DIR/config`, unknown keys and lines with no `=` included; none for a missing file.
    /// A file that can't be read (or is not a regular file) is `ImgError.io`.
    static func readConfigLines(root: CacheRoot) throws(ImgError) -> [ConfigLine] {
        let path = root.shown("config")
        // Non-blocking, so that a FIFO put there can't make every command wait.
        let descriptor = root.openFile("config", O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ENOENT { return [] }
            throw .io("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .io("cannot read \(path): not a regular file")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let data = (try? handle.read(upToCount: 64 * 1024)) ?? Data()
        var lines: [ConfigLine] = []
        for (number, rawLine) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                lines.append(ConfigLine(number: number + 1, key: nil, value: line))
                continue
            }
            lines.append(ConfigLine(number: number + 1, key: line[..<equals].trimmingCharacters(in: .whitespaces),
                                    value: line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)))
        }
        return lines
    }

    /// The known keys' values of `lines` (of a key given twice, the last).
    private static func values(of lines: [ConfigLine]) -> [String: String] {
        var values: [String: String] = [:]
        for line in lines { if let key = line.key, keys.contains(key) { values[key] = line.value } }
        return values
    }

    /// The first of `lines` (in their order) that a command reading them refuses: a line with no `=`, an unknown
    /// key, and with `judgingValues` a value that is not empty and not one of its key's (of a key given twice, the
    /// last: the one in force), worded as `resolve` words it. Nil when there is none.
    private static func problem(in lines: [ConfigLine], file: String, judgingValues: Bool) -> ConfigProblem? {
        for (index, line) in lines.enumerated() {
            let place = line.number > 0 ? "\(file) line \(line.number)" : file
            guard let key = line.key else {
                return ConfigProblem(key: nil, message: "\(place): expected key=value, found '\(line.value)'")
            }
            guard keys.contains(key) else { return ConfigProblem(key: key, message: "\(place): unknown setting '\(key)'") }
            guard judgingValues, !line.value.isEmpty, !lines[(index + 1)...].contains(where: { $0.key == key }),
                  !isValue(line.value, of: key) else { continue }
            return ConfigProblem(key: key, message: badValue(key, line.value, in: file))
        }
        return nil
    }

    /// Whether `text` is a value of the setting `key` (one of `keys`).
    static func isValue(_ text: String, of key: String) -> Bool {
        switch key {
        case "size-limit": parseSizeLimit(text) != nil
        case "ttl": TimeToLive.parse(text) != nil
        case "keep-query": QueryInKey(setting: text) != nil
        default: FailOn(name: text) != nil  // fail-on
        }
    }

    /// The refusal of a bad value `text` of the setting `key` given in `place` (`--ttl`, `IMGFETCH_TTL`, a config
    /// file): `bad ttl '3w' in --ttl: expected e.g. …`.
    static func badValue(_ key: String, _ text: String, in place: String) -> String {
        switch key {
        case "size-limit": "bad size limit '\(text)' in \(place): expected a size such as 500M or 2G, or none"
        case "ttl": "bad ttl '\(text)' in \(place): \(TimeToLive.expectation(for: text))"
        case "keep-query": "bad keep-query '\(text)' in \(place): expected all, none or NAME,NAME"
        default: "bad fail-on '\(text)' in \(place): \(failOnLevels)"  // fail-on
        }
    }

    /// The `key=value` assignments of `cache config`, checked: each key with its value, nil to reset it to its
    /// default (`KEY=` or `KEY=default`), which is also how a key that is none of `keys` is removed from a config
    /// that has it (`amendedConfig` refuses it when the config does not). A bad one is a usage error giving the
    /// problem; nothing is read or written.
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
            if keys.contains(key) {
                guard value.isEmpty || isValue(value, of: key) else { throw .usage(badValue(key, value, in: "cache config")) }
            } else {
                guard value.isEmpty else { throw unknownSetting(key) }
            }
            checked.append((key, value.isEmpty ? nil : value))
        }
        return checked
    }

    private static func unknownSetting(_ key: String) -> ImgError {
        .usage("unknown setting '\(key)' (keys: \(keys.joined(separator: ", ")))")
    }

    /// The config that `checked` makes of the directory's (nil: none yet): its values, and what a command reading it
    /// would still refuse (nil: nothing), judged before anything is written. An assignment replaces its key's
    /// lines; a reset removes them, an unknown key's too (one the config does not have is refused: unknown).
    public static func amendedConfig(root: CacheRoot?, checked: [(key: String, value: String?)]) throws(ImgError)
        -> (values: [String: String], problem: ConfigProblem?) {
        var lines = try root.map { root throws(ImgError) in try readConfigLines(root: root) } ?? []
        for (key, value) in checked {
            guard keys.contains(key) || lines.contains(where: { $0.key == key }) else { throw unknownSetting(key) }
            lines.removeAll { $0.key == key }
            if let value { lines.append(ConfigLine(number: 0, key: key, value: value)) }
        }
        return (values(of: lines), problem(in: lines, file: root?.shown("config") ?? "config", judgingValues: true))
    }

    /// Merges the assignments `checkedAssignments` gave into `DIR/config` of a directory open already (its own
    /// folders made where missing), written atomically (temporary, then rename); a config that would still hold what
    /// a command refuses (`amendedConfig`) is refused with nothing written. A reset removes the key. Returns the
    /// stored values.
    @discardableResult
    public static func writeConfig(root: CacheRoot, checked: [(key: String, value: String?)]) throws(ImgError)
        -> [String: String] {
        let (values, problem) = try amendedConfig(root: root, checked: checked)
        if let problem { throw .usage(problem.message) }
        try root.prepareFolders()
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
