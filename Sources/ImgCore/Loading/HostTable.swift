/// One object per host (`scheme://host:port`), made on first use, for the hosts a run still needs: when the table
/// reaches `sweepSize` hosts, it lets go of every object that no caller holds and that `isBlank` says a new one would
/// equal, so a list of millions of hosts keeps the busy ones (and those that remember something) rather than one
/// object for every host it met. Each sweep waits for the table to double again (from at least `sweepSize`), so its
/// cost per host stays constant.
final class HostTable<Value: AnyObject & Sendable>: Sendable {
    /// Hosts in the table before the first sweep: 1,024 unless told.
    let sweepSize: Int
    private let make: @Sendable (String) -> Value
    private let isBlank: @Sendable (Value) -> Bool
    private struct Contents {
        var values: [String: Value] = [:]
        var nextSweep: Int
    }
    private let contents: Locked<Contents>

    init(sweepSize: Int = 1024, make: @escaping @Sendable (String) -> Value, isBlank: @escaping @Sendable (Value) -> Bool) {
        self.sweepSize = max(1, sweepSize)
        (self.make, self.isBlank) = (make, isBlank)
        contents = Locked(Contents(nextSweep: self.sweepSize))
    }

    /// Hosts in the table now.
    var count: Int { contents.withLock { $0.values.count } }

    /// The object of `host`, made now when the table has none.
    func value(for host: String) -> Value {
        contents.withLock { contents in
            if let existing = contents.values[host] { return existing }
            if contents.values.count >= contents.nextSweep { sweep(&contents) }
            let created = make(host)
            contents.values[host] = created
            return created
        }
    }

    /// Lets go of the objects only the table holds (no caller has one: callers get theirs under the lock) and that
    /// are blank.
    private func sweep(_ contents: inout Contents) {
        for host in Array(contents.values.keys) where isKnownUniquelyReferenced(&contents.values[host]!)
            && isBlank(contents.values[host]!) {
            contents.values[host] = nil
        }
        contents.nextSweep = max(sweepSize, 2 * contents.values.count)
    }
}
