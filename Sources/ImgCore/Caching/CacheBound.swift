import Dispatch
import Foundation

/// Keeps a cache directory within its size limit while a long run (a batch, a prefetch) writes to it, instead of
/// only at the next clean. It learns the directory's total with one scan when the run starts, adds what the run
/// writes, and whenever that passes the limit it prunes on a thread of its own: the least recently accessed entries
/// go first until the total is at or below `runTarget` (80%) of the limit, the margin that keeps it from pruning
/// after every write. Entries in the folders `needed` names (originals of lines read ahead) are kept. Other
/// processes' writes are seen at the next scan. Thread-safe.
///
/// Writers go on while a prune runs, until they have written `slack` (a tenth of the limit) since it started: then
/// each further write waits for that prune to end. So the directory stays within about 110% of the limit, plus the
/// entries being written at that moment, however slow the prune is (a loaded machine, a cache of millions of
/// entries), and writers wait only when they outpace it.
final class CacheBound: Sendable {
    let directory: String
    let limit: Int64
    /// What a prune during the run brings the total down to: 80% of the limit.
    var runTarget: Int64 { limit / 10 * 8 }
    /// What may be written while a prune runs before writers wait for it: a tenth of the limit.
    var slack: Int64 { limit / 10 }
    /// Entry folders (below `entries/`) of originals this run still needs.
    private let needed: @Sendable () -> Set<String>

    private struct State {
        /// The total after the last scan; nil until the first one.
        var scanned: Int64?
        /// Bytes written since that scan started.
        var added: Int64 = 0
        var pruning = false
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "imgfetch.cache-bound")

    init(directory: String, limit: Int64, needed: @escaping @Sendable () -> Set<String>) {
        self.directory = directory
        self.limit = limit
        self.needed = needed
        state.withLock { $0.pruning = true }
        queue.async { [self] in prune() }
    }

    /// Counts an entry of `bytes` just written; starts a prune when the total is now over the limit, or, when more
    /// than `slack` was written since the running prune started, waits for that prune to end.
    func added(_ bytes: Int64) {
        enum Next { case goOn, startPrune, waitForPrune }
        let next = state.withLock { state -> Next in
            state.added += bytes
            if state.pruning { return state.added > slack ? .waitForPrune : .goOn }
            guard let scanned = state.scanned, scanned + state.added > limit else { return .goOn }
            state.pruning = true
            return .startPrune
        }
        switch next {
        case .goOn: break
        case .startPrune: queue.async { [self] in prune() }
        // Returns after the prune running now (and any queued before this call); one it queues next runs after.
        case .waitForPrune: queue.sync {}
        }
    }

    /// Waits for the prunes under way and queued and, if the total is still over the limit, prunes once more
    /// (and waits for what that prune queues): called at the end of the run, so that it ends at or under the limit.
    func settle() {
        waitForQueuedPrunes()
        let over = state.withLock { state -> Bool in
            guard state.scanned.map({ $0 + state.added > limit }) ?? true else { return false }
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

    /// Scans and prunes (runs on `queue`); counts from here on what is written meanwhile, then checks again.
    private func prune() {
        state.withLock { $0.added = 0 }
        let keeping = needed()
        let report = CacheMaintenance.prune(directory: directory, sizeLimit: limit, target: runTarget, keeping: keeping,
                                            listingPaths: false)
        let again = state.withLock { state -> Bool in
            state.scanned = report.remainingBytes ?? 0
            // Kept entries may hold the total over the limit: then only new writes start the next prune.
            let over = state.scanned! + state.added > limit && state.added > 0
            state.pruning = over
            return over
        }
        if again { queue.async { [self] in prune() } }
    }
}
