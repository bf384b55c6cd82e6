import AudioCodecs
import AudioContainers
import AudioConversion
import AudioDecoding
import AudioEngines
import AudioFormats
import Foundation
import Testing

/// afkit's Ogg Vorbis output (libvorbis) and its ABR and VBR MP3 (LAME), read back by libsndfile in-process
/// (libvorbis's and mpg123's decoders behind it) and by afkit's own parsers and decoders, and held to what the
/// formats promise: Vorbis's last granule position at the source's last frame, the Xing header's counts and seek
/// table and the LAME tag's delay and padding laid out as `lame -V` lays them (the committed fixture).
@Suite struct VorbisAndVBRMP3OutputTests {
    /// The granule position of the last page of an Ogg file.
    static func lastGranule(_ path: String) throws -> Int64 {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let capture = Array("OggS".utf8)
        var at = bytes.count - 27
        while at >= 0 && !(bytes[at..<at + 4].elementsEqual(capture)) { at -= 1 }
        guard at >= 0 else { return -1 }
        return (0..<8).reduce(Int64(0)) { $0 | Int64(bytes[at + 6 + $1]) << (8 * $1) }
    }

    /// An Ogg file's pages in order: header type flags, granule position and the packets each ends.
    static func pages(_ path: String) throws -> [(flags: UInt8, granule: Int64, packets: Int)] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var pages: [(flags: UInt8, granule: Int64, packets: Int)] = []
        var at = 0
        while at + 27 <= bytes.count, bytes[at..<at + 4].elementsEqual(Array("OggS".utf8)) {
            let count = Int(bytes[at + 26])
            let lacing = bytes[(at + 27)..<(at + 27 + count)]
            let granule = (0..<8).reduce(Int64(0)) { $0 | Int64(bytes[at + 6 + $1]) << (8 * $1) }
            pages.append((bytes[at + 5], granule, lacing.filter { $0 < 255 }.count))
            at += 27 + count + lacing.reduce(0) { $0 + Int($1) }
        }
        return pages
    }

    /// The sizes of the music signal converted under `base` at `-q 0`, no `-q` and `-q 127`.
    static func sizesByQuality(_ base: ConversionSettings, name: String, in folder: Folder) throws -> [Int] {
        try [0, nil, 127].map { (quality: Int?) -> Int in
            var asked = base
            asked.quality = quality
            let output = folder.path + "/\(quality ?? -1)-" + name
            try AudioConverter.convert(input: fixtures + "/signals/music.wav", output: output, settings: asked)
            return try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int ?? 0
        }
    }

    /// `.ogg` is Ogg Vorbis: afkit's reader and libsndfile's libvorbis reader both give exactly the source's
    /// frame count, in place (Vorbis records no priming; the last page's granule ends at the last source frame),
    /// the identification header names the source's rate (no resampling to 48 kHz, as Opus needs). Its first
    /// audio packet is a page of its own, so a sound under a second is whole in FFmpeg too.
    @Test(arguments: [(33_333, 2), (48_000, 1), (1, 2), (20_000, 6)])
    func oggVorbisOutputIsGapless(frames: Int, channels: Int) throws {
        let (folder, source, samples) = try FLACAndOpusOutputTests.signalFile(frames: frames, channels: channels)
        let output = folder.path + "/out.ogg"
        try AudioConverter.convert(input: source, output: output, settings: ConversionSettings())
        let file = try AudioFile(path: output)
        #expect(file.dataFormat.formatID == .vorbis && file.dataFormat.sampleRate == 48000)
        #expect(file.dataFormat.channelsPerFrame == UInt32(channels))
        #expect(file.properties.validFrameCount == Int64(frames))
        #expect(try Self.lastGranule(output) == Int64(frames))
        // The first audio packet (it decodes to nothing) is a page of its own, never the last: FFmpeg reads the
        // last page's end trim only after an audio page before it (a sound in one page was 128 frames short).
        let pages = try Self.pages(output)
        #expect(pages.count >= 5 && pages[3].packets == 1 && pages[3].granule == 0 && pages[3].flags & 4 == 0)
        #expect(pages.last.map { $0.flags & 4 != 0 } == true)

        let reference = try SoundFile(path: output)
        defer { reference.close() }
        #expect(reference.info.frames == Int64(frames) && reference.info.channels == channels)
        let ours = try decodedSamples(output)
        #expect(ours.count == frames * channels)
        guard frames > 10_000 else { return }
        #expect(FLACAndOpusOutputTests.bestLag(try reference.readFloat(), samples, channels: channels, range: 400) == 0)
        #expect(FLACAndOpusOutputTests.bestLag(ours, samples, channels: channels, range: 400) == 0)
    }

    /// Vorbis's channel order: each of a 5.1 source's channels (WAV's order, a tone of its own level) comes back
    /// in its place through afkit's reader (libavcodec's decoder, which turns Vorbis's order back to WAV's), and
    /// libsndfile (which gives Vorbis's own order: L C R Ls Rs LFE) finds them where Vorbis I puts them. Nine
    /// channels, which Vorbis I gives no order, are refused by name.
    @Test func surroundKeepsVorbisChannelOrder() throws {
        let folder = try Folder()
        // Levels far enough apart that each channel is known by its own (LFE, coded coarsely, the farthest).
        let levels: [Float] = [0.05, 0.1, 0.15, 0.5, 0.25, 0.3]
        var samples: [Float] = []
        for frame in 0..<24_000 {
            // libvorbis keeps only the low band of the LFE channel (WAV's fourth): it gets 60 Hz, the others 440.
            let tone = Float(sin(2 * Double.pi * 440 * Double(frame) / 48000))
            let low = Float(sin(2 * Double.pi * 60 * Double(frame) / 48000))
            samples += levels.enumerated().map { $0.element * ($0.offset == 3 ? low : tone) }
        }
        try writeFloatWAV(samples, rate: 48000, channels: 6, to: folder.path + "/six.wav")
        try AudioConverter.convert(
            input: folder.path + "/six.wav", output: folder.path + "/six.ogg", settings: ConversionSettings())
        func channelLevels(_ decoded: [Float]) -> [Float] {
            (0..<6).map { channel in
                let values = stride(from: channel, to: decoded.count, by: 6).map { decoded[$0] * decoded[$0] }
                return (values.reduce(0, +) / Float(values.count) * 2).squareRoot()
            }
        }
        func sources(_ found: [Float]) -> [Int] {
            found.map { level in levels.indices.min { abs(levels[$0] - level) < abs(levels[$1] - level) } ?? -1 }
        }
        let ours = channelLevels(try decodedSamples(folder.path + "/six.ogg"))
        #expect(sources(ours) == [0, 1, 2, 3, 4, 5], "\(ours)")
        let reference = try SoundFile(path: folder.path + "/six.ogg")
        defer { reference.close() }
        let theirs = channelLevels(try reference.readFloat())
        #expect(sources(theirs) == [0, 2, 1, 4, 5, 3], "\(theirs)")

        // Nine channels: the encoder refuses them by name; a conversion mixes them down to eight, and says so.
        let nine = StreamDescription(
            sampleRate: 48000, formatID: .vorbis, bytesPerPacket: 0, framesPerPacket: 0, bytesPerFrame: 0,
            channelsPerFrame: 9, bitsPerChannel: 0)
        #expect {
            try VorbisEncoder(EncoderSettings(format: nine, sourceFormat: nine))
        } throws: { "\($0)".contains("Vorbis I orders 1 to 8 channels") && "\($0)".contains("9 channels") }
        try writeFloatWAV(
            [Float](repeating: 0, count: 9 * 100), rate: 48000, channels: 9, to: folder.path + "/nine.wav")
        let mixed = try AudioConverter.convert(
            input: folder.path + "/nine.wav", output: folder.path + "/nine.ogg", settings: ConversionSettings())
        #expect(mixed.format.channelsPerFrame == 8 && mixed.notes.contains { $0.contains("Vorbis holds 8 channels") })
    }

    /// `-q` is libvorbis's quality (`-q 0` the smallest, `-q 127` the largest file, the default between, as
    /// `oggenc -q 3`); `-b` with `-s 1` is an average bit rate the identification header states and the file
    /// meets within 15 %.
    @Test func qualityAndBitRateDriveTheEngine() throws {
        let folder = try Folder()
        let sizes = try Self.sizesByQuality(ConversionSettings(), name: "q.ogg", in: folder)
        #expect(sizes[0] < sizes[1] && sizes[1] < sizes[2], "\(sizes)")

        var average = settings("vorbis")
        average.bitRate = 96000
        average.strategy = .longTermAverage
        let output = folder.path + "/abr.ogg"
        // Noise under a tone, which asks for every bit the rate gives.
        var generator = SystemRandomNumberGenerator()
        var noise: [Float] = []
        for index in 0..<240_000 * 2 {
            let tone = Float(0.2 * sin(Double(index / 2) * 0.05))
            noise.append(Float.random(in: -0.3...0.3, using: &generator) + tone)
        }
        try writeFloatWAV(noise, rate: 48000, channels: 2, to: folder.path + "/noise.wav")
        try AudioConverter.convert(input: folder.path + "/noise.wav", output: output, settings: average)
        let file = try AudioFile(path: output)
        let headers = try #require(XiphLacing.packets(file.properties.magicCookie ?? []))
        let nominal = headers[0][20..<24].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        #expect(nominal == 96000)
        let seconds = Double(file.properties.validFrameCount ?? 0) / file.dataFormat.sampleRate
        let audioBits = Double(file.properties.audioDataByteCount ?? 0) * 8
        #expect(abs(audioBits / seconds / 96000 - 1) < 0.15, "\(audioBits / seconds)")
    }

    /// `-b` without `-s` is `oggenc -b`: the quality of libvorbisenc's mode for that rate, its management off, so a
    /// sound takes what it needs (two thirds of the rate here: `oggenc -b 160` and `-q 5` made 172440 bytes of the trial's
    /// 40 s theme, afkit 88 kbit/s before, 172327 bytes now); `-s 1` averages the rate whatever the sound. `-q` with
    /// `-b` is said not to be used.
    @Test func aBitRateWithoutAStrategyIsOggencsVBR() throws {
        let folder = try Folder()
        // A tone over quiet noise, which ABR fills to its rate and VBR codes at its quality.
        var generator = SystemRandomNumberGenerator()
        let tone = (0..<480_000 * 2).map {
            Float(0.3 * sin(Double($0 / 2) * 0.031)) + Float.random(in: -0.0003...0.0003, using: &generator)
        }
        try writeFloatWAV(tone, rate: 48000, channels: 2, to: folder.path + "/tone.wav")
        func bitRate(_ strategy: BitRateStrategy?, quality: Int? = nil) throws -> (Double, ConversionResult) {
            var asked = settings("vorbis")
            asked.bitRate = 160_000
            asked.strategy = strategy
            asked.quality = quality
            let output = folder.path + "/tone-\(strategy?.rawValue ?? -1)-\(quality ?? -1).ogg"
            let result = try AudioConverter.convert(input: folder.path + "/tone.wav", output: output, settings: asked)
            let file = try AudioFile(path: output)
            let headers = try #require(XiphLacing.packets(file.properties.magicCookie ?? []))
            let nominal = headers[0][20..<24].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            #expect(nominal == 160_000)
            return (Double(file.properties.audioDataByteCount ?? 0) * 8 / 10, result)
        }
        let (variable, plain) = try bitRate(nil)
        let (average, _) = try bitRate(.longTermAverage)
        #expect(variable < 0.8 * average && abs(average / 160_000 - 1) < 0.15, "\(variable) \(average)")
        #expect(!plain.notes.contains { $0.contains("-q") })
        let (withQuality, noted) = try bitRate(nil, quality: 100)
        #expect(withQuality == variable)
        #expect(noted.notes.contains { $0.contains("-q not used") }, "\(noted.notes)")
    }

    /// The names: `.ogg` and `-f ogg` give Vorbis, `.opus` and `-f opus` Opus (even into a `.ogg` name; Vorbis into
    /// a `.opus` name is refused);
    /// `-d vorbis` into CAF is refused (Apple's players do not decode it), as into an MPEG-4 file.
    @Test func namesPickTheCodec() throws {
        let source = fixtures + "/signals/speech.wav"
        let folder = try Folder()
        func written(_ name: String, code: String? = nil, format: String? = nil) throws -> FourCharCode {
            var asked = ConversionSettings()
            asked.dataFormat = format.flatMap(DataFormatSpecifier.init)
            if let code { asked.apply(fileType: FileType(afconvertCode: code), code: code, dataFormat: nil) }
            try AudioConverter.convert(input: source, output: folder.path + "/" + name, settings: asked)
            return try AudioFile(path: folder.path + "/" + name).dataFormat.formatID
        }
        #expect(try written("a.ogg") == .vorbis)
        #expect(try written("b.oga") == .vorbis)
        #expect(try written("c.opus") == .opus)
        #expect(try written("d.ogg", code: "ogg") == .vorbis)
        #expect(try written("e.ogg", code: "opus") == .opus)
        // A `.opus` name is Ogg Opus: Vorbis is refused there, naming `.ogg`.
        #expect {
            try written("f.opus", format: "vorbis")
        } throws: { "\($0)".contains("'f.opus' names Opus, not Vorbis: name it .ogg") }
        #expect(throws: ConversionUsageError.self) { try written("f.opus", code: "ogg") }
        #expect(FileType.ogg.fileNameExtension(forCode: "ogg") == ".ogg")
        #expect(FileType.ogg.fileNameExtension(forCode: "opus") == ".opus")
        #expect(throws: (any Error).self) { try written("g.caf", format: "vorbis") }
        #expect(throws: (any Error).self) { try written("h.m4a", format: "vorbis") }
    }

    /// Tags, the cover and a loop travel as Vorbis comments (`LOOPSTART`/`LOOPLENGTH` in frames, as game
    /// engines read them; the cover as `METADATA_BLOCK_PICTURE`), and afkit reads back what it wrote.
    @Test func tagsCoverAndLoopAreVorbisComments() throws {
        let folder = try Folder()
        for (name, keepsRate) in [("loops/vorbis-looplength.ogg", true), ("pictures/opusenc-picture.opus", false)] {
            let source = fixtures + "/" + name
            let output = folder.path + "/out.ogg"
            try AudioConverter.convert(input: source, output: output, settings: ConversionSettings())
            let original = try AudioFile(path: source)
            let file = try AudioFile(path: output)
            #expect(file.dataFormat.formatID == .vorbis)
            if keepsRate { #expect(file.properties.loops == original.properties.loops) }
            #expect(file.properties.pictures.count == original.properties.pictures.count)
            #expect(file.properties.pictures.map(\.data) == original.properties.pictures.map(\.data))
            for key in ["title", "artist"] where original.properties.infoDictionary[key] != nil {
                #expect(file.properties.infoDictionary[key] == original.properties.infoDictionary[key], "\(key)")
            }
            #expect(file.properties.validFrameCount == original.properties.validFrameCount)
        }
        #expect(try !AudioFile(path: fixtures + "/loops/vorbis-looplength.ogg").properties.loops.isEmpty)
    }
}

