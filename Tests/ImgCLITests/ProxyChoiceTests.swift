import Testing
import ImgCore
@testable import ImgCLI

/// Which proxy variables libcurl 7.88 would use (lib/url.c `detect_proxy`), and so which are judged before anything
/// is fetched: the scheme's own, else `all_proxy`, else `ALL_PROXY`; an empty one is unset; `no_proxy` `*` uses none.
@Suite("Proxy variables in use")
struct ProxyChoiceTests {
    @Test func theVariablesInUseFollowLibcurlsPrecedence() {
        let cases: [([String: String], [String])] = [
            ([:], []),
            (["HTTP_PROXY": "x"], []),
            (["all_proxy": "a"], ["all_proxy"]),
            (["all_proxy": "", "ALL_PROXY": "A"], ["ALL_PROXY"]),
            (["all_proxy": "a", "ALL_PROXY": "A"], ["all_proxy"]),
            (["http_proxy": "h", "all_proxy": "a"], ["http_proxy", "all_proxy"]),
            (["http_proxy": "h", "HTTPS_PROXY": "S", "all_proxy": "a"], ["http_proxy", "HTTPS_PROXY"]),
            (["http_proxy": "h", "https_proxy": "s", "HTTPS_PROXY": "S", "ALL_PROXY": "A"], ["http_proxy", "https_proxy"]),
            (["https_proxy": "", "HTTPS_PROXY": "S"], ["HTTPS_PROXY"]),
            (["http_proxy": "h", "no_proxy": "*"], []),
            (["http_proxy": "h", "no_proxy": "", "NO_PROXY": "*"], []),
            (["http_proxy": "h", "no_proxy": "localhost", "NO_PROXY": "*"], ["http_proxy"]),
            (["http_proxy": "h", "no_proxy": "*,localhost"], ["http_proxy"]),
        ]
        for (environment, used) in cases {
            #expect(ProxyChoice.variablesInUse(in: environment) == used, "\(environment)")
        }
    }

    @Test func aBadVariableIsNamedWithItsPasswordHidden() {
        #expect(throws: ImgError.usage("bad proxy in ALL_PROXY 'socks5://u:***@127.0.0.1:0': port '0' is not a port number (1 to 65535)")) {
            try ProxyChoice.checkEnvironment(["ALL_PROXY": "socks5://u:pw@127.0.0.1:0"])
        }
        #expect(throws: Never.self) { try ProxyChoice.checkEnvironment(["http_proxy": "u:pw@proxy_1.example:3128/"]) }
    }
}
