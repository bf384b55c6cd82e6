import AudioCodecs
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import Foundation
import Testing

/// The boxes of an MPEG-4 file, by path (`moov/trak/mdia/minf/stbl/stsz`): each box's body.
private func boxes(_ bytes: [UInt8]) -> [(path: String, offset: Int, body: ArraySlice<UInt8>)] {
    let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "edts", "udta", "ilst", "----", "dinf"]
    var found: [(String, Int, ArraySlice<UInt8>)] = []
    func walk(_ start: Int, _ end: Int, _ prefix: String) {
        var offset = start
        while offset + 8 <= end {
            var size =
                Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
            // Latin-1, so iTunes' '\u{A9}nam' reads as it is spelled.
            let type = String(bytes[offset + 4..<offset + 8].map { Character(Unicode.Scalar($0)) })
            var header = 8
            if size == 1 {
                size = (0..<8).reduce(0) { $0 << 8 | Int(bytes[offset + 8 + $1]) }
                header = 16
            }
            guard size >= header, offset + size <= end else { return }
            let path = prefix.isEmpty ? type : prefix + "/" + type
            found.append((path, offset, bytes[offset + header..<offset + size]))
            // Every item of `ilst` holds a `data` box.
            if containers.contains(type) || prefix.hasSuffix("ilst") { walk(offset + header, offset + size, path) }
            if type == "meta" { walk(offset + header + 4, offset + size, path) }
            offset += size
        }
    }
    walk(0, bytes.count, "")
    return found
}

private func integer(_ bytes: ArraySlice<UInt8>, at offset: Int, width: Int) -> Int {
    (0..<width).reduce(0) { $0 << 8 | Int(bytes[bytes.startIndex + offset + $1]) }
}

private func readS16(_ path: String) throws -> [Float] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return data.withUnsafeBytes { raw in
        (0..<raw.count / 2).map {
            Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))) / 32768
        }
    }
}

private func readS32(_ path: String) throws -> [Int32] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return data.withUnsafeBytes { raw in
        (0..<raw.count / 4).map { Int32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self)) }
    }
}

/// Signal-to-noise ratio of `decoded` against `source`, in dB, over the source's length.
private func snr(_ source: [Float], _ decoded: [Float]) -> Double {
    let count = min(source.count, decoded.count)
    var signal = 0.0
    var noise = 0.0
    for index in 0..<count {
        signal += Double(source[index]) * Double(source[index])
        let error = Double(source[index]) - Double(decoded[index])
        noise += error * error
    }
    return 10 * log10(signal / max(noise, 1e-30))
}

/// The lag (in frames, within ±`range`) at which `decoded` best lines up with `source`.
private func bestLag(_ source: [Float], _ decoded: [Float], range: Int = 64) -> Int {
    let count = min(source.count, decoded.count) - 2 * range
    var best = (lag: 0, score: -Double.infinity)
    for lag in -range...range {
        var score = 0.0
        for index in range..<count { score += Double(source[index]) * Double(decoded[index + lag]) }
        if score > best.score { best = (lag, score) }
    }
    return best.lag
}

private let speech = fixtures + "/signals/speech.wav"
private let outputs = fixtures + "/afkit-outputs"