extension VorbisAndVBRMP3OutputTests {
    /// The Xing header and LAME tag of an MP3 file's first frame: the Xing flags, frame and byte counts, the
    /// seek table, the LAME tag's VBR method and its delay and padding.
    struct XingHeader: Equatable {
        var tag: String
        var flags: UInt32
        var frames: Int
        var bytes: Int
        var table: [UInt8]
        var method: UInt8
        var delay: Int
        var padding: Int

        init?(path: String) throws {
            let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            var at = 0
            if data.starts(with: Array("ID3".utf8)), data.count > 10 {
                at = 10 + data[6...9].reduce(0) { $0 << 7 | Int($1) }
            }
            guard data.count > at + 200, data[at] == 0xFF else { return nil }
            // MPEG-1 Layer III: the side information is 17 bytes (mono) or 32 after the 4-byte header.
            let isMono = data[at + 3] >> 6 == 3
            let version1 = data[at + 1] & 0x18 == 0x18
            let start = at + 4 + (version1 ? (isMono ? 17 : 32) : (isMono ? 9 : 17))
            func word(_ offset: Int) -> Int { data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
            tag = String(decoding: data[start..<start + 4], as: UTF8.self)
            flags = UInt32(word(start + 4))
            frames = word(start + 8)
            bytes = word(start + 12)
            table = Array(data[start + 16..<start + 116])
            let lame = start + 120
            method = data[lame + 9] & 0x0F
            delay = Int(data[lame + 21]) << 4 | Int(data[lame + 22]) >> 4
            padding = Int(data[lame + 22] & 0x0F) << 8 | Int(data[lame + 23])
        }
    }

