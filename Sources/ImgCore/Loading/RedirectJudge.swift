import Foundation

/// Judges each redirect's target before it is requested (`NetworkOptions.redirectJudge`): a batch with
/// `--robots-txt` asks the target host's robots.txt (`ImagePipeline.judgeRedirectsByRobotsTxt`), so that no hop
/// of a redirect chain reaches a URL the site disallows. Set once, before the transfers that use it start; with
/// no rule set it allows every target.
public final class RedirectJudge: Sendable {
    /// Throws to refuse a target; nil: every target allowed.
    public typealias Rule = @Sendable (URL) throws(ImgError) -> Void
    private let rule = Locked<Rule?>(nil)

    public init() {}

    /// Judges later redirects by `rule`.
    public func use(_ rule: @escaping Rule) {
        self.rule.withLock { $0 = rule }
    }

    /// Throws what the rule throws for `target`; nothing without a rule.
    func judge(_ target: URL) throws(ImgError) {
        guard let rule = rule.withLock({ $0 }) else { return }
        try rule(target)
    }
}
