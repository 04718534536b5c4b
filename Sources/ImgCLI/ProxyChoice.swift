import ImgCore

/// The proxy a fetch goes through, checked before anything is fetched: `--proxy`'s, else the one libcurl takes from
/// the environment. libcurl 7.88 picks that one per URL (lib/url.c, `create_conn_helper_init_proxy` and
/// `detect_proxy`; lib/getenv.c's `curl_getenv` takes an empty variable for an unset one): none when `no_proxy`
/// (else `NO_PROXY`) is exactly `*`; for http `http_proxy` (never `HTTP_PROXY`), for https `https_proxy`, else
/// `HTTPS_PROXY`; for either, when that is unset, `all_proxy`, else `ALL_PROXY`. imgfetch fetches http and https
/// only (`CURLOPT_PROTOCOLS_STR`), redirects included, so those two schemes' variables are the ones judged.
enum ProxyChoice {
    /// Every variable libcurl may take a proxy from, in the order messages name them.
    static let variables = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// For each scheme imgfetch fetches, the variables libcurl tries, first to last (the first set one is used).
    static let variablesByScheme = [["http_proxy", "all_proxy", "ALL_PROXY"],
                                    ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]]

    /// The variables libcurl would take a proxy from for an http or an https URL, each once, http's first; none
    /// when the no-proxy list is `*` (a list of hosts still leaves the proxy to every other host).
    static func variablesInUse(in environment: [String: String]) -> [String] {
        func firstSet(_ names: [String]) -> String? { names.first { !(environment[$0] ?? "").isEmpty } }
        if let noProxy = firstSet(["no_proxy", "NO_PROXY"]), environment[noProxy] == "*" { return [] }
        var used: [String] = []
        for names in variablesByScheme {
            if let name = firstSet(names), !used.contains(name) { used.append(name) }
        }
        return used
    }

    /// Refuses a proxy variable libcurl would use that `ProxyAddress` refuses: a usage error naming the variable,
    /// worded as `--proxy`'s, the password shown `***`.
    static func checkEnvironment(_ environment: [String: String]) throws(ImgError) {
        for name in variablesInUse(in: environment) {
            _ = try checked(environment[name] ?? "", naming: "proxy in \(name)")
        }
    }

    /// `text` as libcurl takes it (`ProxyAddress`), else a usage error `bad WHAT 'TEXT': PROBLEM` that shows the
    /// value with its password written `***` and its control characters escaped.
    static func checked(_ text: String, naming what: String) throws(ImgError) -> String {
        do {
            return try ProxyAddress(parsing: text).value
        } catch {
            guard case .usage(let problem) = error else { throw error }
            throw .usage("bad \(what) '\(ProxyAddress.masked(text).escapingControlCharacters)': \(problem)")
        }
    }
}
