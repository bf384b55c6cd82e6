import AudioFormats
import StreamParsing

extension HLS {
    /// One media segment, as read: what its bytes are and hold.
    public struct SegmentFacts: Sendable {
        /// What a segment's bytes are.
        public enum Kind: String, Sendable {
            /// Packed audio: an elementary stream (ADTS, MPEG audio, AC-3) after an ID3 tag.
            case packed
            /// Fragmented MPEG-4.
            case fragmentedMP4 = "fmp4"
            /// An MPEG-2 transport stream.
            case transportStream = "mpeg-ts"
            /// Not read (encrypted, or not fetched).
            case unknown
        }

        /// Its URI in the playlist.
        public var uri: String
        /// `EXTINF`'s duration, seconds.
        public var declaredDuration: Double
        /// Whether `EXT-X-DISCONTINUITY` comes before it.
        public var discontinuity: Bool
        /// Its size in bytes.
        public var byteCount: Int64 = 0
        /// What its bytes are.
        public var kind = Kind.unknown
        /// Its stream's format, where it could be read.
        public var format: StreamDescription?
        /// The stream's magic cookie.
        public var magicCookie: [UInt8]?
        /// The frames its packets decode to (priming included), where read.
        public var frames: Int64?
        /// Packed audio: the `PRIV` timestamp (90 kHz), where it has one.
        public var timestamp: UInt64?
        /// fMP4: the first fragment's `tfdt` decode time and the track's timescale.
        public var decodeTime: (time: UInt64, timescale: UInt32)?
        /// Whether its first packet is a sync point (an ADTS header right after the tag; an fMP4 sync sample).
        public var startsWithSyncPoint: Bool?
        /// The tracks its fragments hold (fMP4).
        public var trackCount = 1
        /// fMP4: what its initialization section (`EXT-X-MAP`) says, where it was read.
        public var initialization: MP4.InitializationFacts?
        /// Why it could not be read (or is not read: encrypted, MPEG-TS).
        public var error: String?

        /// A segment at `uri` that the playlist says lasts `declaredDuration`, nothing read yet.
        public init(uri: String, declaredDuration: Double, discontinuity: Bool = false) {
            self.uri = uri
            self.declaredDuration = declaredDuration
            self.discontinuity = discontinuity
        }

        /// fMP4: the frames of it the initialization section's edit list presents (the priming at the start
        /// and the padding at the end left out).
        public var presentedFrames: Int64?

        /// Its duration from the frames it presents, seconds.
        public var measuredDuration: Double? {
            guard let frames = presentedFrames ?? frames, let rate = format?.sampleRate, rate > 0 else { return nil }
            return Double(frames) / rate
        }
    }

