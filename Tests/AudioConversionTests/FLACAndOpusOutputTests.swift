import AudioCodecs
import AudioContainers
import AudioConversion
import AudioDecoding
import AudioEngines
import AudioFormats
import Foundation
import Testing

/// afkit's FLAC and Opus outputs, read back by libsndfile in-process (libFLAC's and libopus's decoders
/// behind it), by afkit's own parsers and decoders, and checked against what the formats promise:
/// FLAC's samples and MD5, Opus's pre-skip and end, CBR in CAF.
@Suite struct FLACAndOpusOutputTests {
    /// A file's samples as libsndfile reads them (left-justified 32-bit integers).
    static func libsndfileIntegers(_ path: String) throws -> (samples: [Int32], info: SoundFile.Info) {
        let file = try SoundFile(path: path)
        defer { file.close() }
        return (try file.readInt32(), file.info)
    }

    /// `--preset lossless` into a FLAC file (`.flac`, `batch -f flac`) is FLAC, not a refusal: the preset's
    /// Apple Lossless gives way to the container's lossless codec, every sample kept (libsndfile reads back
    /// the source's integers). A `-d alac` the user gives stays a usage error.
    @Test func thePresetLosslessWritesFLACToAFLACFile() throws {
        let folder = try Folder()
        let source = fixtures + "/signals/music.wav"
        let output = folder.path + "/out.flac"
        try AudioConverter.convert(input: source, output: output, settings: Preset.lossless.settings)
        #expect(try AudioFile(path: output).dataFormat.formatID == .flac)
        #expect(try Self.libsndfileIntegers(output).samples == Self.libsndfileIntegers(source).samples)
        var asked = Preset.lossless.settings
        asked.dataFormat = DataFormatSpecifier("alac")
        asked.adaptsToContainer = false
        #expect(throws: ConversionUsageError.self) {
            try AudioConverter.convert(input: source, output: folder.path + "/asked.flac", settings: asked)
        }
    }

    /// The same rule for `--preset music` and an `.mp3` name: the preset's AAC gives way to MP3; a `-d aac` the
    /// user gives is refused there, never dropped in silence (a new user's finding).
    @Test func thePresetMusicWritesMP3ToAnMP3FileUnlessAACIsAsked() throws {
        let folder = try Folder()
        let source = fixtures + "/signals/music.wav"
        try AudioConverter.convert(input: source, output: folder.path + "/out.mp3", settings: Preset.music.settings)
        #expect(try AudioFile(path: folder.path + "/out.mp3").dataFormat.formatID == .mpegLayer3)
        var asked = Preset.music.settings
        asked.dataFormat = DataFormatSpecifier("aac")
        asked.adaptsToContainer = false
        #expect(throws: ConversionUsageError.self) {
            try AudioConverter.convert(input: source, output: folder.path + "/asked.mp3", settings: asked)
        }
    }

    /// 8-, 16- and 24-bit sources, mono to 7.1, become `.flac` files libFLAC (through libsndfile) decodes to
    /// the source's very integers, whose `STREAMINFO` holds the MD5 of those samples (as `flac -t` checks
    /// it), the total and the frame sizes, and which afkit's decoder reads back the same.
    @Test(arguments: [
        "flac/eight-bit.flac", "signals/music.wav", "flac/hires-24bit.flac", "flac/surround-5.1.flac",
        "flac/octo-7.1.flac",
    ])
    func flacOutputKeepsEverySample(name: String) throws {
        let folder = try Folder()
        let source = fixtures + "/" + name
        let output = folder.path + "/out.flac"
        try AudioConverter.convert(input: source, output: output, settings: ConversionSettings())
        let (original, sourceInfo) = try Self.libsndfileIntegers(source)
        let (written, info) = try Self.libsndfileIntegers(output)
        #expect(info.sampleRate == sourceInfo.sampleRate && info.channels == sourceInfo.channels)
        #expect(written == original)

        let file = try AudioFile(path: output)
        #expect(file.dataFormat.formatID == .flac)
        let streamInfo = try #require(FLACStreamInfo(cookie: file.properties.magicCookie ?? []))
        let bits = try #require(sourceInfo.integerBits)
        #expect(streamInfo.bitsPerSample == Int(bits))
        #expect(streamInfo.totalSamples == Int64(original.count / info.channels))
        var md5 = MD5()
        let width = (Int(bits) + 7) / 8
        var bytes: [UInt8] = []
        for sample in original {
            let value = sample >> (32 - Int32(bits))
            for byte in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * byte))) }
        }
        md5.update(bytes)
        #expect(streamInfo.md5 == md5.finalize())
        // The frame sizes STREAMINFO states are the smallest and largest packets.
        let packets = try file.readPackets(from: 0, count: Int(file.packetCount))
        let sizes = packets.descriptions.map { Int($0.dataByteSize) }
        #expect(streamInfo.minimumFrameSize == sizes.min() && streamInfo.maximumFrameSize == sizes.max())
        #expect(try decodedSamples(output) == (try decodedSamples(source)))
    }

    /// `-d flac` writes FLAC in CAF as Apple does: a whole `dfLa` box as the cookie (what FFmpeg's CAF
    /// reader requires), `pakt` stating the valid frames, and the source's samples.
    @Test func flacInCAFCarriesADfLaCookie() throws {
        let folder = try Folder()
        let source = fixtures + "/flac/hires-24bit.flac"
        let output = folder.path + "/out.caf"
        try AudioConverter.convert(input: source, output: output, settings: settings("flac"))
        let file = try AudioFile(path: output)
        #expect(file.dataFormat.formatID == .flac && file.dataFormat.formatFlags.rawValue == 3)
        let cookie = try #require(file.properties.magicCookie)
        #expect(cookie.count == 50 && cookie[0..<8] == [0, 0, 0, 50] + Array("dfLa".utf8))
        #expect(FLACStreamInfo(cookie: cookie)?.totalSamples == 12000)
        #expect(file.properties.validFrameCount == 12000)
        #expect(try decodedSamples(output) == (try decodedSamples(source)))
    }

    /// afconvert's `-q` picks libFLAC's level: 0 is level 0 (blocks of 1152), 127 level 8, which is smaller.
    @Test func qualityPicksTheCompressionLevel() throws {
        let folder = try Folder()
        let source = fixtures + "/signals/music.wav"
        var sizes: [Int] = []
        for quality in [0, 127] {
            var conversion = ConversionSettings()
            conversion.quality = quality
            let output = folder.path + "/q\(quality).flac"
            try AudioConverter.convert(input: source, output: output, settings: conversion)
            let file = try AudioFile(path: output)
            #expect(file.dataFormat.framesPerPacket == (quality == 0 ? 1152 : 4096))
            sizes.append(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int ?? 0)
        }
        #expect(sizes[1] < sizes[0])
    }

    /// A 48 kHz test signal: a chirp with a click every 100 ms, so any shift of the decoded frames shows.
    static func signal(frames: Int, channels: Int) -> [Float] {
        var samples: [Float] = []
        for frame in 0..<frames {
            let time = Double(frame) / 48000
            let chirp = 0.4 * sin(2 * Double.pi * (200 * time + 900 * time * time))
            let click = frame % 4800 < 24 ? 0.4 : 0.0
            for channel in 0..<channels { samples.append(Float(chirp * (channel == 0 ? 1 : -0.7) + click)) }
        }
        return samples
    }

    /// ``signal(frames:channels:)`` written as a float WAV in a fresh folder.
    static func signalFile(frames: Int, channels: Int) throws -> (Folder, String, [Float]) {
        let folder = try Folder()
        let samples = signal(frames: frames, channels: channels)
        try writeFloatWAV(samples, rate: 48000, channels: UInt32(channels), to: folder.path + "/source.wav")
        return (folder, folder.path + "/source.wav", samples)
    }

    /// The lag (in frames, within ±`range`) at which `decoded` best matches `reference`, by correlation of
    /// the first channel.
    static func bestLag(_ decoded: [Float], _ reference: [Float], channels: Int, range: Int) -> Int {
        let frames = min(decoded.count, reference.count) / channels
        var best = (lag: 0, score: -Double.infinity)
        for lag in stride(from: -range, through: range, by: 1) {
            var score = 0.0
            for frame in stride(from: range, to: frames - range, by: 3) {
                score += Double(decoded[(frame + lag) * channels]) * Double(reference[frame * channels])
            }
            if score > best.score { best = (lag, score) }
        }
        return best.lag
    }

    /// `.opus` (Ogg Opus): libsndfile's libopus reader gives exactly the source's frame count, in place
    /// (the pre-skip and the last granule as the writer stated them), and so does afkit's reader; the
    /// pages pass afkit's CRC check, the header names the source's rate, and the tags carry the title.
    @Test func oggOpusOutputIsGapless() throws {
        let frames = 33_333
        let (folder, source, samples) = try Self.signalFile(frames: frames, channels: 2)
        let output = folder.path + "/out.opus"
        try AudioConverter.convert(input: source, output: output, settings: ConversionSettings())
        let file = try AudioFile(path: output)
        #expect(file.dataFormat.formatID == .opus && file.dataFormat.sampleRate == 48000)
        #expect(file.properties.packetTableInfo?.primingFrames == 312)
        #expect(file.properties.validFrameCount == Int64(frames))

        let reference = try SoundFile(path: output)
        defer { reference.close() }
        #expect(reference.info.frames == Int64(frames))
        let decoded = try reference.readFloat()
        #expect(Self.bestLag(decoded, samples, channels: 2, range: 400) == 0)
        let ours = try decodedSamples(output)
        #expect(ours.count == frames * 2)
        #expect(Self.bestLag(ours, samples, channels: 2, range: 400) == 0)
    }

    /// `-d opus` in CAF: constant bit rate (every packet the size `-b` gives), 960-frame packets, no
    /// cookie (as FFmpeg writes it and Apple's players take it), `pakt` with libopus's pre-skip; afkit
    /// decodes it in place. VBR when asked (`-s 3`). Five channels are refused in CAF.
    @Test func opusInCAFIsConstantBitRate() throws {
        let frames = 20_000
        let (folder, source, samples) = try Self.signalFile(frames: frames, channels: 1)
        var conversion = settings("opus")
        conversion.bitRate = 32000
        let output = folder.path + "/out.caf"
        try AudioConverter.convert(input: source, output: output, settings: conversion)
        let file = try AudioFile(path: output)
        #expect(file.dataFormat.formatID == .opus && file.dataFormat.framesPerPacket == 960)
        #expect(file.properties.magicCookie == nil)
        #expect(file.properties.packetTableInfo?.primingFrames == 312)
        #expect(file.properties.validFrameCount == Int64(frames))
        let packets = try file.readPackets(from: 0, count: Int(file.packetCount))
        #expect(Set(packets.descriptions.map(\.dataByteSize)) == [80])  // 32 kbit/s × 20 ms
        let decoded = try decodedSamples(output)
        #expect(decoded.count == frames)
        #expect(Self.bestLag(decoded, samples, channels: 1, range: 400) == 0)

        conversion.strategy = .variable
        try AudioConverter.convert(input: source, output: output, settings: conversion)
        let variable = try AudioFile(path: output)
        let sizes = try variable.readPackets(from: 0, count: Int(variable.packetCount)).descriptions.map(\.dataByteSize)
        #expect(Set(sizes).count > 1)

        let surround = folder.path + "/surround.wav"
        try writeFloatWAV(Self.signal(frames: 4800, channels: 5), rate: 48000, channels: 5, to: surround)
        #expect(throws: AudioFileError.self) {
            try AudioConverter.convert(input: surround, output: folder.path + "/five.caf", settings: settings("opus"))
        }
        // In Ogg, five channels are mapping family 1; libsndfile reads them back.
        try AudioConverter.convert(input: surround, output: folder.path + "/five.opus", settings: ConversionSettings())
        let five = try SoundFile(path: folder.path + "/five.opus")
        defer { five.close() }
        #expect(five.info.channels == 5 && five.info.frames == 4800)
    }

    /// afkit's Ogg Opus reader puts the decoded frames where `opusdec` puts them (libavcodec's own
    /// pre-skip handling is not added to the reader's, which put them 312 frames early). libavcodec's SILK
    /// decoder runs 2 frames behind libopus's on this speech (FFmpeg's own decode does the same), so the
    /// best match is within a few frames, and close there.
    @Test func oggOpusDecodesWhereOpusdecDoes() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/ogg/opusenc-voice.opusdec.s16"))
        let reference = data.withUnsafeBytes { bytes in
            (0..<bytes.count / 2).map {
                Float(Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))) / 32768
            }
        }
        let decoded = try decodedSamples(fixtures + "/ogg/opusenc-voice.opus")
        let lag = Self.bestLag(decoded, reference, channels: 1, range: 400)
        #expect(abs(lag) <= 4)
        let pairs = (400..<reference.count - 400).map { (decoded[$0 + lag], reference[$0]) }
        let error = pairs.reduce(0.0) { $0 + Double(($1.0 - $1.1) * ($1.0 - $1.1)) }
        let power = pairs.reduce(0.0) { $0 + Double($1.1 * $1.1) }
        #expect(10 * log10(power / error) > 15)
    }
}

