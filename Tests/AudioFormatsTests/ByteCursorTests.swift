import AudioFormats
import Testing

@Suite struct ByteCursorTests {
    @Test func integersInBothByteOrders() {
        let bytes: [UInt8] = [0x12, 0x34, 0x56, 0x78, 0x9A]
        bytes.withUnsafeBytes { raw in
            var cursor = ByteCursor(raw, baseOffset: 100)
            #expect(cursor.peekInteger(endianness: .big, as: UInt16.self) == 0x1234)
            let word = cursor.readInteger(endianness: .little, as: UInt32.self)
            #expect(word == 0x7856_3412)
            #expect(cursor.absoluteOffset == 104)
            // Short read: nil, and nothing moves.
            let short = cursor.readInteger(endianness: .big, as: UInt16.self)
            #expect(short == nil)
            #expect(cursor.position == 4)
            let signed = cursor.readInteger(endianness: .big, as: Int8.self)
            #expect(signed == -102)
            #expect(cursor.getInteger(at: -1, endianness: .big, as: UInt8.self) == nil)
            #expect(cursor.getInteger(at: 3, endianness: .big, as: UInt16.self) == 0x789A)
            #expect(cursor.getInteger(at: 4, endianness: .big, as: UInt16.self) == nil)
        }
    }

    @Test func skipAndSlicesNeverTrap() {
        [UInt8](repeating: 7, count: 3).withUnsafeBytes { raw in
            var cursor = ByteCursor(raw)
            let skippedTooFar = cursor.skip(4)
            let skippedBackwards = cursor.skip(-1)
            #expect(!skippedTooFar && !skippedBackwards)
            #expect(cursor.position == 0)
            let slice = cursor.readSlice(5)
            #expect(slice == nil)
            let two = cursor.readBytes(2)
            #expect(two == [7, 7])
            #expect(cursor.remaining == 1)
        }
    }

    @Test func cafVarints() {
        func decode(_ bytes: [UInt8]) -> ByteCursor.VarintResult? {
            bytes.withUnsafeBytes { raw in
                var cursor = ByteCursor(raw)
                return cursor.readCAFVarint()
            }
        }
        #expect(decode([0x00]) == .value(0))
        #expect(decode([0x7F]) == .value(127))
        #expect(decode([0x81, 0x00]) == .value(128))
        #expect(decode([0x82, 0x80, 0x01]) == .value(0x8001))
        #expect(decode([0x81]) == nil)  // runs out
        #expect(decode([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]) == .overflow)
        // Round trip through the writer for values across the range.
        for value: Int64 in [0, 1, 127, 128, 300, 16_383, 16_384, 1 << 31, Int64.max >> 1, Int64.max] {
            var bytes: [UInt8] = []
            bytes.appendCAFVarint(value)
            #expect(decode(bytes) == .value(value), "\(value)")
        }
    }

    @Test func syncsafeIntegers() {
        [UInt8]([0x00, 0x00, 0x02, 0x01, 0x80, 0, 0, 0]).withUnsafeBytes { raw in
            var cursor = ByteCursor(raw)
            let first = cursor.readSyncsafeUInt32()
            let second = cursor.readSyncsafeUInt32()  // high bit set: not syncsafe
            #expect(first == 257)
            #expect(second == nil)
            #expect(cursor.position == 4)
        }
    }
}

@Suite struct Extended80Tests {
    static let standardRates: [Double] = [
        8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 47952, 48000, 64000, 88200, 96000, 176_400,
        192_000, 352_800, 384_000, 705_600, 768_000, 1, 0.5, 44_099.999_999_5,
    ]

    @Test(arguments: standardRates)
    func roundTripIsExact(_ rate: Double) throws {
        let encoded = Extended80(rate)
        #expect(encoded.doubleValue == rate)
        // And through bytes, as AIFF stores it.
        let bytes = encoded.bytes
        #expect(bytes.count == 10)
        let decoded = bytes.withUnsafeBytes { raw -> Extended80? in
            var cursor = ByteCursor(raw)
            return cursor.readExtended80()
        }
        #expect(decoded?.doubleValue == rate)
    }

