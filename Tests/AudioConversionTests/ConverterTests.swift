import AudioCodecs
import AudioContainers
import AudioConversion
import AudioDecoding
import AudioEngines
import AudioFormats
import FileAccess
import Foundation
import Testing

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").path

final class Folder {
    let path = NSTemporaryDirectory() + "afkit-convert-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    var contents: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] }
}

/// Writes interleaved float samples as a 32-bit float WAV with afkit's writer.
func writeFloatWAV(_ samples: [Float], rate: Double, channels: UInt32, to path: String) throws {
    let format = StreamDescription.linearPCM(sampleRate: rate, channels: channels, bitsPerChannel: 32, isFloat: true)
    var encoder = try PCMEncoder(format: format)
    var bytes: [UInt8] = []
    _ = try encoder.encode(samples, into: &bytes)
    let writer = try AudioFileWriter(path: path, fileType: .wav, format: format)
    try writer.writePackets(bytes)
    try writer.close()
}

/// Every valid frame of a file, decoded by afkit's own decoders (bit-exact with FFmpeg's).
func decodedSamples(_ path: String) throws -> [Float] {
    let reader = try SourceReader(path: path)
    var samples: [Float] = []
    while try reader.read(maximum: 4096, into: &samples) > 0 {}
    return samples
}

func settings(_ spec: String, type: FileType? = nil, channels: Int? = nil) -> ConversionSettings {
    var settings = ConversionSettings()
    settings.dataFormat = DataFormatSpecifier(spec)
    settings.fileType = type
    settings.channels = channels
    return settings
}

@Suite struct ConverterTests {
    /// 16-bit stereo PCM into every lossless layout and container: libsndfile reads back the same samples.
    @Test(arguments: [
        ("LEI16", "caf"), ("BEI16", "aif"), ("LEI24", "wav"), ("BEI24", "caf"), ("LEI32", "wav"),
        ("LEF32", "wav"), ("BEF32", "aifc"), ("LEF64", "caf"), ("BEI16", "aifc"), ("LEI16", "aifc"),
    ])
    func losslessRoundTrips(_ spec: String, _ ext: String) throws {
        let folder = try Folder()
        let source = fixtures + "/wav/pcm-s16-stereo.wav"
        let output = folder.path + "/out." + ext
        let result = try AudioConverter.convert(input: source, output: output, settings: settings(spec))
        #expect(result.frameCount == 1103)
        // As doubles: libsndfile's integer reader does not scale float files.
        let original = try SoundFile(path: source).readDouble()
        let converted = try SoundFile(path: output).readDouble()
        #expect(converted == original, "\(spec) in .\(ext)")
        #expect(folder.contents == ["out." + ext])  // no temporary file left
    }

    /// Full-resolution 32-bit integers and doubles, which Float32 cannot hold, convert bit-exact between
    /// containers and byte orders (and 24-bit samples widen to 32 exactly); libsndfile reads both files.
    @Test(arguments: [
        ("LEI32", "BEI32", "caf"), ("LEI32", "BEI32", "aif"), ("LEI24", "LEI32", "wav"),
        ("LEF64", "LEF64", "caf"), ("LEF32", "LEF64", "wav"),
    ])
    func fullResolutionIsKept(_ from: String, _ to: String, _ ext: String) throws {
        let folder = try Folder()
        let specifier = try #require(DataFormatSpecifier(from))
        let format = specifier.streamDescription(sampleRate: 48000, channels: 2)
        var random = SystemRandomNumberGenerator()
        // Random bytes are random samples, except that a double or float must not be NaN (NaN != NaN).
        var bytes = (0..<4000 * Int(format.bytesPerFrame)).map { _ in UInt8.random(in: 0...255, using: &random) }
        if format.formatFlags.contains(.isFloat) {
            var encoder = try PCMEncoder(format: format)
            let values = (0..<8000).map { _ in Float.random(in: -1...1, using: &random) }
            bytes = []
            _ = try encoder.encode(values, into: &bytes)
            if format.bitsPerChannel == 64 {
                // Doubles with all 52 bits of mantissa in use.
                bytes = (0..<8000).flatMap { _ in
                    withUnsafeBytes(of: Double.random(in: -1...1, using: &random).bitPattern.littleEndian, Array.init)
                }
            }
        }
        let source = folder.path + "/source.wav"
        let writer = try AudioFileWriter(path: source, fileType: .wav, format: format)
        try writer.writePackets(bytes)
        try writer.close()
        let output = folder.path + "/out." + ext
        let result = try AudioConverter.convert(input: source, output: output, settings: settings(to))
        #expect(result.frameCount == 4000)
        if format.formatFlags.contains(.isFloat) {
            #expect(try SoundFile(path: output).readDouble() == SoundFile(path: source).readDouble())
        } else {
            #expect(try SoundFile(path: output).readInt32() == SoundFile(path: source).readInt32())
        }
    }