extension FLACAndOpusOutputTests {
    /// `--preset voice`: Opus in CAF, mono, 32 kbit/s at a constant bit rate (80-byte packets); speech
    /// comes back close to its source (correlation above 0.97 where AAC-LC at that rate gives 0.93).
    @Test func voicePresetWritesConstantRateOpus() throws {
        let folder = try Folder()
        let source = fixtures + "/signals/speech.wav"
        let output = folder.path + "/line.caf"
        try AudioConverter.convert(input: source, output: output, settings: Preset.voice.settings)
        let file = try AudioFile(path: output)
        #expect(file.dataFormat.formatID == .opus && file.dataFormat.channelsPerFrame == 1)
        let sizes = try file.readPackets(from: 0, count: Int(file.packetCount)).descriptions.map(\.dataByteSize)
        #expect(Set(sizes) == [80])
        let back = folder.path + "/back.wav"
        try AudioConverter.convert(input: output, output: back, settings: settings("LEF32@22050"))
        let decoded = try decodedSamples(back)
        let original = try decodedSamples(source)
        #expect(decoded.count == original.count)
        let dot = zip(decoded, original).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
        let energy = (decoded.reduce(0.0) { $0 + Double($1 * $1) }, original.reduce(0.0) { $0 + Double($1 * $1) })
        #expect(dot / (energy.0 * energy.1).squareRoot() > 0.97)
    }
}

