import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import FileAccess
import Foundation
import Testing

/// A linear PCM layout to write and read back.
struct PCMCase: CustomStringConvertible, Sendable {
    var fileType: FileType
    var bits: UInt32
    var isFloat = false
    var isBigEndian = false
    var channels: UInt32 = 2
    var description: String {
        "\(fileType.rawValue) \(bits)-bit \(isFloat ? "float" : "int") \(isBigEndian ? "BE" : "LE") \(channels)ch"
    }

    var format: StreamDescription {
        .linearPCM(
            sampleRate: 44100, channels: channels, bitsPerChannel: bits, isFloat: isFloat,
            isBigEndian: isBigEndian, signed8: fileType != .wav)
    }
}

/// Full-scale test samples: a sweep of patterns that exercise every bit, plus the extremes.
func testSamples(count: Int, seed: UInt64) -> [Int32] {
    var random = SplitMix64(seed: seed)
    var samples: [Int32] = [Int32.min, Int32.max, 0, -1, 1 << 24, -(1 << 24)]
    while samples.count < count { samples.append(Int32(truncatingIfNeeded: random.next())) }
    return samples
}

/// Packs full-range samples into `bits`-bit integers (keeping the top bits) or floats.
func pack(_ samples: [Int32], _ pcm: PCMCase) -> [UInt8] {
    var bytes: [UInt8] = []
    let endianness: Endianness = pcm.isBigEndian ? .big : .little
    for sample in samples {
        if pcm.isFloat {
            let value = Double(sample) / 2_147_483_648
            if pcm.bits == 32 {
                bytes.appendInteger(Float(value).bitPattern, endianness: endianness)
            } else {
                bytes.appendInteger(value.bitPattern, endianness: endianness)
            }
            continue
        }
        let top = sample >> (32 - Int32(pcm.bits))
        switch pcm.bits {
        case 8: bytes.append(pcm.fileType == .wav ? UInt8(truncatingIfNeeded: top + 128) : UInt8(bitPattern: Int8(top)))
        case 16: bytes.appendInteger(Int16(top), endianness: endianness)
        case 24:
            let three = [
                UInt8(truncatingIfNeeded: top), UInt8(truncatingIfNeeded: top >> 8),
                UInt8(truncatingIfNeeded: top >> 16),
            ]
            bytes += pcm.isBigEndian ? three.reversed() : three
        default: bytes.appendInteger(top, endianness: endianness)
        }
    }
    return bytes
}

@Suite struct LibsndfileRoundTripTests {
    static let cases: [PCMCase] = [
        PCMCase(fileType: .wav, bits: 8), PCMCase(fileType: .wav, bits: 16), PCMCase(fileType: .wav, bits: 24),
        PCMCase(fileType: .wav, bits: 32), PCMCase(fileType: .wav, bits: 32, isFloat: true),
        PCMCase(fileType: .wav, bits: 64, isFloat: true, channels: 1), PCMCase(fileType: .wav, bits: 16, channels: 6),
        PCMCase(fileType: .wav, bits: 24, channels: 1), PCMCase(fileType: .rf64, bits: 16),
        PCMCase(fileType: .aiff, bits: 8, isBigEndian: true, channels: 1),
        PCMCase(fileType: .aiff, bits: 16, isBigEndian: true),
        PCMCase(fileType: .aiff, bits: 24, isBigEndian: true), PCMCase(fileType: .aiff, bits: 32, isBigEndian: true),
        PCMCase(fileType: .aifc, bits: 16), PCMCase(fileType: .aifc, bits: 16, isBigEndian: true),
        PCMCase(fileType: .aifc, bits: 32, isFloat: true, isBigEndian: true),
        PCMCase(fileType: .aifc, bits: 64, isFloat: true, isBigEndian: true, channels: 1),
        PCMCase(fileType: .caf, bits: 8, channels: 1), PCMCase(fileType: .caf, bits: 16),
        PCMCase(fileType: .caf, bits: 16, isBigEndian: true), PCMCase(fileType: .caf, bits: 24),
        PCMCase(fileType: .caf, bits: 24, isBigEndian: true), PCMCase(fileType: .caf, bits: 32),
        PCMCase(fileType: .caf, bits: 32, isFloat: true),
        PCMCase(fileType: .caf, bits: 64, isFloat: true, isBigEndian: true),
        PCMCase(fileType: .caf, bits: 16, channels: 5),
    ]

