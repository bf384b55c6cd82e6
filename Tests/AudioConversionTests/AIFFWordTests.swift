import AudioCodecs
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import Foundation
import Testing

/// AIFF and AIFF-C sample words read as Apple reads them, and sample rates with fractions converted:
/// the contract's decisions, on files assembled here (the recipe is `aifc(...)` below).
@Suite struct AIFFWordTests {
    /// An AIFF-C file: FORM/AIFC, FVER, COMM with `compression`, SSND with `data`.
    static func aifc(
        compression: String, channels: Int16 = 1, frames: UInt32, bits: Int16, rate: Double = 8000,
        data: [UInt8]
    ) -> [UInt8] {
        func be32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        func be16(_ value: Int16) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        // 80-bit extended: sign and exponent, then a 64-bit mantissa with its integer bit.
        let exponent = Int(rate.exponent)
        let mantissa = UInt64(rate.significand * Double(1 << 62)) << 1
        let extended =
            withUnsafeBytes(of: UInt16(16383 + exponent).bigEndian, Array.init)
            + withUnsafeBytes(of: mantissa.bigEndian, Array.init)
        let comm = be16(channels) + be32(frames) + be16(bits) + extended + Array(compression.utf8) + [0, 0]
        var body = Array("AIFC".utf8) + Array("FVER".utf8) + be32(4) + be32(0xA280_5140)
        body += Array("COMM".utf8) + be32(UInt32(comm.count)) + comm
        body += Array("SSND".utf8) + be32(UInt32(8 + data.count)) + be32(0) + be32(0) + data
        if data.count % 2 == 1 { body.append(0) }
        return Array("FORM".utf8) + be32(UInt32(body.count)) + body
    }

    static func decode(_ bytes: [UInt8]) throws -> (format: StreamDescription, samples: [Float]) {
        let folder = try Folder()
        let path = folder.path + "/words.aifc"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (try AudioFile(path: path).dataFormat, try decodedSamples(path))
    }

