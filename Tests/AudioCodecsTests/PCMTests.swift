import AudioCodecs
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import Foundation
import Testing

@Suite struct PCMTests {
    static let layouts: [(String, StreamDescription)] = [
        ("u8", .linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 8)),
        ("s8", .linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 8, signed8: true)),
        ("s16le", .linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 16)),
        ("s16be", .linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 16, isBigEndian: true)),
        ("s24le", .linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 24)),
        ("s24be", .linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 24, isBigEndian: true)),
        ("s20in24", .linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 20, bytesPerSample: 3)),
        ("s32le", .linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 32)),
        ("s32be", .linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 32, isBigEndian: true)),
        ("f32le", .linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 32, isFloat: true)),
        ("f32be", .linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 32, isFloat: true, isBigEndian: true)),
        ("f64le", .linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 64, isFloat: true)),
        ("f64be", .linearPCM(sampleRate: 8000, channels: 2, bitsPerChannel: 64, isFloat: true, isBigEndian: true)),
    ]

    /// Bytes in a layout whose values survive Float32 (integers of at most 24 significant bits).
    func representableBytes(_ format: StreamDescription, frames: Int) -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        var floats: [Float] = (0..<frames * 2).map { _ in
            Float(Int32.random(in: -(1 << 23)..<(1 << 23), using: &random)) / Float(1 << 23)
        }
        floats += [-1, 0, Float(32767) / 32768, Float(127) / 128]
        let bits = min(Int(format.bitsPerChannel), 24)
        if !format.formatFlags.contains(.isFloat) {
            // Keep only what the layout's bits hold, so the encode below is exact.
            let scale = Float(1 << (bits - 1))
            floats = floats.map { (($0 * scale).rounded(.down)) / scale }
        }
        var encoder = try? PCMEncoder(format: format)
        var bytes: [UInt8] = []
        _ = try? encoder?.encode(floats, into: &bytes)
        return bytes
    }

    @Test(arguments: layouts.map(\.0))
    func losslessRoundTrip(_ name: String) throws {
        let format = try #require(Self.layouts.first { $0.0 == name }?.1)
        let bytes = representableBytes(format, frames: 500)
        #expect(!bytes.isEmpty)
        var decoder = try PCMDecoder(format: format)
        var floats: [Float] = []
        let frames = try decoder.decode(
            bytes, packetCount: bytes.count / Int(format.bytesPerFrame), appendingTo: &floats)
        #expect(frames * Int(format.bytesPerFrame) == bytes.count)
        var encoder = try PCMEncoder(format: format)
        var again: [UInt8] = []
        _ = try encoder.encode(floats, into: &again)
        #expect(again == bytes)
    }

    /// Every pair of layouts that transcodes exactly gives what decoding to Float32 and encoding gives
    /// (for samples Float32 holds), and only pairs that lose nothing qualify.
    @Test(arguments: layouts.map(\.0))
    func transcodingMatchesTheFloatPath(_ name: String) throws {
        let source = try #require(Self.layouts.first { $0.0 == name }?.1)
        let from = try PCMLayout(source)
        let bytes = representableBytes(source, frames: 300)
        let samples = bytes.count / from.width
        var decoder = try PCMDecoder(format: source)
        var floats: [Float] = []
        _ = try decoder.decode(bytes, packetCount: samples / 2, appendingTo: &floats)
        var qualified = 0
        for (other, destination) in Self.layouts {
            let to = try PCMLayout(destination)
            let exact = PCM.transcodesExactly(from: from, to: to)
            #expect(
                exact == (from.isFloat == to.isFloat && (from.isFloat ? to.width >= from.width : to.bits >= from.bits)))
            guard exact else { continue }
            qualified += 1
            var transcoded = [UInt8](repeating: 0, count: samples * to.width)
            bytes.withUnsafeBytes { input in
                transcoded.withUnsafeMutableBytes { PCM.transcode(input, from, count: samples, to: to, into: $0) }
            }
            var encoder = try PCMEncoder(format: destination)
            var viaFloat: [UInt8] = []
            _ = try encoder.encode(floats, into: &viaFloat)
            #expect(transcoded == viaFloat, "\(name) to \(other)")
        }
        #expect(qualified >= 1)
    }

    @Test func scalingAtTheExtremes() throws {
        func decode(_ bytes: [UInt8], _ format: StreamDescription) throws -> [Float] {
            var decoder = try PCMDecoder(format: format)
            var out: [Float] = []
            _ = try decoder.decode(bytes, packetCount: bytes.count / Int(format.bytesPerFrame), appendingTo: &out)
            return out
        }
        let u8 = StreamDescription.linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 8)
        #expect(try decode([0, 128, 255], u8) == [-1, 0, Float(127) / 128])
        let s16 = StreamDescription.linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 16, isBigEndian: true)
        #expect(
            try decode([0x80, 0x00, 0x7F, 0xFF, 0xFF, 0xFF], s16) == [-1, Float(32767) / 32768, -Float(1) / 32768])
        let s24 = StreamDescription.linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 24)
        #expect(try decode([0x00, 0x00, 0x80, 0xFF, 0xFF, 0x7F], s24) == [-1, Float(8_388_607) / 8_388_608])
    }

    @Test func roundingAndClipping() throws {
        let s16 = StreamDescription.linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 16)
        var encoder = try PCMEncoder(format: s16)
        var bytes: [UInt8] = []
        let lsb = Float(1) / 32768
        _ = try encoder.encode(
            [1.5, -2, 1, 0.5 * lsb, 1.5 * lsb, -0.5 * lsb, 0.49 * lsb, .infinity, -.infinity], into: &bytes)
        let values = stride(from: 0, to: bytes.count, by: 2).map {
            Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
        }
        #expect(values == [32767, -32768, 32767, 0, 2, 0, 0, 32767, -32768])
        let u8 = StreamDescription.linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 8)
        var encoder8 = try PCMEncoder(format: u8)
        bytes = []
        _ = try encoder8.encode([-1, 0, 1, 2, -2], into: &bytes)
        #expect(bytes == [0, 128, 255, 255, 0])
    }

    /// 16-bit output without dither takes a Float path of its own; it must round (to nearest, ties
    /// to even), clip and map NaN exactly as the Double path does, in both byte orders.
    @Test func sixteenBitsWithoutDitherRoundTiesToEvenAndClip() throws {
        let lsb = Float(1) / 32768
        var inputs: [Float] = [
            .nan, -.nan, .infinity, -.infinity, 0, -0.0, 1, -1, 2, -2, .greatestFiniteMagnitude,
            32767.5 * lsb, 32766.5 * lsb, -32767.5 * lsb, -32768.5 * lsb, 1 - lsb / 4, .leastNonzeroMagnitude,
        ]
        // Every half-LSB point from -8 to 8 LSB (ties), and a spread of values across the range.
        inputs += (-16...16).map { Float($0) * 0.5 * lsb }
        var random = SystemRandomNumberGenerator()
        inputs += (0..<4000).map { _ in Float.random(in: -1.2...1.2, using: &random) }
        func expected(_ value: Float) -> Int16 {
            guard !value.isNaN else { return 0 }
            let scaled = min(max(Double(value) * 32768, -32768), 32767)
            return Int16(scaled.rounded(.toNearestOrEven))
        }
        for bigEndian in [false, true] {
            let format = StreamDescription.linearPCM(
                sampleRate: 8000, channels: 1, bitsPerChannel: 16, isBigEndian: bigEndian)
            var encoder = try PCMEncoder(format: format)
            var bytes: [UInt8] = []
            _ = try encoder.encode(inputs, into: &bytes)
            let values = stride(from: 0, to: bytes.count, by: 2).map {
                let (high, low) = bigEndian ? (bytes[$0], bytes[$0 + 1]) : (bytes[$0 + 1], bytes[$0])
                return Int16(bitPattern: UInt16(high) << 8 | UInt16(low))
            }
            let wrong = zip(inputs, values).filter { expected($0.0) != $0.1 }
            #expect(values.count == inputs.count && wrong.isEmpty, "\(wrong.prefix(5))")
        }
    }

    @Test func ditherDecorrelatesQuietSignalsAndStaysWithinOneLSB() throws {
        let s16 = StreamDescription.linearPCM(sampleRate: 48000, channels: 1, bitsPerChannel: 16)
        let lsb = Float(1) / 32768
        // A sine of 0.3 LSB: plain rounding erases it; dither keeps it, on average.
        let sine: [Float] = (0..<48000).map { 0.3 * lsb * Float(sin(2 * Double.pi * 1000 * Double($0) / 48000)) }
        var plain = try PCMEncoder(format: s16)
        var dithered = try PCMEncoder(format: s16, dither: true)
        var plainBytes: [UInt8] = []
        var ditheredBytes: [UInt8] = []
        _ = try plain.encode(sine, into: &plainBytes)
        _ = try dithered.encode(sine, into: &ditheredBytes)
        func samples(_ bytes: [UInt8]) -> [Double] {
            stride(from: 0, to: bytes.count, by: 2).map {
                Double(Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8))
            }
        }
        #expect(samples(plainBytes).allSatisfy { $0 == 0 })
        let output = samples(ditheredBytes)
        // The error is at most 1.5 LSB (±1 of dither, ±0.5 of rounding) and averages to zero.
        let errors = zip(output, sine).map { $0 - Double($1 / lsb) }
        #expect(errors.allSatisfy { abs($0) <= 1.5 })
        #expect(abs(errors.reduce(0, +) / Double(errors.count)) < 0.02)
        // The tone survives: correlation with the input is clearly positive.
        let correlation = zip(output, sine).map { $0 * Double($1) }.reduce(0, +)
        #expect(correlation > 0)
        // Deterministic: the same seed gives the same bytes.
        var again = try PCMEncoder(format: s16, dither: true)
        var againBytes: [UInt8] = []
        _ = try again.encode(sine, into: &againBytes)
        #expect(againBytes == ditheredBytes)
    }

    /// The generator's values are triangular on (-1, 1) LSB: mean 0, variance 1/6 (two independent
    /// uniforms of 1/12 each), and the two values of a pair, and consecutive pairs, uncorrelated.
    @Test func ditherValuesAreTriangularAndIndependent() {
        var dither = TPDFDither(seed: 0x5EED)
        let count = 200_000
        var firsts: [Double] = [], seconds: [Double] = []
        for _ in 0..<count {
            let (first, second) = dither.nextPair()
            firsts.append(first)
            seconds.append(second)
        }
        let all = firsts + seconds
        #expect(all.allSatisfy { $0 > -1 && $0 < 1 })
        let mean = all.reduce(0, +) / Double(all.count)
        let variance = all.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(all.count)
        #expect(abs(mean) < 0.005)
        #expect(abs(variance - 1.0 / 6) < 0.005)
        // Triangular, not uniform: 5/9 of the values lie within ±1/3 (a uniform spread puts 1/3 there).
        let central = Double(all.filter { abs($0) < 1.0 / 3 }.count) / Double(all.count)
        #expect(abs(central - 5.0 / 9) < 0.01)
        func correlation(_ a: ArraySlice<Double>, _ b: ArraySlice<Double>) -> Double {
            zip(a, b).reduce(0) { $0 + $1.0 * $1.1 } / Double(a.count) / variance
        }
        #expect(abs(correlation(firsts[...], seconds[...])) < 0.01)
        #expect(abs(correlation(seconds.dropLast(), firsts.dropFirst())) < 0.01)
    }

    @Test func ditherPolicy() throws {
        let f32 = StreamDescription.linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 32, isFloat: true)
        let s16 = StreamDescription.linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 16)
        let s24 = StreamDescription.linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 24)
        #expect(PCM.shouldDither(from: f32, to: s16))
        #expect(PCM.shouldDither(from: s24, to: s16))
        #expect(!PCM.shouldDither(from: s16, to: s16))
        #expect(!PCM.shouldDither(from: s16, to: s24))
        #expect(!PCM.shouldDither(from: s24, to: f32))
        #expect(try PCMEncoder(format: s16, convertingFrom: f32).isDithering)
        #expect(try !PCMEncoder(format: s16, convertingFrom: s16).isDithering)
        #expect(try !PCMEncoder(format: s24, convertingFrom: s16).isDithering)
    }

    /// afkit's PCM decoder and libsndfile's float reader agree on every PCM fixture.
    @Test(arguments: [
        "wav/pcm-u8-mono.wav", "wav/pcm-s16-stereo.wav", "wav/pcm-s24-stereo.wav", "wav/pcm-s32-mono.wav",
        "wav/float32-stereo.wav", "wav/float64-mono.wav", "aiff/pcm-s8-mono.aiff", "aiff/pcm-s24-mono.aiff",
        "aiff/sowt.aifc", "aiff/fl64.aifc", "caf/pcm-s16be-mono.caf", "caf/pcm-s24le-stereo.caf",
        "caf/float32-stereo.caf",
    ])
    func agreesWithLibsndfile(_ name: String) throws {
        let path = CodecFixtures.path(name)
        let file = try AudioFile(path: path)
        var decoder = try AudioCodecRegistry.builtIn.decoder(for: file.dataFormat)
        var ours: [Float] = []
        _ = try decoder.decode(try file.readAudioBytes(), packetCount: Int(file.packetCount), appendingTo: &ours)
        let theirs = try SoundFile(path: path).readFloat()
        #expect(ours.count == theirs.count)
        let worst = zip(ours, theirs).map { abs($0 - $1) }.max() ?? 0
        // libsndfile converts 32-bit integers through double; the rest are exact.
        #expect(worst <= (name.contains("s32") ? 1e-7 : 0), "\(name): largest difference \(worst)")
    }

    @Test func g711ThroughTheProtocol() throws {
        for id in [FourCharCode.ulaw, .alaw] {
            let format = StreamDescription.g711(id, sampleRate: 8000, channels: 2)
            var encoder = G711Encoder(format: format)
            var bytes: [UInt8] = []
            let input: [Float] = (0..<2000).map { Float(sin(Double($0) * 0.05)) * 0.8 }
            #expect(try encoder.encode(input, into: &bytes) == 1000)
            var decoder = try AudioCodecRegistry.builtIn.decoder(for: format)
            var output: [Float] = []
            _ = try decoder.decode(bytes, packetCount: 1000, appendingTo: &output)
            let reference = input.map { Int16(($0 * 32768).rounded()) }
            let snr = signalToNoise(reference, output.map { Int16(($0 * 32768).rounded()) })
            #expect(snr > 35, "\(id): \(snr) dB")
        }
    }
}
