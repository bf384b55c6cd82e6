import AudioContainers
import AudioConversion
import AudioFormats
import Foundation
import Testing

/// Classes of file other projects' test data showed afkit reading wrong (issue 66), each proven on a fixture
/// of its own (Tests/Fixtures/world-classes, made by make-world-class-fixtures.sh).
@Suite struct WorldClassTests {
    static let folder = fixtures + "/world-classes"

    /// A channel count comes from the codec's own configuration box, not the sample entry's placeholder:
    /// FFmpeg's E-AC-3 5.1 in MP4 says 2 in its entry and 3/2 + LFE in 'dec3'. FFmpeg decodes 10,496 frames of
    /// six channels from it.
    /// A lone APEv2 tag that claims more bytes than follow is said to be an APEv2 tag (taglib's test data met it as
    /// "its ID3v2 tag").
    @Test func anAPETagThatClaimsTooMuchIsNamedAsOne() throws {
        var bytes = Array("APETAGEX".utf8)
        for field: UInt32 in [2000, 4096, 1, 0xA000_0000] { withUnsafeBytes(of: field.littleEndian) { bytes += $0 } }
        bytes += [UInt8](repeating: 0, count: 8) + Array("hello".utf8)
        let path = NSTemporaryDirectory() + "afkit-ape-\(getpid()).mp3"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try AudioFile(path: path)
            Issue.record("the tag was read as audio")
        } catch let error as AudioFileError {
            #expect(error.message.contains("its APEv2 tag claims") && !error.message.contains("ID3v2"), "\(error)")
        }
    }

    /// An MP3 whose start was lost: junk, then frames to the end of the file (six whole, a seventh cut short). As
    /// many whole frames as a clean start needs, covering the junk, make a stream; ffprobe reads 7 packets, the last
    /// cut short, and afkit the six whole ones, saying the file is cut short.
    @Test func anMP3WhoseStartWasLostIsRead() throws {
        let file = try AudioFile(path: Self.folder + "/mp3-lost-start.mp3")
        #expect(file.dataFormat.formatID == .mpegLayer3 && file.dataFormat.channelsPerFrame == 2)
        #expect(file.packetCount == 6 && file.properties.isTruncated)
        #expect(file.properties.dataOffset == 969)
    }

    @Test func enhancedAC3ChannelsComeFromDec3() throws {
        let path = Self.folder + "/eac3-5.1.mp4"
        let file = try AudioFile(path: path)
        #expect(file.dataFormat.formatID == .enhancedAC3 && file.dataFormat.channelsPerFrame == 6)
        let samples = try decodedSamples(path)
        #expect(samples.count % 6 == 0 && abs(samples.count / 6 - 10496) <= 1536, "\(samples.count / 6) frames")
        // Every channel carries its own share of the tone: none is silent.
        for channel in 0..<6 {
            let peak = stride(from: channel, to: samples.count, by: 6).map { abs(samples[$0]) }.max() ?? 0
            #expect(peak > 0.01, "channel \(channel)")
        }
    }

    /// Opus in fragmented MP4 with no edit list: the fragments' sample durations give the frames (FFmpeg's
    /// muxer shortens the last to the source's end: 24,312) and `dOps`' pre-skip (312) the priming, so the
    /// source's half second comes back exactly (FFmpeg decodes the whole last packet: 24,648). It read 0 frames.
    @Test func opusInFragmentedMP4CountsItsDurations() throws {
        let path = Self.folder + "/opus-fragmented.mp4"
        let file = try AudioFile(path: path)
        #expect(file.packetCount == 26)
        #expect(file.properties.validFrameCount == 24000 && file.properties.packetTableInfo?.primingFrames == 312)
        #expect(try decodedSamples(path).count == 24000)
    }

    /// AMR's NO_DATA frames (legal: nothing sent for 20 ms) are 20 ms of silence each, never a failed
    /// conversion; the frames around them decode as they do without them.
    @Test func amrNoDataFramesAreSilence() throws {
        let path = Self.folder + "/amr-no-data.amr"
        let samples = try decodedSamples(path)
        #expect(samples.count == 52 * 160)
        #expect(samples[(10 * 160)..<(11 * 160)].allSatisfy { $0 == 0 })
        #expect(samples[(21 * 160)..<(22 * 160)].allSatisfy { $0 == 0 })
        let plain = try decodedSamples(fixtures + "/framed/speech.amr")
        let spoken = Array(samples[..<(10 * 160)]) + samples[(11 * 160)..<(21 * 160)] + samples[(22 * 160)...]
        #expect(spoken == plain)
    }

    /// MPEG audio that switches between mono and stereo is read at its larger layout by every command (`info`
    /// and the decoder agree), its mono frames filling both channels; FFmpeg decodes 72,576 frames of it.
    @Test func mpegAudioThatSwitchesChannelsIsReadAtItsLargerLayout() throws {
        let path = Self.folder + "/mp3-mono-stereo-switch.mp3"
        let file = try AudioFile(path: path)
        #expect(file.dataFormat.channelsPerFrame == 2)
        let samples = try decodedSamples(path)
        #expect(Int64(samples.count / 2) == file.properties.validFrameCount && samples.count / 2 <= 72576)
        #expect(samples.count / 2 >= 72576 - 2 * 1152, "\(samples.count / 2) frames")
        // The mono parts fill both channels; every part sounds.
        #expect(stride(from: 0, to: samples.count, by: 2).allSatisfy { samples[$0] == samples[$0 + 1] })
        for part in 0..<3 {
            let start = part * 22050 + 5000
            #expect(samples[(2 * start)..<(2 * (start + 1000))].map(abs).max() ?? 0 > 0.05, "part \(part)")
        }
    }

    /// A packet wholly outside the edit list is never decoded: ALAC whose fifth packet (past the edit's 13,230
    /// frames) libavcodec refuses converts whole, as Apple's decoder, which never reaches it, plays it.
    @Test func aPacketPastTheEditListIsNotDecoded() throws {
        let path = Self.folder + "/alac-packet-past-edit.m4a"
        let file = try AudioFile(path: path)
        #expect(file.packetCount == 5 && file.properties.validFrameCount == 13230)
        let samples = try decodedSamples(path)
        #expect(samples.count == 13230 * 2)
    }

    /// Flake 0.11's old variable block size (the IETF testbench's subset 27): blocks numbered by their first sample
    /// with the blocking bit 0, in a stream whose STREAMINFO gives a smallest and a largest block that differ.
    /// libFLAC reads the numbers as samples; so does afkit, and decodes every sample (it stopped at the first
    /// block of another size with a false "truncated").
    @Test func flakesOldVariableBlockSizeIsReadWhole() throws {
        let path = Self.folder + "/flac-legacy-variable-blocks.flac"
        let file = try AudioFile(path: path)
        #expect(file.packetCount == 7 && file.properties.validFrameCount == 13230)
        #expect(file.properties.isTruncated == false && file.properties.warnings.isEmpty)
        #expect(try decodedSamples(path) == decodedSamples(Self.folder + "/flac-legacy-variable-blocks.wav"))
    }

    /// A FLAC stream that changes its rate, channels or depth mid-stream (legal, and refused by libFLAC and
    /// FFmpeg) is refused by every command, the change named: it converted its first part with exit 0 and no
    /// word, the rest called "bytes after the last frame".
    @Test(arguments: [
        ("rate", "its sample rate from 32000 Hz to 24000 Hz"), ("channel", "its channels from 1 to 2"),
        ("depth", "its depth from 16 to 24 bits"),
    ])
    func aFLACStreamThatChangesFormatIsRefusedByName(_ name: String, _ change: String) throws {
        let path = Self.folder + "/flac-\(name)-change.flac"
        for open in [{ _ = try AudioFile(path: path) }, { _ = try decodedSamples(path) }] {
            do {
                try open()
                Issue.record("\(name): read")
            } catch let error as AudioFileError {
                #expect(error.code == "fmt?" && error.message.contains("changes \(change) mid-stream"), "\(error)")
                // The first frame of the second part: after the 7 blocks of 1024 samples at 32 kHz.
                #expect(error.offset == 10000)
            }
        }
    }

    /// A whole first frame larger than STREAMINFO's largest block says the metadata lies (FFmpeg refuses it too):
    /// it converted the short last frame alone, 942 of 13,230 frames, with a note that the count lies.
    @Test func framesLargerThanStreamInfoAllowsAreRefused() throws {
        #expect {
            _ = try AudioFile(path: Self.folder + "/flac-streaminfo-small-blocks.flac")
        } throws: { error in
            guard let error = error as? AudioFileError else { return false }
            return error.code == "dta?" && error.message.contains("blocks of 4096 samples: the file's metadata lies")
        }
    }

    /// RIFX, RIFF's big-endian twin (SoX and libsndfile write it), is read as WAV with its numbers and samples
    /// big-endian: it was refused as "a RIFF file afkit does not read". The samples are the source's.
    @Test(arguments: ["s16", "s24", "f32"])
    func rifxIsReadAsBigEndianWAV(_ encoding: String) throws {
        let path = Self.folder + "/rifx-\(encoding).wav"
        let file = try AudioFile(path: path)
        #expect(file.properties.fileType == .wav && file.dataFormat.formatFlags.contains(.isBigEndian))
        #expect(file.properties.validFrameCount == 4410)
        let source = try decodedSamples(Self.folder + "/flac-legacy-variable-blocks.wav")
        #expect(try decodedSamples(path) == Array(source[..<4410]))
    }

    /// AC-3 behind an ID3v2 tag (HLS packed audio's timestamp before each segment) is read past the tag, as MP3,
    /// ADTS and FLAC behind one are: it was refused as "an ac3 file behind an ID3 tag". Its 10 packets are
    /// ffprobe's, its samples those of the same stream without the tag.
    @Test func ac3BehindAnID3TagIsRead() throws {
        let path = Self.folder + "/ac3-behind-id3.ac3"
        let file = try AudioFile(path: path)
        #expect(file.properties.fileType == .ac3 && file.packetCount == 10 && file.properties.dataOffset == 73)
        let folder = try Folder()
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        try Data(bytes[73...]).write(to: URL(fileURLWithPath: folder.path + "/plain.ac3"))
        let samples = try decodedSamples(path)
        let plain = try decodedSamples(folder.path + "/plain.ac3")
        #expect(samples.count == 15360 * 2 && samples == plain)
    }

    /// Counts that leave no valid frame of packets holding audio (a LAME tag whose delay and padding cover all
    /// 3,456 frames) are damage, said by every reader: the file reads as damaged, and a conversion refuses it
    /// (`info` said 0 frames with success while `convert` refused).
    @Test func countsLeavingNoFrameAreDamageEverywhere() throws {
        let path = Self.folder + "/mp3-lame-tag-covers-all.mp3"
        let file = try AudioFile(path: path)
        #expect(file.properties.validFrameCount == 0 && file.packetCount == 3)
        #expect(file.properties.isDamaged && file.properties.damage.first?.contains("they are damaged") == true)
        let folder = try Folder()
        #expect {
            try AudioConverter.convert(input: path, output: folder.path + "/out.wav", settings: settings("LEI16"))
        } throws: { error in (error as? AudioFileError)?.code == "dta?" }
    }

    /// 24 bits in 4-byte PCMWAVEFORMAT frames sit at the bottom of each word (ALSA's S24_LE, as arecord writes
    /// it and hound reads it): they were read as the top 24 bits, every sample wrong. WAVE_FORMAT_EXTENSIBLE's
    /// valid bits stay at the top, as its specification says.
    @Test func pcmWaveFormatsSpareBytesAreAtTheTop() throws {
        let path = Self.folder + "/wav-24-in-32-low.wav"
        let file = try AudioFile(path: path)
        #expect(file.dataFormat.bitsPerChannel == 24 && !file.dataFormat.formatFlags.contains(.isAlignedHigh))
        let samples = try decodedSamples(path)
        let expected = (0..<100).flatMap { n -> [Float] in
            let left = n * 83887 - 8_388_608
            return [Float(left) / 8_388_608, Float(-left - 1) / 8_388_608]
        }
        #expect(samples == expected)
        // Kept whole through a lossless conversion: 24-bit integers again, at the top of a packed 3-byte word.
        let folder = try Folder()
        let output = folder.path + "/out.wav"
        try AudioConverter.convert(input: path, output: output, settings: settings("LEI24"))
        #expect(try decodedSamples(output) == expected)
    }

    /// An Ogg stream whose beginning repeats (its start-flagged identification page and its comments again, same
    /// serial, before the audio) is read past the repeat: the header packets were taken for audio, which the
    /// decoder refused while `info` counted them as frames. Opus (two header packets) and Vorbis (three) read as
    /// the same stream without the repeat.
    @Test(arguments: [
        ("ogg-opus-repeated-headers.opus", "ogg/ffmpeg-opus.opus"),
        ("ogg-vorbis-repeated-headers.ogg", "ogg/oggenc-speech.ogg"),
    ])
    func anOggStreamWhoseBeginningRepeatsIsReadPastIt(_ name: String, _ original: String) throws {
        let path = Self.folder + "/" + name
        let file = try AudioFile(path: path)
        let plain = try AudioFile(path: fixtures + "/" + original)
        #expect(
            file.packetCount == plain.packetCount && file.properties.validFrameCount == plain.properties.validFrameCount
        )
        #expect(file.properties.warnings.isEmpty)
        #expect(try decodedSamples(path) == decodedSamples(fixtures + "/" + original))
    }

    /// E-AC-3 in MP4: a sample decodes to what its syncframes hold (256 frames a block), whatever the sample table
    /// times it; one-block syncframes timed as 1,536 read as 7 × 1,536 where FFmpeg's decoder gives 7 × 256
    /// (`info` and `convert` disagreed on androidx/media's such file).
    @Test func enhancedAC3FramesComeFromItsSyncframes() throws {
        let file = try AudioFile(path: Self.folder + "/eac3-one-block-syncframes.mp4")
        #expect(file.dataFormat.framesPerPacket == 256 && file.packetCount == 7)
        let decoded = try #require(file.properties.decodedFrameCount)
        #expect(decoded == 1792, "\(decoded)")
        let plain = try AudioFile(path: Self.folder + "/eac3-5.1.mp4")
        #expect(plain.dataFormat.framesPerPacket == 1536)
        // In a fragmented MP4 (androidx/media's sample_eac3_fragmented.mp4 is one) the format waits for the first
        // fragment's first sample; so does MP3's channel count (FFmpeg's entry says 2 for mono frames).
        let fragmented = try AudioFile(path: Self.folder + "/eac3-one-block-fragmented.mp4")
        #expect(fragmented.dataFormat.framesPerPacket == 256 && fragmented.packetCount == 7)
        let mp3 = try AudioFile(path: Self.folder + "/mp3-mono-fragmented.mp4")
        #expect(mp3.dataFormat.formatID == .mpegLayer3 && mp3.dataFormat.channelsPerFrame == 1)
        #expect(mp3.packetCount == 13)
    }

    /// ALAC (and FLAC) in MP4 with no edit list: the sample table times the last packet short, as the packet
    /// itself says, and every reader counts what the decoder gives (FFmpeg: 13,230 frames); `info` said 16,384.
    @Test func aShortLastSampleOfSelfDescribingPacketsIsCounted() throws {
        let path = Self.folder + "/alac-no-edit-list.m4a"
        let file = try AudioFile(path: path)
        #expect(file.packetCount == 4 && file.properties.validFrameCount == 13230)
        #expect(try decodedSamples(path).count == 13230 * 2)
    }

    /// An MP3 cut short keeps the LAME tag's counts, as the command's contract states them (priming delay + 529,
    /// remainder padding - 529, from the tag alone), and says it is cut short: two frames of audio less 1,105 and
    /// 875 leave 324 frames (FFmpeg, which drops the padding of a cut stream, decodes 1,199).
    @Test func aCutMP3KeepsTheTagsCountsAndSaysItIsCut() throws {
        let path = Self.folder + "/mp3-lame-cut-short.mp3"
        let file = try AudioFile(path: path)
        #expect(file.properties.isTruncated && file.properties.packetTableInfo?.remainderFrames == 875)
        #expect(file.properties.validFrameCount == 324)
        #expect(try decodedSamples(path).count == 324)
    }

    /// A movie that times audio its sample table holds none of (an empty 'stsz') is damaged, said by `info` and
    /// refused by a conversion: it converted to an empty file with exit 0.
    @Test func aSampleTableHoldingNoneOfTheTimedAudioIsDamage() throws {
        let path = Self.folder + "/m4a-empty-sample-sizes.m4a"
        let file = try AudioFile(path: path)
        #expect(file.packetCount == 0 && file.properties.isDamaged)
        let folder = try Folder()
        #expect {
            try AudioConverter.convert(input: path, output: folder.path + "/out.wav", settings: settings("LEI16"))
        } throws: { error in (error as? AudioFileError)?.code == "dta?" }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out.wav"))
    }
}
