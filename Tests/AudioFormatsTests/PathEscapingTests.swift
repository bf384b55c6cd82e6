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

    /// Control bytes in a name survive the round trip, print escaped (`\n`, `\t`, `\x1B`), and JSON writes them
    /// as the characters they are; text from a file is escaped the same way by `controlEscaped`.
    @Test func controlCharactersInNamesPrintEscaped() throws {
        let bytes = Array("a\nb\tc".utf8) + [0x1B, 0x7F, 0xFF] + Array(".wav".utf8)
        let name = PathEscaping.string(fromBytes: bytes)
        #expect(!name.contains("\n") && !name.contains("\t"))
        #expect(PathEscaping.bytes(of: name) == bytes)
        #expect(PathEscaping.displayed(name) == "a\\nb\\tc\\x1B\\x7F\\xFF.wav")
        #expect(JSONValue.string(name).serialized() == "\"a\\u000ab\\u0009c\\u001b\\u007f\\\\xFF.wav\"")
        let parsed = try #require(JSONValue(parsing: JSONValue.string(name).serialized()))
        #expect(parsed == .string("a\nb\tc\u{1B}\u{7F}\\xFF.wav"))
        #expect(PathEscaping.controlEscaped("title\r\n::x") == "title\\r\\n::x")
        #expect(PathEscaping.controlEscaped("plain") == "plain")
        // bash's $'...' gives the very bytes back: a newline, a quote, a backslash, a byte that is not UTF-8.
        let tricky = PathEscaping.string(fromBytes: Array("x\n'\\".utf8) + [0xFF] + Array(".wav".utf8))
        #expect(PathEscaping.needsANSIQuoting(tricky) && !PathEscaping.needsANSIQuoting("plain name.wav"))
        #expect(PathEscaping.ansiCQuoted(tricky) == "$'x\\n\\'\\\\\\xFF.wav'")
    }
}

/// SHA-256 against FIPS 180-4's examples and a million-byte message.
@Suite struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test func knownDigests() {
        #expect(Self.hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            Self.hex(SHA256.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Self.hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            Self.hex(SHA256.hash([UInt8](repeating: 0x61, count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // 55, 56 and 64 bytes: the padding's edges.
        #expect(
            Self.hex(SHA256.hash([UInt8](repeating: 0x61, count: 55)))
                == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(
            Self.hex(SHA256.hash([UInt8](repeating: 0x61, count: 56)))
                == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        #expect(
            Self.hex(SHA256.hash([UInt8](repeating: 0x61, count: 64)))
                == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }
}
