import Foundation
import ImgCore

/// What a client asks the renderer: one request per connection. A request from another version of imgfetch is
/// not understood (the renderer hangs up, and the client renders itself).
struct RendererRequest: RendererMessage {
    enum Command: String {
        /// Render the body with `job`.
        case render
        /// Describe the renderer (`imgfetch renderer status`).
        case status
        /// Finish the renderings in progress and exit (`imgfetch renderer stop`).
        case stop
    }

    var command: Command
    var job: WireJob?

    /// Both ends must be the same imgfetch: its version and the protocol version.
    static let version = "\(Version.current)/\(RendererAddress.protocolVersion)"

    var fields: RendererFields {
        var fields = job?.fields ?? RendererFields()
        fields.set("command", command.rawValue)
        fields.set("version", Self.version)
        return fields
    }

    init(command: Command, job: WireJob? = nil) {
        (self.command, self.job) = (command, job)
    }

    init?(fields: RendererFields) {
        guard fields["version"] == Self.version, let command = fields["command"].flatMap(Command.init(rawValue:)) else { return nil }
        self.command = command
        if command == .render {
            guard let job = WireJob(fields: fields) else { return nil }
            self.job = job
        }
    }
}

/// One rendering, as `Rendering.render` takes it; the encoded input travels as the frame's body.
struct WireJob: Sendable, Equatable {
    /// The canonical chain identifier (`ProcessingChain.identifier`), parsed again by the renderer.
    var chain: String
    var encoding: OutputEncoding
    var decoding: DecodeOptions
    /// Input from the network: only trusted loaders.
    var isRemote: Bool

    init(chain: String, encoding: OutputEncoding, decoding: DecodeOptions, isRemote: Bool) {
        (self.chain, self.encoding, self.decoding, self.isRemote) = (chain, encoding, decoding, isRemote)
    }

    /// The rendering `request` asks for (its input travels as the body).
    init(_ request: ImageRequest) {
        self.init(chain: request.chain.identifier, encoding: request.encoding, decoding: request.decoding,
                  isRemote: request.source.isRemote)
    }

    var fields: RendererFields {
        var fields = RendererFields()
        fields.set("chain", chain)
        fields.set("format", encoding.format?.rawValue)
        fields.set("quality", encoding.quality)
        fields.set("distance", encoding.targetDistance)
        fields.set("candidates", encoding.candidateFormats.map { $0.map(\.rawValue).joined(separator: ",") })
        fields.set("lossless", encoding.lossless)
        fields.set("background", encoding.background.description)
        fields.set("keep-metadata", encoding.keepMetadata)
        fields.set("max-pixels", decoding.maxPixels)
        fields.set("max-frames", decoding.maxFrames)
        fields.set("max-decode-memory", decoding.maxDecodeMemory)
        fields.set("max-render-time", decoding.maxRenderTime)
        fields.set("allow-untrusted", decoding.allowUntrustedFormats)
        fields.set("autorotate", decoding.autorotate)
        fields.set("first-frame", decoding.firstFrame)
        fields.set("fail-on", decoding.failOn.rawValue)
        fields.set("remote", isRemote)
        return fields
    }

    init?(fields: RendererFields) {
        guard let chain = fields["chain"], let background = fields["background"].flatMap(Color.init(parsing:)),
              let lossless = fields.value("lossless", as: Bool.self),
              let keepMetadata = fields.value("keep-metadata", as: Bool.self),
              let maxPixels = fields.value("max-pixels", as: Int64.self), let maxFrames = fields.value("max-frames", as: Int.self),
              let allowUntrusted = fields.value("allow-untrusted", as: Bool.self),
              let autorotate = fields.value("autorotate", as: Bool.self), let firstFrame = fields.value("first-frame", as: Bool.self),
              let isRemote = fields.value("remote", as: Bool.self) else { return nil }
        var encoding = OutputEncoding()
        if let name = fields["format"] {
            guard let format = ImageFormat(rawValue: name) else { return nil }
            encoding.format = format
        }
        if let quality = fields["quality"] {
            guard let value = Int(quality) else { return nil }
            encoding.quality = value
        }
        (encoding.lossless, encoding.background, encoding.keepMetadata) = (lossless, background, keepMetadata)
        if let distance = fields["distance"] {
            guard let value = Double(distance) else { return nil }
            encoding.targetDistance = value
        }
        if let names = fields["candidates"] {
            let formats = names.split(separator: ",").compactMap { ImageFormat(rawValue: String($0)) }
            guard !formats.isEmpty else { return nil }
            encoding.candidateFormats = formats
        }
        var decoding = DecodeOptions()
        (decoding.maxPixels, decoding.maxFrames, decoding.allowUntrustedFormats) = (maxPixels, maxFrames, allowUntrusted)
        (decoding.autorotate, decoding.firstFrame) = (autorotate, firstFrame)
        if let level = fields["fail-on"] {
            guard let failOn = FailOn(name: level) else { return nil }
            decoding.failOn = failOn
        }
        if let memory = fields.value("max-decode-memory", as: Int64.self) { decoding.maxDecodeMemory = memory }
        if let seconds = fields.value("max-render-time", as: Double.self) { decoding.maxRenderTime = seconds }
        self.init(chain: chain, encoding: encoding, decoding: decoding, isRemote: isRemote)
    }
}

