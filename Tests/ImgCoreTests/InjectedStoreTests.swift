import Foundation
import Testing
@testable import ImgCore

/// A batch's upkeep of the store goes through `EntryStoring`, so an injected store gets it too (issue #33 item 3:
/// the pipeline asked `store as? DiskCache`, and any other store silently lost the batch's size limit).
@Suite("Injected entry store")
struct InjectedStoreTests {
    @Test func aBatchAsksAnyStoreToKeepItsLimitReleasePagesAndSettle() throws {
        let doubled = try DoubledPipeline(adjust: { configuration in
            configuration.sizeLimit = 123_456
            configuration.memoryPolicy = BatchMemoryPolicy()
        })
        var template = ImageRequest(source: .standardInput)
        template.chain = try ProcessingChain.parse("resize(10x10)")
        template.encoding = OutputEncoding(format: .png)
        let runner = BatchRunner(pipeline: doubled.pipeline, template: template, options: BatchOptions(),
                                 cancellation: nil) { _ in }
        #expect(doubled.store.keptWithin.withLock { $0?.limit } == 123_456)
        #expect(doubled.store.upkeep.withLock { $0 } == ["release pages"])
        let summary = runner.run([.words([DoubledPipeline.url])])
        #expect(summary.progress.done == 1, "\(summary.progress)")
        #expect(doubled.store.upkeep.withLock { $0 } == ["release pages", "settle"])
        #expect(doubled.store.keptWithin.withLock { $0?.spared } == [], "the batch's announced uses, none pending")
    }
}
