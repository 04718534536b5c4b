import CSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Hands renderings to a warm renderer process (`imgfetch renderer serve`) so that a one-off command doesn't pay
/// for loading libvips' ~100 libraries; see `RendererServer`. Every failure to reach or use it is silent: the
/// caller then renders in its own process, exactly as without a renderer.
public struct RendererClient: Sendable {
    public let address: RendererAddress

    public init(address: RendererAddress) { self.address = address }

    /// A connection when a renderer of this user listens at the address; nil when none does, or when the process
    /// listening there belongs to another user (it is never sent an image).
    public func connect() -> RendererConnection? {
        let descriptor = imgf_connect_abstract(address.name)
        guard descriptor >= 0, let socket = RendererSocket(descriptor: descriptor), socket.peerIsSameUser else { return nil }
        return RendererConnection(socket: socket)
    }

    /// Whether a renderer of this user listens at the address (a connection made and closed at once).
    public func isListening() -> Bool { connect() != nil }

    /// The running renderer's state, nil when none answers.
    public func status() -> RendererStatus? {
        guard let connection = connect() else { return nil }
        return connection.exchange(RendererRequest(command: .status))?.header.status
    }

    /// Asks the running renderer to exit once its renderings are done; its process id, nil when none answered.
    public func stop() -> Int32? {
        guard let connection = connect() else { return nil }
        return connection.exchange(RendererRequest(command: .stop)) != nil ? connection.socket.peerProcess : nil
    }
}

/// One connection to the renderer, for one request.
public final class RendererConnection: Sendable {
    let socket: RendererSocket

    init(socket: RendererSocket) { self.socket = socket }

    /// The renderer's process id.
    public var serverProcess: Int32 { socket.peerProcess }

    /// Renders `input` with `job` in the renderer. Throws what the rendering failed with, or that `cancellation`
    /// stopped the wait; nil when the renderer couldn't be used (it died, or broke the protocol): the caller then
    /// renders in its own process.
    func render(_ input: Data, job: RenderJob, cancellation: Cancellation? = nil) throws(ImgError) -> EncodedImage? {
        let stop = { cancellation?.isCancelled ?? false }
        guard let (reply, body) = exchange(RendererRequest(command: .render, job: job), body: input, stop: stop) else {
            if stop() { throw .internalFailure("interrupted while the renderer worked") }
            return nil
        }
        if let failure = reply.failure { throw ImgError(rendererFailure: failure) }
        guard let format = reply.format else { return nil }
        var image = EncodedImage(data: body, format: format, width: reply.width, height: reply.height, frames: reply.frames)
        image.notes = reply.notes + ["rendered by the warm renderer (pid \(serverProcess))"]
        if let width = reply.sourceWidth, let height = reply.sourceHeight { image.sourceSize = (width, height) }
        return image
    }

    /// Sends a request and waits for the reply; nil when the renderer closed the connection without one.
    func exchange(_ request: RendererRequest, body: Data = Data(),
                  stop: () -> Bool = { false }) -> (header: RendererReply, body: Data)? {
        guard socket.send(request, body: body) else { return nil }
        return socket.receive(RendererReply.self, maxBody: Int(Int32.max), stop: stop)
    }
}
