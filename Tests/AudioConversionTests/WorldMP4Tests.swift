import AudioCodecs
import AudioContainers
import AudioConversion
import AudioDecoding
import AudioFormats
import Foundation
import Testing

/// The MP4 and QuickTime classes of file other projects' test data showed afkit reading wrong or refusing (issue
/// 66), each proven on a fixture of its own (Tests/Fixtures/world-classes, made by make-world-mp4-fixtures.sh):
/// sample tables as the specifications define them, channel counts from the codec's own configuration, and
/// refusals turned into reads or named by their codec. Figures in the comments are ffprobe's and FFmpeg 5.1's,
/// measured on the committed files; digests are XXH64 of FFmpeg's 32-bit float decode (`ffmpeg -i FILE -f f32le -
/// | xxhsum -H64`, cut to the valid frames where FFmpeg decodes past the edit list).
@Suite struct WorldMP4Tests {
    static let folder = fixtures + "/world-classes"

    /// The XXH64 of samples as FFmpeg's f32le output holds them.
    static func digest(_ samples: [Float]) -> String {
        var hash = ContentHash()
        samples.withUnsafeBytes { hash.update($0) }
        return hash.hexDigits
    }

    /// `convert` to WAV gives the frames `info` counts (the two agree on every fixture read here).
    static func convertedFrames(_ path: String) throws -> Int64 {
        let folder = try Folder()
        let output = folder.path + "/out.wav"
        _ = try AudioConverter.convert(input: path, output: output, settings: ConversionSettings())
        return try AudioFile(path: output).properties.validFrameCount ?? -1
    }

    // MARK: Sample tables

    /// `stz2` (ISO/IEC 14496-12 8.7.3.3) in 16, 8 and 4-bit fields gives the sizes `stsz` gave: ffprobe's packets
    /// (count, bytes and largest: AAC 23, 6,373, 306; Opus 26, 1,750, 117; Opus 15, 91, 7, the last size alone in
    /// its byte) and the edit list's frames (22,050; 24,000; 13,440).
    @Test(arguments: [
        ("aac-stz2-16.m4a", 23, 6373, 306, 22050), ("opus-stz2-8.mp4", 26, 1750, 117, 24000),
        ("opus-stz2-4.mp4", 15, 91, 7, 13440),
    ])
    func compactSampleSizes(_ name: String, _ packets: Int64, _ bytes: Int64, _ largest: UInt32, _ frames: Int64) throws
    {
        let path = Self.folder + "/" + name
        let file = try AudioFile(path: path)
        #expect(file.packetCount == packets)
        #expect(file.properties.audioDataByteCount == bytes && file.properties.maximumPacketSize == largest)
        #expect(file.properties.validFrameCount == frames)
        #expect(try decodedSamples(path).count == Int(frames) * Int(file.dataFormat.channelsPerFrame))
    }

    /// QuickTime's sound tables count frames, not packets, in every description version: version 0 `sowt` and
    /// `raw ` whose samples are frames (`stsz` 1) in chunks of 2,000 (and 1,025) apart in the file; version 0 `twos`
    /// and `ulaw` whose samples are whole chunks of 1,100 frames (`stts` deltas of 1,100; `stsz` 1: FFmpeg reads 8
    /// frames of their 8,000, the class "10 frames for 44,100"); a version 1 `ima4` whose samples are frames and
    /// whose chunks hold 20 packets of 68 bytes (64 frames), and FFmpeg's own `ima4` whose samples are packets.
    /// Each decodes to FFmpeg's samples of the same audio: its decode of the fixture, or for `twos` and `ulaw` of
    /// the MOV it was written from.
    @Test(arguments: [
        ("sowt-v0-frames.mov", 11025, 11025, "ba2e952e1fb068cd"),
        ("twos-v0-chunk-samples.mov", 8000, 8000, "693d9355f27b90f8"),
        ("raw-v0-frames.mov", 4000, 4000, "fa1c64481fe407bd"),
        ("ulaw-v0-chunk-samples.mov", 8000, 8000, "abae43d501b0e6f9"),
        ("ima4-v1-frames.mov", 207, 13248, "1d31b0fa6b369366"),
        ("ima4-ffmpeg.mov", 207, 13248, "1d31b0fa6b369366"),
    ])
    func quickTimeTablesCountFrames(_ name: String, _ packets: Int64, _ frames: Int64, _ reference: String) throws {
        let path = Self.folder + "/" + name
        let file = try AudioFile(path: path)
        #expect(file.packetCount == packets)
        #expect(file.properties.validFrameCount == frames)
        let samples = try decodedSamples(path)
        #expect(samples.count == Int(frames) * Int(file.dataFormat.channelsPerFrame))
        #expect(Self.digest(samples) == reference, "\(name): our decode differs from FFmpeg's")
        #expect(try Self.convertedFrames(path) == frames)
    }

