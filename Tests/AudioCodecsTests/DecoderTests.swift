import AudioCodecs
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import Foundation
import Testing

@Suite struct IMATableTests {
    @Test func tablesAreTheIMAOnes() {
        #expect(IMA.stepTable.count == 89)
        #expect(IMA.stepTable.first == 7 && IMA.stepTable.last == 32767)
        #expect(zip(IMA.stepTable, IMA.stepTable.dropFirst()).allSatisfy { $0 < $1 })
        #expect(IMA.indexTable == [-1, -1, -1, -1, 2, 4, 6, 8, -1, -1, -1, -1, 2, 4, 6, 8])
    }

    /// The two reconstructions differ on 202 of the 712 (step, magnitude) pairs.
    @Test func shiftAndAddAndMultiplyDiffer() {
        var differ = 0
        for step in IMA.stepTable {
            for magnitude in Int32(0)..<8
            where IMA.difference(step: step, magnitude: magnitude, .shiftAndAdd)
                != IMA.difference(step: step, magnitude: magnitude, .multiply)
            {
                differ += 1
            }
        }
        #expect(differ == 202)
    }
}

@Suite struct DecoderTests {
    /// Every FFmpeg- and SoX-made IMA, IMA ADPCM and G.711 fixture decodes exactly as FFmpeg decodes it.
    @Test(arguments: CodecFixtures.decoded)
    func bitExactWithFFmpeg(_ name: String) throws {
        let ours = try decodeToInt16(CodecFixtures.path("codecs/\(name)"))
        let theirs = CodecFixtures.ffmpegDecode(name)
        #expect(ours.count == theirs.count)
        let firstDifference = zip(ours, theirs).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "first difference at sample \(firstDifference ?? -1)")
    }

    /// FFmpeg 5 drops a packet whose header step index is past 88; afkit clamps it and decodes on.
    /// Every other packet matches FFmpeg.
    @Test func outOfRangeStepIndexIsClamped() throws {
        let path = CodecFixtures.path("codecs/bad-step-index-ima4.caf")
        let ours = try decodeToInt16(path)
        let theirs = CodecFixtures.ffmpegDecode("bad-step-index-ima4.caf")
        #expect(ours.count == theirs.count + 64)
        let before = 5 * 64
        let after = 6 * 64
        #expect(ours[0..<before].elementsEqual(theirs[0..<before]))
        #expect(ours[after...].elementsEqual(theirs[before...]))
        // The clamped packet is decoded from the header's predictor at step index 88.
        let file = try AudioFile(path: path)
        var decoder = AppleIMA4Decoder(format: file.dataFormat)
        var samples: [Int16] = []
        _ = try decoder.decode(try file.readPackets(from: 0, count: 10).bytes, packetCount: 10, appendingTo: &samples)
        #expect(decoder.clampedHeaderCount == 1)
    }

    @Test func g711TablesAreTheStandardOnes() {
        // Known values of ITU-T G.711: u-law 0x00 and 0x80 are the extremes, 0xFF and 0x7F zero.
        #expect(G711.ulawToLinear[0x00] == -32124 && G711.ulawToLinear[0x80] == 32124)
        #expect(G711.ulawToLinear[0xFF] == 0 && G711.ulawToLinear[0x7F] == 0)
        #expect(G711.alawToLinear[0xD5] == 8 && G711.alawToLinear[0x55] == -8)
        #expect(G711.alawToLinear[0xAA] == 32256 && G711.alawToLinear[0x2A] == -32256)
        // Encoding each code's value gives the code back (up to u-law's two zeros).
        for code in 0..<256 where code != 0x7F && code != 0xFF {
            #expect(G711.encode(G711.ulawToLinear[code], .ulaw) == UInt8(code))
            #expect(G711.encode(G711.alawToLinear[code], .alaw) == UInt8(code))
        }
    }

    @Test func g711RoundTripStaysWithinItsStep() {
        for sample in stride(from: Int32(-32768), through: 32767, by: 7) {
            for (format, table) in [(FourCharCode.ulaw, G711.ulawToLinear), (.alaw, G711.alawToLinear)] {
                let decoded = Int32(table[Int(G711.encode(Int16(sample), format))])
                // G.711's largest step is 1024 (u-law) or 1024 (A-law) at full scale.
                #expect(abs(decoded - sample) <= 1024 || abs(sample) > 32124)
            }
        }
    }

    /// Decoding random bytes never traps and stays in range; the two IMA decoders agree on frame counts.
    @Test func randomBytesDecodeSafely() throws {
        var random = SystemRandomNumberGenerator()
        for channels in UInt32(1)...3 {
            let bytes = (0..<34 * Int(channels) * 50).map { _ in UInt8.random(in: 0...255, using: &random) }
            var ima4 = AppleIMA4Decoder(format: .appleIMA4(sampleRate: 8000, channels: channels))
            var output: [Float] = []
            #expect(try ima4.decode(bytes, packetCount: 50, appendingTo: &output) == 50 * 64)
            #expect(output.allSatisfy { $0 >= -1 && $0 < 1 })
            let wav = StreamDescription(
                sampleRate: 8000, formatID: .imaADPCMWAVE, bytesPerPacket: 256 * channels,
                framesPerPacket: UInt32(
                    IMAADPCMWAVE.framesPerBlock(blockAlign: 256 * Int(channels), channels: Int(channels))),
                bytesPerFrame: 0, channelsPerFrame: channels, bitsPerChannel: 0)
            var decoder = try IMAADPCMWAVEDecoder(format: wav)
            var blocks = bytes
            // Valid headers (step index 0...88, reserved byte 0), random codes.
            for block in 0..<(bytes.count / (256 * Int(channels))) {
                for channel in 0..<Int(channels) {
                    blocks[block * 256 * Int(channels) + channel * 4 + 2] %= 89
                    blocks[block * 256 * Int(channels) + channel * 4 + 3] = 0
                }
            }
            output = []
            let count = bytes.count / (256 * Int(channels))
            #expect(
                try decoder.decode(blocks, packetCount: count, appendingTo: &output) == count * Int(wav.framesPerPacket)
            )
            #expect(output.allSatisfy { $0 >= -1 && $0 < 1 })
            // A header whose reserved byte is set is refused, as FFmpeg refuses it.
            blocks[3] = 1
            #expect(throws: AudioFileError.self) { try decoder.decode(blocks, packetCount: 1, appendingTo: &output) }
        }
    }

    /// IMA4 channels are independent: decoding 2 to 5 channels (decoded two at a time, an odd one
    /// alone) gives each channel exactly what decoding its blocks as a mono stream gives, with headers
    /// that continue, restart, and carry a step index past 88.
    @Test func ima4ChannelsDecodeAsTheirOwnMonoStreams() throws {
        var random = SystemRandomNumberGenerator()
        for channels in 2...5 {
            let packets = 40
            // afkit's encoder writes headers that continue the running state; every seventh block's
            // header is then replaced by a random one (a restart, or a step index past 88).
            let signal: [Int16] = (0..<packets * 64 * channels).map { index in
                let (frame, channel) = index.quotientAndRemainder(dividingBy: channels)
                let tone = 12000 * sin(Double(frame) * 0.01 * Double(channel + 1))
                return Int16(tone + Double(Int.random(in: -2000...2000, using: &random)))
            }
            var encoder = AppleIMA4Encoder(
                format: .linearPCM(sampleRate: 8000, channels: UInt32(channels), bitsPerChannel: 16),
                quality: .fast)
            var bytes: [UInt8] = []
            _ = signal.withUnsafeBufferPointer { encoder.encode(int16: $0, into: &bytes) }
            for block in stride(from: 3, to: packets * channels, by: 7) {
                bytes[block * 34] = UInt8.random(in: 0...255, using: &random)
                bytes[block * 34 + 1] = UInt8.random(in: 0...255, using: &random)
            }
            var decoder = AppleIMA4Decoder(format: .appleIMA4(sampleRate: 8000, channels: UInt32(channels)))
            var together: [Int16] = []
            #expect(try decoder.decode(bytes, packetCount: packets, appendingTo: &together) == packets * 64)
            var clamped = 0
            for channel in 0..<channels {
                var mono: [UInt8] = []
                for packet in 0..<packets {
                    let block = (packet * channels + channel) * 34
                    mono += bytes[block..<block + 34]
                }
                var alone = AppleIMA4Decoder(format: .appleIMA4(sampleRate: 8000, channels: 1))
                var samples: [Int16] = []
                _ = try alone.decode(mono, packetCount: packets, appendingTo: &samples)
                clamped += alone.clampedHeaderCount
                let extracted: [Int16] = stride(from: channel, to: together.count, by: channels).map { together[$0] }
                let firstDifference = zip(samples, extracted).enumerated().first { $0.element.0 != $0.element.1 }?
                    .offset
                #expect(
                    samples.count == extracted.count && firstDifference == nil,
                    "channel \(channel) of \(channels): first difference at frame \(firstDifference ?? -1)")
            }
            #expect(decoder.clampedHeaderCount == clamped)
        }
    }

    @Test func shortInputIsAnErrorNotATrap() {
        var decoder = AppleIMA4Decoder(format: .appleIMA4(sampleRate: 8000, channels: 2))
        var output: [Float] = []
        #expect(throws: AudioFileError.self) {
            try decoder.decode([UInt8](repeating: 0, count: 67), packetCount: 1, appendingTo: &output)
        }
    }
}
