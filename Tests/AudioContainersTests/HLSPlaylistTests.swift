import AudioContainers
import AudioFormats
import Foundation
import Testing

/// HTTP Live Streaming's pieces in AudioContainers (issue 51): playlists read and written, the packed-audio
/// `PRIV` timestamp, and fragmented MPEG-4 segments written and read back. FFmpeg's playlists and segments are
/// committed fixtures (Tests/Fixtures/make-hls-fixtures.sh).
@Suite struct HLSPlaylistTests {
    static func fixture(_ name: String) -> [UInt8] { Fixture.named("hls/" + name).bytes }

    static func media(_ text: String) throws -> HLS.MediaPlaylist {
        guard case .media(let playlist) = try HLS.parse(Array(text.utf8)) else {
            Issue.record("not a media playlist")
            return HLS.MediaPlaylist()
        }
        return playlist
    }

    /// FFmpeg's fMP4 playlist: its tags, its initialization section and the four segments with their durations.
    @Test func ffmpegsMediaPlaylist() throws {
        guard case .media(let playlist) = try HLS.parse(Self.fixture("ffmpeg-fmp4/prog.m3u8")) else {
            Issue.record("not a media playlist")
            return
        }
        #expect(playlist.version == 7 && playlist.targetDuration == 1 && playlist.mediaSequence == 0)
        #expect(playlist.playlistType == "VOD" && playlist.endList)
        #expect(playlist.segments.map(\.uri) == ["seg0.m4s", "seg1.m4s", "seg2.m4s", "seg3.m4s"])
        #expect(playlist.segments.map(\.duration) == [1.002667, 1.002667, 1.002667, 0.513333])
        #expect(playlist.segments.allSatisfy { $0.map == HLS.MediaInitializationSection(uri: "init.mp4") })
        // Written back and read again: the same playlist.
        #expect(try HLS.parse(Array(playlist.text.utf8)) == .media(playlist))
    }