    /// `23ni` is little-endian 32-bit, `42ni` little-endian 24-bit, as Apple writes them.
    @Test func littleEndianIntegers() throws {
        let values: [Int32] = [1 << 16, -(1 << 30), 0x1234_5600, Int32.min]
        let le32 = values.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }
        let (format32, samples32) = try Self.decode(Self.aifc(compression: "23ni", frames: 4, bits: 32, data: le32))
        #expect(format32.bitsPerChannel == 32 && !format32.formatFlags.contains(.isBigEndian))
        #expect(samples32 == values.map { Float($0) / 2_147_483_648 })
        let le24 = values.flatMap { Array(withUnsafeBytes(of: ($0 >> 8).littleEndian, Array.init).prefix(3)) }
        let (format24, samples24) = try Self.decode(Self.aifc(compression: "42ni", frames: 4, bits: 24, data: le24))
        #expect(
            format24.bitsPerChannel == 24 && format24.bytesPerFrame == 3 && !format24.formatFlags.contains(.isBigEndian)
        )
        #expect(samples24 == values.map { Float($0 >> 8) / 8_388_608 })
    }

    /// 8-bit `raw ` is unsigned (offset binary).
    @Test func rawIsUnsigned() throws {
        let (format, samples) = try Self.decode(
            Self.aifc(compression: "raw ", frames: 3, bits: 8, data: [0, 128, 255]))
        #expect(!format.formatFlags.contains(.isSignedInteger))
        #expect(samples == [-1, 0, 127.0 / 128])
    }

    /// Sample sizes that are not a multiple of 8 keep their padding bits: the words are read as stored.
    @Test func paddingBitsAreNotMasked() throws {
        let words: [UInt16] = [0x1235, 0x8001, 0x7FFF]
        let data = words.flatMap { withUnsafeBytes(of: $0.bigEndian, Array.init) }
        let bytes = Self.aifc(compression: "NONE", frames: 3, bits: 12, data: data)
        let (format, samples) = try Self.decode(bytes)
        #expect(format.bitsPerChannel == 12 && format.bytesPerFrame == 2)
        #expect(samples == words.map { Float(Int16(bitPattern: $0)) / 32768 })
        // The lossless path to 16-bit PCM keeps the words too.
        let folder = try Folder()
        try Data(bytes).write(to: URL(fileURLWithPath: folder.path + "/twelve.aifc"))
        try AudioConverter.convert(
            input: folder.path + "/twelve.aifc", output: folder.path + "/sixteen.caf",
            settings: settings("BEI16"))
        let out = try AudioFile(path: folder.path + "/sixteen.caf").readAudioBytes()
        #expect(out == data)
    }

    /// Rates with fractions: CAF and AIFF keep them; WAV stores whole rates, so the audio is resampled
    /// to the nearest one, with a note, and lasts as long; a factor beyond 65536 is refused with a typed error.
    @Test(arguments: [8912.75, 5298.25])
    func ratesWithFractions(_ rate: Double) throws {
        let frames = 600
        let samples = (0..<frames).map { Int16(8000 * sin(Double($0) * 0.05)) }
        let data = samples.flatMap { withUnsafeBytes(of: $0.bigEndian, Array.init) }
        let folder = try Folder()
        let source = folder.path + "/odd.aifc"
        try Data(Self.aifc(compression: "NONE", frames: UInt32(frames), bits: 16, rate: rate, data: data))
            .write(to: URL(fileURLWithPath: source))
        #expect(try AudioFile(path: source).dataFormat.sampleRate == rate)
        let caf = try AudioConverter.convert(
            input: source, output: folder.path + "/odd.caf", settings: settings("LEI16"))
        #expect(caf.format.sampleRate == rate && caf.frameCount == Int64(frames))
        #expect(try decodedSamples(folder.path + "/odd.caf") == samples.map { Float($0) / 32768 })
        let ima = try AudioConverter.convert(
            input: source, output: folder.path + "/odd-ima.caf", settings: settings("ima4"))
        #expect(ima.format.sampleRate == rate && ima.frameCount == Int64(frames))
        let wav = try AudioConverter.convert(
            input: source, output: folder.path + "/odd.wav", settings: settings("LEI16"))
        #expect(wav.format.sampleRate == rate.rounded())
        #expect(wav.frameCount == Int64((Double(frames) * rate.rounded() / rate).rounded()))
        #expect(wav.notes.contains { $0.contains("whole sample rates") })
        var far = settings("LEI16")
        far.sampleRate = 1e9
        #expect(throws: AudioFileError.self) {
            try AudioConverter.convert(input: source, output: folder.path + "/far.caf", settings: far)
        }
    }
}

/// Every AIFF-C compression type in the wild (Tests/Fixtures/aifc-codecs, made by make-aifc-fixtures.py):
/// the format each describes, and decoded samples equal to the reference decoder's (FFmpeg's, or
/// libsndfile's for DWVW, which FFmpeg lacks) bit for bit.
@Suite struct AIFFCodecTests {
    static let folder = fixtures + "/aifc-codecs"
    static let names: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
        .filter { $0.hasSuffix(".aifc") }.sorted()

    static func sidecar(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name + ".json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func everyTypeIsThere() {
        #expect(Self.names.count >= 9)
    }

    /// DWVW is lossless: at 16 and 24 bits every sample afkit decodes and writes as integers is the integer
    /// libsndfile's `sf_readf_int` gives (not its float path, one step off on some files), exactly.
    @Test(arguments: [("dwvw16-sndfile.aifc", "LEI16"), ("dwvw24-sndfile.aifc", "LEI24")])
    func dwvwStaysExact(_ name: String, _ format: String) throws {
        let folder = try Folder()
        let output = folder.path + "/out.wav"
        try AudioConverter.convert(input: Self.folder + "/" + name, output: output, settings: settings(format))
        let source = try SoundFile(path: Self.folder + "/" + name)
        defer { source.close() }
        let written = try SoundFile(path: output)
        defer { written.close() }
        let expected = try source.readInt32()
        #expect(expected.count > 1000)
        #expect(try written.readInt32() == expected)
    }

