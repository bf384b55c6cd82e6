@testable import AssetValidation
import AudioCodecs
import AudioContainers
import AudioConversion
import AudioDecoding
import AudioFormats
import FileAccess
import Foundation
import Testing

/// `afkit hls`'s packager and `validate --profile hls-audio` (issue 51): renditions written as Apple's authoring
/// specification asks, read back to the source's frames, their timestamps exact; the validator passes them and
/// FFmpeg's fMP4, and fails playlists made wrong on purpose.
@Suite(.serialized) struct HLSTests {
    let folder: Scratch
    init() throws { folder = try Scratch() }

    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/hls/" + name).path
    }

    /// A 13 s stereo tone at `rate` (13 s: two 6 s segments and a short third).
    func source(rate: Double = 44100, seconds: Double = 13, channels: UInt32 = 2) throws -> String {
        try folder.pcm(
            "tone-\(Int(rate))-\(channels).wav", type: .wav, rate: rate, channels: channels, frames: Int(rate * seconds)
        )
    }

    func package(_ type: HLSSettings.SegmentType, source: String, bitRates: [Int] = [64000, 128_000]) throws
        -> (String, [HLSRendition])
    {
        var settings = HLSSettings()
        settings.segmentType = type
        settings.bitRates = bitRates
        settings.language = "en"
        let output = folder.root + "/out-\(type.rawValue)"
        return (output, try HLSPackager.package(source: source, output: output, settings: settings))
    }

    static func media(_ path: String) throws -> HLS.MediaPlaylist {
        guard case .media(let playlist) = try HLS.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        else { throw AudioFileError.malformed("not a media playlist", offset: nil) }
        return playlist
    }

    static func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// fMP4: segments within the target duration, `tfdt` counting the packets before exactly, the init section
    /// with the encoder's priming; the whole read back (init + segments) decodes to the source's frames exactly.
    @Test func fragmentedRenditionsReadBackToTheSourcesFrames() throws {
        let source = try source()
        let (output, renditions) = try package(.fmp4, source: source)
        #expect(renditions.count == 2)
        for rendition in renditions {
            let directory = output + "/" + rendition.playlist.split(separator: "/").dropLast().joined(separator: "/")
            let playlist = try Self.media(output + "/" + rendition.playlist)
            #expect(playlist.version == 7 && playlist.endList && playlist.targetDuration == 6)
            #expect(playlist.segments.count == 3)
            #expect(playlist.segments.allSatisfy { $0.duration <= 6.0 + 1024 / 44100 && $0.map?.uri == "init.mp4" })
            var whole = try Self.bytes(directory + "/init.mp4")
            var packets: UInt64 = 0
            for segment in playlist.segments {
                let bytes = try Self.bytes(directory + "/" + segment.uri)
                let fragment = try #require(try MP4.trackFragments(in: bytes).first)
                #expect(fragment.baseDecodeTime == packets * 1024)
                packets += UInt64(fragment.sampleCount)
                whole += bytes
            }
            let joined = folder.root + "/joined.mp4"
            try Data(whole).write(to: URL(fileURLWithPath: joined))
            let reader = try SourceReader(path: joined)
            #expect(reader.frameCount == Int64(13 * 44100), "\(rendition.playlist)")
            #expect(rendition.frameCount == Int64(13 * 44100))
            // The EXTINF durations add up to the source's duration.
            #expect(abs(playlist.duration - 13) < 1e-5)
        }
    }

    /// Packed audio: each segment an ID3 PRIV timestamp then ADTS frames; the timestamp is the first frame's time
    /// on the 90 kHz clock, exact to the tick; every decoded frame of the stream counts (priming included).
    @Test func packedRenditionsCarryExactTimestamps() throws {
        let source = try source()
        let (output, renditions) = try package(.packed, source: source, bitRates: [96000])
        let rendition = try #require(renditions.first)
        let playlist = try Self.media(output + "/" + rendition.playlist)
        #expect(playlist.version == 3 && playlist.segments.allSatisfy { $0.map == nil && $0.uri.hasSuffix(".aac") })
        var frames: Int64 = 0
        for segment in playlist.segments {
            let bytes = try Self.bytes(output + "/aac-96k/" + segment.uri)
            let (timestamp, tagSize) = ID3.transportStreamTimestamp(atStartOf: bytes)
            #expect(timestamp == UInt64((Double(frames) * 90000 / 44100).rounded()), "\(segment.uri)")
            #expect(bytes[tagSize] == 0xFF && bytes[tagSize + 1] & 0xF6 == 0xF0)
            var stream = AudioFileStream(fileTypeHint: .adts)
            try stream.parse(bytes) { _ in }
            try stream.finish()
            let packets = try #require(stream.properties.audioDataPacketCount)
            #expect(abs(Double(packets * 1024) / 44100 - segment.duration) < 1e-5)
            frames += packets * 1024
        }
        // Every frame the encoder made: the source's, the priming and the last packet's remainder.
        #expect(frames > 13 * 44100 && frames <= 13 * 44100 + 2 * 1024 + 1024)
        #expect(rendition.frameCount == frames)
    }

    /// The master playlist names each rendition with what the validator measures: BANDWIDTH the peak segment
    /// bit rate, AVERAGE-BANDWIDTH, CODECS from the stream, CHANNELS; the package passes hls-audio clean, for both
    /// segment types.
    @Test func thePackagePassesHLSAudio() throws {
        let source = try source(rate: 48000, seconds: 13, channels: 6)
        for type in HLSSettings.SegmentType.allCases {
            let (output, renditions) = try package(type, source: source)
            // Six channels become stereo, as Apple asks every package to offer.
            #expect(renditions.allSatisfy { $0.format.channelsPerFrame == 2 && $0.codecs == "mp4a.40.2" })
            let master = output + "/" + HLSPackager.masterPlaylistName
            guard case .master(let playlist) = try HLS.parse(try Self.bytes(master)) else {
                Issue.record("no master playlist")
                continue
            }
            #expect(playlist.variants.map(\.uri) == renditions.map(\.playlist))
            #expect(playlist.variants.map(\.bandwidth) == renditions.map(\.peakBitRate))
            #expect(playlist.renditions.allSatisfy { $0.channels == "2" })
            let facts = PlaylistInspector.inspect(path: master)
            for (media, rendition) in zip(facts.media, renditions) {
                let peak = try #require(
                    media.segments.isEmpty
                        ? nil
                        : HLS.peakSegmentBitRate(
                            sizes: media.segments.map(\.byteCount), durations: media.segments.map(\.declaredDuration),
                            targetDuration: 6))
                #expect(Int64(peak.rounded(.up)) == rendition.peakBitRate)
            }
            let report = AssetValidator(profile: .hlsAudio).validate(path: master)
            #expect(report.violations.isEmpty, "\(type): \(report.violations.map(\.described))")
        }
    }

    /// Written twice, the same bytes; written over an earlier package, replaced as a whole; a package holding
    /// a file afkit did not write (even one named like a segment), or the source itself, is refused and left as
    /// it was (issue 65: afkit deletes only what it made).
    @Test func theFolderIsWrittenAsASet() throws {
        let source = try source(seconds: 3)
        let (output, _) = try package(.fmp4, source: source, bitRates: [64000])
        let first = try filesBelow(output).map { try Self.bytes($0) }
        let (again, _) = try package(.fmp4, source: source, bitRates: [64000])
        #expect(try filesBelow(again).map { try Self.bytes($0) } == first)
        // Files afkit did not write: refused, nothing touched.
        for foreign in ["/aac-64k/segment9.m4s", "/notes.txt"] {
            try Data([1]).write(to: URL(fileURLWithPath: output + foreign))
            #expect(throws: AudioFileError.self) { try package(.fmp4, source: source, bitRates: [64000]) }
            #expect(pathExists(output + foreign) && pathExists(output + "/master.m3u8"))
            removeFile(output + foreign)
        }
        // The source inside the folder that would be replaced.
        let inside = output + "/aac-64k/source.aac"
        let encoded = folder.root + "/source.aac"
        var settings = ConversionSettings()
        settings.bitRate = 64000
        try AudioConverter.convert(input: source, output: encoded, settings: settings)
        try FileManager.default.moveItem(atPath: encoded, toPath: inside)
        var hls = HLSSettings()
        hls.bitRates = [64000]
        #expect(throws: AudioFileError.self) { try HLSPackager.package(source: inside, output: output, settings: hls) }
        #expect(pathExists(inside))
        // No temporary folder left beside it.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.root)
        #expect(!names.contains { $0.contains(".afkit-") }, "\(names)")
    }

    /// Issue 65: a master that lists one media playlist twice (two variant streams with one URI and audio group,
    /// as two renditions written into one folder made it) fails `hls-playlist`, naming the URI once; the same
    /// URI under two audio groups (a video variant offered with each) is no error.
    @Test func aMasterListingAPlaylistTwiceFails() throws {
        let (output, _) = try package(.fmp4, source: try source(seconds: 3))
        let master = output + "/" + HLSPackager.masterPlaylistName
        let text = String(decoding: try Self.bytes(master), as: UTF8.self)
        let validator = AssetValidator(profile: .hlsAudio)
        try Data(
            text.replacingOccurrences(of: "\naac-128k/", with: "\naac-64k/").replacingOccurrences(
                of: "AUDIO=\"aac-128k\"", with: "AUDIO=\"aac-64k\""
            ).utf8
        ).write(to: URL(fileURLWithPath: master))
        let errors = validator.validate(path: master).violations.filter { $0.severity == .error }
        #expect(
            errors.map { "\($0.rule): \($0.message)" } == [
                "hls-playlist: the master lists 'aac-64k/prog_index.m3u8' 2 times (EXT-X-STREAM-INF tags with one URI "
                    + "and one audio group): each rendition is a media playlist of its own"
            ])
        try Data(text.replacingOccurrences(of: "\naac-128k/", with: "\naac-64k/").utf8).write(
            to: URL(fileURLWithPath: master))
        #expect(!validator.validate(path: master).violations.contains { $0.rule == "hls-playlist" })
    }

    /// FFmpeg's fMP4 package (separate segments and one file of byte ranges) passes, with Apple's 6 s target as a
    /// warning; MPEG-TS segments are refused by name, once for all of them.
    @Test func ffmpegsPlaylists() throws {
        let validator = AssetValidator(profile: .hlsAudio)
        for name in ["ffmpeg-fmp4", "ffmpeg-byterange"] {
            let report = validator.validate(path: Self.fixture("\(name)/prog.m3u8"))
            #expect(report.ok, "\(name): \(report.violations.map(\.described))")
            #expect(
                report.violations.map(\.rule) == ["hls-target-duration"] && report.violations[0].severity == .warning)
            #expect(report.violations[0].message.contains("target duration of 1 s; Apple recommends 6 s"))
        }
        let report = validator.validate(path: Self.fixture("ffmpeg-ts/prog.m3u8"))
        let errors = report.violations.filter { $0.severity == .error }
        #expect(errors.count == 1 && errors[0].rule == "hls-segments", "\(errors)")
        #expect(errors.first?.message.contains("seg0.ts and 1 more segment: an MPEG-2 transport stream") == true)
    }

    /// Playlists made wrong on purpose fail with the rule that catches them: a segment over the target, an
    /// understated bandwidth, a wrong codecs string and channel count, a gap in the PRIV timestamps, a segment
    /// that does not start on a frame, a missing segment.
    @Test func brokenPackagesFail() throws {
        let source = try source()
        let (output, _) = try package(.packed, source: source, bitRates: [128_000])
        let master = output + "/" + HLSPackager.masterPlaylistName
        let media = output + "/aac-128k/" + HLSPackager.mediaPlaylistName
        let validator = AssetValidator(profile: .hlsAudio)
        func errors() -> [String] {
            validator.validate(path: master).violations.filter { $0.severity == .error }.map {
                "\($0.rule): \($0.message)"
            }
        }
        #expect(errors().isEmpty)
        func edit(_ path: String, _ change: (inout [UInt8]) -> Void) throws -> () throws -> Void {
            let original = try Self.bytes(path)
            var bytes = original
            change(&bytes)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return { try Data(original).write(to: URL(fileURLWithPath: path)) }
        }
        func replacing(_ path: String, _ old: String, _ new: String) throws -> () throws -> Void {
            try edit(path) { bytes in
                bytes = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: old, with: new).utf8)
            }
        }
        // A target duration under the segments.
        var restore = try replacing(media, "#EXT-X-TARGETDURATION:6", "#EXT-X-TARGETDURATION:4")
        #expect(
            errors().contains { $0.hasPrefix("hls-target-duration:") && $0.contains("over the target duration of 4 s") }
        )
        try restore()
        // BANDWIDTH understated by half.
        let text = String(decoding: try Self.bytes(master), as: UTF8.self)
        let bandwidth = try #require(text.split(separator: "\n").first { $0.hasPrefix("#EXT-X-STREAM-INF") })
        let declared = try #require(
            bandwidth.split(separator: ",").first { $0.contains(":BANDWIDTH=") }?.split(separator: "=").last)
        restore = try replacing(master, ":BANDWIDTH=\(declared),", ":BANDWIDTH=\(Int(declared)! / 2),")
        #expect(errors().contains { $0.hasPrefix("hls-bandwidth:") && $0.contains("understates") })
        try restore()
        // HE-AAC named for an AAC-LC stream, and six channels for two.
        restore = try replacing(master, "mp4a.40.2", "mp4a.40.5")
        #expect(errors().contains { $0.hasPrefix("hls-codecs:") && $0.contains("mp4a.40.5") })
        try restore()
        restore = try replacing(master, "CHANNELS=\"2\"", "CHANNELS=\"6\"")
        #expect(errors().contains { $0.hasPrefix("hls-codecs:") && $0.contains("CHANNELS \"6\"") })
        try restore()
        // The second segment's timestamp 10 ms late: a gap, then an overlap.
        restore = try edit(output + "/aac-128k/segment1.aac") { bytes in
            let owner = Array(ID3.transportStreamTimestampOwner.utf8) + [0]
            guard let at = bytes.indices.first(where: { bytes[$0...].starts(with: owner) }) else { return }
            let start = at + owner.count
            let value = bytes[start..<start + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } + 900
            for index in 0..<8 { bytes[start + index] = UInt8(truncatingIfNeeded: value >> (56 - 8 * index)) }
        }
        let gaps = errors().filter { $0.hasPrefix("hls-timestamps:") }
        #expect(
            gaps.count == 2 && gaps[0].contains("segment1.aac: a gap of 10.000 ms") && gaps[1].contains("an overlap"),
            "\(gaps)")
        try restore()
        // A segment cut one byte into its first frame.
        restore = try edit(output + "/aac-128k/segment2.aac") { bytes in
            let tag = ID3.transportStreamTimestamp(atStartOf: bytes).tagSize
            bytes.remove(at: tag)
        }
        #expect(
            errors().contains {
                $0.hasPrefix("hls-segments:") && $0.contains("segment2.aac: its first packet is not a sync point")
            })
        try restore()
        // A segment missing.
        try FileManager.default.moveItem(atPath: output + "/aac-128k/segment0.aac", toPath: folder.root + "/moved.aac")
        #expect(errors().contains { $0.hasPrefix("hls-segments:") && $0.contains("segment0.aac") })
        #expect(errors().allSatisfy { !$0.hasPrefix("hls-timestamps:") })
        #expect(validator.validate(path: master).ok == false)
        #expect(errors().count >= 1)
        #expect(AssetValidator(profile: .hlsAudio).validate(path: media).ok == false)
    }

    /// The reader: a package read as one packet stream, the same packets at chunk sizes 1, 7 and 4096 across
    /// segment boundaries, each segment's first packet where its frames begin, the source's frames delivered
    /// (fMP4: exactly, by the edit list; packed: every decoded frame), a late PRIV time reported.
    @Test func readingAPackageAsOneStream() throws {
        let source = try source(seconds: 7)
        for type in HLSSettings.SegmentType.allCases {
            var settings = HLSSettings()
            settings.segmentType = type
            settings.segmentDuration = 2
            let output = folder.root + "/read-\(type.rawValue)"
            _ = try HLSPackager.package(source: source, output: output, settings: settings)
            let master = output + "/" + HLSPackager.masterPlaylistName
            var lists: [[UInt32]] = []
            var starts: [[Int64]] = []
            var properties = StreamProperties()
            for chunk in [1, 7, 4096] {
                var reader = HLS.Reader { try HLS.readLocalResource($0, range: $1) }
                var stream = AudioFileStream()
                var sizes: [UInt32] = []
                try reader.read(location: master, into: &stream, chunkSize: chunk) { event in
                    if case .packets(let run) = event {
                        sizes += (run.descriptions.map { Array($0) } ?? []).map(\.dataByteSize)
                    }
                }
                lists.append(sizes)
                starts.append(reader.segments.map(\.firstPacket))
                #expect(reader.problems.isEmpty && reader.segments.count == 4)
                properties = stream.properties
            }
            #expect(lists.allSatisfy { $0 == lists[0] } && starts.allSatisfy { $0 == starts[0] })
            let frames = properties.validFrameCount ?? -1
            if type == .fmp4 {
                #expect(frames == Int64(7 * 44100))
            } else {
                #expect(frames == Int64(lists[0].count * 1024))
            }
            // Each segment's first packet: the packets of the segments before it.
            let playlist = try Self.media(output + "/aac-128k/" + HLSPackager.mediaPlaylistName)
            var packets: Int64 = 0
            for (segment, start) in zip(playlist.segments, starts[0]) {
                #expect(start == packets)
                if type == .packed {
                    packets += Int64((segment.duration * 44100 / 1024).rounded())
                } else {
                    let fragments = try MP4.trackFragments(in: try Self.bytes(output + "/aac-128k/" + segment.uri))
                    packets += fragments.first?.sampleCount ?? 0
                }
            }
        }
        // A PRIV time 20 ms late in the packed package: a gap before it, an overlap after.
        let late = folder.root + "/read-packed/aac-128k/segment1.aac"
        var bytes = try Self.bytes(late)
        let owner = Array(ID3.transportStreamTimestampOwner.utf8) + [0]
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: owner) }) + owner.count
        let value = bytes[at..<at + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } + 1800
        for index in 0..<8 { bytes[at + index] = UInt8(truncatingIfNeeded: value >> (56 - 8 * index)) }
        try Data(bytes).write(to: URL(fileURLWithPath: late))
        var reader = HLS.Reader { try HLS.readLocalResource($0, range: $1) }
        var stream = AudioFileStream()
        try reader.read(location: folder.root + "/read-packed/master.m3u8", into: &stream) { _ in }
        #expect(
            reader.problems.count == 2 && reader.problems[0].hasPrefix("segment1.aac: a gap of 20.000 ms"),
            "\(reader.problems)")
    }

    /// A new user's cases: a sound that fits in one fMP4 segment passes its own validation (the edit list's priming
    /// and padding are not the segment's); three channels are AAC's configuration 3 (decodable, no PCE lost); the
    /// source's title rides in init.mp4; 22.05 kHz is resampled to 44.1 kHz with a note.
    @Test func shortSoundsThreeChannelsTagsAndRates() throws {
        let short = try source(rate: 22050, seconds: 3, channels: 3)
        var settings = HLSSettings()
        settings.conversion.channels = 3
        settings.language = "en"
        let output = folder.root + "/short"
        let renditions = try HLSPackager.package(source: short, output: output, settings: settings)
        let rendition = try #require(renditions.first)
        #expect(rendition.format.sampleRate == 44100 && rendition.format.channelsPerFrame == 3)
        #expect(rendition.notes.contains { $0.contains("resampled from 22050 Hz to 44100 Hz") })
        let report = AssetValidator(profile: .hlsAudio).validate(path: output + "/master.m3u8")
        // Only Apple's ask for a stereo rendition: the 3-channel package is otherwise clean.
        #expect(report.violations.map(\.rule) == ["hls-audio-renditions"], "\(report.violations.map(\.described))")
        let initialization = try Self.bytes(output + "/aac-128k/init.mp4")
        var stream = AudioFileStream(fileTypeHint: .mp4)
        try stream.parse(initialization + (try Self.bytes(output + "/aac-128k/segment0.m4s"))) { _ in }
        try stream.finish()
        let cookie = try #require(stream.properties.magicCookie)
        let config = try #require(AudioSpecificConfig.audioSpecificConfig(inCookie: cookie))
        #expect((config[1] >> 3) & 0xF == 3, "channel configuration 3 (L R C), not 0 without a PCE")
        #expect(stream.properties.validFrameCount == Int64(3 * 44100))

        // Tags: the WAV's title (written with an INFO chunk by afkit's writer) in init.mp4.
        let tagged = folder.root + "/tagged.wav"
        var options = AudioFileWriterOptions()
        options.metadata = ["title": "Night Train", "artist": "afkit"]
        let format = StreamDescription.linearPCM(sampleRate: 48000, channels: 2, bitsPerChannel: 16)
        let writer = try AudioFileWriter(path: tagged, fileType: .wav, format: format, options: options)
        try writer.writePackets([UInt8](repeating: 1, count: 48000 * 4))
        try writer.close()
        let taggedOutput = folder.root + "/tagged-hls"
        _ = try HLSPackager.package(source: tagged, output: taggedOutput, settings: HLSSettings())
        var tags = AudioFileStream(fileTypeHint: .mp4)
        try tags.parse(try Self.bytes(taggedOutput + "/aac-128k/init.mp4")) { _ in }
        #expect(tags.properties.infoDictionary["title"] == "Night Train")
    }

    /// The validator's new user cases: a folder whose master names itself is still checked (and fails); a byte
    /// order mark and a video codec on audio alone are errors.
    @Test func mastersInLoopsMarksAndExtraCodecs() throws {
        let (output, _) = try package(.packed, source: try source(seconds: 7), bitRates: [96000])
        let master = output + "/" + HLSPackager.masterPlaylistName
        let text = try String(contentsOfFile: master, encoding: .utf8)
        let validator = AssetValidator(profile: .hlsAudio)
        // A video codec named for audio alone.
        try text.replacingOccurrences(of: "CODECS=\"mp4a.40.2\"", with: "CODECS=\"avc1.4d401e,mp4a.40.2\"")
            .write(toFile: master, atomically: true, encoding: .utf8)
        #expect(
            validator.validate(path: master).violations.contains { $0.message.contains("CODECS names avc1.4d401e") })
        // A byte order mark.
        try Data([0xEF, 0xBB, 0xBF] + Array(text.utf8)).write(to: URL(fileURLWithPath: master))
        #expect(validator.validate(path: master).violations.contains { $0.message.contains("byte order mark") })
        // The master names itself: the folder walk checks it, and it fails.
        try (text + "#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"mp4a.40.2\"\nmaster.m3u8\n").write(
            toFile: master, atomically: true, encoding: .utf8)
        let report = try validator.validate(paths: [output])
        #expect(report.files.map(\.path).contains(master), "\(report.files.map(\.path))")
        #expect(!report.ok)
    }
}
