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
        let shown = URLCredentials.maskingPassword(in: input)
        guard !input.isEmpty, !input.contains("\0") else { throw .usage("empty or malformed input '\(shown)'") }
        let lowered = input.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            // Sent as browsers and curl send it: escaped where it must be, existing escapes kept (`URLSpelling`).
            let spelled = try URLSpelling.spell(input, shown: shown)
            guard let components = URLComponents(string: spelled), let host = components.host, !host.isEmpty,
                  let url = components.url else {
                throw .usage("malformed URL '\(shown)'")
            }
            self = .remote(url)
        } else if lowered.hasPrefix("file://") {
            guard let url = URL(string: input), url.isFileURL, !url.path.isEmpty else {
                throw .usage("malformed file URL '\(shown)'")
            }
            // RFC 8089: a file URL names this machine by an empty host or "localhost"; any other host is not here.
            if let host = url.host, !host.isEmpty, host.lowercased() != "localhost" {
                throw .usage("file URL '\(shown)' names the host '\(host)': only file:///PATH or file://localhost/PATH")
            }
            self = .file(path: url.path)
        } else if let colon = input.range(of: "://") {
            let scheme = input[..<colon.lowerBound]
            throw .usage("unsupported URL scheme '\(scheme)' in '\(shown)' (only http, https and file)")
        } else {
            self = .file(path: input)
        }
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
