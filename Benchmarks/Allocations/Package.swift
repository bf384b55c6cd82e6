// swift-tools-version:6.1
// The allocation gate of `make bench` (STYLE.md's rule 15): ordo-one's package-benchmark counts every
// malloc through its interposer while afkit parses and decodes. A package of its own, so the tests and
// the release build never build the benchmark tooling.
import Foundation
import PackageDescription

/// afkit, two folders up: a path dependency is named by its folder.
let afkitRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let afkit = afkitRoot.lastPathComponent.lowercased()

let package = Package(
    name: "afkit-allocations",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: afkitRoot.path),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "Allocations",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "AudioContainers", package: afkit),
                .product(name: "AudioCodecs", package: afkit),
                .product(name: "AudioDecoding", package: afkit),
                .product(name: "AudioConversion", package: afkit),
            ],
            path: "Benchmarks/Allocations",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