    @Test(arguments: names)
    func formatAndReferenceDecode(_ name: String) throws {
        let side = try Self.sidecar(name)
        let expected = try #require(side["expected"] as? [String: Any])
        let path = Self.folder + "/" + name
        let file = try AudioFile(path: path)
        let format = file.dataFormat
        #expect(format.formatID.description == expected["formatID"] as? String)
        #expect(format.sampleRate == expected["sampleRate"] as? Double)
        #expect(Int(format.channelsPerFrame) == expected["channels"] as? Int)
        #expect(Int(format.framesPerPacket) == expected["framesPerPacket"] as? Int)
        #expect(Int(format.bytesPerPacket) == expected["bytesPerPacket"] as? Int)
        if let frames = expected["frameCount"] as? Int { #expect(file.properties.validFrameCount == Int64(frames)) }
        guard let reference = side["reference"] as? [String: Any] else { return }
        if let digest = reference["f32leXXH64"] as? String {
            // A float decoder's output, every bit: the XXH64 of FFmpeg's 32-bit float decode.
            let ours = try decodedSamples(path)
            var hash = ContentHash()
            ours.withUnsafeBytes { hash.update($0) }
            #expect(hash.hexDigits == digest, "\(name): our decode differs from FFmpeg's")
            #expect(ours.count == (reference["frames"] as? Int ?? -1) * Int(format.channelsPerFrame))
            #expect(file.properties.validFrameCount == Int64(reference["frames"] as? Int ?? -1))
            return
        }
        guard let refName = reference["file"] as? String else { return }
        let pcm = try Data(contentsOf: URL(fileURLWithPath: Self.folder + "/" + refName))
        let expectedSamples = pcm.withUnsafeBytes { raw in
            (0..<raw.count / 2).map {
                Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))) / 32768
            }
        }
        let ours = try decodedSamples(path)
        #expect(ours.count == expectedSamples.count)
        let firstDifference = zip(ours, expectedSamples).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(firstDifference == nil, "\(name): sample \(firstDifference?.offset ?? -1) differs")
        #expect(file.properties.validFrameCount == Int64(reference["frames"] as? Int ?? -1))
    }
}

/// QuickTime sound descriptions of PCM as FFmpeg writes them (Tests/Fixtures/quicktime, made by
/// make-quicktime-fixtures.sh): version 1 `in24`, `in32` and `fl32` with `enda` 1 are little-endian,
/// version 2 `lpcm` follows its bits and flags, a QuickTime-classic `stsz` of 1 means frames of the
/// description's bytes, and `twos`/`sowt` chunks between a video track's are read where `stco` puts them.
/// Each decodes to FFmpeg's decode, every float of it, with its frame count.
@Suite struct QuickTimePCMTests {
    static let folder = fixtures + "/quicktime"
    static let names: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
        .filter { $0.hasSuffix(".mov") }.sorted()

    @Test func everyDescriptionIsThere() {
        #expect(Self.names.count == 8)
    }

    @Test(arguments: names)
    func decodesAsFFmpegDoes(_ name: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.folder + "/" + name + ".json"))
        let side = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let reference = try #require(side["reference"] as? [String: Any])
        let path = Self.folder + "/" + name
        let file = try AudioFile(path: path)
        #expect(file.dataFormat.formatID == .lpcm)
        #expect(file.properties.validFrameCount == Int64(reference["frames"] as? Int ?? -1))
        #expect(file.packetCount == Int64(reference["frames"] as? Int ?? -1), "one packet a frame")
        let ours = try decodedSamples(path)
        var hash = ContentHash()
        ours.withUnsafeBytes { hash.update($0) }
        #expect(hash.hexDigits == reference["f32leXXH64"] as? String, "\(name): \(file.dataFormat)")
    }
}

/// FFmpeg's ALAC in CAF (its cookie wrapped in `frma`/`alac` atoms) decodes to the samples libsndfile's ALAC
/// of the same source does (both lossless: Tests/Fixtures/caf, make-fixtures.py).
@Test func ffmpegAppleLosslessInCAFDecodesLikeLibsndfiles() throws {
    let ffmpeg = try decodedSamples(fixtures + "/caf/alac-stereo.caf")
    let sndfile = try decodedSamples(fixtures + "/caf/sndfile-alac16.caf")
    #expect(sndfile.count == 8820 * 2 && ffmpeg == sndfile)
}
