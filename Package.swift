// swift-tools-version:6.0
import PackageDescription

/// The C libraries come from Debian's packages; each is a system-library target
/// found through pkg-config.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

/// libavcodec is loaded when a codec first needs it (Sources/CAVCodec/shim.h): on Linux its headers
/// come from the default include path, so pkg-config's `-lavcodec` does not make every process load it
/// and the hundred libraries behind it. Elsewhere pkg-config finds the headers, and it is linked.
#if os(Linux)
    let avcodec = Target.systemLibrary(
        name: "CAVCodec", path: "Sources/CAVCodec", providers: [.apt(["libavcodec-dev"])])
#else
    let avcodec = systemLibrary("CAVCodec", pkgConfig: "libavcodec", apt: "libavcodec-dev")
#endif

/// libfaad2 (GPL-2.0-or-later), for the AAC streams libavcodec is not given, is loaded likewise on first use
/// (Sources/CFAAD/shim.h): a binary of afkit links no GPL library.
#if os(Linux)
    let faad = Target.systemLibrary(name: "CFAAD", path: "Sources/CFAAD", providers: [.apt(["libfaad-dev"])])
#else
    let faad = systemLibrary("CFAAD", pkgConfig: "faad2", apt: "libfaad-dev")
#endif

/// AudioStreaming's HTTP client, libcurl (prebuilt: seconds of build, not BoringSSL's minutes), is
/// loaded likewise when a URL is first opened (Sources/CCurl/shim.h), so it costs nothing at start.
#if os(Linux)
    let curl = Target.systemLibrary(name: "CCurl", path: "Sources/CCurl", providers: [.apt(["libcurl4-openssl-dev"])])
#else
    let curl = systemLibrary("CCurl", pkgConfig: "libcurl", apt: "libcurl4-openssl-dev")
#endif

/// The one loader of the libraries loaded on first use (Sources/CLibraryLoader/library_loader.h), which the
/// CAVCodec, CFAAD and CCurl shims include: a system-library target names no dependency, so the targets that
/// import those shims depend on it, and their shims share its one module.
let libraryLoader = Target.systemLibrary(name: "CLibraryLoader", path: "Sources/CLibraryLoader")

/// The C math library, named where it is one of its own (Linux); Darwin's libSystem holds it.
let libm = LinkerSetting.linkedLibrary("m", .when(platforms: [.linux]))

/// The test targets compile unoptimized in the optimized test build: their code is mostly calls into the
/// optimized modules, and optimizing the suites' expanded expectations took about 170 s of the build's CPU
/// (BENCHMARKS.md, 2026-11-28).
let testSettings: [SwiftSetting] = [.unsafeFlags(["-Onone"])]

