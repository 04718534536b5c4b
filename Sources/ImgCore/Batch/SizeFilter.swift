/// Which originals a batch writes by their size (`--min-size`, `--max-aspect-ratio`): an original outside them is
/// `filtered`, its outputs not written.
public struct SizeFilter: Sendable, Hashable {
    /// The smallest width and height an original may have; nil for no minimum.
    public var minimumWidth: Int?
    public var minimumHeight: Int?
    /// The largest ratio of the longer side to the shorter an original may have (2 lets 200x100 and 100x200 through,
    /// not 201x100); nil for no limit.
    public var maximumAspectRatio: Double?

    public init(minimumWidth: Int? = nil, minimumHeight: Int? = nil, maximumAspectRatio: Double? = nil) {
        (self.minimumWidth, self.minimumHeight, self.maximumAspectRatio) = (minimumWidth, minimumHeight, maximumAspectRatio)
    }

    /// Whether it filters anything.
    public var isActive: Bool { minimumWidth != nil || minimumHeight != nil || maximumAspectRatio != nil }

    /// Why an original of this size is filtered (`original 50x40 is smaller than 64x64`), or nil when it passes.
    public func refusal(width: Int, height: Int) -> String? {
        if let minimumWidth, let minimumHeight, width < minimumWidth || height < minimumHeight {
            return "original \(width)x\(height) is smaller than \(minimumWidth)x\(minimumHeight)"
        }
        if let maximumAspectRatio, min(width, height) > 0 {
            let ratio = Double(max(width, height)) / Double(min(width, height))
            if ratio > maximumAspectRatio {
                return "original \(width)x\(height) has an aspect ratio of \(RatioText.short(ratio)), over \(RatioText.short(maximumAspectRatio))"
            }
        }
        return nil
    }
}

/// A line filtered by its original's size (as displayed: its EXIF orientation applied): nothing of it was written.
public struct FilteredOriginal: Sendable, Equatable {
    public var reason: String
    public var width: Int
    public var height: Int
}

/// Numbers as messages show them: at most two decimals, no trailing zeros.
enum RatioText {
    static func short(_ value: Double) -> String {
        var text = String(Double((value * 100).rounded()) / 100)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}
