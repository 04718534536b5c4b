import Foundation

extension Double {
    /// The shortest spelling that reads back as the same number, without a trailing `.0`: `2`, `1.5`, `0.25`.
    public var canonicalText: String {
        if self == rounded(), abs(self) < 1e15 { return String(Int64(self)) }
        return "\(self)"
    }
}
