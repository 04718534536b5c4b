import Foundation

/// Files of one JSON object a line: manifests and `--json` reports written to files.
enum JSONLines {
    /// The objects of `path`'s lines; one that does not parse is a failure, or (`tolerant`: a torn line) skipped.
    static func objects(inFile path: String, tolerant: Bool = false) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                if tolerant { return nil }
                throw TestFailure("not a JSON object: \(line)")
            }
            return object
        }
    }
}
