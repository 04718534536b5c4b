import CVips
import Dispatch
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// libvips' vector path (liborc) beside concurrent renderings: liborc 0.4.33 corrupts the heap when two threads
/// compile or free orc programs at once, so imgfetch's programs run those calls under one lock
/// (`Sources/CVips/orc_guard.c`), and a program that can't runs libvips without orc.
@Suite("Vector path")
struct VectorPathTests {
    static func render(_ data: Data, size: Int) throws(ImgError) -> EncodedImage {
        try Rendering.render(.memory(data), isRemote: true, chain: ProcessingChain.parse("resize(\(size)x\(size))"),
                                 encoding: OutputEncoding(format: .png), decoding: DecodeOptions())
    }

    /// The test runner exports the lock's entry points as imgfetch does, so libvips' compile and free calls go
    /// through it: a resize that needs libvips' vector reducer adds to the count.
    @Test func libvipsCompilesItsVectorProgramsThroughTheLock() throws {
        try VipsRuntime.start()
        #expect(VipsRuntime.vectorPath == .serialised)
        let data = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        let before = VipsRuntime.guardedVectorCalls
        let image = try Self.render(data, size: 37)
        #expect(image.width == 24 && image.height == 37)
        #expect(VipsRuntime.guardedVectorCalls > before)
    }

    /// Renderings on four threads at once, each building reducers of its own (sizes that need one), all succeed.
    /// Without the lock, four threads building libvips reducers crashed in 6 runs of 6.
    @Test func concurrentRenderingsCompileAndFreeProgramsSafely() throws {
        try VipsRuntime.start()
        let data = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        let failures = Locked([String]())
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for round in 0..<120 {
                let size = 23 + (round * 7 + thread) % 90
                do {
                    let image = try Self.render(data, size: size)
                    if image.height != size { failures.withLock { $0.append("\(size): \(image.width)x\(image.height)") } }
                } catch {
                    failures.withLock { $0.append("\(size): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
    }

    /// liborc 0.4.33 sets the umask to 0066 while it maps code memory, inside the compile the lock is held around.
    /// An output made by another thread meanwhile waits for the lock, and gets the mode the umask gives (0644 under
    /// umask 022), not 0600. In a process of its own (an exit test), since the umask is the whole process's: a thread
    /// plays liborc's part, holding the lock with the umask changed for 0.3 s while the output is made.
    @Test func anOutputMadeWhileLiborcHasChangedTheUmaskGetsTheUsualMode() async {
        await #expect(processExitsWith: .success) {
            umask(0o022)
            var template = Array("/tmp/imgfetch-umask-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { exit(3) }
            let directory = String(cString: made)
            // exit skips defer blocks: the folder is removed before every exit.
            func finish(_ status: Int32) -> Never {
                _ = try? FileManager.default.removeItem(atPath: directory)
                exit(status)
            }
            let folder: OutputFolder
            do { folder = try OutputFolder(opening: directory) } catch { finish(4) }
            let changed = DispatchSemaphore(value: 0)
            Thread {
                imgf_orc_guard_enter()
                let saved = umask(0o066)
                changed.signal()
                usleep(300_000)
                umask(saved)
                imgf_orc_guard_leave()
            }.start()
            changed.wait()
            do { try folder.write(Data("thumbnail".utf8), as: "out.jpg") } catch { finish(5) }
            var info = stat()
            guard stat(directory + "/out.jpg", &info) == 0 else { finish(6) }
            finish(info.st_mode & 0o777 == 0o644 ? 0 : 1)
        }
    }
}
