import Foundation

/// A robots.txt rule's pattern made ready for matching once, when the file is parsed: its literal pieces between the
/// `*`s as octets, and whether a final `$` anchors it to the end of the path. A file can hold thousands of rules
/// (500 KiB are read), and every URL of its host is judged against all of them, so a match allocates nothing.
struct RobotsPattern: Sendable, Equatable {
    /// The octets between the `*`s, in order (empty pieces included: `/a**b` has three).
    let pieces: [[UInt8]]
    /// Whether the pattern ended in `$`: it must then match the whole path.
    let anchored: Bool

    init(_ pattern: String) {
        var octets = Array(pattern.utf8)
        anchored = octets.last == UInt8(ascii: "$")
        if anchored { octets.removeLast() }
        pieces = octets.split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false).map(Array.init)
    }

    /// Whether the pattern matches the start of `path` (or all of it, when anchored), octet by octet: each piece
    /// found at its earliest place after the one before, which leaves the most room to the pieces after it.
    func matches(_ path: [UInt8]) -> Bool {
        var position = 0
        for (index, piece) in pieces.enumerated() {
            let isLast = index == pieces.count - 1
            if index == 0 {
                guard Self.holds(piece, at: 0, in: path) else { return false }
                position = piece.count
                if isLast { return !anchored || path.count == piece.count }
                continue
            }
            if isLast && anchored {
                // The last piece ends the path, after what the earlier pieces matched.
                return path.count - piece.count >= position && Self.holds(piece, at: path.count - piece.count, in: path)
            }
            guard let found = ASCIIBytes.firstOccurrence(of: piece, in: path, from: position) else { return false }
            position = found + piece.count
        }
        return true
    }

    /// Whether `path` holds `piece` at `offset` (compared with `memcmp`: most rules fail on their first piece).
    private static func holds(_ piece: [UInt8], at offset: Int, in path: [UInt8]) -> Bool {
        guard !piece.isEmpty else { return true }
        guard offset >= 0, path.count - offset >= piece.count else { return false }
        return piece.withUnsafeBytes { wanted in
            path.withUnsafeBytes { memcmp(wanted.baseAddress!, $0.baseAddress! + offset, piece.count) == 0 }
        }
    }
}