@Suite struct CompressedOutputTests {
    /// ALAC is lossless: afkit's decode and libsndfile's (in-process) give back the source's samples,
    /// in CAF and in M4A, with the valid frames recorded exactly.
    @Test(arguments: ["caf", "m4a"])
    func appleLosslessIsExact(_ ext: String) throws {
        let folder = try Folder()
        let output = folder.path + "/speech." + ext
        let result = try AudioConverter.convert(input: speech, output: output, settings: settings("alac"))
        let source = try SoundFile(path: speech).readInt32()
        #expect(result.frameCount == Int64(source.count))
        #expect(result.format.formatID == .alac)
        #expect(result.packetTableInfo?.remainderFrames == Int32(4096 - source.count % 4096))
        // afkit reads its own files back, M4A included, to the source's samples.
        #expect(try decodedSamples(output) == source.map { Float($0 >> 16) / 32768 })
        let file = try AudioFile(path: output)
        #expect(file.properties.validFrameCount == Int64(source.count))
        #expect(file.properties.magicCookie?.count == 24)
        if ext == "caf" { #expect(try SoundFile(path: output).readInt32() == source) }
    }

    /// 24-bit sources stay 24-bit and exact.
    @Test func appleLosslessKeepsTwentyFourBits() throws {
        let folder = try Folder()
        let source = folder.path + "/deep.wav"
        var samples: [Float] = []
        for index in 0..<10000 {
            let value = sin(Double(index) * 0.031) * 0.7 + sin(Double(index) * 0.0017) * 0.2
            // Whole 24-bit steps, so the float source is exactly representable in 24 bits.
            samples.append(Float((value * 8_388_608).rounded() / 8_388_608))
            samples.append(-samples[samples.count - 1] * 0.5)
        }
        var deep = settings("LEI24")
        deep.fileType = .wav
        try writeFloatWAV(samples, rate: 48000, channels: 2, to: folder.path + "/float.wav")
        try AudioConverter.convert(input: folder.path + "/float.wav", output: source, settings: deep)
        let output = folder.path + "/deep.caf"
        let result = try AudioConverter.convert(input: source, output: output, settings: settings("alac"))
        #expect(result.format.formatFlags.rawValue == 3)  // 24-bit source data
        #expect(try SoundFile(path: output).readInt32() == SoundFile(path: source).readInt32())
        #expect(try decodedSamples(output) == decodedSamples(source))
    }

    /// ALAC at 20 and 32 bits keeps every bit (afkit's own encoder; libavcodec's writes 16 and 24 only):
    /// libsndfile, in-process (Apple's ALAC decoder inside), and FFmpeg (its decode committed, made when
    /// the files were) give back the source's integers, and afkit still makes the committed files byte for
    /// byte. The sources: SoX's 32-bit tone over brown noise, and its top 20 bits in a 20-bit AIFF.
    @Test(arguments: [
        ("deep20.aiff", "deep20-alac.caf", 20), ("deep32.wav", "deep32-alac.caf", 32),
        ("deep32.wav", "deep32-alac.m4a", 32),
    ])
    func appleLosslessKeepsEveryBit(_ source: String, _ name: String, _ depth: Int) throws {
        let folder = try Folder()
        let output = folder.path + "/" + name
        let result = try AudioConverter.convert(
            input: outputs + "/" + source, output: output, settings: settings("alac"))
        #expect(result.format.formatFlags.rawValue == (depth == 20 ? 2 : 4))
        #expect(result.frameCount == 4410)
        #expect(result.notes.isEmpty)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: output))
                == Data(contentsOf: URL(fileURLWithPath: outputs + "/" + name)))
        let expected = try SoundFile(path: outputs + "/" + source).readInt32()
        #expect(expected.count == 4410 * 2)
        // 20-bit samples have their low 12 bits clear; 32-bit ones use them.
        #expect(expected.allSatisfy { $0 & 0xFFF == 0 } == (depth == 20))
        #expect(try readS32(outputs + "/" + name + ".ffmpeg.s32le") == expected)
        if name.hasSuffix(".caf") { #expect(try SoundFile(path: output).readInt32() == expected) }
        let file = try AudioFile(path: output)
        #expect(file.properties.validFrameCount == 4410)
        #expect(file.properties.magicCookie.flatMap(AppleLossless.specificConfig(inCookie:))?[5] == UInt8(depth))
    }

    /// The encoder's worst case: full-scale 20-bit white noise (its residuals escape the Rice code, so a
    /// compressed try outgrows the verbatim packet before it is abandoned) comes back exactly through
    /// libavcodec's decoder, in packets no larger than the cookie says.
    @Test func appleLosslessNoiseAtTwentyBits() throws {
        var settings = EncoderSettings(
            format: AppleLossless.format(sampleRate: 44100, channels: 1, bitDepth: 20),
            sourceFormat: .linearPCM(sampleRate: 44100, channels: 1, bitsPerChannel: 24))
        settings.sourceBitDepth = 20
        var encoder = try AppleLosslessEncoder(settings)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let samples: [Int32] = (0..<3 * 4096 + 100).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int32(truncatingIfNeeded: state >> 32) & ~0xFFF  // 20 bits, left-justified
        }
        var packets = EncodedPackets()
        try samples.withUnsafeBufferPointer { try encoder.encode(leftJustified: $0, into: &packets) }
        #expect(try encoder.finish(into: &packets) == 4096 - 100)
        #expect(packets.packetCount == 4)
        #expect(packets.descriptions.allSatisfy { Int($0.dataByteSize) <= encoder.maximumPacketSize })
        var decoder = try AppleLosslessDecoder(format: encoder.destinationFormat, magicCookie: encoder.magicCookie)
        var decoded: [Float] = []
        try packets.bytes.withUnsafeBytes { bytes in
            try packets.descriptions.withUnsafeBufferPointer { descriptions in
                _ = try decoder.decode(
                    bytes, packetCount: packets.packetCount, descriptions: descriptions, appendingTo: &decoded)
            }
        }
        #expect(decoded.count == samples.count)
        #expect(decoded == samples.map { Float($0) / 2_147_483_648 })
    }

