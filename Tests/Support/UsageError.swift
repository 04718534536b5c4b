@testable import ImgCore

/// What a parse refused with.
enum UsageError {
    /// The text of the usage error `body` throws; nil when it throws none, a note when it throws another error.
    static func message(_ body: () throws(ImgError) -> Void) -> String? {
        do throws(ImgError) {
            try body()
            return nil
        } catch {
            guard case .usage(let text) = error else { return "not a usage error: \(error)" }
            return text
        }
    }
}