    /// Reads a segment's bytes (after its initialization section, for fMP4, and what that section says) into
    /// `facts`: what it is, its format, frames, timestamp and first packet; an MPEG-TS segment, or bytes that do
    /// not parse, leave `facts.error` saying why.
    public static func measure(
        _ bytes: [UInt8], initialization: [UInt8]?, initializationFacts: MP4.InitializationFacts? = nil,
        into facts: inout SegmentFacts
    ) {
        let timescale = initializationFacts?.mediaTimescale
        facts.initialization = initializationFacts
        if bytes.count >= 188 * 2, bytes[0] == 0x47, bytes[188] == 0x47 {
            facts.kind = .transportStream
            facts.error = "an MPEG-2 transport stream segment: afkit reads packed audio and fMP4 segments, not MPEG-TS"
            return
        }
        let isFragment =
            initialization != nil
            || (bytes.count >= 8 && ["styp", "moof", "sidx"].contains(String(decoding: bytes[4..<8], as: UTF8.self)))
        var stream: [UInt8]
        var fragments: [MP4.TrackFragment] = []
        if isFragment {
            facts.kind = .fragmentedMP4
            // Packed audio (an ID3 tag or an ADTS frame) where an fMP4 segment belongs.
            if bytes.starts(with: Array("ID3".utf8))
                || (bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] & 0xF6 == 0xF0)
            {
                facts.error = "a packed-audio (ID3/ADTS) segment where an fMP4 segment belongs (EXT-X-MAP is in force)"
                return
            }
            guard let initialization else {
                facts.error = "an fMP4 segment with no EXT-X-MAP initialization section before it"
                return
            }
            do {
                fragments = try MP4.trackFragments(in: bytes)
                facts.trackCount = Set(fragments.map(\.trackID)).count
                if let first = fragments.first {
                    if let time = first.baseDecodeTime, let timescale { facts.decodeTime = (time, timescale) }
                    // Where the fragment does not say, trex's default flags do (bit 16: not a sync sample).
                    facts.startsWithSyncPoint =
                        first.firstSampleIsSync
                        ?? initializationFacts?.defaultSampleFlags.map { $0 & 0x0001_0000 == 0 } ?? true
                }
            } catch {
                facts.error = unreadable(error, what: "an fMP4 segment")
                return
            }
            stream = initialization + bytes
        } else {
            facts.kind = .packed
            let (timestamp, tagSize) = ID3.transportStreamTimestamp(atStartOf: bytes)
            facts.timestamp = timestamp
            // An elementary stream's first frame starts right after the tag (ADTS: 12 bits of sync, layer 0).
            facts.startsWithSyncPoint =
                bytes.count >= tagSize + 2 && bytes[tagSize] == 0xFF && bytes[tagSize + 1] & 0xF0 == 0xF0
            stream = bytes
        }
        var parser = AudioFileStream(fileTypeHint: isFragment ? .mp4 : nil)
        do {
            try parser.parse(stream) { _ in }
            try parser.finish()
        } catch {
            facts.error = unreadable(error, what: isFragment ? "an fMP4 segment" : "a packed-audio segment")
            return
        }
        stream = []
        let properties = parser.properties
        facts.format = properties.dataFormat
        facts.magicCookie = properties.magicCookie
        if let packets = properties.audioDataPacketCount, let format = properties.dataFormat,
            format.framesPerPacket > 0
        {
            facts.frames = packets * Int64(format.framesPerPacket)
            // fMP4: the part of the segment's media the edit list presents.
            if let frames = facts.frames, let (time, scale) = facts.decodeTime, scale > 0, format.sampleRate > 0,
                let shown = initializationFacts?.presentedMedia
            {
                let perFrame = Double(scale) / format.sampleRate
                let start = Double(time)
                let end = start + Double(frames) * perFrame
                let overlap = min(end, Double(shown.upperBound)) - max(start, Double(shown.lowerBound))
                facts.presentedFrames = Int64((max(0, overlap) / perFrame).rounded())
            }
        }
        if !properties.damage.isEmpty { facts.error = "damaged: a frame or page in it fails its check" }
        // A segment cut short (its last frame or sample partial) is no whole piece of the stream.
        if properties.isTruncated {
            facts.error = "cut short: its last frame is not whole"
        } else if isFragment, let packets = properties.audioDataPacketCount,
            case let listed = fragments.reduce(Int64(0), { $0 + $1.sampleCount }), listed != packets
        {
            facts.error = "its fragments list other samples than its 'mdat' holds whole"
        }
    }

    /// What a report says of a segment or initialization section whose bytes do not parse: the kind of problem,
    /// never what the bytes hold (no box type, size or text: a playlist can name any file, and a file the user
    /// did not name is never quoted). `afkit info` on the file itself says more.
    public static func unreadable(_ error: any Error, what: String) -> String {
        switch (error as? AudioFileError)?.code {
        case "eof!": "cut short: \(what) that ends inside its own structure"
        case "fmt?": "\(what) holding a data format afkit does not read"
        case "lim!": "\(what) over afkit's limits"
        case "io!!": "\(what) that cannot be read"
        default: "not \(what) afkit reads"
        }
    }

    /// The segments' own clock against the frames read: each segment's time (packed audio's `PRIV` on the 90
    /// kHz clock, fMP4's `tfdt` in the media timescale) should be where the frames before it end, counted from
    /// the first segment (or the last discontinuity, or the last time that was off) as the writer counts it, so
    /// that a time rounded to its tick is exact. One place for the reader and the validator.
    public struct Timeline: Sendable {
        private var base: (ticks: Double, frames: Int64, ticksPerSecond: Double)?
        private var frames: Int64 = 0

        /// A timeline with nothing read.
        public init() {}

        /// Checks `segment`'s time against the frames before it and counts its frames: the gap or overlap as a
        /// message naming it, or `nil`. A segment without its time (`PRIV`, `tfdt`) is a message too.
        public mutating func check(_ segment: SegmentFacts) -> String? {
            defer { frames += segment.frames ?? 0 }
            let stamp: (ticks: Double, rate: Double)? =
                segment.timestamp.map { (Double($0), 90000) }
                ?? segment.decodeTime.map { (Double($0.time), Double($0.timescale)) }
            guard let (ticks, rate) = stamp, let sampleRate = segment.format?.sampleRate, sampleRate > 0 else {
                base = nil
                guard segment.error == nil else { return nil }
                switch segment.kind {
                case .packed: return "\(segment.uri): no ID3 PRIV '\(ID3.transportStreamTimestampOwner)' timestamp"
                case .fragmentedMP4: return "\(segment.uri): no 'tfdt' decode time"
                default: return nil
                }
            }
            guard let base, !segment.discontinuity, base.ticksPerSecond == rate else {
                self.base = (ticks, frames, rate)
                return nil
            }
            let expected = (base.ticks + Double(frames - base.frames) * rate / sampleRate).rounded()
            var difference = ticks - expected
            // The 90 kHz clock is 33 bits wide and wraps.
            if rate == 90000, abs(difference) > 4_294_967_296 {
                difference -= difference.sign == .minus ? -8_589_934_592 : 8_589_934_592
            }
            guard abs(difference) > (rate == 90000 ? 1 : 0) else { return nil }
            // The count goes on from this segment's own time.
            self.base = (ticks, frames, rate)
            return "\(segment.uri): \(difference > 0 ? "a gap" : "an overlap") of "
                + "\(fixedPoint(abs(difference) / rate * 1000, places: 3)) ms before it (its timestamp "
                + "\(fixedPoint(ticks, places: 0)), the frames before it end at \(fixedPoint(expected, places: 0)))"
        }
    }
}