    @Test func lossyFormatsStayClose() throws {
        let folder = try Folder()
        let source = fixtures + "/signals/speech.wav"
        let reference = try SoundFile(path: source).readDouble()
        for (spec, ext, minimum) in [
            ("ulaw", "wav", 30.0), ("alaw", "caf", 30.0), ("ima4", "caf", 25.0), ("UI8", "wav", 25.0),
            ("I8", "aif", 25.0), ("ima-adpcm", "wav", 25.0),
        ] {
            let output = folder.path + "/\(spec).\(ext)"
            try AudioConverter.convert(input: source, output: output, settings: settings(spec))
            // afkit's decoders (bit-exact with FFmpeg's) read them back.
            let reader = try SourceReader(path: output)
            #expect(reader.frameCount == Int64(reference.count), "\(spec)")
            var decoded: [Float] = []
            while try reader.read(maximum: 4096, into: &decoded) > 0 {}
            var signal = 0.0
            var noise = 0.0
            for (a, b) in zip(reference, decoded) {
                signal += a * a
                noise += (a - Double(b)) * (a - Double(b))
            }
            let snr = 10 * log10(signal / noise)
            #expect(snr > minimum, "\(spec): \(snr) dB")
        }
    }

    /// A 1 kHz tone resampled 48 → 44.1 kHz by each engine: exact length, same frequency and level.
    @Test(arguments: [ResamplerChoice.soxr, .libsamplerate(.sincBest), .libsamplerate(.sincMedium)])
    func resamplingKeepsLengthFrequencyAndLevel(_ engine: ResamplerChoice) throws {
        let folder = try Folder()
        let input = folder.path + "/tone.wav"
        let tone = (0..<48000).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / 48000)) }
        try writeFloatWAV(tone, rate: 48000, channels: 1, to: input)
        var conversion = settings("LEF32@44100")
        conversion.resampler = engine
        let output = folder.path + "/tone.caf"
        let result = try AudioConverter.convert(input: input, output: output, settings: conversion)
        #expect(result.frameCount == 44100)
        let samples = try SoundFile(path: output).readDouble()
        #expect(samples.count == 44100)
        // Level in the middle (away from the filter's edges): RMS of 0.5/√2.
        let middle = samples[4410..<39690]
        let rms = sqrt(middle.map { $0 * $0 }.reduce(0, +) / Double(middle.count))
        #expect(
            abs(20 * log10(rms / (0.5 / 2.0.squareRoot()))) < 0.05,
            "level off by \(20 * log10(rms / (0.5 / 2.0.squareRoot()))) dB")
        // Frequency: 1 kHz dominates its neighbours by far.
        func power(_ frequency: Double) -> Double {
            var re = 0.0
            var im = 0.0
            for (index, value) in middle.enumerated() {
                let phase = 2 * Double.pi * frequency * Double(index) / 44100
                re += value * cos(phase)
                im += value * sin(phase)
            }
            return re * re + im * im
        }
        #expect(power(1000) > 1000 * power(990) && power(1000) > 1000 * power(1010))
    }

    /// A 20 kHz tone at 48 kHz lies above 22.05 kHz's Nyquist frequency: it must vanish, not fold back.
    @Test(arguments: [ResamplerChoice.soxr, .libsamplerate(.sincBest)])
    func aliasingBelowMinus90dB(_ engine: ResamplerChoice) throws {
        let folder = try Folder()
        let input = folder.path + "/high.wav"
        let tone = (0..<48000).map { Float(0.9 * sin(2 * Double.pi * 20000 * Double($0) / 48000)) }
        try writeFloatWAV(tone, rate: 48000, channels: 1, to: input)
        var conversion = settings("LEF32@22050")
        conversion.resampler = engine
        let output = folder.path + "/low.caf"
        try AudioConverter.convert(input: input, output: output, settings: conversion)
        let samples = try SoundFile(path: output).readDouble()
        #expect(samples.count == 22050)
        let middle = samples[2205..<19845]
        let rms = sqrt(middle.map { $0 * $0 }.reduce(0, +) / Double(middle.count))
        let level = 20 * log10(max(rms, 1e-12) / (0.9 / 2.0.squareRoot()))
        #expect(level < -90, "\(engine): alias at \(level) dB")
    }

    /// A float source may hold anything: NaN converts to silence and infinities to full scale, through
    /// every path (plain, dithered, resampled, ADPCM, G.711) — never a trap.
    @Test(arguments: [("LEI16", "wav"), ("BEI24", "caf"), ("LEI16@22050", "wav"), ("ima4", "caf"), ("ulaw", "caf")])
    func nonFiniteSourceSamples(_ spec: String, _ ext: String) throws {
        let folder = try Folder()
        let source = folder.path + "/hostile.wav"
        // A quiet sine with runs of NaN, +infinity and -infinity in the middle.
        var samples = (0..<8000).map { Float(sin(Double($0) * 0.05) * 0.25) }
        for index in 3000..<3200 { samples[index] = .nan }
        for index in 4000..<4200 { samples[index] = .infinity }
        for index in 5000..<5200 { samples[index] = -.infinity }
        try writeFloatWAV(samples, rate: 44100, channels: 1, to: source)
        let output = folder.path + "/out." + ext
        let result = try AudioConverter.convert(input: source, output: output, settings: settings(spec))
        let rate = spec.hasSuffix("@22050") ? 22050.0 : 44100
        #expect(result.frameCount == Int64(8000 * rate / 44100))
        // libsndfile reads all but IMA4 in CAF; afkit's FFmpeg-exact decoder reads that.
        let decoded: [Double]
        if spec == "ima4" {
            decoded = try decodedSamples(output).map(Double.init)
        } else {
            decoded = try SoundFile(path: output).readDouble()
        }
        #expect(decoded.count == Int(result.frameCount))
        #expect(decoded.allSatisfy { $0.isFinite && abs($0) <= 1 })
        if !spec.contains("@") {
            // Sample-aligned outputs: the NaN run is silence (near it, for the ADPCM and G.711 codecs), the
            // infinite runs full scale.
            let slack = spec == "ulaw" || spec == "ima4" ? 0.05 : 1e-4
            #expect(decoded[3064..<3200].allSatisfy { abs($0) <= slack }, "\(spec): NaN")
            #expect(decoded[4064..<4200].allSatisfy { $0 >= 0.95 }, "\(spec): +infinity")
            #expect(decoded[5064..<5200].allSatisfy { $0 <= -0.95 }, "\(spec): -infinity")
        }
    }

    /// LAME aborts the process on NaN or overflowing energies; the MP3 path clips first.
    @Test func nonFiniteSourceSamplesToMP3() throws {
        let folder = try Folder()
        let source = folder.path + "/hostile.wav"
        var samples = (0..<44100).map { Float(sin(Double($0) * 0.05) * 0.25) }
        for index in 10000..<12000 { samples[index] = .nan }
        for index in 20000..<22000 { samples[index] = .infinity }
        for index in 30000..<32000 { samples[index] = -1e38 }
        try writeFloatWAV(samples, rate: 44100, channels: 1, to: source)
        var settings = ConversionSettings()
        settings.bitRate = 128_000
        let result = try AudioConverter.convert(input: source, output: folder.path + "/out.mp3", settings: settings)
        #expect(result.frameCount == 44100)
        let decoded = try decodedSamples(folder.path + "/out.mp3")
        #expect(decoded.count == 44100)
        #expect(decoded.allSatisfy { $0.isFinite })
        // The middle of the NaN run is quiet, of the infinite run loud (MP3 smears edges by a frame or so).
        let rms = { (range: Range<Int>) in
            (decoded[range].map { Double($0 * $0) }.reduce(0, +) / Double(range.count)).squareRoot()
        }
        #expect(rms(10600..<11400) < 0.05)
        #expect(rms(20600..<21400) > 0.5)
        #expect(rms(30600..<31400) > 0.5)
    }

    @Test func mixing() {
        let down = ChannelMixer(from: 2, to: 1)
        var out: [Float] = []
        [Float(1), 1, 0.5, -0.25].withUnsafeBufferPointer { down.mix($0, frames: 2, into: &out) }
        #expect(out == [1, 0.125])  // the mean, as SoX and FFmpeg mix to mono
        // BS.775's coefficients, normalised so each side sums to 1.
        let surround = ChannelMixer(from: 6, to: 2)
        let side: Float = 1 + 2 * 0.707_106_78
        #expect(surround.gains[0].map { ($0 * side * 1e5).rounded() / 1e5 } == [1, 0, 0.70711, 0, 0.70711, 0])
        #expect(surround.gains[1].map { ($0 * side * 1e5).rounded() / 1e5 } == [0, 1, 0.70711, 0, 0, 0.70711])
        // No downmix can exceed full scale: every row sums to at most 1.
        for (from, to) in [(2, 1), (3, 1), (6, 1), (6, 2), (8, 2), (4, 2), (3, 2)] {
            let mixer = ChannelMixer(from: from, to: to)
            #expect(mixer.gains.allSatisfy { $0.reduce(0) { $0 + abs($1) } <= 1.000_001 }, "\(from) to \(to)")
        }
        let up = ChannelMixer(from: 1, to: 2)
        out = []
        [Float(0.25)].withUnsafeBufferPointer { up.mix($0, frames: 1, into: &out) }
        #expect(out == [0.25, 0.25])
    }

    @Test func mp3AndAACDecodeToTheSourcesValidFrames() throws {
        let folder = try Folder()
        for name in ["mp3/lame-vbr-v5.mp3", "mp3/lame-cbr128-stereo-44k.mp3", "mp3/ffmpeg-libmp3lame.mp3"] {
            let result = try AudioConverter.convert(
                input: fixtures + "/" + name, output: folder.path + "/x.wav",
                settings: settings("LEI16"))
            #expect(result.frameCount == 66150, "\(name)")
            #expect(try SoundFile(path: folder.path + "/x.wav").info.frames == 66150)
        }
        // AAC in CAF with its packet table: priming and remainder trimmed.
        let sidecar = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: fixtures + "/adts/aac-lc-in-caf.caf.json")))
        let valid = ((sidecar as? [String: Any])?["expected"] as? [String: Any])?["validFrames"] as? Int
        let aac = try AudioConverter.convert(
            input: fixtures + "/adts/aac-lc-in-caf.caf", output: folder.path + "/aac.wav",
            settings: settings("LEI16"))
        #expect(aac.frameCount == Int64(valid ?? -1))
    }

    @Test func failuresLeaveNothingBehind() throws {
        let folder = try Folder()
        // An IMA ADPCM file whose sixth block has a broken header: decoding fails part-way.
        let original = fixtures + "/codecs/speech-ima-adpcm.wav"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        let file = try AudioFile(path: original)
        let sixthBlock = Int(file.properties.dataOffset ?? 0) + 5 * Int(file.dataFormat.bytesPerPacket)
        bytes[sixthBlock + 2] = 120
        let broken = folder.path + "/broken.wav"
        try Data(bytes).write(to: URL(fileURLWithPath: broken))
        let output = folder.path + "/out/broken.caf"
        try FileManager.default.createDirectory(atPath: folder.path + "/out", withIntermediateDirectories: true)
        #expect(throws: AudioFileError.self) {
            try AudioConverter.convert(input: broken, output: output, settings: settings("LEI16"))
        }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.path + "/out")) ?? ["?"]).isEmpty)
        // A folder nobody may write in (root included: /proc).
        #expect(throws: AudioFileError.self) {
            try AudioConverter.convert(
                input: fixtures + "/wav/pcm-u8-mono.wav", output: "/proc/afkit-output.caf",
                settings: settings("LEI16"))
        }
        // Longer than a preset allows, and no --trim.
        let long = folder.path + "/long.wav"
        try writeFloatWAV([Float](repeating: 0.1, count: 8000 * 31), rate: 8000, channels: 1, to: long)
        #expect(throws: AudioFileError.self) {
            try AudioConverter.convert(
                input: long, output: folder.path + "/out/long.caf", settings: Preset.systemSound.settings)
        }
        var trimming = Preset.systemSound.settings
        trimming.trimToMaximum = true
        let trimmed = try AudioConverter.convert(input: long, output: folder.path + "/out/long.caf", settings: trimming)
        #expect(trimmed.frameCount == 8000 * 30)
    }

    @Test func aifNamesBecomeAIFFCWhenTheDataNeedsIt() throws {
        let folder = try Folder()
        let ima = try AudioConverter.convert(
            input: fixtures + "/wav/pcm-s16-stereo.wav", output: folder.path + "/x.aif",
            settings: settings("ima4"))
        #expect(ima.fileType == .aifc)
        #expect(try AudioFile(path: folder.path + "/x.aif").properties.fileType == .aifc)
        let big = try AudioConverter.convert(
            input: fixtures + "/wav/pcm-s16-stereo.wav", output: folder.path + "/y.aif",
            settings: settings("BEI16"))
        #expect(big.fileType == .aiff)
        // An explicit plain AIFF cannot hold IMA4: refused before anything is written.
        #expect(throws: ConversionUsageError.self) {
            try AudioConverter.convert(
                input: fixtures + "/wav/pcm-s16-stereo.wav", output: folder.path + "/z.aif",
                settings: settings("ima4", type: .aiff))
        }
    }

    @Test func metadataIsCarriedOver() throws {
        let folder = try Folder()
        try AudioConverter.convert(
            input: fixtures + "/wav/list-info.wav", output: folder.path + "/tagged.caf",
            settings: settings("LEI16"))
        let info = try AudioFile(path: folder.path + "/tagged.caf").properties.infoDictionary
        #expect(info["title"] == "Chime" && info["artist"] == "afkit")
    }

    /// A file cut short before its first whole frame (its header whole, its audio gone) is refused, naming the
    /// cut, never made an empty output: in every container, Ogg's headers without their end-of-stream page too.
    @Test(arguments: [
        "signals/speech.wav", "caf/float32-stereo.caf", "aiff/fl32.aifc", "flac/speech.flac", "mp4/aac-faststart.m4a",
        "loops/vorbis-looplength.ogg", "loops/opus-looplength.opus", "mp3/lame-cbr32-mono-22k.mp3",
    ])
    func aSourceCutBeforeItsAudioIsRefused(_ name: String) throws {
        let folder = try Folder()
        let whole = try AudioFile(path: fixtures + "/" + name)
        let offset = try #require(whole.properties.dataOffset)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/" + name))
        let cut = folder.path + "/cut." + (name as NSString).pathExtension
        try bytes.prefix(Int(offset)).write(to: URL(fileURLWithPath: cut))
        let output = folder.path + "/out.caf"
        #expect {
            try AudioConverter.convert(input: cut, output: output, settings: Preset.sfx.settings)
        } throws: { error in
            "\(error)".contains("cut short before its first whole frame") || "\(error)".contains("too short")
        }
        #expect(!FileManager.default.fileExists(atPath: output))
        if offset > 0 { #expect(try AudioFile(path: cut).properties.isTruncated) }
    }

    @Test func presetsMakeApplesFormats() throws {
        let folder = try Folder()
        let source = fixtures + "/signals/music.wav"
        let sfx = try AudioConverter.convert(
            input: source, output: folder.path + "/sfx.caf", settings: Preset.sfx.settings)
        #expect(sfx.format == .appleIMA4(sampleRate: 22050, channels: 1) && sfx.fileType == .caf)
        let pcm = try AudioConverter.convert(
            input: source, output: folder.path + "/pcm.caf", settings: Preset.pcm.settings)
        #expect(pcm.format == .linearPCM(sampleRate: 22050, channels: 1, bitsPerChannel: 16))
        // The IMA4 file's packet table makes its decoded length the source's exactly.
        let file = try AudioFile(path: folder.path + "/sfx.caf")
        #expect(file.properties.validFrameCount == 55125)
    }
}