extension FLACAndOpusOutputTests {
    /// A FLAC, Opus or Vorbis source keeps exactly its valid frames (at the output's rate) whatever it is
    /// converted to: the gapless outputs (CAF, M4A, FLAC, Ogg Opus) record the same length.
    @Test(arguments: ["flac/speech.flac", "ogg/opusenc-voice.opus", "ogg/oggenc-speech.ogg"])
    func soundLibrarySourcesKeepTheirLength(name: String) throws {
        let folder = try Folder()
        let source = try SourceReader(path: fixtures + "/" + name)
        let frames = try #require(source.frameCount)
        for (output, rate) in [
            ("a.caf", source.sampleRate), ("b.m4a", source.sampleRate), ("c.flac", source.sampleRate),
            ("d.opus", 48000.0), ("e.caf", 48000.0),
        ] {
            var conversion = ConversionSettings()
            if output == "e.caf" { conversion.dataFormat = DataFormatSpecifier("opus") }
            let path = folder.path + "/" + output
            try AudioConverter.convert(input: fixtures + "/" + name, output: path, settings: conversion)
            let expected = Int64((Double(frames) * rate / source.sampleRate).rounded())
            let written = try AudioFile(path: path).properties.validFrameCount
            #expect(written == expected, "\(name) → \(output)")
            #expect(try decodedSamples(path).count == Int(expected) * source.channels, "\(name) → \(output)")
        }
    }
}

