import Foundation

/// Encoded bytes at a fixed address, kept alive for as long as a lazy libvips image reads from them: a copy this
/// object owns, or (`VipsInput.borrowing`) the bytes of a `Data` for the length of one call, not copied.
final class PinnedBytes: @unchecked Sendable { // holds a raw C buffer handed to libvips; never written after init
    let pointer: UnsafeMutableRawPointer
    let count: Int
    /// Whether `pointer` is this object's own copy, freed with it.
    private let ownsCopy: Bool

    /// A copy of `data` that lives as long as this object.
    init(_ data: Data) {
        let (count, copy) = (data.count, UnsafeMutableRawPointer.allocate(byteCount: max(data.count, 1), alignment: 16))
        data.withUnsafeBytes { raw in
            if let base = raw.baseAddress { copy.copyMemory(from: base, byteCount: count) }
        }
        (self.count, pointer, ownsCopy) = (count, copy, true)
    }

    /// Non-empty bytes where they lie, valid only while `bytes` is (`VipsInput.borrowing` checks nothing outlives it).
    init(borrowing bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        pointer = UnsafeMutableRawPointer(mutating: bytes.baseAddress!)
        ownsCopy = false
    }

    deinit { if ownsCopy { pointer.deallocate() } }
}