/// The outputs a batch said it made, and those of them not in place when it said so.
private final class SaidOutputs: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var outputs: [String] = []
    private(set) var missing: [String] = []

    func note(_ output: String) {
        let exists = FileManager.default.fileExists(atPath: output)
        lock.withLock {
            outputs.append(output)
            if !exists { missing.append(output) }
        }
    }
}

@Suite struct BatchTests {
    @Test func twoHundredFilesThenNothingThenOne() throws {
        let folder = try Folder()
        let sources = folder.path + "/src"
        for index in 0..<200 {
            let sub = sources + "/set\(index % 4)"
            try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
            try writeFloatWAV(
                (0..<800).map { Float(sin(Double($0 * (index + 1)) * 0.01)) * 0.3 }, rate: 22050, channels: 1,
                to: sub + "/sound\(index).wav")
        }
        let batch = BatchConverter(preset: .sfx, outputFolder: folder.path + "/out", imaQuality: .fast)
        let jobs = try batch.jobs(for: [sources])
        #expect(jobs.count == 200)
        #expect(jobs.first { $0.source.hasSuffix("set1/sound1.wav") }?.output == folder.path + "/out/set1/sound1.caf")
        // Each job is said when its output is in place (the flushes and renames are done on a thread of their
        // own, the workers going on), once; no temporary is left when the batch returns.
        let said = SaidOutputs()
        #expect(converted(batch.run(jobs) { job, _, _ in said.note(job.output) }) == 200)
        #expect(said.outputs.sorted() == jobs.map(\.output).sorted())
        #expect(said.missing.isEmpty)
        for set in 0..<4 {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/out/set\(set)")
            #expect(names.count == 50 && names.allSatisfy { !$0.hasPrefix(".") })
        }
        let times = jobs.map { modificationTime($0.output) }
        #expect(converted(batch.run(jobs) { _, _, _ in }) == 0)
        #expect(jobs.map { modificationTime($0.output) } == times)
        // A touched source whose bytes did not change is still up to date.
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: jobs[3].source)
        #expect(converted(batch.run(jobs) { _, _, _ in }) == 0)
        // Change one source's content: only its output is made again.
        let changed = jobs[17]
        try writeFloatWAV((0..<800).map { Float($0 % 50) / 100 }, rate: 22050, channels: 1, to: changed.source)
        let outcomes = batch.run(jobs) { _, _, _ in }
        #expect(converted(outcomes) == 1)
        if case .converted = outcomes[17] {} else { Issue.record("the changed file was not converted") }
        // Another preset, or another IMA quality, is not "up to date".
        #expect(!BatchConverter(preset: .pcm, outputFolder: folder.path + "/out").isUpToDate(jobs[0]))
        #expect(!BatchConverter(preset: .sfx, outputFolder: folder.path + "/out").isUpToDate(jobs[0]))
        #expect(batch.isUpToDate(jobs[0]))
    }

    /// The ways an mtime check keeps a stale output, each rebuilt now: a source replaced by `mv` with an
    /// older file, a source restored with an old time, an output cut short.
    @Test func staleOutputsAreRebuilt() throws {
        let folder = try Folder()
        let sources = folder.path + "/src"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        for name in ["a", "b", "c"] {
            try writeFloatWAV(
                (0..<2000).map { Float(sin(Double($0) * 0.02)) * 0.3 }, rate: 22050, channels: 1,
                to: "\(sources)/\(name).wav")
        }
        let batch = BatchConverter(preset: .pcm, outputFolder: folder.path + "/out")
        let jobs = try batch.jobs(for: [sources])
        #expect(converted(batch.run(jobs) { _, _, _ in }) == 3)
        let old = Date().addingTimeInterval(-86400)
        // a: replaced by mv with a file older than its output.
        let replacement = folder.path + "/replacement.wav"
        try writeFloatWAV(
            (0..<3000).map { Float(sin(Double($0) * 0.05)) * 0.3 }, rate: 22050, channels: 1, to: replacement)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: replacement)
        try FileManager.default.removeItem(atPath: jobs[0].source)
        try FileManager.default.moveItem(atPath: replacement, toPath: jobs[0].source)
        // b: new content, restored with an old time (cp -p, git checkout, touch -d).
        try writeFloatWAV(
            (0..<2000).map { Float(sin(Double($0) * 0.07)) * 0.3 }, rate: 22050, channels: 1, to: jobs[1].source)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: jobs[1].source)
        // c: its output cut to 1,000 bytes.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: jobs[2].output))
        try handle.truncate(atOffset: 1000)
        try handle.close()
        for job in jobs { #expect(!batch.isUpToDate(job), "\(job.source)") }
        let outcomes = batch.run(jobs) { _, _, _ in }
        #expect(converted(outcomes) == 3)
        #expect(try AudioFile(path: jobs[0].output).properties.validFrameCount == 3000)
        // What a fresh conversion of the new content makes, byte for byte.
        var fresh = Preset.pcm.settings
        fresh.encodingNote = batch.note
        fresh.provenance = try batch.provenance(of: jobs[1].source)
        try AudioConverter.convert(input: jobs[1].source, output: folder.path + "/fresh.caf", settings: fresh)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: jobs[1].output))
                == Data(contentsOf: URL(fileURLWithPath: folder.path + "/fresh.caf")))
        #expect(try AudioFileSummary(try AudioFile(path: jobs[2].output).properties).frameCount == 2000)
    }

    /// `a.wav` and `a.aif` both map to `a.caf`: an error naming both, before anything is converted.
    @Test func collidingSourcesAreAnError() throws {
        let folder = try Folder()
        let sources = folder.path + "/src"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        try writeFloatWAV([0, 0.1, 0.2], rate: 22050, channels: 1, to: sources + "/a.wav")
        try FileManager.default.copyItem(atPath: fixtures + "/signals/speech.wav", toPath: sources + "/b.wav")
        try AudioConverter.convert(input: sources + "/a.wav", output: sources + "/a.aif", settings: settings("BEI16"))
        let batch = BatchConverter(preset: .pcm, outputFolder: folder.path + "/out")
        #expect {
            try batch.jobs(for: [sources])
        } throws: { error in
            let text = "\(error)"
            return error is BatchConverter.CollisionError && text.contains("a.wav") && text.contains("a.aif")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"))
    }

    /// An output folder inside the sources is never read back as sources; links to files are followed,
    /// link loops are not; macOS's AppleDouble files and .DS_Store are skipped.
    @Test func whatAFolderHolds() throws {
        let folder = try Folder()
        let sources = folder.path + "/src"
        try FileManager.default.createDirectory(atPath: sources + "/sub", withIntermediateDirectories: true)
        try writeFloatWAV([0, 0.1, 0.2], rate: 22050, channels: 1, to: sources + "/a.wav")
        try FileManager.default.copyItem(
            atPath: fixtures + "/signals/speech.wav", toPath: folder.path + "/elsewhere.wav")
        try FileManager.default.createSymbolicLink(
            atPath: sources + "/linked.wav", withDestinationPath: folder.path + "/elsewhere.wav")
        try FileManager.default.createSymbolicLink(atPath: sources + "/sub/loop", withDestinationPath: sources)
        try Data("junk".utf8).write(to: URL(fileURLWithPath: sources + "/._a.wav"))
        try Data("junk".utf8).write(to: URL(fileURLWithPath: sources + "/.DS_Store"))
        let batch = BatchConverter(preset: .pcm, outputFolder: sources + "/out", imaQuality: .fast, parallelJobs: 3)
        let first = try batch.jobs(for: [sources])
        #expect(
            first.map { $0.source.split(separator: "/").last.map(String.init) ?? "" }.sorted() == [
                "a.wav", "linked.wav",
            ])
        #expect(converted(batch.run(first) { _, _, _ in }) == 2)
        // The outputs (src/out/*.caf) are not sources on the next run.
        let second = try batch.jobs(for: [sources])
        #expect(second == first)
    }
}

