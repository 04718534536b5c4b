/// The keys of one resolved request's variant, worked out once per request and handed to the stages that look the
/// variant up, make it and write it: the variant identifier and key, and those of a result made under `--fail-on none`
/// from a damaged input, which is cached apart so that a whole input's variant is shared by every level.
struct VariantKeys: Sendable {
    /// The chain and encoding (`ImageRequest.variantIdentifier`), as the variant key and `-v` show them.
    let identifier: String
    /// `identifier` with `,fail-on=none`: the level enters the key only when it changed the result.
    let damagedIdentifier: String
    /// The variant key (`CacheKey.variant`); nil without an original key (standard input).
    let key: String?
    /// The key of a result made from a damaged input; nil without an original key.
    let damagedKey: String?

    init(of request: ImageRequest, originalKey: String?) {
        let identifier = request.variantIdentifier
        let damagedIdentifier = identifier + ",fail-on=none"
        (self.identifier, self.damagedIdentifier) = (identifier, damagedIdentifier)
        key = originalKey.map { CacheKey.variant(original: $0, variantIdentifier: identifier) }
        damagedKey = originalKey.map { CacheKey.variant(original: $0, variantIdentifier: damagedIdentifier) }
    }

    /// The keys a lookup tries, in order: the variant's, then with `includingDamaged` (`--fail-on none`) that of a
    /// result made from a damaged input. Empty without an original key.
    func candidates(includingDamaged: Bool) -> [String] {
        ([key] + (includingDamaged ? [damagedKey] : [])).compactMap { $0 }
    }

    /// The identifier and key a result just made is stored under: a damaged input's when it is `damaged`.
    func stored(damaged: Bool) -> (identifier: String, key: String?) {
        damaged ? (damagedIdentifier, damagedKey) : (identifier, key)
    }
}
