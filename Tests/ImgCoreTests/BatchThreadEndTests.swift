import Foundation
import Synchronization
import Testing
@testable import ImgCore

/// A batch returns only once its workers have ended, the destructors of their thread-specific data run: a worker that
/// downloaded holds OpenSSL's per-thread state, and a process that printed the summary and exits while that state's
/// destructor still runs beside OpenSSL's exit handler corrupted its heap ("malloc_consolidate(): invalid chunk
/// size" after "1 ok"). Workers waited for through a group they left at the end of their body let `run` return first.
@Suite("The end of a batch's threads")
struct BatchThreadEndTests {
    /// The threads that set a value under `key`, and those whose destructor of it has finished.
    static let threadsHolding = Atomic<Int>(0)
    static let threadsEnded = Atomic<Int>(0)
    /// A key whose destructor takes its time, as a library's per-thread cleanup may (sleeping stands in for it).
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key) { _ in
            usleep(300_000)
            BatchThreadEndTests.threadsEnded.add(1, ordering: .sequentiallyConsistent)
        } == 0)
        return key
    }()

    /// A loader that leaves per-thread state on each thread that loads, as libcurl's OpenSSL does.
    struct StatefulLoader: DataLoading {
        let inner: CountingLoader

        func load(_ url: URL, validators: Validators?) throws(ImgError) -> HTTPResponse {
            if pthread_getspecific(BatchThreadEndTests.key) == nil {
                pthread_setspecific(BatchThreadEndTests.key, UnsafeRawPointer(bitPattern: 1))
                BatchThreadEndTests.threadsHolding.add(1, ordering: .sequentiallyConsistent)
            }
            return try inner.load(url, validators: validators)
        }
    }

    @Test func aBatchReturnsOnceItsWorkersHaveEnded() throws {
        let log = EventLog()
        var configuration = PipelineConfiguration()
        configuration.dataLoader = StatefulLoader(inner: CountingLoader(log: log))
        configuration.rendering = CountingRendering(log: log)
        configuration.entryStore = MemoryEntryStore(log: log)
        configuration.memoryCache = MemoryCache()
        configuration.memoryPolicy = BatchMemoryPolicy()
        let pipeline = try ImagePipeline(configuration: configuration)
        var template = ImageRequest(source: .standardInput)
        template.chain = try ProcessingChain.parse("resize(10x10)")
        template.encoding = OutputEncoding(format: .png)
        var options = BatchOptions()
        options.jobs = 2
        let runner = BatchRunner(pipeline: pipeline, template: template, options: options, cancellation: nil) { _ in }
        let urls = (0..<4).map { "http://127.0.0.1:9/\($0).png" }
        let summary = runner.run([.words(urls)])
        #expect(summary.progress.done == 4, "\(summary.progress)")
        let holding = Self.threadsHolding.load(ordering: .sequentiallyConsistent)
        #expect(holding >= 1)
        #expect(Self.threadsEnded.load(ordering: .sequentiallyConsistent) == holding,
                "run returned while a worker's thread-specific data was still being destroyed")
    }
}
