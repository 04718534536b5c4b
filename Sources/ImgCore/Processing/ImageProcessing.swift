/// One step of a processing chain: a small value whose identifier enters the variant key.
public protocol ImageProcessing: Sendable {
    /// The canonical spelling of this step, e.g. `resize(200x200,fill)`; equal steps have equal identifiers.
    var identifier: String { get }

    /// Applies the step to a decoded image (every frame of an animation).
    func process(_ image: DecodedImage) throws(ImgError) -> DecodedImage
}

/// The namespace of the built-in steps, as in Nuke's `ImageProcessors`.
public enum ImageProcessors {}
