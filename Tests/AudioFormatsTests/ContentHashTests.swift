import AudioFormats
import Testing

@Suite struct ContentHashTests {
    /// Vectors from the `xxhash` Python package (the reference C library's binding): XXH64, seed 0.
    @Test(arguments: [
        ([UInt8](), "ef46db3751d8e999"), (Array("a".utf8), "d24ec4f1a98c6e5b"), (Array("abc".utf8), "44bc2cf5ad770999"),
        ([UInt8]((0..<5).flatMap { _ in 0...255 }), "afc184ad7938a354"),
        ([UInt8](repeating: 0x78, count: 31), "60dd0d01083b99f0"),
        ([UInt8](repeating: 0x79, count: 32), "64da1f1d3495ce66"),
        ([UInt8](repeating: 0x7A, count: 33), "c5241253c64e0268"),
    ])
    func matchesTheReference(_ bytes: [UInt8], _ expected: String) {
        var hash = ContentHash()
        hash.update(bytes)
        #expect(hash.hexDigits == expected)
    }

    /// Any chunking gives the same hash.
    @Test func chunkingDoesNotMatter() {
        let bytes = [UInt8]((0..<5).flatMap { _ in 0...255 })
        for size in [1, 3, 7, 31, 32, 33, 100] {
            var hash = ContentHash()
            for start in stride(from: 0, to: bytes.count, by: size) {
                hash.update(Array(bytes[start..<min(start + size, bytes.count)]))
            }
            #expect(hash.hexDigits == "afc184ad7938a354", "pieces of \(size)")
        }
    }
}