    @Test func knownEncodings() {
        // 44100 Hz as every AIFF writer stores it: 400E AC44 0000 0000 0000.
        #expect(Extended80(44100).bytes == [0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0])
        #expect(Extended80(8000).bytes == [0x40, 0x0B, 0xFA, 0, 0, 0, 0, 0, 0, 0])
        #expect(Extended80(signAndExponent: 0x400E, mantissa: 0xAC44_0000_0000_0000).doubleValue == 44100)
    }

    @Test func nonFiniteAndExtremeValues() {
        #expect(Extended80(signAndExponent: 0x7FFF, mantissa: 0).doubleValue == nil)  // infinity
        #expect(Extended80(signAndExponent: 0x7FFF, mantissa: 0xC000_0000_0000_0000).doubleValue == nil)  // NaN
        #expect(Extended80(signAndExponent: 0x7FFE, mantissa: 0x8000_0000_0000_0000).doubleValue == .infinity)
        #expect(Extended80(signAndExponent: 0, mantissa: 0).doubleValue == 0)
        #expect(Extended80(signAndExponent: 0xC00E, mantissa: 0xAC44_0000_0000_0000).doubleValue == -44100)
        #expect(Extended80(signAndExponent: 1, mantissa: 1).doubleValue == 0)  // underflows to zero
    }
}

@Suite struct FourCharCodeTests {
    @Test func printableAndHexForms() {
        #expect(FourCharCode("lpcm").description == "lpcm")
        #expect(FourCharCode.aac.description == "aac ")
        #expect(FourCharCode.imaADPCMWAVE.description == "0x6D730011")
        #expect(FourCharCode(rawValue: 0x0000_0001).description == "0x00000001")
        #expect(FourCharCode("caff").rawValue == 0x6361_6666)
        #expect(FourCharCode(validating: "toolong") == nil)
        #expect(FourCharCode(validating: "abc") == nil)
        #expect(FourCharCode(validating: "ima4") == .ima4)
        #expect(FourCharCode.wave(formatTag: 0x11) == .imaADPCMWAVE)
    }
}

@Suite struct JSONValueTests {
    @Test func serializationKeepsOrderAndEscapes() {
        let value = JSONValue.object([
            ("b", .integer(-3)), ("a", .string("quote \" slash \\ tab \t nul \u{0}")), ("rate", .number(44100)),
            ("seconds", .number(0.25)), ("bad", .number(.nan)), ("list", .array([.bool(true), .null])),
            ("empty", .object([])),
        ])
        #expect(
            value.serialized()
                == #"{"b":-3,"a":"quote \" slash \\ tab \t nul \u0000","rate":44100,"seconds":0.25,"bad":null,"list":[true,null],"empty":{}}"#
        )
    }
}

@Suite struct StreamDescriptionTests {
    @Test func linearPCMFlagsUseApplesBits() {
        let s16 = StreamDescription.linearPCM(sampleRate: 44100, channels: 2, bitsPerChannel: 16)
        #expect(s16.formatFlags.rawValue == 4 | 8)
        #expect(s16.bytesPerFrame == 4)
        let u8 = StreamDescription.linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 8)
        #expect(u8.formatFlags.rawValue == 8)  // unsigned: no signed-integer bit
        let f32be = StreamDescription.linearPCM(
            sampleRate: 8000, channels: 1, bitsPerChannel: 32, isFloat: true,
            isBigEndian: true)
        #expect(f32be.formatFlags.rawValue == 1 | 2 | 8)
        let s20in24 = StreamDescription.linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 20, bytesPerSample: 3)
        #expect(s20in24.formatFlags.contains(.isAlignedHigh))
        #expect(!s20in24.formatFlags.contains(.isPacked))
        #expect(s20in24.bytesPerPacket == 6)
    }

    @Test func compressedDescriptions() {
        let ima = StreamDescription.appleIMA4(sampleRate: 22050, channels: 2)
        #expect(
            ima.bytesPerPacket == 68 && ima.framesPerPacket == 64 && ima.bytesPerFrame == 0 && ima.bitsPerChannel == 0)
        let ulaw = StreamDescription.g711(.ulaw, sampleRate: 8000, channels: 2)
        #expect(ulaw.bytesPerFrame == 2 && ulaw.bitsPerChannel == 8 && ulaw.formatFlags.rawValue == 0)
    }
}
