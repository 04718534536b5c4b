import Dispatch

/// A value computed on another thread while the caller does something else; `value` waits for it.
final class BackgroundValue<Value: Sendable>: Sendable {
    private let finished = DispatchGroup()
    private let result = Locked<Value?>(nil)

    /// Starts `work` on a global queue at once.
    init(_ work: @escaping @Sendable () -> Value) {
        finished.enter()
        DispatchQueue.global().async { [result, finished] in
            let value = work()
            result.withLock { $0 = value }
            finished.leave()
        }
    }

    /// The computed value, waiting for it if needed.
    var value: Value {
        finished.wait()
        return result.withLock { $0! }
    }
}