    // MARK: Channel counts

    /// The codec's configuration gives the channels, never the sample entry's placeholder (set to 2 in each of
    /// these mono files): 'esds', 'alac', 'dOps', 'dfLa', 'dac3'. ffprobe says 1 channel and 12,000 frames for
    /// each; the lossless ones decode to FFmpeg's samples (ALAC and FLAC of the same source: one digest).
    @Test(
        arguments: [
            ("aac-mono-entry-2.m4a", nil), ("alac-mono-entry-2.m4a", "4cba887fad83c9c6"),
            ("opus-mono-entry-2.mp4", nil), ("flac-mono-entry-2.mp4", "4cba887fad83c9c6"),
            ("ac3-mono-entry-2.mp4", nil),
        ] as [(String, String?)])
    func channelsFromTheCodecsConfiguration(_ name: String, _ reference: String?) throws {
        let path = Self.folder + "/" + name
        let file = try AudioFile(path: path)
        #expect(file.dataFormat.channelsPerFrame == 1)
        #expect(file.properties.validFrameCount == 12000)
        let samples = try decodedSamples(path)
        #expect(samples.count == 12000)
        if let reference { #expect(Self.digest(samples) == reference) }
    }

    /// MP3 in MP4 takes its layer and channels from its first frame: FFmpeg's MP4 says 2 channels in its entry
    /// for mono LAME frames, and so does QuickTime's '.mp3' entry made from it. ffprobe: mono, 13,230 frames;
    /// FFmpeg's decode of those frames has the digest below.
    @Test(arguments: ["mp3-mono.mp4", "mp3-mono-dotmp3.mov"])
    func mpegAudioChannelsFromItsFirstFrame(_ name: String) throws {
        let path = Self.folder + "/" + name
        let file = try AudioFile(path: path)
        #expect(file.dataFormat.formatID == .mpegLayer3 && file.dataFormat.channelsPerFrame == 1)
        #expect(file.properties.validFrameCount == 13230)
        let samples = try decodedSamples(path)
        #expect(samples.count == 13230)
        #expect(Self.digest(samples) == "6fabbdaeeda183c4")
        #expect(try Self.convertedFrames(path) == 13230)
    }

    /// MPEG-1 audio in MP4 (objectTypeIndication 0x6B) is any layer: the first frame says Layer II, mono, and it
    /// decodes as Layer II to FFmpeg's 13,343 frames and samples (ffprobe: 1 channel).
    @Test func mpegAudioLayerFromItsFirstFrame() throws {
        let path = Self.folder + "/mp2-mono.mp4"
        let file = try AudioFile(path: path)
        #expect(file.dataFormat.formatID == .mpegLayer2 && file.dataFormat.channelsPerFrame == 1)
        #expect(file.properties.validFrameCount == 13343)
        let samples = try decodedSamples(path)
        #expect(samples.count == 13343)
        #expect(Self.digest(samples) == "bd32dd133ed187d0")
    }

    /// HE-AAC v2 over a mono core, signalled explicitly (object type 29) or backward-compatibly (sync extensions
    /// 0x2B7 and 0x548 after an AAC-LC config), decodes to stereo at SBR's rate, as FFmpeg does (ffprobe: 2
    /// channels, 48 kHz, from both); the edit list's 0.3 s are 14,400 frames, FFmpeg's first 14,400 of each the
    /// same digest.
    @Test(arguments: ["heaac-v2-explicit.m4a", "heaac-v2-backward-compatible.m4a"])
    func parametricStereoAnnouncesTwoChannels(_ name: String) throws {
        let path = Self.folder + "/" + name
        let file = try AudioFile(path: path)
        #expect(file.dataFormat.formatID == .aacParametricStereo && file.dataFormat.channelsPerFrame == 2)
        #expect(file.dataFormat.sampleRate == 48000 && file.properties.validFrameCount == 14400)
        let samples = try decodedSamples(path)
        #expect(samples.count == 14400 * 2)
        #expect(Self.digest(samples) == "01d2395413ca4d01")
        #expect(try Self.convertedFrames(path) == 14400)
    }

    // MARK: Refusals turned into reads

    /// ISO/IEC 23003-5 PCM ('ipcm' with 'pcmC'): little-endian 16-bit stereo in samples of 1,024 frames, and
    /// big-endian 24-bit mono a sample a frame, decode to FFmpeg's samples (4,410 and 4,800 frames). The stereo
    /// file again with ISO's AudioSampleEntryV1 (no QuickTime fields; 'chnl' before 'pcmC') decodes to the same
    /// samples (FFmpeg 5.1 takes its boxes for QuickTime's version 1 fields and reads it big-endian). 'fpcm'
    /// (32-bit little-endian floats, which FFmpeg 5.1 does not read) decodes to FFmpeg's samples of the MOV it
    /// was written from (2,205 frames).
    @Test(arguments: [
        ("ipcm-s16le-stereo.mp4", 4410, "805e2e28485cdfd9"), ("ipcm-s24be-mono.mp4", 4800, "be0429345a74195e"),
        ("ipcm-v1-chnl.mp4", 4410, "805e2e28485cdfd9"), ("fpcm-f32le-stereo.mp4", 2205, "279eb9bb232f4ea2"),
    ])
    func isoPCM(_ name: String, _ frames: Int64, _ reference: String) throws {
        let path = Self.folder + "/" + name
        let file = try AudioFile(path: path)
        #expect(file.dataFormat.formatID == .lpcm && file.packetCount == frames)
        #expect(file.properties.validFrameCount == frames)
        #expect(Self.digest(try decodedSamples(path)) == reference)
        #expect(try Self.convertedFrames(path) == frames)
    }

    /// Vorbis in MP4 (objectTypeIndication 0xDD, the three headers in 'esds') decodes through the registry's
    /// Vorbis decoder: the edit list's 13,230 frames (ffprobe), FFmpeg's first 13,230 samples of it (it decodes
    /// 13,888, past the edit).
    @Test func vorbisInMP4() throws {
        let path = Self.folder + "/vorbis.mp4"
        let file = try AudioFile(path: path)
        #expect(file.dataFormat.formatID == .vorbis && file.dataFormat.channelsPerFrame == 2)
        #expect(file.dataFormat.sampleRate == 44100 && file.properties.validFrameCount == 13230)
        let samples = try decodedSamples(path)
        #expect(samples.count == 13230 * 2)
        #expect(Self.digest(samples) == "ebcd97121371f9e6")
    }

    /// A QuickTime movie that begins with 'mdat' (no 'ftyp') is found and read: FFmpeg's 2,000 frames.
    @Test func quickTimeMovieThatBeginsWithItsMedia() throws {
        let path = Self.folder + "/mdat-first.mov"
        let file = try AudioFile(path: path)
        #expect(file.properties.fileType == .mp4 && file.properties.validFrameCount == 2000)
        #expect(Self.digest(try decodedSamples(path)) == "8aad2b09dff5aec5")
    }

    /// A broken metadata box costs the rest of its list, said, never the audio: 14 packets, 13,230 frames
    /// (ffprobe), and the note names the box and where it is.
    @Test func brokenMetadataHidesNoAudio() throws {
        let path = Self.folder + "/broken-metadata.m4a"
        let file = try AudioFile(path: path)
        #expect(file.packetCount == 14 && file.properties.validFrameCount == 13230)
        #expect(!file.properties.isDamaged && !file.properties.isTruncated)
        #expect(file.properties.notRead.count == 1 && file.properties.notRead.first?.reason == "it is broken")
        #expect(file.properties.warnings.contains { $0.contains("metadata box") && $0.contains("at byte 810") })
        let reader = try SourceReader(path: path)
        #expect(reader.conditionNotes(whatIsHeld: "converted").contains { $0.contains("it is broken") })
        #expect(try Self.convertedFrames(path) == 13230)
    }

    /// An M4A cut inside its media gives every whole packet (12 of 23; FFmpeg decodes the same 11,264 frames after
    /// the priming, then fails on the cut one) and says where it ends.
    @Test func truncatedM4AKeepsItsWholePackets() throws {
        let path = Self.folder + "/truncated.m4a"
        let file = try AudioFile(path: path)
        #expect(file.packetCount == 12 && file.properties.isTruncated && !file.properties.isDamaged)
        #expect(file.properties.truncationOffset == 4272)
        let samples = try decodedSamples(path)
        #expect(samples.count == 11264 * 2)
        let reader = try SourceReader(path: path)
        #expect(reader.conditionNotes(whatIsHeld: "converted").contains { $0.contains("at byte 4272") })
    }

    /// DTS in MP4, as an 'mp4a' entry with objectTypeIndication 0xA9 or a 'dtsc' entry, is refused by its name.
    @Test(arguments: ["dts.mp4", "dts-dtsc.mp4"])
    func dtsIsRefusedByName(_ name: String) throws {
        let path = Self.folder + "/" + name
        let file = try AudioFile(path: path)
        #expect(file.dataFormat.formatID == FourCharCode("dtsc"))
        #expect(file.properties.validFrameCount == 5120)
        do {
            _ = try SourceReader(path: path)
            Issue.record("DTS was decoded")
        } catch let error as AudioFileError {
            #expect(error.code == "fmt?" && error.message.contains("DTS ('dtsc')"), "\(error)")
        }
    }
    /// TrueHD's channels come from 'dmlp' (the major sync's format_info), never the entry's template 2: FFmpeg's
    /// 5.1 TrueHD, which ffprobe reads as 6 channels and 120 packets of 4,800 frames; afkit reads no TrueHD audio.
    @Test func trueHDChannelsFromItsFormatInfo() throws {
        let file = try AudioFile(path: Self.folder + "/truehd-5.1.mp4")
        #expect(file.dataFormat.formatID == FourCharCode("mlpa") && file.dataFormat.channelsPerFrame == 6)
        #expect(file.packetCount == 120 && file.properties.validFrameCount == 4800)
    }

    /// IAMF and MPEG-H 3D Audio state 0 channels in their entries by rule: refused by their names ('fmt?'), not as a
    /// malformed count.
    @Test(arguments: [("iamf-entry.mp4", "IAMF"), ("mhm1-entry.mp4", "MPEG-H 3D Audio")])
    func codecsWithChannelsInTheirOwnConfigurationAreNamed(_ name: String, _ codec: String) throws {
        do {
            _ = try AudioFile(path: Self.folder + "/" + name)
            Issue.record("\(name) was read")
        } catch let error as AudioFileError {
            #expect(error.code == "fmt?" && error.message.contains(codec), "\(error)")
        }
    }
}
