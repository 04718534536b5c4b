import Foundation

/// Notices, within one command, two inputs whose URLs differ only in the part of the query their original key
/// drops: they get one cache key, so one image. Warns once per key, naming both URLs (without credentials)
/// (`QueryCollision`). Watches only keys that drop the whole query (`QueryInKey.none`) and no `--cache-key`: under
/// `--keep-query` the user chose what the key keeps. The first `capacity` keys of a command are watched (a list of
/// millions of lines must not keep every URL in memory).
///
/// A key is remembered as a 64-bit hash of it, with a hash of its input's query parameters (in key order), and the
/// query as written only for an input that has one, not as strings of the key and URL: 16 bytes a key in the table
/// (~21 with its spare room) for URLs without a query, where ~300 were kept before (5 MiB at 20,000 lines), plus
/// the query's length for one with a query. The earlier URL a warning names is the later one with the earlier
/// query: the earlier URL but for what the key ignores besides the query (the case of the scheme and host, a
/// default port, user info, a fragment). Two keys or two queries with one 64-bit hash are needed for a missed or
/// a false warning: about 1 in 10^9 at the cap. The table is made for `capacity` keys at the first (4 MiB at the
/// default, of which a list fills every page within its first few thousand lines), so a batch's memory doesn't
/// step up as its list grows past them: grown by doubling, the table passed from 2 MiB to 4 MiB between 65,536 and
/// 100,000 lines, with both held during the copy.
public final class QueryCollisionWatch: Sendable {
    /// How many distinct keys are remembered; default 100,000.
    public let capacity: Int
    private struct State {
        /// Per key hash, the hash of its first input's query parameters, its lowest bit set once it was warned about.
        var parameters: [Int: Int] = [:]
        /// Per key hash, its first input's query as written (percent-encoded), when it had one.
        var queries: [Int: String] = [:]
    }

    private let state = Locked(State())

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// How many keys are remembered now (at most `capacity`).
    public var count: Int { state.withLock { $0.parameters.count } }

    /// How many keys the table holds without growing: 0 before the first key, at least `capacity` after it.
    public var tableCapacity: Int { state.withLock { $0.parameters.capacity } }

    /// Records the input of `request` under `key`; returns the collision when an input seen before has the same key
    /// and another query (parameters compared in key order, so a mere reordering of names is the same query).
    public func note(_ request: ImageRequest, key: String) -> QueryCollision? {
        guard request.cacheKey == nil, request.query == .none, case .remote(let url) = request.source else { return nil }
        // No `?`, no query: the URL is not parsed again for it.
        let query = url.absoluteString.utf8.contains(UInt8(ascii: "?"))
            ? URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery : nil
        let parameters = Self.hash(QueryInKey.all.kept(from: query)) & ~1
        let keyHash = Self.hash([key])
        let earlierQuery = state.withLock { state -> String?? in
            if state.parameters.isEmpty { state.parameters.reserveCapacity(capacity) }
            guard let earlier = state.parameters[keyHash] else {
                if state.parameters.count < capacity {
                    state.parameters[keyHash] = parameters
                    if let query { state.queries[keyHash] = query }
                }
                return nil
            }
            guard earlier & ~1 != parameters, earlier & 1 == 0 else { return nil }
            state.parameters[keyHash] = earlier | 1
            return .some(state.queries[keyHash])
        }
        guard let earlierQuery else { return nil }
        let later = URLCredentials.removingUserInfo(from: url)
        return .sameKey(earlier: Self.url(later, withQuery: earlierQuery), later: later)
    }

    /// `url` (without user info and fragment) with its query replaced by `query` (none for nil).
    static func url(_ url: String, withQuery query: String?) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.percentEncodedQuery = query
        return components.string ?? url
    }

    /// A hash of the strings, seeded per process (the watch lives in one process).
    private static func hash(_ parts: [String]) -> Int {
        var hasher = Hasher()
        hasher.combine(parts.count)
        for part in parts { hasher.combine(part) }
        return hasher.finalize()
    }
}
