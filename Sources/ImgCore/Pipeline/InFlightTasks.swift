import Dispatch

/// Runs equal work once while it is in flight: later callers with the same key wait for the first one's result
/// (Nuke's coalescing). Nothing is kept once the work is done.
final class InFlightTasks<Value: Sendable>: Sendable {
    private final class Slot: Sendable {
        let finished = DispatchGroup()
        let result = Locked<Result<Value, ImgError>?>(nil)
    }

    private let slots = Locked<[String: Slot]>([:])

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
        slot.finished.wait()
        return (try slot.result.withLock { $0! }.get(), false)
    }
}
