import CVips
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Writes out the files of a batch's large entries and drops their pages from the page cache
/// (`imgf_release_written_pages`), on a thread of its own, so that no worker waits for the disk: a page can only be
/// dropped once written, and workers that waited for that ran a batch at the disk's speed (400 photos, 307 MB of
/// originals, under a 20 MB/s write limit: 14.3 s where the same batch takes 5.3 s without the limit).
///
/// At most `capacity` (64) files wait their turn; past that, a file is closed with its pages left to the kernel, so
/// a disk slower than the batch costs page-cache memory (which the kernel reclaims), not descriptors, and time only
/// at the end: `drain` waits for the files given so far, for a second at most (the end of a batch, which does not
/// wait longer for a slow disk: what is left is the kernel's to write). Thread-safe.
final class PageReleaser: Sendable {
    /// How many files may wait to be released: 64.
    static let capacity = 64

    private let queue = DispatchQueue(label: "imgfetch.page-release")
    private let waiting = Atomic<Int>(0)
    /// Set when a `drain` gave up waiting: the files still waiting are closed with their pages left to the kernel.
    private let givenUp = Atomic<Bool>(false)
    /// What is done to each file before it is closed: `imgf_release_written_pages` (write out, wait, drop).
    private let releasePages: @Sendable (Int32) -> Void

    init(releasingWith releasePages: @escaping @Sendable (Int32) -> Void = { _ = imgf_release_written_pages($0) }) {
        self.releasePages = releasePages
    }

    /// Takes ownership of `descriptor` (a file just written): releases its pages, then closes it, on the releaser's
    /// thread; closes it at once when `capacity` files are waiting already.
    func release(_ descriptor: Int32) {
        guard waiting.add(1, ordering: .relaxed).newValue <= Self.capacity else {
            waiting.subtract(1, ordering: .relaxed)
            close(descriptor)
            return
        }
        queue.async { [self] in
            if !givenUp.load(ordering: .relaxed) { releasePages(descriptor) }
            close(descriptor)
            waiting.subtract(1, ordering: .relaxed)
        }
    }

    /// Returns once every file given before the call is released and closed, or after `seconds` (default 1): then
    /// the files still waiting, and any given later, are only closed.
    func drain(waitingAtMost seconds: Double = 1) {
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        if done.wait(timeout: .now() + seconds) == .timedOut { givenUp.store(true, ordering: .relaxed) }
    }
}
