import AudioFormats

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
        /// Why it could not be read (or is not read: encrypted, MPEG-TS).
        public var error: String?

        /// A segment at `uri` that the playlist says lasts `declaredDuration`, nothing read yet.
        public init(uri: String, declaredDuration: Double, discontinuity: Bool = false) {
            self.uri = uri
            self.declaredDuration = declaredDuration
            self.discontinuity = discontinuity
        }

        /// Its duration from its frames, seconds.
        public var measuredDuration: Double? {
            guard let frames, let rate = format?.sampleRate, rate > 0 else { return nil }
            return Double(frames) / rate
        }
    }

    /// Reads a segment's bytes (after its initialization section, for fMP4, whose `mdhd` timescale is
    /// `timescale`) into `facts`: what it is, its format, frames, timestamp and first packet; an MPEG-TS
    /// segment, or bytes that do not parse, leave `facts.error` saying why.
    public static func measure(
        _ bytes: [UInt8], initialization: [UInt8]?, timescale: UInt32?, into facts: inout SegmentFacts
    ) {
        if bytes.count >= 188 * 2, bytes[0] == 0x47, bytes[188] == 0x47 {
            facts.kind = .transportStream
            facts.error = "an MPEG-2 transport stream segment: afkit reads packed audio and fMP4 segments, not MPEG-TS"
            return
        }
        let isFragment =
            initialization != nil
            || (bytes.count >= 8 && ["styp", "moof", "sidx"].contains(String(decoding: bytes[4..<8], as: UTF8.self)))
        var stream: [UInt8]
        if isFragment {
            facts.kind = .fragmentedMP4
            guard let initialization else {
                facts.error = "an fMP4 segment with no EXT-X-MAP initialization section before it"
                return
            }
            do {
                let fragments = try MP4.trackFragments(in: bytes)
                facts.trackCount = Set(fragments.map(\.trackID)).count
                if let first = fragments.first {
                    if let time = first.baseDecodeTime, let timescale { facts.decodeTime = (time, timescale) }
                    facts.startsWithSyncPoint = first.firstSampleIsSync ?? true
                }
            } catch {
                facts.error = "\(error)"
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
            facts.error = "\(error)"
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
        }
        if let damage = properties.damage.first { facts.error = "damaged: \(damage)" }
    }
}
