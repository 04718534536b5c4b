import Foundation

/// Random-but-mostly-forward access to encoded bytes for the container checks (`TruncationCheck`): straight from
/// memory, or from a file region through one 1 MiB window, so that checking a 100 MB file never holds more than
/// the window. Used by one thread at a time.
final class ByteReader {
    /// How many bytes there are.
    let count: Int
    private let region: FileRegion?
    /// The bytes at hand: all of them for memory, the current window for a file.
    private var window: UnsafeRawBufferPointer
    private var windowStart = 0
    private let storage: UnsafeMutableRawBufferPointer?
    /// The most bytes one window holds.
    private let windowSize: Int

    /// Reads from memory that outlives the reader.
    init(memory: UnsafeRawBufferPointer) {
        count = memory.count
        region = nil
        window = memory
        storage = nil
        windowSize = memory.count
    }

    /// Reads from a file region through a window of `windowSize` bytes (default 1 MiB; tests use tiny ones).
    init(region: FileRegion, windowSize: Int = FileRegion.windowSize) {
        count = region.count
        self.region = region
        self.windowSize = windowSize
        // Never under 16 bytes, so that the checks' small reads (a PNG chunk header, a RIFF header) fit.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(windowSize, 16), alignment: 16)
        storage = buffer
        window = UnsafeRawBufferPointer(start: buffer.baseAddress, count: 0)
    }

    deinit { storage?.deallocate() }

    /// The byte at `index`, or nil past the end (or when the file can't be read there).
    func byte(at index: Int) -> UInt8? {
        guard index >= 0, index < count, load(index, length: 1) else { return nil }
        return window[index - windowStart]
    }

    /// `length` bytes from `index` (at most a window), or nil when they are not all there.
    func bytes(at index: Int, length: Int) -> [UInt8]? {
        guard index >= 0, length >= 0, index <= count - length, length <= storage?.count ?? count,
              load(index, length: length) else { return nil }
        let start = index - windowStart
        return Array(window[start..<(start + length)])
    }

    /// Calls `body` on the bytes from `index` for `length` bytes, a window at a time, until it returns false;
    /// returns false when the bytes ran out first.
    @discardableResult
    func scan(from index: Int, length: Int, _ body: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        guard index >= 0, length >= 0, index <= count - length else { return false }
        var position = index
        let end = index + length
        while position < end {
            let wanted = min(end - position, windowSize)
            guard load(position, length: wanted) else { return false }
            let start = position - windowStart
            let available = min(end - position, window.count - start)
            if !body(UnsafeRawBufferPointer(rebasing: window[start..<(start + available)])) { return true }
            position += available
        }
        return true
    }

    /// Makes sure `length` bytes from `index` are in the window, reading a new window from `index` if not.
    private func load(_ index: Int, length: Int) -> Bool {
        if index >= windowStart, index + length <= windowStart + window.count { return true }
        guard let region, let storage else { return false }
        let got = region.read(at: index, into: storage)
        windowStart = index
        window = UnsafeRawBufferPointer(start: storage.baseAddress, count: got)
        return got >= length
    }
}
