import AudioContainers
import Foundation
import Testing

/// The everyday edits (issue 49, the contract's "Edits"): a part of the source by time or frames, fades in SoX's
/// shapes, padding and gain, checked against the source's own samples and the shapes' formulas.
@Suite struct EditTests {
    static let source = "signals/music.wav"  // mono, 22.05 kHz, 16-bit, 55125 frames

    /// The stored 16-bit samples of a mono file.
    static func samples(_ path: String) throws -> [Int16] {
        let file = try AudioFile(path: path)
        var bytes: [UInt8] = []
        _ = try file.readPacketData(from: 0, count: Int(file.packetCount), into: &bytes)
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// `--start`/`--duration`, `-ss`/`-to`, `-t`, in seconds, clock time and frames: exact to the frame, the
    /// samples the source's own.
    @Test func cutsAreExactToTheFrame() throws {
        let folder = try ScratchFolder()
        let original = try Self.samples(Command.fixtures + "/" + Self.source)
        let cases: [([String], Range<Int>)] = [
            (["--start", "0.5", "--duration", "1"], 11025..<33075),
            (["-ss", "00:00:01.000", "-to", "2"], 22050..<44100),
            (["-t", "1000f"], 0..<1000),
            (["--start", "100f", "--end", "0.5"], 100..<11025),
        ]
        for (index, (options, range)) in cases.enumerated() {
            let output = folder.path + "/cut\(index).wav"
            let result = try Command.run(["convert"] + options + [Self.source, output])
            #expect(result.status == 0, "\(options): \(result.stderr)")
            #expect(try Self.samples(output) == Array(original[range]), "\(options)")
        }
        // From a compressed source: decoded and cut, as many frames as asked.
        let mp3 = folder.path + "/cut.wav"
        #expect(
            try Command.run(["convert", "--start", "0.25", "--duration", "0.5", "mp3/ffmpeg-libmp3lame.mp3", mp3])
                .status == 0)
        let rate = try AudioFile(path: mp3).dataFormat.sampleRate
        #expect(try AudioFile(path: mp3).properties.validFrameCount == Int64((0.5 * rate).rounded()))
        // A start past the end is a usage error naming the length.
        let past = try Command.run(["convert", "--start", "10", Self.source, folder.path + "/past.wav"])
        #expect(past.status == 2 && past.stderr.contains("past the end"), "\(past.stderr)")
    }

