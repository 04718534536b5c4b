import Synchronization

/// A flag that says "stop": set once (by a signal handler's watcher), read by transfers and workers, and told to
/// whoever waits on it (`whenCancelled`: a local rendering, which libvips computes without looking at the flag).
public final class Cancellation: Sendable {
    private let flag = Atomic<Int32>(0)
    private let observers = Locked<(next: Int, actions: [Int: @Sendable () -> Void])>((0, [:]))

    public init() {}

    /// Asks every transfer and worker holding this token to stop, recording the signal that asked, and runs the
    /// actions waiting for it (on this thread).
    public func cancel(signal: Int32) {
        flag.store(signal, ordering: .sequentiallyConsistent)
        let actions = observers.withLock { state in
            defer { state.actions.removeAll() }
            return Array(state.actions.values)
        }
        for action in actions { action() }
    }

    /// Whether `cancel` was called.
    public var isCancelled: Bool { flag.load(ordering: .sequentiallyConsistent) != 0 }

    /// The signal number given to `cancel`, or 0.
    public var signal: Int32 { flag.load(ordering: .sequentiallyConsistent) }

    /// Runs `action` once when cancelled (at once when cancelled already); returns what `forget` takes to stop
    /// waiting, nil when it ran already.
    func whenCancelled(_ action: @escaping @Sendable () -> Void) -> Int? {
        let id = observers.withLock { state -> Int? in
            guard !isCancelled else { return nil }
            state.next += 1
            state.actions[state.next] = action
            return state.next
        }
        if id == nil { action() }
        return id
    }

    /// Stops waiting: the action given `whenCancelled` under `id` will not run.
    func forget(_ id: Int?) {
        guard let id else { return }
        observers.withLock { _ = $0.actions.removeValue(forKey: id) }
    }
}