let package = Package(
    name: "afkit",
    // Where Synchronization's Mutex and Atomic exist (Linux: every Swift 6 toolchain).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "AudioFormats", targets: ["AudioFormats"]),
        .library(name: "FileAccess", targets: ["FileAccess"]),
        .library(name: "AudioContainers", targets: ["AudioContainers"]),
        .library(name: "AudioCodecs", targets: ["AudioCodecs"]),
        .library(name: "AudioDecoding", targets: ["AudioDecoding"]),
        .library(name: "AssetValidation", targets: ["AssetValidation"]),
        .library(name: "AudioEngines", targets: ["AudioEngines"]),
        .library(name: "AudioConversion", targets: ["AudioConversion"]),
        .library(name: "AudioStreaming", targets: ["AudioStreaming"]),
        // The common case in one product: parse, decode, convert and validate, with every engine.
        .library(name: "AudioFileKit", targets: ["AudioFileKit"]),
        // Apple's C-style AudioToolbox API (Audio File, Audio File Stream, Extended Audio File, Audio Converter and
        // Audio Queue Services).
        .library(name: "AudioToolboxCompat", targets: ["AudioToolboxCompat"]),
        .executable(name: "afkit", targets: ["afkit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `make docs` only: a command plugin, fetched but never compiled into afkit.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // libm by name: a client that links a module alone links what it calls (`round`, `log10`).
        .target(name: "AudioFormats", linkerSettings: [libm]),
        .target(name: "FileAccess", dependencies: ["AudioFormats"]),
        // Ogg's page CRC folded by carry-less multiplication where the processor has it (the one C file kept
        // for speed: BENCHMARKS.md, 2026-11-27); the table-driven CRC in AudioFormats is the fallback.
        .target(name: "CFoldedCRC", path: "Sources/CFoldedCRC"),
        // The containers by kind, side by side on a build's cores, over the parsing core they share; AudioContainers
        // is their one face (it re-exports them) with the registry, detection, the push and read APIs and HLS.
        .target(name: "StreamParsing", dependencies: ["AudioFormats", "CFoldedCRC"]),
        .target(name: "ChunkedContainers", dependencies: ["AudioFormats", "StreamParsing"]),
        .target(name: "ElementaryStreams", dependencies: ["AudioFormats", "StreamParsing"]),
        .target(name: "ISOBaseMedia", dependencies: ["AudioFormats", "StreamParsing"]),
        .target(name: "PagedContainers", dependencies: ["AudioFormats", "StreamParsing"]),
        .target(
            name: "AudioContainers",
            dependencies: [
                "AudioFormats", "FileAccess", "StreamParsing", "ChunkedContainers", "ElementaryStreams", "ISOBaseMedia",
                "PagedContainers",
            ]),
        .target(name: "AudioCodecs", dependencies: ["AudioFormats"], linkerSettings: [libm]),
        // The one reader of decoded valid frames, shared by the converter and the validator (pure Swift).
        .target(name: "AudioDecoding", dependencies: ["AudioContainers", "AudioCodecs", "AudioFormats"]),
        // What the validator draws (waveforms, spectrograms, PNG) and the HTML report's style sheet and script,
        // files of their own compiled into the module: none of it reads a container, so a build compiles it
        // beside the containers.
        .target(
            name: "ReportGraphics", dependencies: ["AudioFormats"],
            resources: [.embedInCode("Resources/report.css"), .embedInCode("Resources/report.js")]),
        .target(
            name: "AssetValidation",
            dependencies: ["AudioContainers", "AudioCodecs", "AudioDecoding", "FileAccess", "ReportGraphics"]),
        // The field's C libraries, one wrapper a file, registered into AudioCodecRegistry.standard.
        .target(
            name: "AudioEngines",
            dependencies: [
                "AudioCodecs", "AudioFormats", "CLame", "CFAAD", "CSampleRate", "CSoxr", "CSndFile",
                "CAVCodec", "CEBUR128", "CFLAC", "COpus", "CVorbis", "CLibraryLoader",
            ]
        ),
        // The pipeline: plan, render, normalization, batch (no C library of its own).
        .target(
            name: "AudioConversion",
            dependencies: ["AudioContainers", "AudioCodecs", "AudioDecoding", "AudioEngines", "FileAccess"]
        ),
        .target(
            name: "AudioStreaming",
            dependencies: [
                "AudioContainers", "AudioFormats", "CCurl", "CLibraryLoader",
            ]
        ),
        systemLibrary("CLame", pkgConfig: "lame", apt: "libmp3lame-dev"),
        faad,
        systemLibrary("CSampleRate", pkgConfig: "samplerate", apt: "libsamplerate0-dev"),
        systemLibrary("CSoxr", pkgConfig: "soxr", apt: "libsoxr-dev"),
        systemLibrary("CSndFile", pkgConfig: "sndfile", apt: "libsndfile1-dev"),
        avcodec,
        systemLibrary("CEBUR128", pkgConfig: "libebur128", apt: "libebur128-dev"),
        systemLibrary("CFLAC", pkgConfig: "flac", apt: "libflac-dev"),
        systemLibrary("COpus", pkgConfig: "opus", apt: "libopus-dev"),
        systemLibrary("CVorbis", pkgConfig: "vorbisenc", apt: "libvorbis-dev"),
        curl,
        libraryLoader,
        .target(
            name: "AudioFileKit",
            dependencies: [
                "AssetValidation", "AudioCodecs", "AudioContainers", "AudioConversion", "AudioDecoding", "AudioEngines",
                "AudioFormats", "FileAccess",
            ]),
        .target(
            name: "AudioToolboxCompat",
            dependencies: [
                "AudioCodecs", "AudioContainers", "AudioConversion", "AudioEngines", "AudioFormats", "FileAccess",
            ]),
        .executableTarget(
            name: "afkit",
            dependencies: [
                "AudioContainers", "AssetValidation", "AudioConversion", "AudioDecoding", "AudioEngines",
                "AudioFileKit",
                "AudioStreaming",
                "FileAccess", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "afkit-codec-benchmarks",
            dependencies: [
                "AudioCodecs", "AudioContainers", "AudioConversion", "AudioDecoding", "AudioEngines", "CSoxr",
            ],
            path: "Benchmarks/CodecBenchmarks"
        ),
        // `make bench-streams`: many HTTP audio streams in one process (Benchmarks/Streams/bench-streams.py).
        .executableTarget(
            name: "afkit-stream-benchmark", dependencies: ["AudioStreaming", "AudioContainers", "AudioFormats"],
            path: "Benchmarks/Streams", exclude: ["bench-streams.py"]
        ),
        // A stream monitor as a server developer writes one, against AudioStreaming's public API alone (N stream URLs
        // in, ICY titles and packets a second out); StreamMonitorTests runs it against the loopback server.
        .executableTarget(
            name: "afkit-stream-monitor", dependencies: ["AudioStreaming"], path: "Examples/StreamMonitor"),
        .testTarget(name: "AudioFormatsTests", dependencies: ["AudioFormats"], swiftSettings: testSettings),
        .testTarget(
            name: "AudioContainersTests",
            dependencies: [
                "AudioContainers", "AudioConversion", "AudioDecoding", "AudioEngines", "FileAccess", "LoopbackServers",
            ], swiftSettings: testSettings),
        .testTarget(
            name: "AudioCodecsTests",
            dependencies: ["AudioCodecs", "AudioContainers", "AudioConversion", "AudioEngines"],
            swiftSettings: testSettings),
        .testTarget(
            name: "AssetValidationTests",
            dependencies: [
                "AssetValidation", "AudioContainers", "AudioCodecs", "AudioConversion", "AudioDecoding", "AudioEngines",
                "AudioFileKit",
                // A package served on a loopback port, inspected over HTTP.
                "AudioStreaming", "LoopbackServers",
            ], swiftSettings: testSettings),
        .testTarget(
            name: "AudioConversionTests",
            dependencies: [
                "AudioConversion", "AudioContainers", "AudioCodecs", "AudioDecoding", "AudioEngines", "FileAccess",
                // libebur128 itself, the reference afkit's own true-peak meter is held to.
                "CEBUR128",
                // Files written through Apple's C-style API, read back by libsndfile.
                "AudioToolboxCompat",
            ], swiftSettings: testSettings),
        // zlib, the independent reader of afkit's PNG pictures in the tests (afkit itself does not link it).
        .systemLibrary(name: "CZlib", path: "Tests/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Servers the network tests start on loopback ports (nginx, Icecast, a scripted hostile one, live ICY streams).
        .target(name: "LoopbackServers", path: "Tests/LoopbackServers", exclude: ["icy-stream-server.py"]),
        .testTarget(
            name: "AudioStreamingTests",
            dependencies: ["AudioStreaming", "AudioContainers", "AudioFormats", "LoopbackServers"],
            swiftSettings: testSettings),
        .testTarget(
            name: "afkitTests",
            dependencies: ["AudioContainers", "AudioFormats", "CZlib", "FileAccess", "LoopbackServers"],
            swiftSettings: testSettings),
        // Programs in AudioToolbox's C style, built against AudioToolboxCompat alone.
        .testTarget(name: "AudioToolboxCompatTests", dependencies: ["AudioToolboxCompat"], swiftSettings: testSettings),
        .testTarget(
            name: "FuzzRegressionTests",
            dependencies: ["AudioFormats", "AudioContainers", "AudioCodecs", "AssetValidation"],
            swiftSettings: testSettings),
    ],
    swiftLanguageModes: [.v6]
)