    @Test(arguments: cases)
    func libsndfileReadsWhatWeWriteSampleExact(_ pcm: PCMCase) throws {
        let path = temporaryPath("write.\(pcm.fileType.rawValue)")
        defer { removeTestFile(path) }
        // An odd frame count exercises the pad byte of 8-bit mono files.
        let frames = 1001
        let samples = testSamples(count: frames * Int(pcm.channels), seed: UInt64(pcm.bits))
        var options = AudioFileWriterOptions()
        options.metadata = ["title": "Round trip", "artist": "afkit"]
        let writer = try AudioFileWriter(path: path, fileType: pcm.fileType, format: pcm.format, options: options)
        let bytes = pack(samples, pcm)
        // Two calls, to prove appending.
        let split = Int(pcm.format.bytesPerFrame) * 10
        try writer.writePackets(Array(bytes[0..<split]))
        try writer.writePackets(Array(bytes[split..<bytes.count]))
        try writer.close()

        let file = try SoundFile(path: path)
        #expect(file.info.frames == Int64(frames))
        #expect(file.info.channels == Int(pcm.channels))
        #expect(file.info.sampleRate == 44100)
        if pcm.isFloat {
            let read = try file.readDouble()
            let want = samples.map {
                pcm.bits == 32 ? Double(Float(Double($0) / 2_147_483_648)) : Double($0) / 2_147_483_648
            }
            #expect(read == want)
        } else {
            let read = try file.readInt32()
            let shift = 32 - Int32(pcm.bits)
            #expect(read == samples.map { ($0 >> shift) << shift })
        }
        // And our own parser agrees on everything, metadata included.
        let ours = try AudioFile(path: path)
        #expect(ours.properties.dataFormat == pcm.format)
        #expect(ours.packetCount == Int64(frames))
        #expect(try ours.readAudioBytes() == bytes)
        #expect(ours.properties.infoDictionary["title"] == "Round trip")
        #expect(ours.properties.infoDictionary["artist"] == "afkit")
        #expect(ours.properties.fileType == pcm.fileType)
    }

    static let libsndfileFormats: [(String, Int32, FileType, UInt32)] = [
        ("wav", SoundFileFormat.wav | SoundFileFormat.pcm16, .wav, 16),
        ("wav", SoundFileFormat.wav | SoundFileFormat.pcm24, .wav, 24),
        ("wav", SoundFileFormat.wav | SoundFileFormat.float, .wav, 32),
        ("wav", SoundFileFormat.wav | SoundFileFormat.pcmU8, .wav, 8),
        ("rf64", SoundFileFormat.rf64 | SoundFileFormat.pcm16, .rf64, 16),
        ("aiff", SoundFileFormat.aiff | SoundFileFormat.pcm16, .aiff, 16),
        ("aiff", SoundFileFormat.aiff | SoundFileFormat.pcm32, .aiff, 32),
        ("caf", SoundFileFormat.caf | SoundFileFormat.pcm16, .caf, 16),
        ("caf", SoundFileFormat.caf | SoundFileFormat.pcm24 | SoundFileFormat.littleEndian, .caf, 24),
        ("caf", SoundFileFormat.caf | SoundFileFormat.double, .caf, 64),
    ]

    @Test(arguments: libsndfileFormats)
    func weReadWhatLibsndfileWrites(_ ext: String, _ format: Int32, _ type: FileType, _ bits: UInt32) throws {
        let path = temporaryPath("sndfile.\(ext)")
        defer { removeTestFile(path) }
        let frames = 777
        let samples = testSamples(count: frames * 2, seed: UInt64(format))
        let writer = try SoundFile(
            path: path, mode: .write,
            info: SoundFile.Info(sampleRate: 22050, channels: 2, format: format))
        try writer.write(int32: samples)
        writer.close()
        let reference = try SoundFile(path: path)
        let decoded = try reference.readDouble()

        let ours = try AudioFile(path: path)
        let description = try #require(ours.properties.dataFormat)
        #expect(ours.properties.fileType == type)
        #expect(description.sampleRate == 22050)
        #expect(description.channelsPerFrame == 2)
        #expect(description.bitsPerChannel == bits)
        #expect(ours.packetCount == Int64(frames))
        #expect(ours.properties.validFrameCount == reference.info.frames)
        // The bytes at our data offset are the samples libsndfile wrote.
        let raw = try ours.readAudioBytes()
        #expect(raw.count == frames * 2 * Int(description.bytesPerFrame / 2))
        #expect(unpack(raw, description) == decoded)
    }

    @Test func imaADPCMPacketsRewrittenDecodeTheSameInLibsndfile() throws {
        for (name, type) in [("wav/ima-adpcm-stereo.wav", FileType.wav), ("aiff/ima4-stereo.aifc", .aifc)] {
            let source = try AudioFile(path: Fixture.named(name).path)
            let path = temporaryPath("ima.\(type.rawValue)")
            defer { removeTestFile(path) }
            let writer = try AudioFileWriter(path: path, fileType: type, format: source.dataFormat)
            let (bytes, _) = try source.readPackets(from: 0, count: Int(source.packetCount))
            try writer.writePackets(bytes)
            try writer.close(packetTableInfo: source.properties.packetTableInfo)
            let original = try SoundFile(path: Fixture.named(name).path)
            let copy = try SoundFile(path: path)
            #expect(copy.info.frames == original.info.frames, "\(name)")
            #expect(try copy.readInt32() == original.readInt32(), "\(name)")
            let reparsed = try AudioFile(path: path)
            #expect(reparsed.properties.validFrameCount == source.properties.validFrameCount)
        }
    }