    /// `-s 3` (and `-s 2`) is LAME's VBR at `-V 9-q×9/127`: packets of several sizes, a `Xing` header (not CBR's
    /// `Info`) with all four fields as `lame -V 0` writes them (the committed fixture), whose frame count is the
    /// audio packets', byte count the file's and seek table rising; the LAME tag's delay and padding make afkit's
    /// reader and libsndfile's (mpg123) give the source's frames exactly.
    @Test(arguments: [BitRateStrategy.variable, .variableConstrained])
    func vbrMP3IsGaplessWithAXingHeader(strategy: BitRateStrategy) throws {
        let folder = try Folder()
        let source = fixtures + "/signals/music.wav"
        let output = folder.path + "/vbr.mp3"
        var asked = settings(".mp3")
        asked.strategy = strategy
        asked.quality = 99
        let result = try AudioConverter.convert(input: source, output: output, settings: asked)
        #expect(result.frameCount == 55125)
        let file = try AudioFile(path: output)
        #expect(file.properties.validFrameCount == 55125)
        let sizes = try file.readPackets(from: 0, count: Int(file.packetCount)).descriptions.map(\.dataByteSize)
        #expect(Set(sizes).count > 3)

        let header = try #require(try XingHeader(path: output))
        let lame = try #require(try XingHeader(path: fixtures + "/mp3/lame-vbr-v0.mp3"))
        #expect(header.tag == "Xing" && header.tag == lame.tag)
        #expect(header.flags == lame.flags && header.flags & 0x0F == 0x0F)
        #expect(header.method == lame.method)
        #expect(header.frames == Int(file.packetCount))
        let size = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int ?? 0
        #expect(header.bytes <= size && header.bytes >= size - 200)
        #expect(zip(header.table, header.table.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(file.properties.packetTableInfo?.primingFrames == Int32(header.delay + 529))
        #expect(header.delay == lame.delay)

        let reference = try SoundFile(path: output)
        defer { reference.close() }
        #expect(reference.info.frames == 55125)
        #expect(try decodedSamples(output).count == 55125 * Int(file.dataFormat.channelsPerFrame))
    }

