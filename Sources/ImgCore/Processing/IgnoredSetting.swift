/// An encoder setting given that the output's format has no use for: `-v` notes it, on a cache hit too
/// (`ImageResponse.ignoredSettings`). Library wording names the setting by what it does; the CLI front names its option.
public struct IgnoredSetting: Sendable, Equatable {
    /// Which setting is ignored.
    public enum Setting: Sendable, Equatable {
        /// A quality (`auto`: the quality searched for within a distance), in a format with no quality setting.
        case quality(auto: Bool)
        /// A quality, with lossless asked of a format that has a lossless mode (which takes no quality).
        case qualityWhenLossless
        /// Lossless, in a format with no lossless mode.
        case lossless
    }

    public var setting: Setting
    /// The output's format.
    public var format: ImageFormat

    public init(_ setting: Setting, format: ImageFormat) {
        (self.setting, self.format) = (setting, format)
    }

    /// The note in the library's words: `png has no quality setting: the quality given is ignored`.
    public var message: String {
        switch setting {
        case .quality: "\(format.rawValue) has no quality setting: the quality given is ignored"
        case .qualityWhenLossless: "lossless \(format.rawValue) has no quality setting: the quality given is ignored"
        case .lossless: "\(format.rawValue) has no lossless mode: lossless is ignored"
        }
    }
}
