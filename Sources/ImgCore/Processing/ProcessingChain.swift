/// Composes processing chains left to right, as in Kingfisher.
infix operator |>: AdditionPrecedence

/// Processors applied in order, composed like Kingfisher's `a |> b`, with one canonical identifier.
public struct ProcessingChain: Sendable {
    /// The steps, first to last; empty by default.
    public var steps: [any ImageProcessing]

    public init(_ steps: [any ImageProcessing] = []) {
        self.steps = steps
    }

    /// The canonical identifier: the steps' identifiers joined by `|>`; empty for no steps. Steps that change
    /// nothing (`rotate(0)`) have an empty identifier and are left out.
    public var identifier: String { steps.map(\.identifier).filter { !$0.isEmpty }.joined(separator: "|>") }

    public var isEmpty: Bool { steps.isEmpty }

    /// `a |> b`: the steps of `a`, then those of `b`.
    public static func |> (lhs: ProcessingChain, rhs: ProcessingChain) -> ProcessingChain {
        ProcessingChain(lhs.steps + rhs.steps)
    }

    /// Parses `resize(200x200,fill)|>round(12)|>blur(2)`. Errors name the offending text and its position (1-based).
    public static func parse(_ text: String) throws(ImgError) -> ProcessingChain {
        var parser = ChainParser(text: Array(text), original: text)
        return ProcessingChain(try parser.parseChain())
    }

    /// Builds one step from its name and arguments, as the `--resize`, `--crop`, … options and chain strings give them.
    public static func step(named name: String, arguments: [String]) throws(ImgError) -> any ImageProcessing {
        func argumentCount(_ range: ClosedRange<Int>) throws(ImgError) {
            guard range.contains(arguments.count) else {
                throw .usage("\(name) takes \(range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)") argument(s), not \(arguments.count)")
            }
        }
        switch name.lowercased() {
        case "resize":
            try argumentCount(1...3)
            return try ImageProcessors.Resize.parse(arguments[0], options: Array(arguments.dropFirst()))
        case "crop":
            try argumentCount(1...2)
            let (width, height) = try ImageProcessors.Resize.parseBox(arguments[0])
            guard let width, let height else { throw .usage("crop needs WxH, not '\(arguments[0])'") }
            let anchorName = arguments.count > 1 ? arguments[1] : "centre"
            guard let anchor = ImageProcessors.Crop.anchor(named: anchorName) else {
                throw .usage("unknown crop anchor '\(anchorName)' (centre, attention, entropy)")
            }
            return try ImageProcessors.Crop(width: width, height: height, anchor: anchor)
        case "round":
            try argumentCount(1...1)
            return try ImageProcessors.RoundCorners(parsing: arguments[0])
        case "circle":
            try argumentCount(0...0)
            return ImageProcessors.Circle()
        case "blur":
            try argumentCount(1...1)
            guard let sigma = DecimalNumber.parse(arguments[0]) else { throw .usage("bad blur sigma '\(arguments[0])'") }
            return try ImageProcessors.GaussianBlur(sigma: sigma)
        case "overlay":
            try argumentCount(1...2)
            guard let color = Color(parsing: arguments[0]) else { throw .usage("bad colour '\(arguments[0])'") }
            guard let opacity = arguments.count > 1 ? DecimalNumber.parse(arguments[1]) : 0.5 else {
                throw .usage("bad overlay opacity '\(arguments[1])'")
            }
            return try ImageProcessors.ColorOverlay(color: color, opacity: opacity)
        case "grayscale", "greyscale":
            try argumentCount(0...0)
            return ImageProcessors.Grayscale()
        case "rotate":
            try argumentCount(1...1)
            guard let degrees = Int(arguments[0]) else { throw .usage("bad rotation '\(arguments[0])'") }
            return try ImageProcessors.Rotate(degrees: degrees)
        case "flip":
            try argumentCount(0...0)
            return ImageProcessors.Flip(direction: .vertical)
        case "flop":
            try argumentCount(0...0)
            return ImageProcessors.Flip(direction: .horizontal)
        default:
            throw .usage("unknown processing step '\(name)' (resize, crop, round, circle, blur, overlay, grayscale, rotate, flip, flop)")
        }
    }
}

/// A hand-written recursive-descent parser for chain strings.
private struct ChainParser {
    let text: [Character]
    let original: String
    var position = 0

    mutating func parseChain() throws(ImgError) -> [any ImageProcessing] {
        var steps: [any ImageProcessing] = []
        skipSpaces()
        guard position < text.count else { throw fail("empty chain") }
        while true {
            steps.append(try parseStep())
            skipSpaces()
            if position == text.count { return steps }
            guard consume("|>") else { throw fail("expected '|>' between steps") }
            skipSpaces()
        }
    }

    private mutating func parseStep() throws(ImgError) -> any ImageProcessing {
        let start = position
        while position < text.count, text[position].isLetter { position += 1 }
        let name = String(text[start..<position])
        guard !name.isEmpty else { throw fail("expected a step name") }
        skipSpaces()
        var arguments: [String] = []
        if consume("(") {
            var current = ""
            while true {
                guard position < text.count else { throw fail("missing ')' for '\(name)('") }
                let character = text[position]
                position += 1
                if character == ")" { break }
                if character == "," {
                    arguments.append(current.trimmingSpaces())
                    current = ""
                } else if character == "(" || character == "|" {
                    position -= 1
                    throw fail("unexpected '\(character)' inside '\(name)(...)'")
                } else {
                    current.append(character)
                }
            }
            let last = current.trimmingSpaces()
            if !last.isEmpty || !arguments.isEmpty { arguments.append(last) }
            if let empty = arguments.firstIndex(of: "") { _ = empty; throw failAt(start, "empty argument in '\(name)(...)'") }
        }
        do {
            return try ProcessingChain.step(named: name, arguments: arguments)
        } catch {
            throw failAt(start, error.message)
        }
    }

    private mutating func skipSpaces() {
        while position < text.count, text[position] == " " { position += 1 }
    }

    private mutating func consume(_ token: String) -> Bool {
        let characters = Array(token)
        guard position + characters.count <= text.count, Array(text[position..<position + characters.count]) == characters else {
            return false
        }
        position += characters.count
        return true
    }

    private func fail(_ reason: String) -> ImgError { failAt(position, reason) }

    private func failAt(_ offset: Int, _ reason: String) -> ImgError {
        .usage("bad chain '\(original)' at position \(offset + 1): \(reason)")
    }
}

private extension String {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