/// AAC moved between containers is copied, not encoded again, unless a change is asked; `-d 0` asks for
/// the source's own format explicitly (packets copied, PCM kept) and refuses what it cannot do; a lossy
/// source encoded again says so.
@Suite struct PacketCopyTests {
    /// The packets of a file, each as its description places it (ADTS headers between them left out).
    static func packetBytes(_ path: String) throws -> [[UInt8]] {
        let file = try AudioFile(path: path)
        let (bytes, descriptions) = try file.readPackets(from: 0, count: Int(file.packetCount))
        return descriptions.map {
            Array(bytes[Int($0.startOffset)..<Int($0.startOffset) + Int($0.dataByteSize)])
        }
    }

    @Test(arguments: [
        ("mp4/aac-faststart.m4a", "a.aac"), ("adts/aac-lc-44k-stereo.aac", "b.m4a"), ("mp4/aac-mono-22k.m4a", "c.caf"),
    ])
    func aacChangingContainerIsCopied(source: String, output: String) throws {
        let folder = try Folder()
        let path = folder.path + "/" + output
        var conversion = ConversionSettings()
        if output.hasSuffix(".caf") { conversion.dataFormat = DataFormatSpecifier("aac") }
        let result = try AudioConverter.convert(input: fixtures + "/" + source, output: path, settings: conversion)
        #expect(result.notes.isEmpty)
        #expect(try Self.packetBytes(path) == (try Self.packetBytes(fixtures + "/" + source)))
        let original = try AudioFile(path: fixtures + "/" + source)
        if output.hasSuffix(".aac") {
            // ADTS has no field for the priming and remainder: every packet's frames.
            #expect(try AudioFile(path: path).packetCount == original.packetCount)
        } else {
            #expect(try AudioFile(path: path).properties.validFrameCount == original.properties.validFrameCount)
        }
    }

