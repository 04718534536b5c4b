import Foundation
import Testing
@testable import ImgCore
@testable import ImgRenderer

/// The renderer's server and client in this process, under many threads at once (part of the ThreadSanitizer pass).
@Suite("Renderer Concurrency: one server, many clients")
struct RendererConcurrencyTests {
    @Test func concurrentRenderingsStatusAndStop() throws {
        let work = try TemporaryDirectory()
        let address = RendererAddress(directory: work.file("renderer"), name: "imgfetch-test.sock")
        let server = RendererServer(address: address, idleLimit: 60)
        let served = Locked<Bool?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            served.withLock { $0 = try? server.serve() }
            finished.signal()
        }
        let client = RendererClient(address: address)
        let deadline = Date().addingTimeInterval(30)
        while client.status() == nil, Date() < deadline { usleep(20_000) }
        #expect(client.status() != nil, "the server did not start")

        let input = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        let sizes = Locked([Int: Int]())
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            if index.isMultiple(of: 4) { _ = client.status() }
            var request = ImageRequest(source: .standardInput)
            request.chain = (try? ProcessingChain.parse("resize(\(30 + index)x\(30 + index),fill)")) ?? ProcessingChain()
            request.encoding = OutputEncoding(format: .png)
            guard let connection = client.connect(),
                  case .rendered(let image)? = try? connection.render(input, job: WireJob(request)) else { return }
            sizes.withLock { $0[index] = (try? Rendering.probe(image.data))?.width }
        }
        for index in 0..<8 { #expect(sizes.withLock { $0[index] } == 30 + index) }
        #expect(client.status()?.renderings == 8)

        #expect(client.stop().map(\.process) == [getpid()])
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(served.withLock { $0 } == true)
        #expect(client.status() == nil)
    }
}
