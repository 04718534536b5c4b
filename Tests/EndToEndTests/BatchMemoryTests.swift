import Foundation
import Synchronization
import Testing
@testable import ImgCore

/// What a batch run in this process keeps in its memory cache.
@Suite("Batch: memory")
struct BatchMemoryTests {
    /// Runs a batch in this process over `lines` and returns its memory cache, with the most bytes its memory cache
    /// held whenever an item finished.
    func runInProcess(_ fixture: BatchFixture, _ lines: [String], variants: [String], disk: Bool) throws
        -> (memory: MemoryCache, summary: BatchSummary, peakBytes: Int) {
        var configuration = PipelineConfiguration()
        configuration.cacheDirectory = fixture.cache
        configuration.policy.memoryOnly = !disk
        configuration.memoryPolicy = BatchMemoryPolicy()
        let memory = MemoryCache()
        configuration.memoryCache = memory
        let pipeline = try ImagePipeline(configuration: configuration)
        var template = ImageRequest(source: .standardInput)
        template.chain = try ProcessingChain.parse("resize(40x40)")
        var options = BatchOptions()
        options.jobs = 4
        options.outputDirectory = fixture.output
        options.variants = try variants.map { try BatchVariant(parsing: $0) }
        try OutputWriter.prepareDirectory(fixture.output)
        let peak = Mutex(0)
        let runner = BatchRunner(pipeline: pipeline, template: template, options: options, cancellation: nil) { event in
            if case .item = event { peak.withLock { $0 = max($0, memory.totalBytes) } }
        }
        let summary = runner.run([.words(lines)])
        return (memory, summary, peak.withLock { $0 })
    }

    /// A batch never reuses the original of a URL it has finished with, nor (with a disk cache to serve a later
    /// line) a variant: its memory cache keeps neither, so a long list of distinct URLs doesn't fill it (500 URLs of
    /// 12-megapixel JPEGs peaked at 415 MB RSS, now 133 MB). Duplicate lines and variants still make one download.
    @Test func aBatchKeepsInMemoryOnlyWhatALaterLineOrVariantUses() throws {
        let fixture = try BatchFixture(count: 8)
        let distinct = (1...8).map { fixture.server.url("/img/img\($0).jpg") }
        let plain = try runInProcess(fixture, distinct, variants: [], disk: true)
        #expect(plain.summary.progress.done == 8 && plain.summary.progress.failed == 0)
        #expect(plain.peakBytes == 0 && plain.memory.totalBytes == 0, "\(plain.memory.keys)")

        // Without a disk cache, variants stay in memory for later lines; originals only until their last use.
        try FileManager.default.removeItem(atPath: fixture.output)
        let lines = Array(distinct.prefix(4)) + Array(distinct.prefix(4)).reversed()
        let noDisk = try runInProcess(fixture, lines, variants: ["a=resize(10x10)", "b=blur(1)"], disk: false)
        #expect(noDisk.summary.progress.done == 8 && noDisk.summary.progress.failed == 0)
        #expect(try fixture.server.stats().total == 8 + 4)
        let keys = noDisk.memory.keys
        #expect(keys.count == 8 && keys.allSatisfy { $0.contains("@") }, "\(keys)")
    }
}
