/// The one warning a run gives when the store can't be written (a read-only or full cache): the first failure's,
/// for whichever write met it first (an original's or a variant's); later failures are silent, since they say the
/// same thing for every line.
final class CacheWriteWarning: Sendable {
    private let given = Locked(false)

    /// `caching failed: MESSAGE` the first time, nothing after.
    func warnings(for error: ImgError) -> [String] {
        let first = given.withLock { given in
            defer { given = true }
            return !given
        }
        return first ? ["caching failed: \(error.message)"] : []
    }
}