private func converted(_ outcomes: [BatchConverter.Outcome]) -> Int {
    outcomes.filter { if case .converted = $0 { true } else { false } }.count
}

@Suite struct MusicPresetTests {
    @Test func mp3ThroughLAMEIsGapless() throws {
        let folder = try Folder()
        let output = folder.path + "/theme.mp3"
        let result = try AudioConverter.convert(
            input: fixtures + "/signals/music.wav", output: output,
            settings: Preset.music.settings)
        #expect(result.frameCount == 55125)
        // afkit's own parser reads LAME's tag: the valid frames are the source's exactly.
        let file = try AudioFile(path: output)
        #expect(file.dataFormat.formatID == .mpegLayer3)
        #expect(file.properties.validFrameCount == 55125)
        #expect(file.properties.trace.contains("LAME"))
        #expect(folder.contents == ["theme.mp3"])
    }

    @Test func aacPassesThroughUntouched() throws {
        let folder = try Folder()
        let source = fixtures + "/adts/aac-lc-44k-stereo.aac"
        let output = folder.path + "/song.caf"
        try AudioConverter.convert(input: source, output: output, settings: Preset.music.settings)
        let original = try AudioFile(path: source)
        let copy = try AudioFile(path: output)
        #expect(copy.properties.fileType == .caf)
        #expect(copy.packetCount == original.packetCount)
        #expect(
            copy.properties.magicCookie.flatMap {
                AudioSpecificConfig.audioSpecificConfig(inElementaryStreamDescriptor: $0)
            } == [
                0x12, 0x10,
            ])
        for packet in stride(from: Int64(0), to: original.packetCount, by: 7) {
            let a = try original.readPackets(from: packet, count: 1)
            let b = try copy.readPackets(from: packet, count: 1)
            #expect(a.bytes[Int(a.descriptions[0].startOffset)...] == b.bytes[...], "packet \(packet)")
        }
    }
}

