import Synchronization

/// A flag that says "stop": set once (by a signal handler's watcher), read by transfers and workers.
public final class Cancellation: Sendable {
    private let flag = Atomic<Int32>(0)

    public init() {}

    /// Asks every transfer and worker holding this token to stop, recording the signal that asked.
    public func cancel(signal: Int32) { flag.store(signal, ordering: .sequentiallyConsistent) }

    /// Whether `cancel` was called.
    public var isCancelled: Bool { flag.load(ordering: .sequentiallyConsistent) != 0 }

    /// The signal number given to `cancel`, or 0.
    public var signal: Int32 { flag.load(ordering: .sequentiallyConsistent) }
}
