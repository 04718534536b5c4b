import Foundation

/// Where one input's bytes come from: an http(s) URL, a local file, or standard input.
public enum ImageSource: Equatable, Sendable, CustomStringConvertible {
    case remote(URL)
    case file(path: String)
    case standardInput

    /// Classifies a command-line input: `-` is stdin, `http://` and `https://` are remote,
    /// `file://` and anything without a scheme is a local path. Other schemes are usage errors. A URL is spelled as it
    /// will be sent (`URLSpelling`); one that can't be parsed is a usage error naming the character at fault.
    public init(parsing input: String) throws(ImgError) {
        if input == "-" {
            self = .standardInput
            return
        }
        // How messages show the input (its password hidden): worked out only for a message.
        let shown = { URLCredentials.maskingPassword(in: input) }
        guard !input.isEmpty, !input.utf8.contains(0) else { throw .usage("empty or malformed input '\(shown())'") }
        if Self.hasPrefix("http://", input) || Self.hasPrefix("https://", input) {
            // Sent as browsers and curl send it: escaped where it must be, existing escapes kept (`URLSpelling`).
            let spelled = try URLSpelling.spell(input, shown: shown)
            guard let components = URLComponents(string: spelled), let host = components.host, !host.isEmpty,
                  let url = components.url else {
                throw .usage("malformed URL '\(shown())'")
            }
            self = .remote(url)
        } else if Self.hasPrefix("file://", input) {
            guard let url = URL(string: input), url.isFileURL, !url.path.isEmpty else {
                throw .usage("malformed file URL '\(shown())'")
            }
            // RFC 8089: a file URL names this machine by an empty host or "localhost"; any other host is not here.
            if let host = url.host, !host.isEmpty, host.lowercased() != "localhost" {
                throw .usage("file URL '\(shown())' names the host '\(host)': only file:///PATH or file://localhost/PATH")
            }
            self = .file(path: url.path)
        } else if let colon = input.range(of: "://") {
            let scheme = input[..<colon.lowerBound]
            throw .usage("unsupported URL scheme '\(scheme)' in '\(shown())' (only http, https and file)")
        } else {
            self = .file(path: input)
        }
    }

    /// Whether `input` begins with `prefix` (lower-case ASCII), ignoring ASCII case: what `input.lowercased()`'s
    /// prefix would say, no other character lowering to an ASCII letter of these schemes.
    static func hasPrefix(_ prefix: StaticString, _ input: String) -> Bool {
        let bytes = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        var utf8 = input.utf8.makeIterator()
        for expected in bytes {
            guard let byte = utf8.next(), ASCIIBytes.lowercased(byte) == expected else { return false }
        }
        return true
    }

    /// The URL or path, a password in the URL included: for the request itself, never for display or storage
    /// (`URLCredentials`).
    public var description: String {
        switch self {
        case .remote(let url): url.absoluteString
        case .file(let path): path
        case .standardInput: "-"
        }
    }

    /// Whether the bytes come from the network, where only trusted image loaders are allowed.
    public var isRemote: Bool {
        if case .remote = self { return true }
        return false
    }
}
