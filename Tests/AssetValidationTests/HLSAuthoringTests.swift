@testable import AssetValidation
import AudioCodecs
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import Foundation
import Synchronization
import Testing

/// HLS as Apple's authoring specification and RFC 8216 word it (issue 69): init sections with zero durations
/// and the `iso6` brand, checked by `hls-initialization`; Apple's MUSTs as errors (AVERAGE-BANDWIDTH,
/// EXT-X-PLAYLIST-TYPE), its SHOULDs as warnings (peak at most twice the average); stereo beside surround in one
/// package. Each check fails on a package that breaks it.
@Suite(.serialized) struct HLSAuthoringTests {
    let folder: Scratch
    init() throws { folder = try Scratch() }

    /// A package of `renditions` from a `channels`-channel 13 s tone, fMP4 unless said.
    func package(
        _ renditions: [HLSSettings.Rendition], channels: UInt32 = 2, type: HLSSettings.SegmentType = .fmp4,
        name: String = "pkg", segmentDuration: Double = 6
    ) throws -> (String, [HLSRendition]) {
        let source = try folder.pcm(
            "tone-\(channels).wav", type: .wav, rate: 48000, channels: channels, frames: 13 * 48000)
        var settings = HLSSettings()
        settings.segmentType = type
        settings.segmentDuration = segmentDuration
        settings.renditions = renditions
        settings.language = "en"
        let output = folder.root + "/" + name
        return (output, try HLSPackager.package(source: source, output: output, settings: settings))
    }

    static func findings(_ path: String) -> [Violation] {
        AssetValidator(profile: .hlsAudio).validate(path: path).violations
    }

    /// Replaces `old` by `new` (same length for binary files) in the file at `path`; returns what undoes it.
    static func replacing(_ path: String, _ old: [UInt8], _ new: [UInt8], all: Bool = true) throws -> () throws -> Void
    {
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var bytes = original
        var index = 0
        var replaced = 0
        while index + old.count <= bytes.count {
            if bytes[index..<index + old.count].elementsEqual(old) {
                bytes.replaceSubrange(index..<index + old.count, with: new)
                replaced += 1
                if !all { break }
                index += new.count
            } else {
                index += 1
            }
        }
        #expect(replaced > 0, "nothing to replace in \(path)")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return { try Data(original).write(to: URL(fileURLWithPath: path)) }
    }

