/// Idle transfer handles kept for the hosts used last, so that a handle's kept-alive connection serves the next URL
/// of its host: at most `capacity` handles in all, the one given back longest ago let go first (a libcurl handle
/// closes its connections when released). A list of URLs from millions of hosts so keeps a bounded number of
/// connections and descriptors open, not one or more for every host it met.
final class IdleHandles<Handle: AnyObject & Sendable>: Sendable {
    /// The most handles kept idle: 64 unless told (`HTTPDataLoader.keptIdle`).
    let capacity: Int
    /// Host and handle, the one given back last at the end.
    private let kept = Locked<[(host: String, handle: Handle)]>([])

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Handles kept now.
    var count: Int { kept.withLock { $0.count } }

    /// The handle of `host` given back last, taken out; nil when none is kept.
    func take(for host: String) -> Handle? {
        kept.withLock { kept in
            guard let index = kept.lastIndex(where: { $0.host == host }) else { return nil }
            return kept.remove(at: index).handle
        }
    }

    /// Keeps `handle` for `host`, letting go of the handle given back longest ago when more than `capacity` are kept.
    /// What is let go is released after the lock, so that closing its connections holds up no other thread.
    func give(_ handle: Handle, for host: String) {
        let released: [Handle] = kept.withLock { kept in
            kept.append((host, handle))
            let over = kept.count - capacity
            guard over > 0 else { return [] }
            defer { kept.removeFirst(over) }
            return kept.prefix(over).map(\.handle)
        }
        // Released here, after the lock.
        _ = released
    }
}
