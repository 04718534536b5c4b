import Foundation
import Testing
@testable import ImgCore

/// The pipeline's own logic, in process, over counting doubles of the loader, renderer and entry store
/// (Support/PipelineDoubles.swift): no server, no libvips, no files.
@Suite("Pipeline stages with test doubles")
struct PipelineStageTests {
    /// Equal requests in flight share one download and one rendering: 8 threads ask for one variant with no cache
    /// at all, so only coalescing can make them share.
    @Test func equalRequestsInFlightShareOneLoadAndOneRendering() throws {
        let loadGate = Gate(), renderGate = Gate()
        let doubles = try DoubledPipeline(loader: { CountingLoader(log: $0, gate: loadGate) },
                                          rendering: { CountingRendering(log: $0, gate: renderGate) },
                                          adjust: { $0.policy.noCache = true })
        let request = try DoubledPipeline.request()
        let keys = try doubles.keys(request)
        let results = Locked<[String]>([])
        let group = startThreads(8) { _ in
            let bytes = (try? doubles.pipeline.image(for: request).image.data).map { String(decoding: $0, as: UTF8.self) }
            results.withLock { $0.append(bytes ?? "failed") }
        }
        #expect(eventually { loadGate.callers == 1 && doubles.pipeline.originals.downloads.waiters(forKey: keys.original) == 7 })
        loadGate.release()
        #expect(eventually { renderGate.callers == 1 && doubles.pipeline.variants.renderings.waiters(forKey: keys.variant) == 7 })
        renderGate.release()
        group.wait()
        #expect(doubles.log.count("load") == 1 && doubles.log.count("render") == 1, "\(doubles.log.all)")
        #expect(results.withLock { $0 } == Array(repeating: "resize(10x10,fit)(original of /a.png)", count: 8))
    }