    /// Every channel count ALAC holds: each channel (a tone of its own) comes back exactly and in its
    /// place through libavcodec's decoder, which reads ALAC's element order (C, L R, …) back to WAV's.
    @Test(arguments: 1...8)
    func appleLosslessChannelCounts(_ channels: Int) throws {
        let format = AppleLossless.format(sampleRate: 48000, channels: UInt32(channels), bitDepth: 16)
        var settings = EncoderSettings(
            format: format,
            sourceFormat: .linearPCM(
                sampleRate: 48000,
                channels: UInt32(channels), bitsPerChannel: 16))
        settings.sourceBitDepth = 16
        var encoder = try AppleLosslessEncoder(settings)
        var samples: [Int32] = []
        for frame in 0..<5000 {
            for channel in 0..<channels {
                let tone =
                    sin(Double(frame) * 0.01 * Double(channel + 1)) * 12000 * Double(channel + 1) / Double(channels)
                samples.append(Int32(tone.rounded()) << 16)
            }
        }
        var packets = EncodedPackets()
        try samples.withUnsafeBufferPointer { try encoder.encode(leftJustified: $0, into: &packets) }
        _ = try encoder.finish(into: &packets)
        var decoder = try AppleLosslessDecoder(format: encoder.destinationFormat, magicCookie: encoder.magicCookie)
        var decoded: [Float] = []
        try packets.bytes.withUnsafeBytes { bytes in
            try packets.descriptions.withUnsafeBufferPointer { descriptions in
                _ = try decoder.decode(
                    bytes, packetCount: packets.packetCount, descriptions: descriptions, appendingTo: &decoded)
            }
        }
        #expect(decoded == samples.map { Float($0) / 2_147_483_648 })
    }

