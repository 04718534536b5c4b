/// What `--facts` asks of a rendering: the facts of the processed image, with these BlurHash components.
public struct FactsRequest: Sendable, Equatable, Hashable {
    /// BlurHash components across and down, each 1...9; default 4 x 3.
    public var blurhashX: Int, blurhashY: Int

    public init(blurhashX: Int = BlurHash.defaultComponents.x, blurhashY: Int = BlurHash.defaultComponents.y) {
        (self.blurhashX, self.blurhashY) = (blurhashX, blurhashY)
    }

    /// Whether stored facts answer this request: there are some, and their BlurHash has the components asked for
    /// (its first character encodes them).
    public func isAnswered(by facts: ImageFacts?) -> Bool {
        guard let facts, let components = BlurHash.components(of: facts.blurhash) else { return false }
        return components.x == blurhashX && components.y == blurhashY
    }

    /// `4x3`: what keeps renderings with other components apart while in flight.
    public var identifier: String { "\(blurhashX)x\(blurhashY)" }
}

extension BlurHash {
    /// The components across and down that a BlurHash encodes in its first character, or nil for no BlurHash.
    public static func components(of hash: String) -> (x: Int, y: Int)? {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")
        guard hash.count >= 6, let first = hash.first, let value = alphabet.firstIndex(of: first), value < 81 else { return nil }
        return (value % 9 + 1, value / 9 + 1)
    }
}
