import AudioCodecs
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import Foundation
import Testing

/// Extended Audio File Services in Swift, against FFmpeg's decodes (Tests/Fixtures/library,
/// make-library-fixtures.sh) and libsndfile reading back what it writes.
@Suite struct ExtendedAudioFileTests {
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/library/" + name).path
    }

    static func int16(_ bytes: [UInt8]) -> [Int16] {
        stride(from: 0, to: bytes.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
        }
    }

    /// Signal to difference ratio, dB.
    static func snr(_ reference: [Int16], _ measured: [Int16]) -> Double {
        let count = min(reference.count, measured.count)
        var signal = 0.0
        var noise = 0.0
        for index in 0..<count {
            signal += Double(reference[index]) * Double(reference[index])
            let difference = Double(reference[index]) - Double(measured[index])
            noise += difference * difference
        }
        return noise == 0 ? .infinity : 10 * log10(signal / noise)
    }

    static func int16Format(rate: Double, channels: UInt32, nonInterleaved: Bool = false) -> StreamDescription {
        var format = StreamDescription.linearPCM(sampleRate: rate, channels: channels, bitsPerChannel: 16)
        if nonInterleaved {
            format.formatFlags.insert(.isNonInterleaved)
            format.bytesPerFrame = 2
            format.bytesPerPacket = 2
        }
        return format
    }

    /// AAC in M4A read as 16-bit mono at 22.05 kHz matches `ffmpeg -ar 22050 -ac 1 -f s16le`, within what two
    /// resamplers and two downmixes differ by.
    @Test func readsInAClientFormat() throws {
        let file = try ExtendedAudioFile(readingPath: Self.fixture("stereo.m4a"))
        #expect(file.fileDataFormat.formatID == .aac)
        try file.setClientDataFormat(Self.int16Format(rate: 22050, channels: 1))
        var all: [UInt8] = []
        var bytes: [UInt8] = []
        while try file.read(maximumFrames: 1000, into: &bytes) > 0 { all += bytes }
        let reference = Self.int16(
            Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture("stereo.m4a.mono22k.s16")))))
        let ours = Self.int16(all)
        // 1.5 s; FFmpeg 5.1 keeps the 410 frames of encoder padding at the end that the file's edit list cuts.
        #expect(ours.count == 33075)
        #expect(abs(reference.count - (ours.count + 205)) <= 1, "\(ours.count) frames, FFmpeg \(reference.count)")
        #expect(Int64(ours.count) == file.fileLengthFrames)
        #expect(file.tell() == file.fileLengthFrames)
        #expect(Self.snr(reference, ours) > 25, "SNR \(Self.snr(reference, ours)) dB")
    }

    /// A seek to frame 30000 reads what FFmpeg decodes there: exactly for FLAC, within the decoders' difference
    /// for AAC, MP3 and Opus (the codec's pre-roll decoded first), and what reading from the start gives there.
    @Test(arguments: ["stereo.flac", "stereo.m4a", "stereo.mp3", "stereo.opus"])
    func seeksToAFrame(_ name: String) throws {
        let reference = Self.int16(
            Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture(name + ".at30000.s16")))))
        let file = try ExtendedAudioFile(readingPath: Self.fixture(name))
        let rate = file.fileDataFormat.sampleRate
        try file.setClientDataFormat(Self.int16Format(rate: rate, channels: 2))
        // From the start, to frame 30000 and on.
        var sequential: [UInt8] = []
        var bytes: [UInt8] = []
        while sequential.count < (30000 + 4096) * 4, try file.read(maximumFrames: 4096, into: &bytes) > 0 {
            sequential += bytes
        }
        let fromStart = Self.int16(Array(sequential[30000 * 4..<(30000 + 4096) * 4]))
        try file.seek(toFrame: 30000)
        #expect(file.tell() == 30000)
        var sought: [UInt8] = []
        while sought.count < 4096 * 4, try file.read(maximumFrames: 4096 - sought.count / 4, into: &bytes) > 0 {
            sought += bytes
        }
        #expect(file.tell() == 30000 + 4096)
        let afterSeek = Self.int16(sought)
        #expect(afterSeek.count == reference.count)
        if name.hasSuffix(".flac") {
            #expect(afterSeek == reference)
            #expect(fromStart == reference)
        } else {
            #expect(Self.snr(fromStart, afterSeek) > 35, "\(name): seek vs start \(Self.snr(fromStart, afterSeek)) dB")
            #expect(Self.snr(reference, afterSeek) > 30, "\(name): seek vs FFmpeg \(Self.snr(reference, afterSeek)) dB")
        }
    }

    /// Non-interleaved buffers hold the channels of the interleaved read.
    @Test func readsOneBufferAChannel() throws {
        let path = Self.fixture("stereo.flac")
        let interleaved = try ExtendedAudioFile(readingPath: path)
        try interleaved.setClientDataFormat(Self.int16Format(rate: 44100, channels: 2))
        var bytes: [UInt8] = []
        _ = try interleaved.read(maximumFrames: 500, into: &bytes)
        let split = try ExtendedAudioFile(readingPath: path)
        try split.setClientDataFormat(Self.int16Format(rate: 44100, channels: 2, nonInterleaved: true))
        var buffers: [[UInt8]] = []
        #expect(try split.read(maximumFrames: 500, into: &buffers) == 500)
        #expect(buffers.count == 2)
        let samples = Self.int16(bytes)
        #expect(Self.int16(buffers[0]) == stride(from: 0, to: samples.count, by: 2).map { samples[$0] })
        #expect(Self.int16(buffers[1]) == stride(from: 1, to: samples.count, by: 2).map { samples[$0] })
    }

    /// Frames written in a client format become any container and codec afkit writes, gapless: libsndfile
    /// reads FLAC and CAF back sample for sample, and afkit's own reader gives every frame written of AAC,
    /// MP3 and Opus (the priming and remainder recorded).
    @Test(arguments: [
        ("flac", FileType.flac, FourCharCode.flac), ("caf", .caf, .lpcm), ("m4a", .m4a, .aac),
        ("mp3", .mp3, .mpegLayer3), ("opus", .ogg, .opus), ("caf", .caf, .ima4),
    ])
    func writesAnyFormat(_ suffix: String, _ type: FileType, _ codec: FourCharCode) throws {
        let folder = NSTemporaryDirectory() + "afkit-extaudio-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/written." + suffix
        let rate = codec == .opus ? 48000.0 : 44100
        var format = StreamDescription(
            sampleRate: rate, formatID: codec, bytesPerPacket: 0, framesPerPacket: 0, bytesPerFrame: 0,
            channelsPerFrame: 2, bitsPerChannel: 0)
        if codec == .lpcm { format = Self.int16Format(rate: rate, channels: 2) }
        if codec == .flac { format.bitsPerChannel = 16 }
        let writer = try ExtendedAudioFile(creatingPath: path, fileType: type, fileFormat: format)
        try writer.setClientDataFormat(Self.int16Format(rate: rate, channels: 2, nonInterleaved: true))
        // 12345 frames of a tone, left and right apart, written in uneven pieces.
        let frames = 12345
        let left = (0..<frames).map { Int16(8000 * sin(Double($0) * 0.05)) }
        let right = (0..<frames).map { Int16(6000 * sin(Double($0) * 0.031)) }
        func bytes(_ samples: ArraySlice<Int16>) -> [UInt8] {
            samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        }
        var written = 0
        for piece in [1000, 3333, 1, 8011] {
            try writer.write(
                frames: piece, from: [bytes(left[written..<written + piece]), bytes(right[written..<written + piece])])
            written += piece
        }
        #expect(FileManager.default.fileExists(atPath: path) == false)
        try writer.close()
        let file = try AudioFile(path: path)
        #expect(file.dataFormat.formatID == codec)
        #expect(try AudioFileSummary(file.properties).frameCount == Int64(frames))
        if codec == .flac || codec == .lpcm {
            let read = try SoundFile(path: path).readInt32()
            let expected = (0..<frames).flatMap { [Int32(left[$0]) << 16, Int32(right[$0]) << 16] }
            #expect(read == expected)
        } else {
            let reader = try ExtendedAudioFile(readingPath: path)
            try reader.setClientDataFormat(Self.int16Format(rate: rate, channels: 2))
            var all: [UInt8] = []
            var chunk: [UInt8] = []
            while try reader.read(maximumFrames: 4096, into: &chunk) > 0 { all += chunk }
            let samples = Self.int16(all)
            #expect(samples.count == frames * 2)
            let original = (0..<frames).flatMap { [left[$0], right[$0]] }
            #expect(
                Self.snr(original, samples) > (codec == .ima4 ? 20 : 15), "\(codec): \(Self.snr(original, samples)) dB")
        }
    }

    /// Damaged AAC packets (Fixtures/library/damaged-mid.m4a, two packets FFmpeg also refuses) become silence,
    /// counted and said, as FFmpeg and players conceal them: the reader reads on, every frame there; convert
    /// writes every frame and says so.
    @Test func damagedPacketsAreConcealedAndSaid() throws {
        let path = Self.fixture("damaged-mid.m4a")
        let file = try ExtendedAudioFile(readingPath: path)
        var bytes: [UInt8] = []
        var frames = 0
        while case let count = try file.read(maximumFrames: 4096, into: &bytes), count > 0 { frames += count }
        #expect(frames == 66150)
        #expect(file.concealedPackets == 2)
        let output = NSTemporaryDirectory() + "afkit-concealed-\(getpid()).wav"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try AudioConverter.convert(input: path, output: output, settings: ConversionSettings())
        #expect(result.frameCount == 66150)
        #expect(result.notes.contains { $0.contains("2 packets of its audio could not be decoded") }, "\(result.notes)")
    }

    /// Written at another rate than the file's: the length is the file's frames, the position the client's.
    @Test func writingCountsTheFilesFrames() throws {
        let path = NSTemporaryDirectory() + "afkit-extaudio-rate-\(getpid()).caf"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try ExtendedAudioFile(
            creatingPath: path, fileType: .caf, fileFormat: Self.int16Format(rate: 44100, channels: 1))
        try writer.setClientDataFormat(Self.int16Format(rate: 48000, channels: 1))
        try writer.write(frames: 48000, from: [UInt8](repeating: 0, count: 96000))
        try writer.close()
        #expect(try AudioFileSummary(AudioFile(path: path).properties).frameCount == 44100)
        let split = Self.int16Format(rate: 44100, channels: 2, nonInterleaved: true)
        #expect(split.summary.hasSuffix("16-bit little-endian signed integer, non-interleaved"))
    }

    /// A file that exists is replaced only when asked; an abandoned writer leaves nothing.
    @Test func writingGuardsItsPath() throws {
        let folder = NSTemporaryDirectory() + "afkit-extaudio-guard-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/kept.caf"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        let format = Self.int16Format(rate: 8000, channels: 1)
        #expect(throws: AudioFileError.self) {
            try ExtendedAudioFile(creatingPath: path, fileType: .caf, fileFormat: format)
        }
        let writer = try ExtendedAudioFile(creatingPath: path, fileType: .caf, fileFormat: format, overwrite: true)
        try writer.write(frames: 2, from: [0, 1, 2, 3])
        writer.cancel()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data([1, 2, 3]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["kept.caf"])
    }
}