    /// ALAC to ALAC copies the packets (a 32-bit stream would lose bits through Float): CAF to M4A and back
    /// keep the packets byte for byte, and libsndfile reads the result to the 32-bit source exactly.
    @Test func appleLosslessIsCopiedNotReencoded() throws {
        let folder = try Folder()
        let m4a = try AudioConverter.convert(
            input: outputs + "/deep32-alac.caf", output: folder.path + "/a.m4a",
            settings: settings("alac"))
        #expect(m4a.frameCount == 4410)
        let caf = try AudioConverter.convert(
            input: folder.path + "/a.m4a", output: folder.path + "/b.caf",
            settings: settings("alac"))
        #expect(caf.format.formatFlags.rawValue == 4)
        let original = try AudioFile(path: outputs + "/deep32-alac.caf")
        let copy = try AudioFile(path: folder.path + "/b.caf")
        #expect(copy.packetCount == original.packetCount)
        #expect(try copy.readPackets(from: 0, count: 2).bytes == original.readPackets(from: 0, count: 2).bytes)
        #expect(copy.properties.magicCookie == original.properties.magicCookie)
        #expect(
            try SoundFile(path: folder.path + "/b.caf").readInt32()
                == SoundFile(path: outputs + "/deep32.wav").readInt32())
    }

    /// A float source is written at 24 bits, with a note; a 16-bit one at 16.
    @Test func appleLosslessDepthFollowsTheSource() throws {
        let folder = try Folder()
        var samples: [Float] = []
        for index in 0..<5000 { samples.append(Float(sin(Double(index) * 0.05) * 0.5)) }
        try writeFloatWAV(samples, rate: 44100, channels: 1, to: folder.path + "/float.wav")
        let fromFloat = try AudioConverter.convert(
            input: folder.path + "/float.wav", output: folder.path + "/f.caf",
            settings: settings("alac"))
        #expect(fromFloat.format.formatFlags.rawValue == 3)
        #expect(fromFloat.notes.contains { $0.contains("24 bits") })
        let fromSpeech = try AudioConverter.convert(
            input: speech, output: folder.path + "/s.caf", settings: settings("alac"))
        #expect(fromSpeech.format.formatFlags.rawValue == 1)
    }

    /// AAC in CAF: 1024 priming frames (the encoder's real delay), the remainder recorded, the valid
    /// frames the source's exactly; decoded, it lines up with the source at lag 0.
    @Test func aacInCAFIsGapless() throws {
        let folder = try Folder()
        let output = folder.path + "/speech.caf"
        var aac = settings("aac")
        aac.bitRate = 128_000
        let result = try AudioConverter.convert(input: speech, output: output, settings: aac)
        let source = try decodedSamples(speech)
        let file = try AudioFile(path: output)
        let table = try #require(file.properties.packetTableInfo)
        #expect(table.primingFrames == 1024)
        #expect(table.validFrames == Int64(source.count))
        #expect(
            Int64(table.primingFrames) + table.validFrames + Int64(table.remainderFrames) == file.packetCount * 1024)
        #expect(result.frameCount == Int64(source.count))
        let cookie = try #require(file.properties.magicCookie)
        // AAC-LC, 22.05 kHz, mono.
        #expect(AudioSpecificConfig.audioSpecificConfig(inElementaryStreamDescriptor: cookie) == [0x13, 0x88])
        let decoded = try decodedSamples(output)
        #expect(decoded.count == source.count)
        #expect(bestLag(source, decoded) == 0)
        // The same engine as FFmpeg's `-c:a aac -b:a 128k`: no worse than its SNR on this signal.
        let reference = try referenceSNR("speech")
        #expect(snr(source, decoded) >= reference - 0.5, "afkit \(snr(source, decoded)) dB, FFmpeg \(reference) dB")
    }

    /// The music signal as well: afkit's AAC wiring reaches FFmpeg's SNR at the same bit rate.
    @Test func aacMatchesFFmpegOnMusic() throws {
        let folder = try Folder()
        var aac = settings("aac")
        aac.bitRate = 128_000
        try AudioConverter.convert(
            input: fixtures + "/signals/music.wav", output: folder.path + "/m.caf", settings: aac)
        let source = try decodedSamples(fixtures + "/signals/music.wav")
        let decoded = try decodedSamples(folder.path + "/m.caf")
        #expect(bestLag(source, decoded) == 0)
        #expect(snr(source, decoded) >= (try referenceSNR("music")) - 0.5)
    }

    /// M4A: `moov` before `mdat`, an edit list from the priming for the valid frames, `iTunSMPB` with
    /// the same numbers, the same packets as the CAF, and the source's title as an `ilst` item.
    @Test func aacInM4AIsStreamableAndGapless() throws {
        let folder = try Folder()
        let titled = folder.path + "/titled.aif"
        var options = AudioFileWriterOptions()
        options.metadata = ["title": "Fox", "artist": "espeak-ng"]
        let pcm = try AudioFile(path: speech)
        let writer = try AudioFileWriter(
            path: titled, fileType: .aiff,
            format: .linearPCM(sampleRate: 22050, channels: 1, bitsPerChannel: 16, isBigEndian: true), options: options)
        var encoder = try PCMEncoder(format: writer.format)
        var bytes: [UInt8] = []
        _ = try encoder.encode(try decodedSamples(speech), into: &bytes)
        try writer.writePackets(bytes)
        try writer.close()
        let m4a = folder.path + "/speech.m4a"
        let caf = folder.path + "/speech.caf"
        try AudioConverter.convert(input: titled, output: m4a, settings: settings("aac"))
        try AudioConverter.convert(input: titled, output: caf, settings: settings("aac"))
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: m4a)))
        let found = boxes(file)
        let top = found.filter { !$0.path.contains("/") }.map(\.path)
        #expect(top.first == "ftyp")
        #expect(try #require(top.firstIndex(of: "moov")) < (try #require(top.firstIndex(of: "mdat"))))
        let frames = pcm.packetCount
        let elst = try #require(found.first { $0.path == "moov/trak/edts/elst" }?.body)
        #expect(integer(elst, at: 4, width: 4) == 1)
        #expect(integer(elst, at: 8, width: 8) == Int(frames))  // segment duration: the valid frames
        #expect(integer(elst, at: 16, width: 8) == 1024)  // media time: past the priming
        let smpb = try #require(found.first { $0.path == "moov/udta/meta/ilst/----/data" }?.body)
        let text = String(decoding: smpb.dropFirst(8), as: UTF8.self).split(separator: " ")
        let cafTable = try #require(try AudioFile(path: caf).properties.packetTableInfo)
        #expect(Int(text[1], radix: 16) == 1024)
        #expect(Int(text[2], radix: 16) == Int(cafTable.remainderFrames))
        #expect(Int(text[3], radix: 16) == Int(frames))
        let name = try #require(found.first { $0.path == "moov/udta/meta/ilst/\u{A9}nam/data" }?.body)
        #expect(String(decoding: name.dropFirst(8), as: UTF8.self) == "Fox")
        // The samples: stsz sizes and stco chunk offsets give the CAF's packets, byte for byte.
        let stsz = try #require(found.first { $0.path.hasSuffix("stbl/stsz") }?.body)
        let stco = try #require(found.first { $0.path.hasSuffix("stbl/stco") }?.body)
        let cafFile = try AudioFile(path: caf)
        #expect(integer(stsz, at: 8, width: 4) == Int(cafFile.packetCount))
        var offset = integer(stco, at: 8, width: 4)
        for packet in 0..<Int(cafFile.packetCount) {
            if packet % 64 == 0 { offset = integer(stco, at: 8 + packet / 64 * 4, width: 4) }
            let size = integer(stsz, at: 12 + packet * 4, width: 4)
            let (bytes, descriptions) = try cafFile.readPackets(from: Int64(packet), count: 1)
            #expect(
                Array(file[offset..<offset + size]) == Array(bytes[Int(descriptions[0].startOffset)...]),
                "packet \(packet)")
            offset += size
        }
    }

    /// ADTS: the same packets behind ADTS headers, read back by afkit's own parser; no gapless information.
    @Test func aacInADTS() throws {
        let folder = try Folder()
        try AudioConverter.convert(input: speech, output: folder.path + "/s.aac", settings: settings("aac"))
        try AudioConverter.convert(input: speech, output: folder.path + "/s.caf", settings: settings("aac"))
        let adts = try AudioFile(path: folder.path + "/s.aac")
        let caf = try AudioFile(path: folder.path + "/s.caf")
        #expect(adts.properties.fileType == .adts)
        #expect(adts.packetCount == caf.packetCount)
        #expect(adts.properties.magicCookie == [0x13, 0x88])
        let a = try adts.readPackets(from: 0, count: Int(adts.packetCount))
        let b = try caf.readPackets(from: 0, count: Int(caf.packetCount))
        for (x, y) in zip(a.descriptions, b.descriptions) {
            #expect(
                a.bytes[Int(x.startOffset)..<Int(x.startOffset) + Int(x.dataByteSize)]
                    == b.bytes[Int(y.startOffset)..<Int(y.startOffset) + Int(y.dataByteSize)])
        }
    }

    /// afkit still makes the committed files byte for byte (outputs are deterministic), and FFmpeg's
    /// probes and decodes of them, made when they were committed, say they are right: ALAC decodes to the
    /// source exactly; AAC's edit list starts at the first source frame and lasts the valid frames.
    @Test(arguments: ["speech-aac.m4a", "speech-aac.caf", "speech-alac.m4a", "speech-alac.caf"])
    func ffmpegReadsAFKitOutputs(_ name: String) throws {
        let folder = try Folder()
        let spec = name.contains("alac") ? "alac" : "aac"
        try AudioConverter.convert(input: speech, output: folder.path + "/" + name, settings: settings(spec))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: folder.path + "/" + name))
                == Data(contentsOf: URL(fileURLWithPath: outputs + "/" + name)))
        let probe =
            try JSONSerialization.jsonObject(
                with: Data(
                    contentsOf: URL(
                        fileURLWithPath: outputs + "/" + name
                            + ".ffprobe.json"))) as? [String: Any]
        let source = try decodedSamples(speech)
        #expect(probe?["codec_name"] as? String == spec)
        #expect(probe?["sample_rate"] as? String == "22050")
        // afkit reads back what FFmpeg reads: the same packets; for M4A, the valid frames FFmpeg's edit gives.
        let file = try AudioFile(path: outputs + "/" + name)
        #expect(Int64(probe?["nb_read_packets"] as? String ?? "") == file.packetCount)
        guard name.hasSuffix(".m4a") else { return }
        #expect(probe?["duration_ts"] as? Int == source.count)
        #expect(file.properties.validFrameCount == Int64(source.count))
        #expect(file.properties.isOptimized == true)
        let ours = try decodedSamples(outputs + "/" + name)
        #expect(ours.count == source.count)
        #expect(bestLag(source, ours) == 0)
        #expect(snr(source, ours) > (spec == "alac" ? 200 : 10))
        let decoded = try readS16(outputs + "/" + name + ".ffmpeg.s16le")
        if spec == "alac" {
            #expect(decoded == source)
        } else {
            // FFmpeg 5.1 applies the edit's start (the priming) but decodes the last packet whole.
            #expect(decoded.count >= source.count && decoded.count < source.count + 1024)
            #expect(bestLag(source, decoded) == 0)
            #expect(snr(source, decoded) > 10)
        }
    }

    /// The music preset copies an AAC source's packets into M4A untouched, and makes AAC from PCM.
    @Test func musicPresetMakesAAC() throws {
        let folder = try Folder()
        let made = try AudioConverter.convert(
            input: speech, output: folder.path + "/a.caf", settings: Preset.music.settings)
        #expect(made.format.formatID == .aac)
        let m4a = try AudioConverter.convert(
            input: folder.path + "/a.caf", output: folder.path + "/b.m4a",
            settings: Preset.music.settings)
        #expect(m4a.fileType == .m4a)
        #expect(m4a.frameCount == made.frameCount)
        #expect(m4a.packetTableInfo == made.packetTableInfo)
        let lossless = try AudioConverter.convert(
            input: speech, output: folder.path + "/c.caf",
            settings: Preset.lossless.settings)
        #expect(lossless.format.formatID == .alac)
        // A preset never writes its container under another's name.
        #expect(throws: ConversionUsageError.self) {
            try AudioConverter.convert(input: speech, output: folder.path + "/d.wav", settings: Preset.music.settings)
        }
        #expect(!folder.contents.contains("d.wav"))
    }

    private func referenceSNR(_ signal: String) throws -> Double {
        let manifest =
            try JSONSerialization.jsonObject(
                with: Data(
                    contentsOf: URL(
                        fileURLWithPath: outputs
                            + "/manifest.json"))) as? [String: Any]
        let entry = (manifest?["referenceSNR"] as? [String: Any])?[signal] as? [String: Any]
        return try #require(entry?["snr"] as? Double)
    }

    /// One rule for the presets' codecs (`givesWayToTheNamedCodec`): a lossy preset writes every container whose
    /// name picks a lossy codec (music's AAC an `.mp3`'s MP3, an `.ogg`'s Vorbis; voice's Opus an `.m4a`'s AAC), a
    /// lossless one those whose name picks a lossless codec (`.flac`), CAF first; none writes a PCM container. Voice
    /// wrote CAF and Ogg only, and refused `.m4a`.
    @Test func thePresetsCodecGivesWayToTheOneTheNamePicks() throws {
        #expect(Preset.music.settings.allowedFileTypes == [.caf, .m4a, .adts, .mp3, .ogg])
        #expect(Preset.voice.settings.allowedFileTypes == [.caf, .m4a, .adts, .mp3, .ogg])
        #expect(Preset.lossless.settings.allowedFileTypes == [.caf, .m4a, .flac])
        for preset in [Preset.music, .lossless, .voice] {
            #expect(preset.settings.adaptsToContainer, "\(preset)")
        }
        let voice = Preset.voice.settings
        let m4a = try ConversionPlan.Destination(output: "line.m4a", settings: voice)
        #expect(m4a.fileType == .m4a && m4a.dataFormat?.codec?.formatID == .aac)
        let mp3 = try ConversionPlan.Destination(output: "line.mp3", settings: voice)
        #expect(mp3.fileType == .mp3 && mp3.dataFormat?.codec?.formatID == .mpegLayer3)
        let ogg = try ConversionPlan.Destination(output: "line.opus", settings: voice)
        #expect(ogg.fileType == .ogg && ogg.dataFormat?.codec?.formatID == .opus)
        #expect(throws: ConversionUsageError.self) {
            try ConversionPlan.Destination(output: "line.wav", settings: voice)
        }
    }
}

