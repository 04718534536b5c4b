import Foundation

/// User info in URLs (`http://alice:s3cret@host/a.png`): libcurl sends it (HTTP Basic authentication), and it is
/// never stored or shown. Cache entries record the URL as the original key sees it (`ImageRequest.storedURL`),
/// without user info; messages, `-v` and `--json` show the user name and hide the password as `***`.
public enum URLCredentials {
    /// `text` with the password of a URL's user info written `***` (`http://alice:***@host/a.png`); text without
    /// `scheme://user:password@` is returned unchanged. Works on any text, so a malformed URL is masked too.
    public static func maskingPassword(in text: String) -> String {
        guard let separator = text.range(of: "://") else { return text }
        let authorityStart = separator.upperBound
        let authorityEnd = text[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        let authority = text[authorityStart..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
    }

    /// The URL as it is sent, without user info and fragment: what an entry records and warnings name.
    public static func removingUserInfo(from url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "" }
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        components.percentEncodedFragment = nil
        return components.string ?? ""
    }
}