/// What sound libraries ship, read by afkit's own parsers: FLAC, and Ogg Vorbis, Opus and FLAC.
@Suite struct SoundLibrarySourceTests {
    /// The speech signal's first `count` frames.
    static func speech(_ count: Int) throws -> [Float] {
        Array(try decodedSamples(fixtures + "/signals/speech.wav").prefix(count))
    }

    /// Ogg sources decode to the reference decoders' frame counts; FLAC in Ogg to the very samples it
    /// was made from, Vorbis to a close copy of them.
    @Test func oggSourcesDecodeGaplessly() throws {
        let flac = try decodedSamples(fixtures + "/ogg/flac-ogg.oga")
        #expect(flac == (try Self.speech(33075)))
        let vorbis = try decodedSamples(fixtures + "/ogg/oggenc-speech.ogg")
        #expect(vorbis.count == 33075)
        let original = try Self.speech(33075)
        let dot = zip(vorbis, original).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
        let energy = (original.reduce(0.0) { $0 + Double($1 * $1) }, vorbis.reduce(0.0) { $0 + Double($1 * $1) })
        #expect(dot / (energy.0 * energy.1).squareRoot() > 0.98)
        let opus = try decodedSamples(fixtures + "/ogg/opusenc-voice.opus")
        #expect(opus.count == 72000)
        // 48 kHz: the source's energy per frame, within 1 dB.
        let opusPower = opus.reduce(0.0) { $0 + Double($1 * $1) } / Double(opus.count)
        let sourcePower = energy.0 / Double(original.count)
        #expect(abs(10 * log10(opusPower / sourcePower)) < 1)
    }

