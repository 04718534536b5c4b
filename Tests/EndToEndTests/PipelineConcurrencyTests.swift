import Foundation
import Synchronization
import Testing
@testable import ImgCore

@Suite("Pipeline Concurrency: many threads, one pipeline")
struct PipelineConcurrencyTests {
    @Test func manyThreadsShareDownloadsAndRenderings() throws {
        let fixture = try BatchFixture(count: 8)
        let cache = try TemporaryDirectory()
        var configuration = PipelineConfiguration()
        configuration.cacheDirectory = cache.path
        configuration.connectionsPerHost = 3
        configuration.renderingSlots = 2
        let pipeline = try ImagePipeline(configuration: configuration)
        let chains = try ["resize(40x40,fill)", "resize(20x30,exact)"].map { try ProcessingChain.parse($0) }
        let urls = (1...8).map { fixture.server.url("/delay/0.1/img\($0).jpg") }
        let failures = Locked<[String]>([])
        startThreads(16) { thread in
            for step in 0..<8 {
                let url = urls[(thread + step) % urls.count]
                var request = ImageRequest(source: .remote(URL(string: url + "?t=\(thread)")!))
                request.chain = chains[(thread + step) % 2]
                do {
                    let response = try pipeline.image(for: request)
                    let info = try Rendering.probe(response.image.data)
                    let expected = (thread + step) % 2 == 0 ? (40, 40) : (20, 30)
                    if info.width != expected.0 || info.height != expected.1 {
                        failures.withLock { $0.append("\(url): \(info.width)x\(info.height)") }
                    }
                } catch {
                    failures.withLock { $0.append("\(url): \(error)") }
                }
            }
        }.wait()
        #expect(failures.withLock { $0 }.isEmpty)
        let stats = try fixture.server.stats()
        #expect(stats.total == 8)
        #expect(stats.max_concurrent_connections <= 3)
    }

    @Test func batchRunnerInProcess() throws {
        let fixture = try BatchFixture(count: 10)
        let cache = try TemporaryDirectory()
        let output = try TemporaryDirectory()
        var configuration = PipelineConfiguration()
        configuration.cacheDirectory = cache.path
        configuration.connectionsPerHost = 3
        let cancellation = Cancellation()
        configuration.network.cancellation = cancellation
        let pipeline = try ImagePipeline(configuration: configuration)
        var options = BatchOptions()
        options.jobs = 6
        options.window = 8
        options.outputDirectory = output.path
        options.variants = try [BatchVariant(parsing: "a=resize(16x16,fill)"), BatchVariant(parsing: "b=resize(8x8,exact)")]
        var template = ImageRequest(source: .standardInput)
        template.encoding = OutputEncoding(format: .png)
        let lines = (0..<40).map { fixture.server.url("/img/img\($0 % 10 + 1).jpg?n=\($0)") }
        let order = Locked<[Int]>([])
        let runner = BatchRunner(pipeline: pipeline, template: template, options: options, cancellation: cancellation) { event in
            if case .item(let report) = event { order.withLock { $0.append(report.item.sequence) } }
        }
        let summary = runner.run([.words(lines)])
        #expect(summary.progress.done == 40 && summary.progress.failed == 0 && summary.written == 80)
        #expect(order.withLock { $0 } == Array(0..<40))
        #expect(try fixture.server.stats().total == 10)
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).count == 80)
    }

    @Test func boundedQueueHandsEveryElementOutOnce() {
        let queue = BoundedQueue<Int>(capacity: 4)
        let taken = Locked<[Int]>([])
        let group = startThreads(4) { _ in
            while let value = queue.pop() {
                taken.withLock { $0.append(value) }
                queue.releaseSlot()
            }
        }
        for value in 0..<1000 { #expect(queue.push(value)) }
        queue.close()
        group.wait()
        #expect(taken.withLock { $0.sorted() } == Array(0..<1000))
        #expect(!queue.push(1))
    }
}
