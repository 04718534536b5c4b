// swift-tools-version:6.0
import PackageDescription

// Every program that starts libvips exports CVips' stand-ins for eleven libvips, liborc and libpng calls and six of GLib's,
// so that libvips' calls bind to them: liborc's compile and free run under one lock (Sources/CVips/orc_guard.c: liborc
// 0.4.33 corrupts the heap when two threads compile or free programs at once) and reuse code compiled for a program of
// the same content (orc_code_cache.c); libvips' operation cache is skipped while it keeps nothing (operation_build.c);
// an object's arguments are read without libvips' global lock (argument_lookup.c); a saver's sink of one thread runs in
// one libvips thread, not libvips' thread pool (sink_disc.c); the loader search for bytes in memory is answered again
// for the same bytes (loader_search.c), the saver search for the same name (saver_search.c); an 8-bit horizontal reduce
// is computed two taps at a time (reduceh_pairs.c, through vips_image_generate); an object's blocks are freed with it
// through one record, not a signal handler each (object_memory.c); libpng's reads of a PNG's image data after its last
// row are bounded (png_tail_guard.c); GLib's mutex lock spins before it sleeps and its conditions wake only when a
// thread waits (glib_locks.c).
// A program that lacks this runs libvips without its vector path, through its cache, its pool, its lock and its
// searches, reduces in libvips' scalar loop, frees an object's blocks through a handler each, and makes the system
// calls GLib makes.
let exportsLibvipsStandIns: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "--export-dynamic-symbol=orc_program_compile",
                  "-Xlinker", "--export-dynamic-symbol=orc_program_free",
                  "-Xlinker", "--export-dynamic-symbol=vips_cache_operation_buildp",
                  "-Xlinker", "--export-dynamic-symbol=vips__argument_get_instance",
                  "-Xlinker", "--export-dynamic-symbol=vips_sink_disc",
                  "-Xlinker", "--export-dynamic-symbol=vips_image_generate",
                  "-Xlinker", "--export-dynamic-symbol=vips_malloc",
                  "-Xlinker", "--export-dynamic-symbol=vips_foreign_find_load_buffer",
                  "-Xlinker", "--export-dynamic-symbol=vips_foreign_find_save_target",
                  "-Xlinker", "--export-dynamic-symbol=png_set_read_fn",
                  "-Xlinker", "--export-dynamic-symbol=png_destroy_read_struct",
                  "-Xlinker", "--export-dynamic-symbol=g_mutex_lock",
                  "-Xlinker", "--export-dynamic-symbol=g_cond_init",
                  "-Xlinker", "--export-dynamic-symbol=g_cond_wait",
                  "-Xlinker", "--export-dynamic-symbol=g_cond_wait_until",
                  "-Xlinker", "--export-dynamic-symbol=g_cond_signal",
                  "-Xlinker", "--export-dynamic-symbol=g_cond_broadcast"]),
]

let package = Package(
    name: "imgfetch",
    products: [
        .executable(name: "imgfetch", targets: ["imgfetch"]),
        .library(name: "ImgCore", targets: ["ImgCore"]),
    ],
    targets: [
        // libvips' headers (in /usr/include/vips) with glib's include flags; libvips itself is not linked:
        // CVips opens it with dlopen on first use, so runs that decode nothing never load its ~118 libraries.
        // gobject-2.0's flags are glib's include paths alone (gmodule-2.0's add -pthread and --export-dynamic, which
        // SwiftPM refuses from a package's pkg-config).
        .systemLibrary(name: "CVipsSystem", pkgConfig: "gobject-2.0", providers: [.apt(["libvips-dev"])]),
        // liborc's headers (liborc-0.4-dev, which libvips-dev depends on) for its programs' layout (orc_code_cache.c);
        // xxHash (as CXXHash below) for the loader search's digests (loader_search.c).
        .target(name: "CVips", dependencies: ["CVipsSystem"], cSettings: [.unsafeFlags(["-I/usr/include/orc-0.4"])],
                linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("gobject-2.0"), .linkedLibrary("gmodule-2.0"),
                                 .linkedLibrary("z"), .linkedLibrary("xxhash")]),
        // libcurl's headers (libcurl4-openssl-dev); libcurl itself is opened with dlopen on the first download, so a
        // cache hit or a cache command never loads its ~35 libraries.
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl")]),
        // xxHash's XXH3-128 (libxxhash-dev) for cache entries' integrity digests: ~30x glib's SHA-256.
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
        // libjxl's Butteraugli API (libjxl-dev, jxl/butteraugli.h): the perceptual distance of an encoding to the
        // processed image, a well-kept metric rather than a hand-written one. Opened with dlopen on first use.
        .target(name: "CJxl", linkerSettings: [.linkedLibrary("dl")]),
        // libarchive's tar writer (libarchive-dev, archive.h) for WebDataset shards. Opened with dlopen on first use, so
        // a run that writes no shard never loads it and the nine libraries it brings (libxml2, ICU, the compressors).
        .target(name: "CArchive", linkerSettings: [.linkedLibrary("dl")]),
        // The decompressors of a Parquet list's pages: snappy (libsnappy-dev) and zstd (libzstd-dev), opened with
        // dlopen on the first page that needs one; gzip through zlib, linked already.
        .target(name: "CCodecs", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("z")]),
        .target(name: "ImgCore", dependencies: ["CVips", "CCurl", "CXXHash", "CJxl", "CArchive", "CCodecs"]),
        // The warm renderer (opt-in): its socket and process helpers in C (socket file, peer credentials, detached
        // start), the server and the client the CLI plugs into ImgCore's pipeline. ImgCore never imports it.
        .target(name: "CRenderer"),
        .target(name: "ImgRenderer", dependencies: ["ImgCore", "CRenderer"]),
        // SIGINT and SIGTERM caught into a pipe (self-pipe), so that none is lost before the CLI watches for them.
        .target(name: "CSignals"),
        // The CLI front as a library: option declarations, parsing, commands, the wording of errors and reports.
        .target(name: "ImgCLI", dependencies: ["ImgCore", "ImgRenderer", "CSignals"]),
        .executableTarget(name: "imgfetch", dependencies: ["ImgCLI"], linkerSettings: exportsLibvipsStandIns),
        // Tests by layer, sharing Tests/Support (linked into each as Support/): ImgCore and the warm renderer's parts
        // called directly; command lines run in process through ImgCLI; the built binary, end to end.
        .testTarget(name: "ImgCoreTests", dependencies: ["ImgCore", "ImgRenderer", "ImgCLI"],
                    linkerSettings: exportsLibvipsStandIns),
        .testTarget(name: "ImgCLITests", dependencies: ["ImgCore", "ImgRenderer", "ImgCLI"],
                    linkerSettings: exportsLibvipsStandIns),
        .testTarget(name: "EndToEndTests", dependencies: ["ImgCore", "ImgRenderer", "ImgCLI"],
                    linkerSettings: exportsLibvipsStandIns),
        // Fuzz targets: a regression runner in normal builds, libFuzzer under scripts/fuzz.sh (Fuzz/README.md).
        .executableTarget(name: "ImgFuzz", dependencies: ["ImgCore", "ImgRenderer"], path: "Fuzz/Sources/ImgFuzz",
                         linkerSettings: exportsLibvipsStandIns),
    ]
)
