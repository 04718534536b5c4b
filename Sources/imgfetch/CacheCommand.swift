import Foundation
import ImgCore

/// `imgfetch cache inspect|clean-expired|prune|clear|remove|verify|config`.
enum CacheCommand {
    static func run(_ arguments: ScannedArguments, words: [String], environment: [String: String]) -> Int32 {
        Reporter.error("cache commands are not implemented yet")
        return 2
    }
}