    @Test func g711InEveryContainer() throws {
        for type in [FileType.wav, .aifc, .caf] {
            for id in [FourCharCode.ulaw, .alaw] {
                let path = temporaryPath("g711.\(type.rawValue)")
                defer { removeTestFile(path) }
                let format = StreamDescription.g711(id, sampleRate: 8000, channels: 1)
                let bytes = (0..<4001).map { UInt8(truncatingIfNeeded: $0 * 7) }
                let writer = try AudioFileWriter(path: path, fileType: type, format: format)
                try writer.writePackets(bytes)
                try writer.close()
                let reference = try SoundFile(path: path)
                #expect(reference.info.frames == 4001)
                #expect(reference.info.subtype == (id == .ulaw ? SoundFileFormat.ulaw : SoundFileFormat.alaw))
                let ours = try AudioFile(path: path)
                #expect(ours.properties.dataFormat == format)
                #expect(try ours.readAudioBytes() == bytes)
            }
        }
    }

    @Test func ima4InCAFKeepsItsRemainder() throws {
        let source = try AudioFile(path: Fixture.named("caf/ima4-mono.caf").path)
        let path = temporaryPath("ima4.caf")
        defer { removeTestFile(path) }
        let writer = try AudioFileWriter(path: path, fileType: .caf, format: source.dataFormat)
        let (bytes, _) = try source.readPackets(from: 0, count: Int(source.packetCount))
        try writer.writePackets(bytes)
        let frames = source.packetCount * 64
        try writer.close(
            packetTableInfo: PacketTableInfo(validFrames: frames - 35, primingFrames: 0, remainderFrames: 35))
        let reread = try AudioFile(path: path)
        #expect(
            reread.properties.packetTableInfo
                == PacketTableInfo(validFrames: frames - 35, primingFrames: 0, remainderFrames: 35))
        #expect(try AudioFileSummary(reread.properties).frameCount == frames - 35)
        #expect(try reread.readAudioBytes() == bytes)
    }

    @Test func variablePacketsInCAFWriteTheirTable() throws {
        let source = try AudioFile(path: Fixture.named("caf/sndfile-alac16.caf").path)
        let path = temporaryPath("alac.caf")
        defer { removeTestFile(path) }
        var options = AudioFileWriterOptions()
        options.magicCookie = source.properties.magicCookie
        let writer = try AudioFileWriter(path: path, fileType: .caf, format: source.dataFormat, options: options)
        let (bytes, descriptions) = try source.readPackets(from: 0, count: Int(source.packetCount))
        try writer.writePackets(bytes, descriptions: descriptions)
        try writer.close(packetTableInfo: source.properties.packetTableInfo)
        // libsndfile decodes the copy to the same samples as the original.
        let original = try SoundFile(path: Fixture.named("caf/sndfile-alac16.caf").path)
        let copy = try SoundFile(path: path)
        #expect(copy.info.frames == original.info.frames)
        #expect(try copy.readInt32() == original.readInt32())
    }

    @Test func formatsAContainerCannotHoldAreRefusedBeforeCreatingTheFile() {
        let path = temporaryPath("refused.wav")
        let bigEndian = StreamDescription.linearPCM(
            sampleRate: 8000, channels: 1, bitsPerChannel: 16, isBigEndian: true)
        #expect(throws: AudioFileError.self) { try AudioFileWriter(path: path, fileType: .wav, format: bigEndian) }
        #expect(access(path, F_OK) != 0)
        let ima4 = StreamDescription.appleIMA4(sampleRate: 8000, channels: 1)
        #expect(throws: AudioFileError.self) { try AudioFileWriter(path: path, fileType: .aiff, format: ima4) }
        #expect(throws: AudioFileError.self) { try AudioFileWriter(path: path, fileType: .wav, format: ima4) }
    }
}

/// Decodes raw PCM bytes to doubles as libsndfile scales them.
func unpack(_ bytes: [UInt8], _ format: StreamDescription) -> [Double] {
    let width = Int(format.bytesPerFrame / format.channelsPerFrame)
    let big = format.formatFlags.contains(.isBigEndian)
    var values: [Double] = []
    var index = 0
    while index + width <= bytes.count {
        let sample = big ? Array(bytes[index..<index + width]) : Array(bytes[index..<index + width].reversed())
        var bits: UInt64 = 0
        for byte in sample { bits = bits << 8 | UInt64(byte) }
        if format.formatFlags.contains(.isFloat) {
            values.append(width == 4 ? Double(Float(bitPattern: UInt32(bits))) : Double(bitPattern: bits))
        } else if !format.formatFlags.contains(.isSignedInteger) {
            values.append((Double(bits) - 128) / 128)
        } else {
            let shift = 64 - width * 8
            let signed = Int64(bitPattern: bits << UInt64(shift)) >> Int64(shift)
            values.append(Double(signed) / Double(Int64(1) << Int64(width * 8 - 1)))
        }
        index += width
    }
    return values
}

/// A fresh path under /tmp for a file a test writes.
func temporaryPath(_ name: String) -> String {
    "/tmp/afkit-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))-\(name)"
}

/// Removes a file a test wrote, unless AFKIT_KEEP_TEST_FILES is set (to inspect it with other tools).
func removeTestFile(_ path: String) {
    if ProcessInfo.processInfo.environment["AFKIT_KEEP_TEST_FILES"] == nil { unlink(path) }
}
