import Dispatch

/// Runs equal work once while it is in flight: later callers with the same key wait for the first one's result
/// (Nuke's coalescing). Nothing is kept once the work is done.
final class InFlightTasks<Value: Sendable>: Sendable {
    private final class Slot: Sendable {
        let finished = DispatchGroup()
        let result = Locked<Result<Value, ImgError>?>(nil)
        let waiters = Locked(0)
    }

    private let slots = Locked<[String: Slot]>([:])

    /// How many callers wait for the work in flight under `key` (for tests: that requests really shared it).
    func waiters(forKey key: String) -> Int {
        slots.withLock { $0[key] }?.waiters.withLock { $0 } ?? 0
    }

    /// Returns the value and whether this caller did the work.
    func run(key: String, _ work: () throws(ImgError) -> Value) throws(ImgError) -> (value: Value, isOwner: Bool) {
        let (slot, isOwner) = slots.withLock { slots -> (Slot, Bool) in
            if let existing = slots[key] { return (existing, false) }
            let slot = Slot()
            slot.finished.enter()
            slots[key] = slot
            return (slot, true)
        }
        if isOwner {
            let result: Result<Value, ImgError>
            do { result = .success(try work()) } catch { result = .failure(error) }
            slot.result.withLock { $0 = result }
            _ = slots.withLock { $0.removeValue(forKey: key) }
            slot.finished.leave()
            return (try result.get(), true)
        }
        slot.waiters.withLock { $0 += 1 }
        slot.finished.wait()
        return (try slot.result.withLock { $0! }.get(), false)
    }
}