    /// The init section afkit writes: `iso6`, `mvhd` and `tkhd` of zero duration, an empty sample table, a sound
    /// track and `mvex` after it; and `hls-initialization` fails each of those broken in turn.
    @Test func initializationSectionsAreAsRFC8216Says() throws {
        let (output, _) = try package([HLSSettings.Rendition(bitRate: 128_000)])
        let initPath = output + "/aac-128k/init.mp4"
        let facts = try MP4.initializationFacts(Array(try Data(contentsOf: URL(fileURLWithPath: initPath))))
        #expect(facts.brands.contains("iso6"))
        #expect(facts.movieDuration == 0 && facts.trackDuration == 0 && facts.sampleCount == 0)
        #expect(facts.trackCount == 1 && facts.movieExtendsFollowsTracks && facts.handlerType == "soun")
        // The edit list still says what the presentation holds: the priming skipped, the source's frames kept.
        #expect(facts.editMediaTime == 1024 && facts.editDuration == 13 * 48000)
        let master = output + "/master.m3u8"
        #expect(Self.findings(master).isEmpty, "\(Self.findings(master).map(\.described))")

        func initErrors() -> [String] {
            Self.findings(master).filter { $0.rule == "hls-initialization" && $0.severity == .error }.map(\.message)
        }
        // No iso6-compatible brand.
        var restore = try Self.replacing(initPath, Array("iso6".utf8), Array("mp42".utf8))
        #expect(
            initErrors().contains { $0.contains("'ftyp' names 'mp42'") && $0.contains("'iso6'") }, "\(initErrors())")
        try restore()
        // A movie header that lasts: mvhd version 1's duration is the 8 bytes after its timescale.
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: initPath)))
        let mvhd = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("mvhd".utf8)) })
        let duration = mvhd + 4 + 4 + 16 + 4
        var lasting = bytes
        lasting[duration + 7] = 0x10
        try Data(lasting).write(to: URL(fileURLWithPath: initPath))
        #expect(initErrors().contains { $0.contains("'mvhd' lasts 16 units") }, "\(initErrors())")
        try Data(bytes).write(to: URL(fileURLWithPath: initPath))
        // No Movie Extends box.
        restore = try Self.replacing(initPath, Array("mvex".utf8), Array("free".utf8))
        #expect(initErrors().contains { $0.contains("no Movie Extends box") }, "\(initErrors())")
        try restore()
        // A video handler.
        restore = try Self.replacing(initPath, Array("soun".utf8), Array("vide".utf8), all: false)
        #expect(initErrors().contains { $0.contains("'vide', not sound") }, "\(initErrors())")
        try restore()
        #expect(initErrors().isEmpty)
    }

    /// Apple's MUSTs fail: a variant without AVERAGE-BANDWIDTH, an ended playlist without EXT-X-PLAYLIST-TYPE, a
    /// rendition without LANGUAGE; its SHOULD warns: a peak over twice the average.
    @Test func applesMustsAreErrorsAndShouldsWarnings() throws {
        let (output, _) = try package([HLSSettings.Rendition(bitRate: 96000)], type: .packed)
        let master = output + "/master.m3u8"
        let media = output + "/aac-96k/prog_index.m3u8"
        #expect(Self.findings(master).isEmpty)
        func messages(_ severity: Severity) -> [String] {
            Self.findings(master).filter { $0.severity == severity }.map { "\($0.rule): \($0.message)" }
        }
        let text = try String(contentsOfFile: master, encoding: .utf8)
        let average = String(text[try #require(text.firstRange(of: /,AVERAGE-BANDWIDTH=[0-9]+/))])
        var restore = try Self.replacing(master, Array(average.utf8), [])
        #expect(messages(.error).contains { $0.hasPrefix("hls-bandwidth:") && $0.contains("has no AVERAGE-BANDWIDTH") })
        try restore()
        restore = try Self.replacing(media, Array("#EXT-X-PLAYLIST-TYPE:VOD\n".utf8), [])
        #expect(
            messages(.error).contains { $0.hasPrefix("hls-playlist:") && $0.contains("no EXT-X-PLAYLIST-TYPE") },
            "\(messages(.error))")
        try restore()
        restore = try Self.replacing(master, Array(",LANGUAGE=\"en\"".utf8), [])
        #expect(messages(.error).contains { $0.hasPrefix("hls-audio-renditions:") && $0.contains("no LANGUAGE") })
        try restore()
        #expect(Self.findings(master).isEmpty)

        // One 2 s segment of a 64 kbit/s rendition swapped for the same segment at 320 kbit/s: a peak over three
        // times the average.
        let (uneven, _) = try package(
            [HLSSettings.Rendition(bitRate: 64000), HLSSettings.Rendition(bitRate: 320_000)], type: .packed,
            name: "uneven", segmentDuration: 2)
        try FileManager.default.removeItem(atPath: uneven + "/aac-64k/segment3.aac")
        try FileManager.default.copyItem(
            atPath: uneven + "/aac-320k/segment3.aac", toPath: uneven + "/aac-64k/segment3.aac")
        let warnings = Self.findings(uneven + "/master.m3u8").filter { $0.severity == .warning }.map(\.message)
        #expect(
            warnings.contains { $0.hasPrefix("aac-64k/") && $0.contains("Apple asks for at most 200 %") }, "\(warnings)"
        )
        #expect(!warnings.contains { $0.hasPrefix("aac-320k/") && $0.contains("200 %") })
    }

    /// One package holds stereo AAC at two rates and 5.1 AAC at 320 kbit/s: one NAME and LANGUAGE, a group each,
    /// CHANNELS 2, 2 and 6, clean in the validator; surround alone fails (Apple requires stereo) with a note from
    /// the packager; 5.1 at 192 kbit/s or stereo at 256 kbit/s is written with a note and warns (Apple's table).
    @Test func stereoBesideSurround() throws {
        let (output, renditions) = try package(
            [
                HLSSettings.Rendition(bitRate: 64000, channels: 2),
                HLSSettings.Rendition(bitRate: 128_000, channels: 2),
                HLSSettings.Rendition(bitRate: 320_000, channels: 6),
            ], channels: 6)
        #expect(renditions.map(\.format.channelsPerFrame) == [2, 2, 6])
        #expect(
            renditions.map(\.playlist)
                == ["aac-2ch-64k", "aac-2ch-128k", "aac-6ch-320k"].map { $0 + "/prog_index.m3u8" })
        // One note: the stereo mixes of this 5.1 tone are quieter than the 5.1 (a player switching jumps).
        let notes = renditions.flatMap(\.notes)
        #expect(notes.count == 1 && notes[0].contains("the renditions' loudness differs by"), "\(notes)")
        let master = try String(contentsOfFile: output + "/master.m3u8", encoding: .utf8)
        let media = master.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MEDIA:") }
        #expect(
            media.count == 3 && media.allSatisfy { $0.contains("NAME=\"tone-6\"") && $0.contains("LANGUAGE=\"en\"") })
        #expect(media.map { $0.contains("CHANNELS=\"6\"") } == [false, false, true])
        #expect(
            Self.findings(output + "/master.m3u8").isEmpty, "\(Self.findings(output + "/master.m3u8").map(\.described))"
        )

        let (surround, alone) = try package(
            [HLSSettings.Rendition(bitRate: 192_000, channels: 6)], channels: 6, name: "surround")
        let aloneNotes = alone.flatMap(\.notes)
        #expect(aloneNotes.contains { $0.contains("asks for a stereo AAC rendition") }, "\(aloneNotes)")
        #expect(
            aloneNotes.contains { $0.contains("5.1 AAC-LC at 192 kbit/s") && $0.contains("320 kbit/s") },
            "\(aloneNotes)")
        let found = Self.findings(surround + "/master.m3u8")
        #expect(found.contains { $0.severity == .error && $0.message.contains("no stereo AAC rendition") })
        #expect(found.contains { $0.severity == .warning && $0.message.contains("5.1 AAC at 19") })

        let (_, high) = try package([HLSSettings.Rendition(bitRate: 256_000)], name: "high")
        #expect(high[0].notes.contains { $0.contains("stereo AAC-LC at 256 kbit/s") && $0.contains("32 to 160") })
    }

    /// Each fMP4 rendition's init section states its loudness as decoded (ISO/IEC 14496-12 `ludt`): with
    /// `--loudness -16`, -16 LUFS and a true peak under the -1 dBTP ceiling, read back from init.mp4.
    @Test func initSectionsStateTheirLoudness() throws {
        let source = try folder.pcm("loud.wav", type: .wav, rate: 48000, channels: 2, frames: 13 * 48000)
        var settings = HLSSettings()
        settings.renditions = [HLSSettings.Rendition(bitRate: 64000), HLSSettings.Rendition(bitRate: 128_000)]
        settings.language = "en"
        settings.conversion.loudness = LoudnessTarget(integrated: -16)
        let output = folder.root + "/loud"
        _ = try HLSPackager.package(source: source, output: output, settings: settings)
        for rendition in ["aac-64k", "aac-128k"] {
            let file = try AudioFile(path: output + "/" + rendition + "/init.mp4")
            let stated = try #require(file.properties.loudnessInfo, "\(rendition)")
            let integrated = try #require(stated.integratedLoudness)
            #expect(abs(integrated + 16) <= 0.25, "\(rendition): \(integrated)")
            #expect(try #require(stated.truePeak) <= -1 + 1.0 / 32, "\(rendition)")
            #expect(stated.loudnessRange != nil && stated.samplePeak != nil)
        }
    }

    /// The packaged rendition's loudness as a player decodes it: its init section and segments joined.
    func decodedLoudness(_ folder: String) throws -> LoudnessMeasurement {
        let playlist = try HLSTests.media(folder + "/prog_index.m3u8")
        var whole = try HLSTests.bytes(folder + "/init.mp4")
        for segment in playlist.segments { whole += try HLSTests.bytes(folder + "/" + segment.uri) }
        let joined = self.folder.root + "/joined-loudness.mp4"
        try Data(whole).write(to: URL(fileURLWithPath: joined))
        return try LoudnessMeasurement.measure(path: joined)
    }

    /// `--loudness`: the source is normalized once and every rendition encoded from it and checked; a rendition
    /// its encoder moves (32 kbit/s) is re-aimed, and the renditions after it start where it met the target. Each
    /// meets the contract (0.1 LU, the ceiling) as decoded, and the normalized signals are gone from the package. A
    /// target the 32 kbit/s rendition cannot meet is refused, naming one it was encoded at, and a package at that
    /// target meets it. The refusal costs about what a result would: the lowest bit rate is made first (asked last
    /// here), so the 128k rendition is never encoded, and the 32k one a few times (it took up to nine). The sound is
    /// 15 s of the speech and music fixtures joined: on one 2.5 s sound, 32 kbit/s AAC is chaotic (its loudness
    /// jumps 0.25 LU between signals 0.01 LU apart).
    @Test func loudnessIsMetByEveryRenditionOrRefusedNamingOneThatIs() throws {
        let signals = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/signals").path
        let music = folder.root + "/joined.wav"
        let composition = try Composition(
            .join, parts: (0..<6).map { Composition.Part(path: signals + ($0 % 2 == 0 ? "/speech.wav" : "/music.wav")) }
        )
        var joining = ConversionSettings()
        joining.fileType = .wav
        joining.dataFormat = DataFormatSpecifier("LEI24")
        joining.composedSource = { composition.open() }
        try AudioConverter.convert(input: composition.name, output: music, settings: joining)
        let encodes = RenditionEncodes()
        func package(_ loudness: Double, name: String) throws -> String {
            var settings = HLSSettings()
            settings.bitRates = [128_000, 32000]
            settings.language = "en"
            settings.conversion.loudness = LoudnessTarget(integrated: loudness)
            settings.conversion.progress = { encodes.report($0) }
            let output = folder.root + "/" + name
            _ = try HLSPackager.package(source: music, output: output, settings: settings)
            return output
        }
        func checkMet(_ output: String, _ loudness: Double) throws {
            for rendition in ["aac-32k", "aac-128k"] {
                let measured = try decodedLoudness(output + "/" + rendition)
                #expect(abs(measured.integrated - loudness) <= 0.1, "\(rendition): \(measured.integrated)")
                #expect(measured.truePeak <= -1, "\(rendition): \(measured.truePeak)")
            }
            let hidden = try FileManager.default.subpathsOfDirectory(atPath: output).filter {
                $0.contains(".afkit-loudness")
            }
            #expect(hidden.isEmpty, "\(hidden)")
        }
        try checkMet(try package(-24, name: "quiet"), -24)
        // The 128k rendition, made after the 32k one, starts from the ceiling the 32k one met the target with: one
        // encode.
        #expect(encodes.count("encoding aac-128k") == 1, "\(encodes.all)")
        var message = ""
        encodes.reset()
        do {
            _ = try package(-20, name: "loud")
        } catch let error as AudioFileError {
            message = error.message
        }
        #expect(encodes.count("encoding aac-128k") == 0 && encodes.count("encoding aac-32k") <= 3, "\(encodes.all)")
        let named = try #require(
            message.firstMatch(of: /The loudest target that can is (-[0-9.]+) LUFS \(the rendition was encoded there/),
            "\(message)")
        let suggestion = try #require(Double(named.1))
        #expect(suggestion < -20 && suggestion > -21.5)
        try checkMet(try package(suggestion, name: "suggested"), suggestion)
    }

    /// A rendition of a sound longer than a minute, whose signal peaks near the ceiling, tries its first encode in
    /// parts at once (convert's trial encode) and is aimed by it: it meets the target in at most two encodes after
    /// the trial, and the package holds no trial's file. (65 s at 8 kHz, the shortest sound that is not short.)
    @Test func aLongRenditionTriesItsFirstEncode() throws {
        let signals = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/signals").path
        let source = folder.root + "/long.wav"
        let composition = try Composition(
            .join,
            parts: (0..<26).map { Composition.Part(path: signals + ($0 % 2 == 0 ? "/speech.wav" : "/music.wav")) })
        var joining = ConversionSettings()
        joining.fileType = .wav
        joining.dataFormat = DataFormatSpecifier("LEI24")
        joining.sampleRate = 8000
        joining.composedSource = { composition.open() }
        try AudioConverter.convert(input: composition.name, output: source, settings: joining)
        let encodes = RenditionEncodes()
        var settings = HLSSettings()
        settings.bitRates = [64000]
        settings.language = "en"
        // (-20.83 LUFS and -1.85 dBTP as joined: at -21, within a few dB of the ceiling. The rendition is resampled to
        // 48 kHz, where AAC at 48 kbit/s and less adds 3 to 4 dB of true peak to this sound, more than the limiting
        // allowed; at 64 kbit/s, -20.5 to -22.5 LUFS all meet.)
        settings.conversion.loudness = LoudnessTarget(integrated: -21)
        settings.conversion.progress = { encodes.report($0) }
        let output = folder.root + "/long"
        _ = try HLSPackager.package(source: source, output: output, settings: settings)
        let measured = try decodedLoudness(output + "/aac-64k")
        #expect(abs(measured.integrated + 21) <= 0.1 && measured.truePeak <= -1, "\(measured)")
        #expect(encodes.count("encoding aac-64k") <= 2, "\(encodes.all)")
        if activeProcessorCount() > 1 {
            #expect(
                encodes.activities.contains("a trial encode of aac-64k in 2 parts at once"), "\(encodes.activities)")
        }
        let hidden = try FileManager.default.subpathsOfDirectory(atPath: output).filter {
            $0.contains(".afkit-trial") || $0.contains(".afkit-loudness")
        }
        #expect(hidden.isEmpty, "\(hidden)")
    }

    /// Upmixing is refused before anything is written; two renditions of one folder name are a usage error.
    @Test func renditionsThatCannotBeWrittenAreRefused() throws {
        #expect(throws: ConversionUsageError.self) {
            try package([HLSSettings.Rendition(bitRate: 320_000, channels: 6)], channels: 2, name: "up")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.root + "/up/master.m3u8"))
        var settings = HLSSettings()
        settings.renditions = [HLSSettings.Rendition(bitRate: 128_000), HLSSettings.Rendition(bitRate: 128_000)]
        #expect(throws: ConversionUsageError.self) { try HLSPackager.checkSettings(settings) }
    }
}

/// Counts each rendition's encodes from a package's progress (`encoding 64k`, `encoding 64k, round 2` both count
/// as the rendition's): an encode starts where its activity follows another one, or where the frames written go back.
final class RenditionEncodes: Sendable {
    private struct State {
        var counts: [String: Int] = [:]
        var activities: Set<String> = []
        var last: (activity: String, frames: Int64)?
    }
    private let state = Mutex(State())

    func report(_ progress: ConversionProgress) {
        guard let activity = progress.activity else { return }
        state.withLock { state in
            state.activities.insert(activity)
            if activity.hasPrefix("encoding"),
                state.last.map({ $0.activity != activity || $0.frames > progress.framesWritten }) ?? true
            {
                state.counts[String(activity.prefix { $0 != "," }), default: 0] += 1
            }
            state.last = (activity, progress.framesWritten)
        }
    }

    func count(_ activity: String) -> Int { state.withLock { $0.counts[activity] ?? 0 } }
    /// Every activity said, encodes or not.
    var activities: Set<String> { state.withLock { $0.activities } }
    var all: [String: Int] { state.withLock { $0.counts } }
    func reset() { state.withLock { $0 = State() } }
}