    /// FFmpeg's single file: byte ranges for the map and each segment, in order and adjoining.
    @Test func byteRanges() throws {
        guard case .media(let playlist) = try HLS.parse(Self.fixture("ffmpeg-byterange/prog.m3u8")) else {
            Issue.record("not a media playlist")
            return
        }
        #expect(playlist.segments.first?.map?.byteRange == HLS.ByteRange(length: 765, offset: 0))
        var end: Int64 = 765
        for segment in playlist.segments {
            #expect(segment.byteRange?.offset == end)
            end += segment.byteRange?.length ?? 0
        }
        #expect(end == Int64(Self.fixture("ffmpeg-byterange/all.m4s").count))
        // A range without an offset continues the previous one of the same resource.
        let list = try Self.media(
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:1,\n#EXT-X-BYTERANGE:100@50\na.aac\n#EXTINF:1,\n"
                + "#EXT-X-BYTERANGE:70\na.aac\n")
        #expect(
            list.segments.map(\.byteRange) == [HLS.ByteRange(length: 100, offset: 50), .init(length: 70, offset: 150)])
    }

    /// A master playlist: renditions with quoted commas, variants with their attributes, written back the same.
    @Test func masterPlaylist() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereo",NAME="English, stereo",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="en/prog.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=140000,AVERAGE-BANDWIDTH=130000,CODECS="mp4a.40.2,avc1.64001f",AUDIO="stereo"
            low/prog.m3u8

            """
        guard case .master(let master) = try HLS.parse(Array(text.utf8)) else {
            Issue.record("not a master playlist")
            return
        }
        #expect(master.renditions.count == 1)
        let rendition = try #require(master.renditions.first)
        #expect(rendition.name == "English, stereo" && rendition.channels == "2" && rendition.uri == "en/prog.m3u8")
        #expect(rendition.isDefault && rendition.autoselect && rendition.language == "en")
        let variant = try #require(master.variants.first)
        #expect(variant.uri == "low/prog.m3u8" && variant.bandwidth == 140000 && variant.averageBandwidth == 130000)
        #expect(variant.codecs == ["mp4a.40.2", "avc1.64001f"] && variant.audioGroup == "stereo")
        #expect(try HLS.parse(Array(master.text.utf8)) == .master(master))
    }

    /// Broken playlists are errors naming the byte offset of the line at fault.
    @Test func brokenPlaylistsAreTypedErrorsWithOffsets() throws {
        let cases: [(String, Int64?)] = [
            ("#EXTM3U\n#EXT-X-TARGETDURATION:6\nsegment0.aac\n", 32),  // a URI with no EXTINF
            ("#EXTM3U\n#EXTINF:abc,\nx.aac\n", 8),  // a duration that is no number
            ("#EXTM3U\n#EXT-X-TARGETDURATION:-1\n", 8),
            ("#EXTM3U\n#EXT-X-MAP:URI=\"init.mp4\n", 8),  // an unclosed quote
            ("#EXTM3U\n#EXTINF:1,\n#EXT-X-BYTERANGE:10\nx.aac\n", 39),  // no offset, no range before: the URI's line
            ("not a playlist\n", 0),
        ]
        for (text, offset) in cases {
            do {
                _ = try HLS.parse(Array(text.utf8))
                Issue.record("read: \(text)")
            } catch let error as AudioFileError {
                #expect(error.offset == offset, "\(text): \(error)")
            }
        }
        // A playlist ending after EXTINF is a live one caught mid-write (PlaylistLeniencyTests): its segments so far.
        #expect(try HLSPlaylistTests.media("#EXTM3U\n#EXTINF:1,\n").segments.isEmpty)
    }

    /// URIs relative to a playlist: files, servers, roots, absolute URLs.
    @Test func resolvingURIs() {
        #expect(HLS.resolve("seg0.aac", against: "out/a/prog.m3u8") == "out/a/seg0.aac")
        #expect(HLS.resolve("seg0.aac", against: "prog.m3u8") == "seg0.aac")
        #expect(HLS.resolve("a/prog.m3u8", against: "http://h:8080/x/master.m3u8?t=1") == "http://h:8080/x/a/prog.m3u8")
        #expect(HLS.resolve("/s/0.aac", against: "https://h/x/prog.m3u8") == "https://h/s/0.aac")
        #expect(HLS.resolve("//cdn/0.aac", against: "https://h/x/prog.m3u8") == "https://cdn/0.aac")
        #expect(HLS.resolve("0.aac", against: "http://h") == "http://h/0.aac")
        #expect(HLS.resolve("http://o/0.aac", against: "https://h/x/prog.m3u8") == "http://o/0.aac")
    }

    /// RFC 8216's peak segment bit rate: the densest run of segments lasting half to one and a half target
    /// durations; a short last segment counts only with its neighbour.
    @Test func peakSegmentBitRate() {
        // 6 s segments of 96,000 bytes (128 kbit/s), then a 1 s segment of 32,000 bytes (256 kbit/s alone).
        let sizes: [Int64] = [96000, 96000, 32000]
        let durations = [6.0, 6.0, 1.0]
        let peak = HLS.peakSegmentBitRate(sizes: sizes, durations: durations, targetDuration: 6)
        #expect(abs(peak - 128000 * 7 / 7.0 - (128000.0 / 7)) < 1, "\(peak)")  // 6 s + 1 s: 1,024,000 bits / 7 s
        #expect(abs(HLS.averageSegmentBitRate(sizes: sizes, durations: durations) - 1_792_000 / 13) < 1e-6)
    }

    /// The `PRIV` timestamp tag of packed audio: written and read back, the 33-bit clock wrapping, no tag read as none.
    @Test func transportStreamTimestamp() {
        for value: UInt64 in [0, 1920, 8_589_934_591, 8_589_934_592 + 5] {
            let tag = ID3.transportStreamTimestampTag(value)
            let read = ID3.transportStreamTimestamp(atStartOf: tag + [0xFF, 0xF1])
            #expect(read.timestamp == value & 0x1_FFFF_FFFF && read.tagSize == tag.count)
        }
        let tag = ID3.transportStreamTimestampTag(90000)
        // Owner, NUL, eight bytes big-endian (RFC 8216, 3.4).
        #expect(Array(tag.suffix(8)) == [0, 0, 0, 0, 0, 1, 0x5F, 0x90])
        #expect(ID3.transportStreamTimestamp(atStartOf: [0xFF, 0xF1, 0x50]).timestamp == nil)
    }

    /// fMP4 segments written and read back: the moof's decode time, sample count and sync flags; a lying `trun`
    /// is an error with its offset; FFmpeg's segments read the same way.
    @Test func fragmentsWrittenAndRead() throws {
        let segment = MP4.mediaSegment(
            sequenceNumber: 3, baseDecodeTime: 1_234_567_890_123, sampleSizes: [10, 20, 30],
            data: [UInt8](repeating: 7, count: 60))
        let fragments = try MP4.trackFragments(in: segment)
        #expect(fragments.count == 1)
        #expect(fragments.first?.sequenceNumber == 3 && fragments.first?.trackID == 1)
        #expect(fragments.first?.baseDecodeTime == 1_234_567_890_123 && fragments.first?.sampleCount == 3)
        #expect(fragments.first?.firstSampleIsSync == nil && fragments.first?.duration == nil)  // trex defaults
        // The trun's count raised past what its box holds.
        var lying = segment
        let trun = try #require(lying.indices.first { lying[$0..<$0 + 4].elementsEqual("trun".utf8) })
        lying[trun + 8] = 0x7F
        #expect(throws: AudioFileError.self) { try MP4.trackFragments(in: lying) }
        // FFmpeg's: tfdt counts on from 0 in 1024-frame samples.
        var expected: UInt64 = 0
        for index in 0..<4 {
            let read = try MP4.trackFragments(in: Self.fixture("ffmpeg-fmp4/seg\(index).m4s"))
            #expect(read.first?.baseDecodeTime == expected)
            expected += UInt64(read.first?.duration ?? 0)
        }
        #expect(try MP4.mediaTimescale(inInitialization: Self.fixture("ffmpeg-fmp4/init.mp4")) == 48000)
    }

    /// An initialization section and segments afkit writes, concatenated, read by the MP4 parser: every packet,
    /// in order, the edit list's priming and valid frames, at any chunking (1, 7 and 4096 bytes).
    @Test func writtenFragmentsParseAtAnyChunking() throws {
        let format = StreamDescription(
            sampleRate: 48000, formatID: .aac, formatFlags: [], bytesPerPacket: 0, framesPerPacket: 1024,
            bytesPerFrame: 0, channelsPerFrame: 2, bitsPerChannel: 0)
        let config: [UInt8] = [0x11, 0x90]  // AAC-LC, 48 kHz, stereo
        let valid: Int64 = 5 * 1024 - 1024 - 300
        var bytes = try MP4.fragmentedInitialization(
            format: format, magicCookie: config, primingFrames: 1024, validFrames: valid)
        var sizes: [UInt32] = []
        for (segment, range) in [0..<2, 2..<5].enumerated() {
            let packetSizes = range.map { UInt32(20 + $0) }
            sizes += packetSizes
            let data = packetSizes.flatMap { [UInt8](repeating: UInt8($0), count: Int($0)) }
            bytes += MP4.mediaSegment(
                sequenceNumber: UInt32(segment + 1), baseDecodeTime: UInt64(range.lowerBound * 1024),
                sampleSizes: packetSizes, data: data)
        }
        var lists: [[UInt32]] = []
        for chunk in [1, 7, 4096] {
            var stream = AudioFileStream(fileTypeHint: .mp4)
            var read: [UInt32] = []
            var position = 0
            while position < bytes.count {
                let end = min(bytes.count, position + chunk)
                try stream.parse(Array(bytes[position..<end])) { event in
                    if case .packets(let packets) = event {
                        read += (packets.descriptions.map { Array($0) } ?? []).map(\.dataByteSize)
                    }
                }
                position = end
            }
            try stream.finish { event in
                if case .packets(let packets) = event {
                    read += (packets.descriptions.map { Array($0) } ?? []).map(\.dataByteSize)
                }
            }
            lists.append(read)
            #expect(stream.properties.packetTableInfo?.primingFrames == 1024)
            let table = try #require(stream.properties.packetTableInfo)
            #expect(table.validFrames == valid, "\(table)")
        }
        #expect(lists.allSatisfy { $0 == sizes }, "\(lists)")
    }

    /// RFC 8216 allows CR LF line ends: the same playlist as with LF. A byte range whose end overflows is an error
    /// with its line's offset; a duration past any real one reads and writes without trapping.
    @Test func lineEndsOverflowsAndHugeDurations() throws {
        let lf = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:5.5,\na.aac\n#EXT-X-ENDLIST\n"
        let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try Self.media(crlf).text == Self.media(lf).text)  // (the lines' offsets differ by the CRs)
        let list = try Self.media(crlf)
        #expect(list.endList && list.segments.map(\.uri) == ["a.aac"] && list.targetDuration == 6)
        let overflow = "#EXTM3U\n#EXTINF:1,\n#EXT-X-BYTERANGE:97062@9223372036854775807\na.m4s\n"
        #expect(throws: AudioFileError.self) { try HLS.parse(Array(overflow.utf8)) }
        let huge = try Self.media("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:1e308,\na.aac\n")
        #expect(huge.segments.first?.duration == 1e308)
        #expect(huge.text.contains("#EXTINF:1e+308,"))
    }

    /// A long presentation: more than 1,025 fragments through one parser (the sample table drops what is read
    /// every 1,024 runs; a podcast of 1,035 segments once crashed the reader there), every packet delivered.
    @Test func moreThanAThousandFragments() throws {
        let format = StreamDescription(
            sampleRate: 8000, formatID: .aac, formatFlags: [], bytesPerPacket: 0, framesPerPacket: 1024,
            bytesPerFrame: 0, channelsPerFrame: 1, bitsPerChannel: 0)
        var bytes = try MP4.fragmentedInitialization(
            format: format, magicCookie: [0x15, 0x88], primingFrames: 0, validFrames: 0)
        var sizes: [UInt32] = []
        for segment in 0..<1100 {
            let packetSizes: [UInt32] = [UInt32(10 + segment % 7), 12, 13]
            sizes += packetSizes
            bytes += MP4.mediaSegment(
                sequenceNumber: UInt32(segment + 1), baseDecodeTime: UInt64(segment * 3 * 1024),
                sampleSizes: packetSizes, data: packetSizes.flatMap { [UInt8](repeating: 1, count: Int($0)) })
        }
        var stream = AudioFileStream(fileTypeHint: .mp4)
        var read: [UInt32] = []
        var position = 0
        while position < bytes.count {
            let end = min(bytes.count, position + 4096)
            try stream.parse(Array(bytes[position..<end])) { event in
                if case .packets(let packets) = event {
                    read += (packets.descriptions.map { Array($0) } ?? []).map(\.dataByteSize)
                }
            }
            position = end
        }
        try stream.finish()
        #expect(read == sizes)
    }
}

/// Playlists as the world writes them (issue 69): read as players read them, and a radio list named for what it is.
@Suite struct PlaylistLeniencyTests {
    static let body = "#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:6\n#EXTINF:6.0,\na.aac\n#EXTINF:6.0,\nb.aac\n"

    /// A radio or IPTV list (`#EXTINF:-1,` before each stream URL, or no EXT-X- tag at all) is refused as an M3U
    /// list of streams, never as a broken HLS playlist.
    @Test func aListOfStreamsIsNamedForWhatItIs() {
        for list in [
            "#EXTM3U\n#EXTINF:-1,Radio One\nhttp://radio.example/one.mp3\n#EXTINF:-1,Two\nhttp://radio.example/two\n",
            "#EXTM3U\nhttp://radio.example/one.mp3\n",
            "#EXTM3U\n#EXT-X-VERSION:3\n#EXTINF:-1 tvg-id=\"a\",Channel\nhttp://tv.example/a.m3u8\n",
            "\u{FEFF}#EXTM3U\n#EXTINF:-1,Radio\nhttp://radio.example/one.mp3\n",
        ] {
            #expect {
                _ = try HLS.parse(Array(list.utf8))
            } throws: { error in
                (error as? AudioFileError)?.message.contains("an M3U list of streams") == true
            }
        }
    }

    /// A trailing EXTINF with no URI yet (a live playlist caught mid-write), whitespace-only lines, spaces around
    /// lines and a comment before `#EXTM3U` are read as players read them: the same two segments.
    @Test func whatPlayersTolerateIsRead() throws {
        let variants = [
            "#EXTM3U\n" + Self.body + "#EXTINF:6.0,\n",
            "#EXTM3U\n \n" + Self.body.replacingOccurrences(of: "\n", with: "\n\t \n"),
            "#EXTM3U\n" + Self.body.replacingOccurrences(of: "a.aac", with: "  a.aac "),
            "# made by a tool\n\n#EXTM3U\n" + Self.body,
        ]
        for text in variants {
            let playlist = try HLSPlaylistTests.media(text)
            #expect(playlist.segments.map(\.uri) == ["a.aac", "b.aac"], "\(text)")
            #expect(playlist.targetDuration == 6)
        }
        #expect(throws: AudioFileError.self) { _ = try HLS.parse(Array("# no tag\n#EXTINF:6,\na.aac\n".utf8)) }
    }
}
