import Foundation
import ImgCore

/// `imgfetch batch LIST` and `imgfetch prefetch URL... --from FILE`.
enum BatchCommand {
    static func run(_ arguments: ScannedArguments, words: [String], prefetchOnly: Bool, environment: [String: String]) -> Int32 {
        Reporter.error("batch and prefetch are not implemented yet")
        return 2
    }
}
