import Dispatch

/// A first-in first-out queue between one producer and several consumer threads, bounded by `capacity` slots.
/// A slot is taken by `push` and given back only by `releaseSlot()`, which the consumer calls once it is completely
/// done with the element (for a batch: once the item is retired in input order), so `capacity` bounds the elements
/// queued, being worked on and waiting to be retired, all together. Memory stays flat whatever the list's length.
final class BoundedQueue<Element: Sendable>: Sendable {
    private struct State {
        var elements: [Element] = []
        var head = 0
        var closed = false
    }

    private let state = Locked(State())
    private let freeSlots: DispatchSemaphore
    private let available = DispatchSemaphore(value: 0)

    /// `capacity` is at least 1.
    init(capacity: Int) {
        freeSlots = DispatchSemaphore(value: max(1, capacity))
    }

    /// Waits for a free slot and appends; false (nothing appended) once the queue is closed.
    func push(_ element: Element) -> Bool {
        freeSlots.wait()
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.elements.append(element)
            return true
        }
        if accepted {
            available.signal()
        } else {
            freeSlots.signal() // pass the wake-up on to any other waiting producer
        }
        return accepted
    }

    /// Waits for the next element; nil once the queue is closed and empty.
    func pop() -> Element? {
        available.wait()
        let element = state.withLock { state -> Element? in
            guard state.head < state.elements.count else { return nil }
            let element = state.elements[state.head]
            state.head += 1
            if state.head > 256, state.head * 2 > state.elements.count {
                state.elements.removeFirst(state.head)
                state.head = 0
            }
            return element
        }
        if element == nil { available.signal() } // closed and empty: wake the next consumer too
        return element
    }

    /// Gives back the slot of one element that was popped and is now finished with.
    func releaseSlot() { freeSlots.signal() }

    /// No more pushes: consumers drain what is queued and then get nil; a waiting producer gets false.
    func close() {
        let wasOpen = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard wasOpen else { return }
        available.signal()
        freeSlots.signal()
    }
}
