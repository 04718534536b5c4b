import Dispatch
import Foundation

/// Keeps a cache directory within its size limit while a long run (a batch, a prefetch) writes to it, instead of
/// only at the next clean. It learns the directory's total with one scan when the run starts, adds what the run
/// writes, and whenever that passes the limit it prunes on a thread of its own: the least recently accessed entries
/// go first until the total is at or below `runTarget` (80%) of the limit, the margin that keeps it from pruning
/// after every write. Entries in the folders `needed` names (originals of lines read ahead) are kept while that is
/// enough. Other processes' writes are seen at the next scan. Thread-safe.
///
/// Every entry is admitted before it is written (`admit`), its bytes counted from then on: writers go on while a
/// prune runs as long as the total with what they are writing stays within the limit plus `slack` (a tenth of the
/// limit); a write that would pass that waits for the prune, and if the total is still too high, for one that makes
/// room for it, sparing nothing this run needs (those originals are read from memory or their open files). So the
/// directory's entries stay within 110% of the limit whatever the entries' sizes and however many writers publish at
/// once, as far as this process's writes go; an entry larger than that is not stored (`admit` throws).
final class CacheBound: Sendable {
    let root: CacheRoot
    let limit: Int64
    /// What a prune during the run brings the total down to: 80% of the limit.
    var runTarget: Int64 { limit / 10 * 8 }
    /// What the total may pass the limit by while writers go on: a tenth of the limit.
    var slack: Int64 { limit / 10 }
    /// Entry folders (below `entries/`) of originals this run still needs.
    private let needed: @Sendable () -> Set<String>

    private struct State {
        /// The total after the last scan; nil until the first one.
        var scanned: Int64?
        /// Bytes written since that scan started.
        var added: Int64 = 0
        /// While a prune walks: what was written between the last scan and its start, counted until its walk ends
        /// (its scan may or may not have seen them: counting them twice meanwhile errs on the safe side).
        var addedBeforeWalk: Int64 = 0
        /// Bytes admitted and being written now.
        var inFlight: Int64 = 0
        var pruning = false
        /// The total as far as this process knows, with what is being written.
        var total: Int64 { (scanned ?? 0) + addedBeforeWalk + added + inFlight }
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "imgfetch.cache-bound")

    /// The largest entry a cache of size limit `limit` stores: the limit and its `slack`.
    static func largestEntry(underLimit limit: Int64) -> Int64 { limit + limit / 10 }

    /// Why an entry of `bytes` is not stored: it is larger than `largestEntry`.
    static func tooLarge(_ bytes: Int64) -> ImgError {
        .cacheUnavailable("an entry of \(ByteSize.format(bytes)) is larger than the cache's size limit")
    }

    init(root: CacheRoot, limit: Int64, needed: @escaping @Sendable () -> Set<String>) {
        self.root = root
        self.limit = limit
        self.needed = needed
        state.withLock { $0.pruning = true }
        queue.async { [self] in prune() }
    }

    /// Admits an entry of `bytes` about to be written: returns at once while the total with it stays within the
    /// limit (starting a prune when it passes the limit, and going on within `slack`), else waits until a prune made
    /// room. Throws `.cacheUnavailable` for an entry larger than the limit plus `slack`. Follow with `landed` or
    /// `withdrawn`.
    func admit(_ bytes: Int64) throws(ImgError) {
        guard bytes <= Self.largestEntry(underLimit: limit) else { throw Self.tooLarge(bytes) }
        enum Next { case admitted, startPrune, waitForPrune, makeRoom }
        // Room is made sparing what the run needs first, then sparing nothing; past that (what is left is other
        // processes' or written meanwhile) the entry goes in. Waits are bounded too, against writers that keep
        // queuing prunes.
        var sparing = true, exhausted = false, waits = 0
        while true {
            let next = state.withLock { state -> Next in
                let projected = state.total + bytes
                let fits = projected <= limit + slack || exhausted || waits >= 50
                if state.pruning {
                    guard fits else { return .waitForPrune }
                    state.inFlight += bytes
                    return .admitted
                }
                if projected <= limit {
                    state.inFlight += bytes
                    return .admitted
                }
                state.pruning = true
                guard fits else { return .makeRoom }
                state.inFlight += bytes
                return .startPrune
            }
            switch next {
            case .admitted: return
            case .startPrune:
                queue.async { [self] in prune() }
                return
            // Returns after the prune running now (and any queued before this call).
            case .waitForPrune:
                waits += 1
                queue.sync {}
            case .makeRoom:
                queue.sync { prune(room: bytes, sparing: sparing) }
                exhausted = !sparing
                sparing = false
            }
        }
    }

    /// An admitted entry of `bytes` was written.
    func landed(_ bytes: Int64) {
        state.withLock { state in
            state.inFlight -= bytes
            state.added += bytes
        }
    }

    /// An admitted entry of `bytes` was not written after all.
    func withdrawn(_ bytes: Int64) {
        state.withLock { $0.inFlight -= bytes }
    }

    /// Waits for the prunes under way and queued and, if the total is still over the limit, prunes once more
    /// (and waits for what that prune queues): called at the end of the run, so that it ends at or under the limit.
    func settle() {
        waitForQueuedPrunes()
        let over = state.withLock { state -> Bool in
            guard state.scanned == nil || state.total > limit else { return false }
            state.pruning = true
            return true
        }
        guard over else { return }
        queue.sync { prune() }
        waitForQueuedPrunes()
    }

    /// Returns once no prune is queued or running (`pruning` is true exactly then). A prune that ends while more was
    /// written queues the next one behind whatever was waiting for it, so one wait for the queue is not enough.
    private func waitForQueuedPrunes() {
        repeat { queue.sync {} } while state.withLock { $0.pruning }
    }

    /// Scans and prunes (runs on `queue`) to `runTarget`, or lower to leave `room` for an entry about to be written
    /// beside those in flight; spares the folders `needed` names when `sparing`. Counts from here on what is
    /// written meanwhile, then checks again.
    private func prune(room: Int64 = 0, sparing: Bool = true) {
        let inFlight = state.withLock { state -> Int64 in
            state.addedBeforeWalk += state.added
            state.added = 0
            return state.inFlight
        }
        let keeping = sparing ? needed() : []
        let target = max(0, min(runTarget, limit + slack - room - inFlight))
        let report = CacheMaintenance.prune(root: root, sizeLimit: room == 0 ? limit : target, target: target,
                                            keeping: keeping, listingPaths: false)
        let again = state.withLock { state -> Bool in
            state.scanned = report.remainingBytes ?? 0
            state.addedBeforeWalk = 0
            // Kept entries may hold the total over the limit: then only new writes start the next prune.
            let over = state.total > limit && state.added > 0
            state.pruning = over
            return over
        }
        if again { queue.async { [self] in prune() } }
    }
}
