// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "imgfetch",
    products: [
        .executable(name: "imgfetch", targets: ["imgfetch"]),
        .library(name: "ImgCore", targets: ["ImgCore"]),
    ],
    targets: [
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "ImgCore", dependencies: ["CVips", "CCurl"]),
        .executableTarget(name: "imgfetch", dependencies: ["ImgCore"]),
        .testTarget(name: "ImgCoreTests", dependencies: ["ImgCore"]),
        // Fuzz targets: a regression runner in normal builds, libFuzzer under scripts/fuzz.sh (Fuzz/README.md).
        .executableTarget(name: "ImgFuzz", dependencies: ["ImgCore"], path: "Fuzz/Sources/ImgFuzz"),
    ]
)
