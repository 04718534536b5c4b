// imgfuzz: the fuzz targets of Fuzz/README.md in one executable.
//
// Normal build (`swift build`): a regression runner. `ImgFuzz TARGET PATH...` runs TARGET once on each file
// (directories are walked), e.g. `ImgFuzz entry Fuzz/corpus/entry Fuzz/regressions/entry`; `ImgFuzz all DIR`
// runs every target on DIR/<target>/. Exit status 0 means nothing crashed.
//
// Fuzz build (`-DFUZZING -sanitize=fuzzer`, see scripts/fuzz.sh): IMGFUZZ_TARGET picks the target and
// every argument goes to libFuzzer, which this main hands over to through LLVMFuzzerRunDriver.
import Foundation
import ImgCore

#if FUZZING
/// libFuzzer's driver (`int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*cb)(const uint8_t *, size_t))`),
/// so that this main, not libFuzzer's, is the program's entry point.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafeRawPointer?, Int) -> CInt
) -> CInt

nonisolated(unsafe) var selectedTarget: FuzzTarget?

/// The per-input entry point libFuzzer calls (also the conventional symbol name, for tools that look for it).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = count == 0 || start == nil ? Data() : Data(bytes: start!, count: count)
    selectedTarget!.run(data)
    return 0
}

let name = ProcessInfo.processInfo.environment["IMGFUZZ_TARGET"] ?? ""
guard let target = FuzzTarget.named(name) else {
    FileHandle.standardError.write(Data("set IMGFUZZ_TARGET to one of: \(FuzzTarget.all.map(\.name).joined(separator: ", "))\n".utf8))
    exit(2)
}
selectedTarget = target
var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzz))
#else

func usage() -> Never {
    var text = "usage: ImgFuzz TARGET PATH...   run TARGET once on each file (directories are walked)\n"
    text += "       ImgFuzz all DIR          run every target on DIR/<target>/ where it exists\n\ntargets:\n"
    for target in FuzzTarget.all { text += "  \(target.name.padding(toLength: 11, withPad: " ", startingAt: 0))\(target.summary)\n" }
    FileHandle.standardError.write(Data(text.utf8))
    exit(2)
}

/// The regular files at `path`, sorted; a directory is walked.
func files(at path: String) -> [URL] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
    guard isDirectory.boolValue else { return [URL(fileURLWithPath: path)] }
    let enumerator = FileManager.default.enumerator(at: URL(fileURLWithPath: path), includingPropertiesForKeys: [.isRegularFileKey])
    var found: [URL] = []
    while let url = enumerator?.nextObject() as? URL {
        if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { found.append(url) }
    }
    return found.sorted { $0.path < $1.path }
}

func run(_ target: FuzzTarget, on paths: [String]) -> Int {
    var count = 0
    for path in paths {
        for file in files(at: path) {
            guard let data = try? Data(contentsOf: file) else { continue }
            target.run(data)
            count += 1
        }
    }
    print("\(target.name): \(count) input(s) ran without a crash")
    return count
}

/// `ImgFuzz encode-entry URL BODY OUT`: writes a valid cache entry for BODY with CacheEntryFile.encode (a seed for `entry`).
func encodeEntry(url: String, bodyPath: String, outPath: String) {
    guard let body = FileManager.default.contents(atPath: bodyPath) else { print("cannot read \(bodyPath)"); exit(1) }
    // Built through Codable, the only public way to make one.
    let json: [String: Any] = [
        "url": url, "key": url, "kind": "original", "size": body.count, "xxh3": Digest.integrity(body),
        "format": ImageFormat.sniff(body)?.rawValue ?? "png", "width": 1, "height": 1, "created": 1_700_000_000.5,
        "ttl": 3600, "etag": "\"abc\"", "lastModified": "Tue, 14 Nov 2023 22:13:20 GMT", "contentType": "image/png",
    ]
    guard let jsonData = try? JSONSerialization.data(withJSONObject: json),
          let metadata = try? JSONDecoder().decode(CacheEntryMetadata.self, from: jsonData) else {
        print("cannot build the metadata"); exit(1)
    }
    _ = FileManager.default.createFile(atPath: outPath, contents: CacheEntryFile.encode(metadata, body: body))
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count == 4, arguments[0] == "encode-entry" {
    encodeEntry(url: arguments[1], bodyPath: arguments[2], outPath: arguments[3])
    exit(0)
}
guard let first = arguments.first, arguments.count >= 2 else { usage() }
if first == "all" {
    for target in FuzzTarget.all {
        _ = run(target, on: arguments.dropFirst().map { "\($0)/\(target.name)" })
    }
} else if let target = FuzzTarget.named(first) {
    _ = run(target, on: Array(arguments.dropFirst()))
} else {
    usage()
}
#endif