    /// The download lock covers the download, the header check and the publishing of the original; the variant
    /// is rendered after it is released, and written through after that.
    @Test func theVariantIsRenderedAfterTheDownloadLockIsReleased() throws {
        let doubles = try DoubledPipeline()
        let response = try doubles.pipeline.image(for: DoubledPipeline.request())
        #expect(response.source == .network)
        #expect(doubles.log.all == ["lock", "load /a.png validators=none", "inspect", "store original", "release",
                                    "render resize(10x10,fit)", "store variant"])
        #expect(doubles.store[.original(key: try doubles.keys(DoubledPipeline.request()).original)]?.metadata.width == 8)
    }

    /// A variant checked at a laxer --fail-on level than a request's is made again from the cached original (no
    /// second download); stored with the stricter level, it then serves every level up to that one.
    @Test func aStricterLevelRendersAgainFromTheCachedOriginal() throws {
        let doubles = try DoubledPipeline()
        var request = try DoubledPipeline.request()
        let keys = try doubles.keys(request)
        _ = try doubles.pipeline.image(for: request)
        #expect(doubles.store[.variant(originalKey: keys.original, variantKey: keys.variant)]?.metadata.checkedAt == .truncated)
        request.decoding.failOn = .warning
        _ = try doubles.pipeline.image(for: request)
        #expect(doubles.log.count("load") == 1 && doubles.log.count("render") == 2, "\(doubles.log.all)")
        #expect(doubles.store[.variant(originalKey: keys.original, variantKey: keys.variant)]?.metadata.checkedAt == .warning)
        for level in FailOn.allCases {
            request.decoding.failOn = level
            #expect(try doubles.pipeline.image(for: request).source == .memory, "\(level)")
        }
        #expect(doubles.log.count("render") == 2, "\(doubles.log.all)")
    }

    /// A fresh download is checked once: what the header check read goes with it to *make variant*, so the renderer
    /// need not check the bytes again; an original from a cache comes with nothing checked.
    @Test func aDownloadedBodyIsCheckedOnce() throws {
        let doubles = try DoubledPipeline()
        _ = try doubles.pipeline.image(for: DoubledPipeline.request("resize(10x10)"))
        _ = try doubles.pipeline.image(for: DoubledPipeline.request("resize(20x20)"))
        #expect(doubles.log.count("inspect") == 1 && doubles.log.count("render") == 2, "\(doubles.log.all)")
        #expect(doubles.log.inspectedByRendering == [ImageHeader(format: .png, width: 8, height: 6), nil])
    }

    /// A fresh original whose variant can't be made is withdrawn: nothing is cached for a request that fails.
    @Test func anOriginalWhoseVariantFailsIsWithdrawn() throws {
        let doubles = try DoubledPipeline()
        let request = try DoubledPipeline.request(url: "http://127.0.0.1:9/corrupt.png")
        #expect(throws: ImgError.image("corrupt image")) { try doubles.pipeline.image(for: request) }
        let keys = try doubles.keys(request)
        #expect(doubles.store[.original(key: keys.original)] == nil && doubles.memory.value(forKey: CacheKey.inMemory(original: keys.original)) == nil)
        #expect(doubles.store[.variant(originalKey: keys.original, variantKey: keys.variant)] == nil)
    }

    /// An expired entry with validators is revalidated, and a 304 renews both it and the variant made from it:
    /// nothing is downloaded or rendered again, and the next pipeline is served from the store.
    @Test func aNotModifiedAnswerRenewsTheExpiredEntries() throws {
        let doubles = try DoubledPipeline(loader: { CountingLoader(log: $0, notModified: true) })
        let request = try DoubledPipeline.request()
        let keys = try doubles.keys(request)
        let variant = EntryName.variant(originalKey: keys.original, variantKey: keys.variant)
        doubles.store.put(.original(key: keys.original), body: "old original", expired: true, etag: "\"v1\"")
        doubles.store.put(variant, body: "old variant", expired: true, etag: nil)
        let response = try doubles.pipeline.image(for: request)
        #expect(response.source == .revalidated && String(decoding: response.image.data, as: UTF8.self) == "old variant")
        #expect(doubles.log.all.contains("load /a.png validators=\"v1\"") && doubles.log.count("render") == 0, "\(doubles.log.all)")
        #expect(doubles.store[.original(key: keys.original)]?.expired == false && doubles.store[variant]?.expired == false)

        var configuration = doubles.pipeline.configuration
        configuration.memoryCache = MemoryCache()
        let next = try ImagePipeline(configuration: configuration).image(for: request)
        #expect(next.source == .disk && doubles.log.count("load") == 1)
    }

    /// An expired entry is never served: without validators it is downloaded and rendered again; with
    /// `--only-from-cache` it is a miss.
    @Test func anExpiredEntryIsNeverServed() throws {
        let doubles = try DoubledPipeline()
        let request = try DoubledPipeline.request()
        let keys = try doubles.keys(request)
        doubles.store.put(.original(key: keys.original), body: "old original", expired: true, etag: nil)
        doubles.store.put(.variant(originalKey: keys.original, variantKey: keys.variant), body: "old variant",
                          expired: true, etag: nil)
        var onlyFromCache = doubles.pipeline.configuration
        onlyFromCache.policy.onlyFromCache = true
        #expect(throws: ImgError.notCached("expired in the cache: only a fresh entry is served without the network")) {
            try ImagePipeline(configuration: onlyFromCache).image(for: request)
        }
        let response = try doubles.pipeline.image(for: request)
        #expect(response.source == .network)
        #expect(String(decoding: response.image.data, as: UTF8.self) == "resize(10x10,fit)(original of /a.png)")
        #expect(doubles.log.all.contains("load /a.png validators=none") && doubles.log.count("render") == 1)
    }

    /// With a batch's memory policy, memory keeps an original only while an announced use is pending, and a
    /// variant only when the store won't serve it; the default policy keeps both.
    @Test func theBatchMemoryPolicyKeepsOnlyWhatALaterUseNeeds() throws {
        let policy = BatchMemoryPolicy()
        let batch = try DoubledPipeline(adjust: { $0.memoryPolicy = policy })
        let first = try DoubledPipeline.request("resize(10x10)"), second = try DoubledPipeline.request("resize(20x20)")
        let keys = try batch.keys(first)
        policy.expect(keys.original, count: 2)
        _ = try batch.pipeline.image(for: first)
        #expect(batch.memory.value(forKey: CacheKey.inMemory(original: keys.original)) != nil && batch.memory.value(forKey: keys.variant) == nil)
        #expect(!policy.finish(keys.original, count: 1))
        _ = try batch.pipeline.image(for: second)
        #expect(batch.log.count("load") == 1, "the second use found the original in memory")
        #expect(policy.finish(keys.original, count: 1))
        batch.pipeline.forgetOriginal(keys.original)
        #expect(batch.memory.keys.isEmpty, "\(batch.memory.keys)")

        let plain = try DoubledPipeline()
        _ = try plain.pipeline.image(for: first)
        #expect(plain.memory.keys.count == 2)
    }
}
