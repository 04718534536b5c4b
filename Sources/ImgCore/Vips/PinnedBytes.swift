import Foundation

/// A copy of encoded bytes at a fixed address, kept alive for as long as a lazy libvips image reads from it.
final class PinnedBytes: @unchecked Sendable { // owns a raw C buffer handed to libvips; never written after init
    let pointer: UnsafeMutableRawPointer
    let count: Int

    init(_ data: Data) {
        count = data.count
        pointer = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        data.withUnsafeBytes { raw in
            if let base = raw.baseAddress { pointer.copyMemory(from: base, byteCount: count) }
        }
    }

    deinit { pointer.deallocate() }
}