/// The renderer's answer; the encoded output travels as the frame's body. Before it, while the rendering runs, the
/// renderer sends a `keepAlive` frame every `RendererServer.keepAliveInterval`: a client that hears nothing for
/// `WarmRendererClient.patience` seconds takes the renderer for gone (stopped, or squatted) and renders itself.
struct RendererReply: RendererMessage {
    /// The frame that says "still working": a header of `alive=1` and no body.
    static let keepAlive: RendererFields = {
        var fields = RendererFields()
        fields.set("alive", "1")
        return fields
    }()

    /// Why the rendering failed, as `ImgError.kind` and `ImgError.message`.
    var failure: (kind: String, message: String)?
    var format: ImageFormat?
    var width = 0, height = 0, frames = 1
    var notes: [String] = []
    var sourceWidth: Int?, sourceHeight: Int?
    /// `EncodedImage.damage`.
    var damage: String?
    /// `EncodedImage.chosen`.
    var chosen: EncodingChoice?
    var status: RendererStatus?

    init() {}

    var fields: RendererFields {
        var fields = RendererFields()
        fields.set("failure-kind", failure?.kind)
        fields.set("failure", failure?.message)
        fields.set("format", format?.rawValue)
        fields.set("width", width)
        fields.set("height", height)
        fields.set("frames", frames)
        for note in notes { fields.set("note", note) }
        fields.set("source-width", sourceWidth)
        fields.set("source-height", sourceHeight)
        fields.set("damage", damage)
        fields.set("chosen-quality", chosen?.quality)
        fields.set("chosen-distance", chosen?.distance)
        if let status {
            fields.set("process", status.process)
            fields.set("version", status.version)
            fields.set("uptime", status.uptime)
            fields.set("renderings", status.renderings)
            fields.set("active", status.active)
            fields.set("idle-limit", status.idleLimit)
            fields.set("abandoned", status.abandoned)
            fields.set("executable", status.executable)
        }
        return fields
    }

    init?(fields: RendererFields) {
        if let kind = fields["failure-kind"] { failure = (kind, fields["failure"] ?? "") }
        if let name = fields["format"] {
            guard let format = ImageFormat(rawValue: name) else { return nil }
            self.format = format
        }
        guard let width = fields.value("width", as: Int.self), let height = fields.value("height", as: Int.self),
              let frames = fields.value("frames", as: Int.self) else { return nil }
        (self.width, self.height, self.frames) = (width, height, frames)
        notes = fields.all("note")
        (sourceWidth, sourceHeight) = (fields.value("source-width"), fields.value("source-height"))
        damage = fields["damage"]
        if let quality = fields.value("chosen-quality", as: Int.self), let distance = fields.value("chosen-distance", as: Double.self) {
            chosen = EncodingChoice(quality: quality, distance: distance)
        }
        if let process = fields.value("process", as: Int32.self) {
            status = RendererStatus(process: process, version: fields["version"] ?? "?", uptime: fields.value("uptime") ?? 0,
                                    renderings: fields.value("renderings") ?? 0, active: fields.value("active") ?? 0,
                                    idleLimit: fields.value("idle-limit") ?? 0, abandoned: fields.value("abandoned") ?? 0,
                                    executable: fields["executable"])
        }
    }
}

/// What `imgfetch renderer status` reports.
public struct RendererStatus: Codable, Sendable {
    /// The renderer's process id.
    public var process: Int32
    public var version: String
    /// Seconds since it started.
    public var uptime: Double
    /// Renderings finished since it started.
    public var renderings: Int
    /// Connections being served now, this one included.
    public var active: Int
    /// Seconds without a rendering after which it exits.
    public var idleLimit: Double
    /// Renderings given up because their client had gone: before they started, or mid-way (libvips stopped, the
    /// result dropped).
    public var abandoned: Int
    /// The renderer's executable as /proc shows it (ending in " (deleted)" once the file was replaced).
    public var executable: String?
}

extension ImgError {
    /// The error a renderer's failure stands for (`kind` is `ImgError.kind`); unknown kinds are internal failures.
    init(rendererFailure failure: (kind: String, message: String)) {
        self = switch failure.kind {
        case "usage": .usage(failure.message)
        case "image": .image(failure.message)
        case "untrusted-format": .untrustedFormat(loader: failure.message)
        case "io": .io(failure.message)
        case "limit": (try? JSONDecoder().decode(LimitFailure.self, from: Data(failure.message.utf8)))
            .map { .overLimit($0.limit, contentType: $0.contentType) } ?? .internalFailure(failure.message)
        default: .internalFailure(failure.message)
        }
    }

    /// A failure as the renderer sends it: its kind and message; a limit (kind `limit`) with its cause as JSON, an
    /// untrusted format (kind `untrusted-format`) with its loader's name.
    var rendererFailure: (kind: String, message: String) {
        if case .untrustedFormat(let loader, nil) = self { return ("untrusted-format", loader) }
        if case .overLimit(let limit, let contentType) = self,
           let json = try? JSONEncoder().encode(LimitFailure(limit: limit, contentType: contentType)) {
            return ("limit", String(decoding: json, as: UTF8.self))
        }
        return (kind, message)
    }
}

/// `ImgError.overLimit` on the wire.
private struct LimitFailure: Codable {
    var limit: ExceededLimit
    var contentType: String?
}
