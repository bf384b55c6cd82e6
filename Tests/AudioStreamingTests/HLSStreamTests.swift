import AudioContainers
import AudioFormats
import AudioStreaming
import Foundation
import LoopbackServers
import Testing

/// HTTP Live Streaming over HTTP (issue 51): FFmpeg's playlists served by nginx read as one packet stream, the
/// same packets as the playlist read from the disk; byte ranges as range requests; a live playlist that grows
/// while it is read; packed audio made from FFmpeg's ADTS with a late `PRIV` time reported as a discontinuity.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct HLSStreamTests {
    struct Reading {
        var packets: [AudioFileStream.OwnedPackets] = []
        var segments: [HLS.SegmentStart] = []
        var gaps: [HTTPAudioStream.Discontinuity] = []
        var connections: [HTTPAudioStream.Response] = []
        var properties = StreamProperties()
    }

    static func read(
        _ url: String, options: HTTPAudioStream.Options = .init(), whileReading: (Int) async throws -> Void = { _ in }
    ) async throws -> Reading {
        var reading = Reading()
        var iterator = HTTPAudioStream(url: url, options: options).makeAsyncIterator()
        while let event = try await iterator.next() {
            switch event {
            case .packets(let run): reading.packets.append(run)
            case .connected(let response): reading.connections.append(response)
            case .propertyChanged(_, let properties): reading.properties = properties
            case .segment(let start):
                reading.segments.append(start)
                try await whileReading(reading.segments.count)
            case .discontinuity(let gap): reading.gaps.append(gap)
            case .titleChanged: Issue.record("no titles in HLS: \(event)")
            }
        }
        reading.properties = iterator.properties
        return reading
    }

    /// The packets of a playlist on the disk, through the file reader.
    static func localPackets(_ path: String) throws -> [[UInt8]] {
        var reader = HLS.Reader { try HLS.readLocalResource($0, range: $1) }
        var stream = AudioFileStream()
        var runs: [AudioFileStream.OwnedPackets] = []
        try reader.read(location: path, into: &stream) { event in
            if case .packets(let run) = event {
                runs.append(
                    AudioFileStream.OwnedPackets(
                        bytes: Array(run.bytes), streamOffset: run.streamOffset, firstPacket: run.firstPacket,
                        count: run.count, descriptions: run.descriptions.map(Array.init)))
            }
        }
        return packetBytes(runs)
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path

    /// FFmpeg's fMP4 playlist and its single-file byte-range twin, over nginx: each segment's start, the packets
    /// the disk gives, the edit list's counts; byte ranges answered 206.
    @Test func ffmpegsPlaylistsOverHTTP() async throws {
        let server = try NginxServer(serving: Self.fixtures + "/hls")
        let expected = try Self.localPackets(Self.fixtures + "/hls/ffmpeg-fmp4/prog.m3u8")
        for name in ["ffmpeg-fmp4", "ffmpeg-byterange"] {
            let reading = try await Self.read(server.url("\(name)/prog.m3u8"))
            #expect(packetBytes(reading.packets) == expected, "\(name)")
            #expect(reading.segments.map(\.firstPacket) == [0, 47, 94, 141])
            #expect(reading.segments.map(\.mediaSequence) == [0, 1, 2, 3])
            #expect(reading.gaps.isEmpty && reading.connections.first?.isLive == false)
            #expect(reading.properties.audioDataPacketCount == Int64(expected.count))
        }
    }

    /// A live playlist: two segments and no end at first; the test adds one segment at a time as the reader
    /// reaches the end, then EXT-X-ENDLIST. Every segment is read once, in order, and the stream ends.
    @Test func aLivePlaylistIsFollowedToItsEnd() async throws {
        let root = try Loopback.temporaryFolder("hls-live")
        for name in ["init.mp4", "seg0.m4s", "seg1.m4s", "seg2.m4s", "seg3.m4s"] {
            try FileManager.default.copyItem(
                atPath: Self.fixtures + "/hls/ffmpeg-fmp4/" + name, toPath: root + "/" + name)
        }
        func playlist(_ count: Int, ended: Bool) throws {
            var text =
                "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-MAP:URI=\"init.mp4\"\n"
            for index in 0..<count { text += "#EXTINF:1.002667,\nseg\(index).m4s\n" }
            if ended { text += "#EXT-X-ENDLIST\n" }
            try text.write(toFile: root + "/live.m3u8", atomically: true, encoding: .utf8)
        }
        try playlist(2, ended: false)
        let server = try NginxServer(serving: root)
        var options = HTTPAudioStream.Options()
        options.maximumTime = .seconds(30)
        let reading = try await Self.read(server.url("live.m3u8"), options: options) { read in
            // As the reader takes the last segment listed, the "encoder" publishes the next.
            if read >= 2 { try playlist(min(4, read + 1), ended: read + 1 >= 4) }
        }
        #expect(reading.connections.first?.isLive == true)
        #expect(reading.segments.map(\.uri) == ["seg0.m4s", "seg1.m4s", "seg2.m4s", "seg3.m4s"])
        #expect(packetBytes(reading.packets) == (try Self.localPackets(Self.fixtures + "/hls/ffmpeg-fmp4/prog.m3u8")))
    }

    /// Packed audio made from FFmpeg's ADTS stream (its frames cut into three segments, each after an ID3 PRIV
    /// tag with its time on the 90 kHz clock): read whole and gapless; one segment's time 30 ms late is a
    /// discontinuity at its first packet, and the packets are still every frame.
    @Test func packedAudioAndALateTimestamp() async throws {
        let adts = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/adts/aac-lc-44k-stereo.aac")))
        // The ADTS frames: each header's 13-bit length.
        var frames: [[UInt8]] = []
        var position = 0
        while position + 7 <= adts.count, adts[position] == 0xFF {
            let length = Int(adts[position + 3] & 3) << 11 | Int(adts[position + 4]) << 3 | Int(adts[position + 5] >> 5)
            guard length > 7, position + length <= adts.count else { break }
            frames.append(Array(adts[position..<position + length]))
            position += length
        }
        #expect(frames.count > 30)
        let root = try Loopback.temporaryFolder("hls-packed")
        let cuts = [0, frames.count / 3, 2 * frames.count / 3, frames.count]
        func write(lateBy ticks: UInt64) throws {
            var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            for segment in 0..<3 {
                let first = cuts[segment]
                var time = UInt64((Double(first * 1024) * 90000 / 44100).rounded())
                if segment == 1 { time += ticks }
                let bytes = ID3.transportStreamTimestampTag(time) + frames[first..<cuts[segment + 1]].joined()
                try Data(bytes).write(to: URL(fileURLWithPath: root + "/s\(segment).aac"))
                text += "#EXTINF:\(Double((cuts[segment + 1] - first) * 1024) / 44100),\ns\(segment).aac\n"
            }
            try (text + "#EXT-X-ENDLIST\n").write(toFile: root + "/packed.m3u8", atomically: true, encoding: .utf8)
        }
        try write(lateBy: 0)
        let server = try NginxServer(serving: root)
        let clean = try await Self.read(server.url("packed.m3u8"))
        #expect(clean.gaps.isEmpty)
        #expect(packetBytes(clean.packets).count == frames.count)
        #expect(packetBytes(clean.packets) == frames.map { Array($0.dropFirst(7)) })
        #expect(clean.segments.map(\.firstPacket) == cuts.dropLast().map(Int64.init))
        try write(lateBy: 2700)
        let late = try await Self.read(server.url("packed.m3u8"))
        #expect(late.gaps.count == 2, "\(late.gaps)")
        #expect(late.gaps.first?.reason.hasPrefix("s1.aac: a gap of 30.000 ms") == true)
        #expect(late.gaps.first?.nextPacket == Int64(cuts[1]))
        #expect(packetBytes(late.packets).count == frames.count)
    }

    /// MPEG-TS segments are refused by name, after the playlist's response.
    @Test func transportStreamSegmentsAreRefused() async throws {
        let server = try NginxServer(serving: Self.fixtures + "/hls")
        await #expect(throws: AudioFileError.self) { _ = try await Self.read(server.url("ffmpeg-ts/prog.m3u8")) }
    }

    /// A playlist under a name that does not say so, served as `application/vnd.apple.mpegurl` (RFC 8216, 4: the
    /// type alone identifies it): read as HLS.
    @Test func aPlaylistKnownByItsContentType() async throws {
        let root = try Loopback.temporaryFolder("hls-typed")
        for name in ["init.mp4", "seg0.m4s", "seg1.m4s", "seg2.m4s", "seg3.m4s", "prog.m3u8"] {
            try FileManager.default.copyItem(
                atPath: Self.fixtures + "/hls/ffmpeg-fmp4/" + name,
                toPath: root + "/" + (name == "prog.m3u8" ? "listing" : name))
        }
        let server = try NginxServer(
            serving: root, locations: "location = /listing { default_type application/vnd.apple.mpegurl; }")
        let reading = try await Self.read(server.url("listing"))
        #expect(reading.segments.count == 4)
        #expect(packetBytes(reading.packets) == (try Self.localPackets(Self.fixtures + "/hls/ffmpeg-fmp4/prog.m3u8")))
    }
}