    /// AC-3, E-AC-3 and AMR (bare and in 3GP) decode through libavcodec to the frames FFmpeg gives.
    @Test(arguments: [
        "stereo-44k.ac3", "surround-5.1.ac3", "surround-5.1.eac3", "speech.amr", "amr.3gp", "speech.loas",
        "stereo.loas", "speech-wb.amr",
    ])
    func framedSourcesDecode(name: String) throws {
        let path = fixtures + "/framed/" + name
        let frames = try String(contentsOfFile: path + ".frames", encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let reader = try SourceReader(path: path)
        let samples = try decodedSamples(path)
        #expect(samples.count == (Int(frames) ?? -1) * reader.channels, "\(name)")
        #expect(samples.contains { $0 != 0 })
    }

    /// LOAS frames are LATM, not AAC access units: `--preset music`, which copies AAC packets, re-encodes
    /// them into an M4A that decodes to the source's length (a copy would make an M4A of LATM frames).
    @Test func loasIsNeverCopiedAsAAC() throws {
        let folder = try Folder()
        let source = fixtures + "/framed/speech.loas"
        let result = try AudioConverter.convert(
            input: source, output: folder.path + "/a.m4a", settings: Preset.music.settings)
        #expect(result.frameCount == 34816)
        let copy = try AudioFile(path: folder.path + "/a.m4a")
        #expect(copy.dataFormat.formatID == .aac && copy.properties.validFrameCount == 34816)
        let decoded = try decodedSamples(folder.path + "/a.m4a")
        #expect(decoded.count == 34816 && decoded.contains { $0 != 0 })
    }

    @Test func anOggVorbisSourceConverts() throws {
        let folder = try Folder()
        _ = try AudioConverter.convert(
            input: fixtures + "/other/speech.ogg", output: folder.path + "/a.wav", settings: ConversionSettings())
        let file = try AudioFile(path: folder.path + "/a.wav")
        // A lossy source becomes 16-bit PCM.
        #expect(file.dataFormat.bitsPerChannel == 16 && file.packetCount == 22050)
    }

    /// FLAC converts to PCM of its own depth with exactly its samples (those `flac -d` gives: the MD5
    /// committed beside each fixture), 16 and 24 bits, mono to 7.1.
    @Test(arguments: ["speech", "hires-24bit", "hires-lpc32-b1000", "octo-7.1", "ffmpeg-stereo", "large-picture"])
    func flacConvertsToItsOwnSamples(name: String) throws {
        let folder = try Folder()
        let reference = try String(contentsOfFile: fixtures + "/flac/\(name).decoded.md5", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        for output in ["a.wav", "a.caf"] {
            _ = try AudioConverter.convert(
                input: fixtures + "/flac/\(name).flac", output: folder.path + "/" + output,
                settings: ConversionSettings())
            let file = try AudioFile(path: folder.path + "/" + output)
            #expect(file.dataFormat.bitsPerChannel == UInt32(reference[1]))
            var bytes = try file.readAudioBytes()
            if file.dataFormat.formatFlags.contains(.isBigEndian) {
                let width = Int(file.dataFormat.bitsPerChannel) / 8
                for start in stride(from: 0, to: bytes.count, by: width) { bytes[start..<start + width].reverse() }
            }
            var md5 = MD5()
            md5.update(bytes)
            #expect(md5.finalize().map { String(format: "%02x", $0) }.joined() == reference[0], "\(name) → \(output)")
        }
    }
}

/// The fuzzers' inputs (the minimized `file` corpus, the hostile-header fixtures and every fuzz
/// regression) through the whole conversion pipeline: each converts to a file afkit reads back with the
/// frames reported, or fails with a typed error and leaves nothing behind.
@Suite struct HostileConversionTests {
    static let root = URL(fileURLWithPath: fixtures).deletingLastPathComponent().deletingLastPathComponent()

    static var inputs: [String] {
        let folders =
            ["Fuzz/corpus/file", "Tests/Fixtures/hostile"]
            + ["stream", "file", "validator"].map { "Tests/Fixtures/fuzz-regressions/\($0)" }
        return folders.flatMap { folder -> [String] in
            let path = root.appendingPathComponent(folder).path
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") && !$0.hasSuffix(".json") }.sorted()
                .map { "\(path)/\($0)" }
        }
    }

    @Test(arguments: ["LEI16", "ima4@22050", "aac", "alac"])
    func convertsOrFailsWithATypedError(_ spec: String) throws {
        let inputs = Self.inputs
        #expect(inputs.count > 1000)
        let folder = try Folder()
        var converted = 0
        for input in inputs {
            // The corpus files have no extension: the parser sniffs them, as afkit does.
            let output = folder.path + "/out.caf"
            var settings = settings(spec, type: .caf)
            if spec.hasPrefix("ima4") { settings.channels = 1 }
            do {
                let result = try AudioConverter.convert(input: input, output: output, settings: settings)
                let back = try AudioFile(path: output)
                let frames = try AudioFileSummary(back.properties).frameCount
                #expect(frames == result.frameCount, "\(input)")
                converted += 1
                try FileManager.default.removeItem(atPath: output)
            } catch is AudioFileError {
                #expect(folder.contents.isEmpty, "\(input) left \(folder.contents)")
            }
        }
        // Many corpus inputs are valid files, cut short: they convert.
        #expect(converted > 100)
    }
}

/// IMA4 to integer PCM takes the decoder's 16-bit samples as they are (no round trip through Float):
/// what is written equals FFmpeg's adpcm_ima_qt decode bit for bit, in every integer layout wide enough,
/// and equals the Float samples the rest of the pipeline takes (a resampled or mixed conversion).
@Suite struct IMA4ToIntegerPCMTests {
    @Test(arguments: [
        "music-ima4.caf", "noise-loud-ima4.caf", "speech-ima4-stereo.aifc",
        "afkit-speech-ima4-search.caf",
    ])
    func integersAreFFmpegsDecode(_ name: String) throws {
        let source = fixtures + "/codecs/" + name
        let ffmpeg = Array(try Data(contentsOf: URL(fileURLWithPath: source + ".s16le")))
        let folder = try Folder()
        let frames = try #require(try SourceReader(path: source).frameCount)
        let channels = Int(try AudioFile(path: source).dataFormat.channelsPerFrame)
        let wav = try AudioConverter.convert(
            input: source, output: folder.path + "/out.wav", settings: settings("LEI16"))
        #expect(wav.frameCount == frames)
        let written = try AudioFile(path: folder.path + "/out.wav").readAudioBytes()
        #expect(written == Array(ffmpeg.prefix(Int(frames) * channels * 2)))
        // Big-endian 24-bit: the same samples, shifted into the wider word.
        _ = try AudioConverter.convert(input: source, output: folder.path + "/out.aif", settings: settings("BEI24"))
        let wide = try AudioFile(path: folder.path + "/out.aif").readAudioBytes()
        let expected: [UInt8] = stride(from: 0, to: written.count, by: 2).flatMap {
            [written[$0 + 1], written[$0], UInt8(0)]
        }
        #expect(wide == expected)
        // The Float pipeline's samples: the same values.
        let floats = try decodedSamples(source)
        #expect(floats.count == Int(frames) * channels)
        let fromFloats = floats.flatMap { withUnsafeBytes(of: Int16(($0 * 32768).rounded()).littleEndian, Array.init) }
        #expect(fromFloats == written)
    }
}
