import AudioFormats
import Testing

/// File names as bytes in a `String`: every byte string survives the round trip exactly, valid UTF-8
/// stays the text it is, and the escaped bytes print as `\xFF`.
@Suite struct PathEscapingTests {
    @Test func everyByteStringRoundTrips() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        // Random bytes, weighted toward the interesting ones: UTF-8 leads and continuations, and the
        // encoding of the escape block itself (F4 8F BE/BF xx).
        let pieces: [[UInt8]] = [
            [0xFF], [0x80], [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x8E, 0xB5], [0xF4, 0x8F, 0xBE, 0x80],
            [0xF4, 0x8F, 0xBF, 0xBF], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0x61], [0x2F], [0xC3],
            [0xF4, 0x90, 0x80, 0x80],
        ]
        for _ in 0..<5000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(next() % 8) {
                if next() % 3 == 0 {
                    bytes.append(UInt8(truncatingIfNeeded: next()))
                } else {
                    bytes += pieces[Int(next() % UInt64(pieces.count))]
                }
            }
            let name = PathEscaping.string(fromBytes: bytes)
            #expect(PathEscaping.bytes(of: name) == bytes, "\(bytes)")
            #expect(
                PathEscaping.withCString(name) { pointer in
                    (0..<bytes.count).map { UInt8(bitPattern: pointer[$0]) } == bytes && pointer[bytes.count] == 0
                })
        }
    }

    @Test func validUTF8StaysTextAndEscapesPrintAsHex() {
        let text = "éffects/Ω-🎵.wav"
        #expect(PathEscaping.string(fromBytes: Array(text.utf8)) == text)
        #expect(PathEscaping.displayed(text) == text)
        let latin1 = PathEscaping.string(fromBytes: Array("caf".utf8) + [0xE9] + Array(".wav".utf8))
        #expect(PathEscaping.displayed(latin1) == "caf\\xE9.wav")
        #expect(JSONValue.string(latin1).serialized() == "\"caf\\\\xE9.wav\"")
    }
}