    /// `-q` moves LAME's `-V`: `-q 127` (`-V 0`) makes a larger file than the default (`-V 2`), which is larger
    /// than `-q 0` (`-V 9`); `-s 1 -b` is ABR near the rate asked (a `Xing` header too); `-s 3 -b` caps the rate.
    @Test func mp3StrategiesAndQualities() throws {
        #expect(MP3Encoder.variableBitRateQuality(127) == 0 && MP3Encoder.variableBitRateQuality(0) == 9)
        #expect(MP3Encoder.variableBitRateQuality(99) == 2)
        let folder = try Folder()
        let source = fixtures + "/signals/music.wav"
        var variable = settings(".mp3")
        variable.strategy = .variable
        let sizes = try Self.sizesByQuality(variable, name: "v.mp3", in: folder)
        #expect(sizes[0] < sizes[1] && sizes[1] < sizes[2], "\(sizes)")

        var average = settings(".mp3")
        average.strategy = .longTermAverage
        average.bitRate = 96000
        let output = folder.path + "/abr.mp3"
        try AudioConverter.convert(input: source, output: output, settings: average)
        let file = try AudioFile(path: output)
        #expect(file.properties.validFrameCount == 55125)
        #expect(try XingHeader(path: output)?.tag == "Xing")
        let bits = Double(file.properties.audioDataByteCount ?? 0) * 8
        let seconds = 55125 / file.dataFormat.sampleRate
        #expect(abs(bits / seconds / 96000 - 1) < 0.2, "\(bits / seconds)")

        var capped = settings(".mp3")
        capped.strategy = .variable
        capped.quality = 127
        capped.bitRate = 128_000
        try AudioConverter.convert(input: source, output: folder.path + "/capped.mp3", settings: capped)
        let cappedFile = try AudioFile(path: folder.path + "/capped.mp3")
        let largest = try cappedFile.readPackets(from: 1, count: Int(cappedFile.packetCount) - 1).descriptions.map(
            \.dataByteSize
        ).max()
        // 128 kbit/s at 22.05 kHz (MPEG-2): 576 frames in 417 or 418 bytes.
        #expect((largest ?? 0) <= 418)
    }
}
