import Foundation
import ImgCore

extension FetchSettings {
    /// The transfer settings: `--header`, `--user-agent`, `--timeout`, `--connect-timeout`, `--retry`,
    /// `--max-redirects`, `--max-bytes`, `--cacert` (else `CURL_CA_BUNDLE`, else `SSL_CERT_FILE`, as curl),
    /// `--deny-private-networks`, `--location-trusted`, `--proxy` (ImgCore's defaults where not given). What `-v`
    /// should say of them (a proxy variable ignored) goes into `notes`.
    static func network(from arguments: ScannedArguments, environment: [String: String],
                        notes: inout [String]) throws(ImgError) -> NetworkOptions {
        var network = NetworkOptions()
        network.headers = try Options.header.values(in: arguments).map { header throws(ImgError) in
            do throws(ImgError) {
                return try RequestHeader.curlLine(parsing: header)
            } catch {
                // A header's value may be a secret (a token, a cookie): the refusal names the header, not its value.
                guard case .usage(let problem) = error else { throw error }
                var name = "***"
                if let colon = header.firstIndex(of: ":") { name = String(header[..<colon]).escapingControlCharacters + ": ***" }
                throw .usage("bad --\(Options.header.long) '\(name)': \(problem)")
            }
        }
        if let agent = try arguments[Options.userAgent] {
            try Options.userAgent.reading(agent) { text throws(ImgError) in try RequestHeader.checkValue(text, of: "the User-Agent") }
            // Both would set the one header, and libcurl would send -H's silently.
            if network.headers.contains(where: { RequestHeader.name(ofCurlLine: $0).lowercased() == "user-agent" }) {
                throw .usage("--\(Options.userAgent.long) and --\(Options.header.long) 'User-Agent: ***' both set the User-Agent: give one")
            }
            network.userAgent = agent
        }
        if let timeout = try arguments[Options.timeout] { network.timeout = timeout }
        if let timeout = try arguments[Options.connectTimeout] { network.connectTimeout = timeout }
        if let retries = try arguments[Options.retry] { network.retries = retries }
        if let redirects = try arguments[Options.maxRedirects] { network.maxRedirects = redirects }
        if let bytes = try arguments[Options.maxBytes] { network.maxBytes = bytes }
        if let value = try arguments[Options.cacert] {
            // isReadableFile is true of a directory too: a bundle is a file.
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: value, isDirectory: &isDirectory),
                  FileManager.default.isReadableFile(atPath: value) else {
                throw .usage("--cacert \(value): no such readable file")
            }
            if isDirectory.boolValue { throw .usage("--cacert \(value): it is a directory, not a PEM bundle file") }
            network.caBundle = value
        } else if let bundle = [environment["CURL_CA_BUNDLE"], environment["SSL_CERT_FILE"]].compactMap({ $0 }).first(where: { !$0.isEmpty }) {
            // As curl: CURL_CA_BUNDLE, else SSL_CERT_FILE, replaces the system's CA bundle (a missing file fails TLS).
            network.caBundle = bundle
        }
        network.denyPrivateNetworks = arguments[Options.denyPrivateNetworks]
        network.locationTrusted = arguments[Options.locationTrusted]
        if let value = try arguments[Options.proxy] {
            // With a proxy, the proxy makes the connection: the address check would see the proxy only.
            if network.denyPrivateNetworks { throw .usage("--proxy can't be combined with --deny-private-networks") }
            network.proxy = try Self.proxy(value)
        } else if network.denyPrivateNetworks {
            let ignored = ProxyChoice.variables.filter { !(environment[$0] ?? "").isEmpty }
            if !ignored.isEmpty {
                notes.append("ignoring the proxy in \(ignored.joined(separator: ", ")) (--deny-private-networks connects directly)")
            }
        }
        return network
    }

    /// Without `--proxy` and `--deny-private-networks`, the refusal of a malformed proxy variable libcurl would take
    /// itself (`ProxyChoice`), where it would fail every transfer as a network failure; nil when there is none. It
    /// is thrown once the command is known to fetch over the network (`sources`, a batch's plan).
    static func environmentProxyRefusal(network: NetworkOptions,
                                        environment: [String: String]) -> ImgError? {
        guard network.proxy == nil, !network.denyPrivateNetworks else { return nil }
        do throws(ImgError) {
            try ProxyChoice.checkEnvironment(environment)
            return nil
        } catch {
            return error
        }
    }

    /// A `--proxy` value as libcurl takes it (`ProxyAddress`), or "" for no proxy at all; else a usage error that
    /// shows the value with its password written `***`.
    static func proxy(_ text: String) throws(ImgError) -> String {
        text.isEmpty ? text : try ProxyChoice.checked(text, naming: "--proxy")
    }
}
