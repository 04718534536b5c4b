/// One step of a processing chain: a small value whose identifier enters the variant key.
public protocol ImageProcessing: Sendable {
    /// The canonical spelling of this step, e.g. `resize(200x200,fill)`; equal steps have equal identifiers.
    var identifier: String { get }

    /// Whether the step reads its input out of order (turning it, or scanning it whole before cutting): such a
    /// step can't follow libvips' thumbnail, which reads the encoded input top to bottom once, so the decoder
    /// then keeps the thumbnail in memory first. False for steps that read rows in order (most of them).
    var needsRandomAccess: Bool { get }

    /// The size of one frame after the step, from the size before it: known before anything is decoded, so that
    /// `--max-pixels` bounds what the chain makes too (`OutputGeometry`). Default: the size is kept.
    func outputSize(width: Int, height: Int) -> (width: Int, height: Int)

    /// Applies the step to a decoded image (every frame of an animation).
    func process(_ image: DecodedImage) throws(ImgError) -> DecodedImage
}

/// The namespace of the built-in steps, as in Nuke's `ImageProcessors`.
public enum ImageProcessors {}
