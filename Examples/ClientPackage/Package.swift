// swift-tools-version:6.0
// A client of afkit's products, as a Swift program depends on them: one executable a product, each linking
// that product alone (`make prove-client` builds them and runs `client-proof`).
import PackageDescription

let products = [
    "AudioFormats", "FileAccess", "AudioContainers", "AudioCodecs", "AudioDecoding", "AssetValidation",
    "AudioEngines", "AudioConversion", "AudioStreaming", "AudioFileKit", "AudioToolboxCompat",
]

let package = Package(
    name: "afkit-client",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "afkit", path: "../..")],
    targets: products.map { product in
        .executableTarget(
            name: "uses-\(product)", dependencies: [.product(name: product, package: "afkit")],
            path: "Sources/uses-\(product)")
    } + [
        .executableTarget(
            name: "client-proof",
            dependencies: [
                .product(name: "AudioFileKit", package: "afkit"),
                .product(name: "AudioToolboxCompat", package: "afkit"),
            ])
    ]
)