    /// Each fade shape's envelope on a constant level, within 0.1 dB of SoX's formula (every frame at its
    /// middle); the padding's zeros and length; the gain within 0.01 dB.
    @Test func fadesPaddingAndGainAsTheirFormulas() throws {
        let folder = try ScratchFolder()
        // A constant level of half full scale, 0.5 s at 8 kHz.
        let constant = folder.path + "/dc.wav"
        var wav = Data("RIFF".utf8)
        let frames = 4000
        func le(_ value: Int, _ bytes: Int) -> Data {
            Data((0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
        }
        wav += le(36 + frames * 2, 4) + Data("WAVEfmt ".utf8) + le(16, 4) + le(1, 2) + le(1, 2) + le(8000, 4)
        wav += le(16000, 4) + le(2, 2) + le(16, 2) + Data("data".utf8) + le(frames * 2, 4)
        for _ in 0..<frames { wav += le(16384, 2) }
        try wav.write(to: URL(fileURLWithPath: constant))
        let formulas: [String: (Double) -> Double] = [
            "q": { sin($0 * Double.pi / 2) }, "h": { (1 - cos($0 * Double.pi)) / 2 }, "t": { $0 },
            "l": { pow(0.1, (1 - $0) * 5) }, "p": { 1 - (1 - $0) * (1 - $0) },
        ]
        for (shape, formula) in formulas {
            let output = folder.path + "/fade-\(shape).wav"
            let result = try Command.run([
                "convert", "-d", "LEF32", "--fade-in", "800f", "--fade-out", "0.1", "--fade-shape", shape, constant,
                output,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let file = try AudioFile(path: output)
            var bytes: [UInt8] = []
            _ = try file.readPacketData(from: 0, count: Int(file.packetCount), into: &bytes)
            let values = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            #expect(values.count == frames)
            for frame in stride(from: 0, to: 800, by: 7) {
                let expected = 0.5 * formula((Double(frame) + 0.5) / 800)
                let outFrame = frames - 1 - frame
                let expectedOut = 0.5 * formula((Double(frame) + 0.5) / 800)
                guard expected > 0.5e-3 else { continue }  // above -60 dB of the level: dB comparable
                #expect(abs(20 * log10(Double(values[frame]) / expected)) < 0.1, "\(shape) in, frame \(frame)")
                #expect(abs(20 * log10(Double(values[outFrame]) / expectedOut)) < 0.1, "\(shape) out, frame \(frame)")
            }
            #expect(values[1000..<3000].allSatisfy { $0 == 0.5 }, "\(shape): untouched between the fades")
        }
        let padded = folder.path + "/padded.wav"
        #expect(try Command.run(["convert", "--pad", "0.25,100f", "--gain", "-6", constant, padded]).status == 0)
        let stored = try Self.samples(padded)
        #expect(stored.count == 2000 + frames + 100)
        #expect(stored[0..<2000].allSatisfy { $0 == 0 } && stored[(2000 + frames)...].allSatisfy { $0 == 0 })
        let level = 20 * log10(Double(stored[3000]) / 16384)
        #expect(abs(level + 6) < 0.01, "gain \(level) dB")
        // A gain that clips says so.
        let loud = try Command.run(["convert", "--gain", "12", constant, folder.path + "/loud.wav"])
        #expect(loud.stderr.contains("--gain 12 dB took \(frames) samples past full scale"), "\(loud.stderr)")
    }

    /// Markers and loops move with a cut and with padding.
    @Test func markersMoveWithTheEdits() throws {
        let folder = try ScratchFolder()
        let output = folder.path + "/moved.wav"
        let result = try Command.run(["convert", "--start", "500f", "--pad", "100f", "markers/sampler.wav", output])
        #expect(result.status == 0, "\(result.stderr)")
        let properties = try AudioFile(path: output).properties
        #expect(properties.markers.map(\.framePosition) == [600, 2600, 3200], "\(properties.markers)")
        #expect(properties.loops.first.map { [$0.start, $0.end] } == [600, 2600])
    }

    /// A new user's cases: a marker the cut removed stays removed however much padding replaces it, and a loop
    /// is cut before the padding moves it; --trim keeps the fade-out at the new end and counts the padding in the
    /// limit; a fade longer than the sound keeps SoX's slope, overlapping fades are refused; times past a week,
    /// hex, exponents and 0:99 are usage errors, as --fade-shape with no fade is; a float output keeps what a gain
    /// takes past full scale (no clipping note).
    @Test func editsAsSoXDoesThem() throws {
        let folder = try ScratchFolder()
        // sampler.wav: 4000 frames, markers at 1000, 3000, 3600; loops 1000-3000 and 3000-3600.
        let padded = folder.path + "/padded.wav"
        #expect(
            try Command.run(["convert", "--start", "1500f", "--pad", "2000f", "markers/sampler.wav", padded]).status
                == 0)
        let properties = try AudioFile(path: padded).properties
        #expect(properties.markers.map(\.framePosition) == [3500, 4100], "\(properties.markers)")
        #expect(properties.loops.first.map { [$0.start, $0.end] } == [2000, 3500], "\(properties.loops)")

        let long = folder.path + "/long.wav"
        try toneWAV(long, seconds: 40)
        let faded = folder.path + "/faded.wav"
        let trimmed = try Command.run([
            "convert", "-d", "LEI16", "--trim", "--fade-out", "1", "--fade-shape", "t", long, faded,
        ])
        #expect(trimmed.status == 0, "\(trimmed.stderr)")
        let tail = try Self.samples(faded).suffix(80)
        #expect(
            tail.allSatisfy { abs(Int($0)) < 400 }, "the last 10 ms are faded: \(tail.map { abs(Int($0)) }.max() ?? 0)")
        let padTrim = folder.path + "/padtrim.caf"
        #expect(try Command.run(["convert", "--trim", "--pad", "5", long, padTrim]).status == 0)
        #expect(try AudioFile(path: padTrim).properties.validFrameCount == 30 * 8000)

        let short = folder.path + "/short.wav"
        try toneWAV(short, seconds: 1)
        let slope = try Command.run([
            "convert", "--fade-in", "2", "--fade-shape", "t", short, folder.path + "/slope.wav",
        ])
        #expect(slope.status == 0 && slope.stderr.contains("ends at 50 %"), "\(slope.stderr)")
        for options in [
            ["--fade-in", "0.6", "--fade-out", "0.6"], ["--start", "1e20"], ["--pad", "0x10"], ["-t", "0:99"],
            ["--fade-in", "-1"], ["--fade-shape", "t"], ["--pad", "1e3"],
        ] {
            let result = try Command.run(["convert"] + options + [short, folder.path + "/x.wav"])
            #expect(result.status == 2, "\(options): \(result.stderr)")
        }
        let float = folder.path + "/float.wav"
        let loud = try Command.run(["convert", "-d", "LEF32", "--gain", "12", short, float])
        #expect(loud.status == 0 && !loud.stderr.contains("clip"), "\(loud.stderr)")
    }

    /// `convert INPUT` alone writes beside it with the extension of -f (CAF by default), never over the input;
    /// `-o` names the output as the argument does.
    @Test func anOutputBesideTheInput() throws {
        let folder = try ScratchFolder()
        let input = folder.path + "/tone.wav"
        try FileManager.default.copyItem(atPath: Command.fixtures + "/" + Self.source, toPath: input)
        #expect(try Command.run(["convert", input]).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/tone.caf"))
        #expect(try Command.run(["convert", "-f", "m4af", input]).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/tone.m4a"))
        let over = try Command.run(["convert", "-f", "WAVE", input])
        #expect(over.status == 2 && over.stderr.contains("the input itself"), "\(over.stderr)")
        #expect(try Command.run(["convert", "-o", folder.path + "/named.aiff", input]).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/named.aiff"))
    }
}
