import Foundation

/// Notices, within one command, two inputs whose URLs differ only in the part of the query their original key
/// drops: they get one cache key, so one image. Warns once per key, naming both URLs (without credentials) and
/// `--keep-query`. Watches only keys that drop the whole query (`QueryInKey.none`) and no `--cache-key`: under
/// `--keep-query` the user chose what the key keeps. The first `capacity` keys of a command are watched (a list of
/// millions of lines must not keep every URL in memory).
public final class QueryCollisionWatch: Sendable {
    /// How many distinct keys are remembered; default 100,000.
    public let capacity: Int
    private struct Seen {
        var url: String
        var query: [String]
        var warned = false
    }

    private let seen = Locked<[String: Seen]>([:])

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Records the input of `request` under `key`; returns the warning when an input seen before has the same key and
    /// another query (parameters compared in key order, so a mere reordering of names is the same query).
    public func note(_ request: ImageRequest, key: String) -> String? {
        guard request.cacheKey == nil, request.query == .none, case .remote(let url) = request.source else { return nil }
        let query = QueryInKey.all.kept(from: URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
        return seen.withLock { seen -> String? in
            guard var earlier = seen[key] else {
                if seen.count < capacity { seen[key] = Seen(url: URLCredentials.removingUserInfo(from: url), query: query) }
                return nil
            }
            guard earlier.query != query, !earlier.warned else { return nil }
            earlier.warned = true
            seen[key] = earlier
            return "warning: \(earlier.url) and \(URLCredentials.removingUserInfo(from: url)) differ only in their query, "
                + "which the cache key drops: they will get one image; give --keep-query (or --keep-query=NAME,NAME) "
                + "if the query chooses the image"
        }
    }
}