    @Test func aReencodeIsAskedForAndNoted() throws {
        let folder = try Folder()
        var conversion = settings("aac")
        conversion.bitRate = 64000
        let result = try AudioConverter.convert(
            input: fixtures + "/adts/aac-lc-44k-stereo.aac", output: folder.path + "/a.m4a", settings: conversion)
        #expect(result.notes.contains { $0.contains("second generation") && $0.contains("AAC") })
        #expect(
            try Self.packetBytes(folder.path + "/a.m4a")
                != (try Self.packetBytes(fixtures + "/adts/aac-lc-44k-stereo.aac")))
        let mp3 = try AudioConverter.convert(
            input: fixtures + "/mp3/lame-cbr128-stereo-44k.mp3", output: folder.path + "/b.m4a",
            settings: ConversionSettings())
        #expect(mp3.notes.contains { $0.contains("MP3") && $0.contains("second generation") })
    }

    @Test func dashDZeroCopiesOrKeepsOrRefuses() throws {
        let folder = try Folder()
        // AAC: copied into ADTS.
        let aac = try AudioConverter.convert(
            input: fixtures + "/mp4/aac-faststart.m4a", output: folder.path + "/a.aac", settings: settings("0"))
        #expect(aac.format.formatID == .aac)
        #expect(
            try Self.packetBytes(folder.path + "/a.aac") == (try Self.packetBytes(fixtures + "/mp4/aac-faststart.m4a")))
        // Linear PCM: the same samples in the container's byte order.
        let pcm = try AudioConverter.convert(
            input: fixtures + "/caf/pcm-s24le-stereo.caf", output: folder.path + "/b.aif", settings: settings("0"))
        #expect(pcm.format.bitsPerChannel == 24 && pcm.format.formatFlags.contains(.isBigEndian))
        #expect(
            try decodedSamples(folder.path + "/b.aif") == (try decodedSamples(fixtures + "/caf/pcm-s24le-stereo.caf")))
        // IMA4 is not copied: with nothing to change, refused; with a change (a cut), written again as IMA4.
        #expect(throws: ConversionUsageError.self) {
            try AudioConverter.convert(
                input: fixtures + "/caf/ima4-mono.caf", output: folder.path + "/c.caf", settings: settings("0"))
        }
        var cut = settings("0")
        cut.edits.duration = EditTime("1000f")
        let ima4 = try AudioConverter.convert(
            input: fixtures + "/caf/ima4-mono.caf", output: folder.path + "/e.caf", settings: cut)
        #expect(ima4.format.formatID == .ima4 && ima4.frameCount == 1000)
        // A copy cannot be resampled.
        var resampled = settings("0")
        resampled.sampleRate = 22050
        #expect(throws: ConversionUsageError.self) {
            try AudioConverter.convert(
                input: fixtures + "/mp4/aac-faststart.m4a", output: folder.path + "/d.m4a", settings: resampled)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/c.caf"))
    }
}

/// What a preset promises holds for its own profile, and a cut source is said to be cut.
@Suite struct PresetAndSourceNoteTests {
    @Test func systemSoundKeepsRatesItsProfileAccepts() throws {
        let folder = try Folder()
        let source = folder.path + "/hires.wav"
        try writeFloatWAV(
            FLACAndOpusOutputTests.signal(frames: 9600, channels: 1), rate: 96000, channels: 1, to: source)
        let result = try AudioConverter.convert(
            input: source, output: folder.path + "/a.caf", settings: Preset.systemSound.settings)
        #expect(result.format.sampleRate == 48000 && result.frameCount == 4800)
        #expect(result.notes.contains { $0.contains("48000 Hz") && $0.contains("96000 Hz") })
        // A rate asked for is kept.
        var asked = Preset.systemSound.settings
        asked.sampleRate = 96000
        let kept = try AudioConverter.convert(input: source, output: folder.path + "/b.caf", settings: asked)
        #expect(kept.format.sampleRate == 96000)
    }

    @Test func aTruncatedSourceIsSaidToBeCut() throws {
        let folder = try Folder()
        let cut = folder.path + "/cut.flac"
        try FileManager.default.copyItem(atPath: fixtures + "/flac/truncated.flac.bin", toPath: cut)
        let result = try AudioConverter.convert(
            input: cut, output: folder.path + "/a.wav", settings: ConversionSettings())
        #expect(result.notes.contains { $0.contains("cut short") })
        let whole = try AudioConverter.convert(
            input: fixtures + "/flac/speech.flac", output: folder.path + "/b.wav", settings: ConversionSettings())
        #expect(!whole.notes.contains { $0.contains("cut short") })
    }
}