/// Five-point-one through AAC and ALAC: the CAF's `chan` names the order Apple's decoders deliver
/// (C L R Ls Rs LFE), and afkit, decoding, gives every channel back in WAV's order.
@Suite struct MultichannelCompressedTests {
    static let frequencies: [Double] = [300, 500, 700, 60, 1100, 1300]  // the LFE channel a low tone

    static func source(_ folder: Folder) throws -> String {
        var samples: [Float] = []
        for index in 0..<44100 {
            for frequency in frequencies {
                samples.append(
                    Float((sin(2 * Double.pi * frequency * Double(index) / 44100) * 0.4 * 32768).rounded() / 32768))
            }
        }
        let path = folder.path + "/six.wav"
        try writeFloatWAV(samples, rate: 44100, channels: 6, to: folder.path + "/float.wav")
        try AudioConverter.convert(input: folder.path + "/float.wav", output: path, settings: settings("LEI16"))
        return path
    }

    @Test(arguments: ["alac", "aac"])
    func channelsKeepTheirPlace(_ spec: String) throws {
        let folder = try Folder()
        let wav = try Self.source(folder)
        let caf = folder.path + "/six.caf"
        try AudioConverter.convert(input: wav, output: caf, settings: settings(spec))
        #expect(try AudioFile(path: caf).properties.channelLayout == ChannelLayout(tag: ChannelLayout.Tag.mpeg5_1_D))
        let back = folder.path + "/back.wav"
        try AudioConverter.convert(input: caf, output: back, settings: settings("LEI16"))
        #expect(try AudioFile(path: back).properties.channelLayout == ChannelLayout(waveChannelMask: 0x3F))
        let original = try decodedSamples(wav)
        let decoded = try decodedSamples(back)
        if spec == "alac" {
            #expect(decoded == original)
            return
        }
        // Each channel correlates with its own source channel and no other.
        for channel in 0..<6 {
            let mine = stride(from: channel, to: original.count, by: 6).map { Double(original[$0]) }
            for other in 0..<6 {
                let theirs = stride(from: other, to: decoded.count, by: 6).map { Double(decoded[$0]) }
                let dot = zip(mine, theirs).reduce(0) { $0 + $1.0 * $1.1 }
                let norm = (mine.reduce(0) { $0 + $1 * $1 } * theirs.reduce(0) { $0 + $1 * $1 }).squareRoot()
                let correlation = dot / max(norm, 1e-12)
                if other == channel {
                    #expect(correlation > 0.9, "channel \(channel)")
                } else {
                    #expect(abs(correlation) < 0.1, "channel \(channel) in \(other)")
                }
            }
        }
    }
}
