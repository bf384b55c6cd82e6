import AudioFormats
import StreamParsing

/// The Xing/Info, LAME and VBRI headers an encoder puts in an MPEG audio stream's first frame (the frame
/// header itself is AudioFormats'). The stream machinery (sync, resync, tags) is `ElementaryStreamParser`,
/// shared with ADTS.
extension MPEGAudio {
    /// What an encoder's first frame says about the stream: a Xing/Info header (with a LAME extension)
    /// or a VBRI header. The frame itself holds no audio.
    public struct EncoderHeader: Hashable, Sendable {
        /// Which header: Xing (VBR), Info (CBR) or VBRI.
        public enum Kind: String, Sendable { case xing = "Xing", info = "Info", vbri = "VBRI" }
        /// Which header the frame holds.
        public var kind: Kind
        /// Audio frames in the stream, as the header states (not trusted for counting).
        public var frameCount: Int?
        /// Bytes of the stream, as the header states.
        public var byteCount: Int?
        /// Xing: 100 entries, each the byte position (in 256ths of the stream) at 1% steps of duration.
        public var tableOfContents: [UInt8]?
        /// VBRI: byte sizes of equal runs of `framesPerEntry` frames.
        public var vbriEntries: [Int]?
        /// Frames each VBRI entry covers.
        public var framesPerEntry: Int?
        /// The encoder string of a LAME-style extension (`LAME3.100`, `Lavc59.37`, ...).
        public var encoder: String?
        /// Encoder delay and padding from the LAME extension, in samples.
        public var encoderDelay: Int?
        /// Samples of padding at the end.
        public var encoderPadding: Int?
        /// Xing's quality indicator, 0 to 100 (LAME writes 100 − 10·V − its algorithm's quality).
        public var qualityIndicator: Int?
        /// The LAME extension's bit-rate method: 1 and 8 constant, 2 and 9 average, 3 to 6 variable.
        public var lameMethod: Int?
        /// The LAME extension's bit rate, kbit/s: an ABR stream's target (255: 255 or more), else its minimum.
        public var lameBitRate: Int?

        /// How the encoder spent its bits, where a LAME extension says. LAME 3.100 writes the quality indicator of
        /// `-V 0` to `-V 4` as 100 to 60, but 50 or 40 for `-V 5` to `-V 9` alike: there the level is not stated.
        public var bitRateMode: BitRateMode? {
            guard let method = lameMethod else { return nil }
            switch method {
            case 1, 8: return .constant
            case 2, 9: return lameBitRate.flatMap { $0 > 0 && $0 < 255 ? .average(bitRate: $0 * 1000) : nil }
            case 3...6:
                guard let quality = qualityIndicator, quality > 50, quality <= 100 else { return .variable(level: nil) }
                return .variable(level: (100 - quality + 5) / 10)
            default: return nil
            }
        }

        /// Priming and remainder frames as Apple reports them: delay + 529 and padding − 529 (0 if the
        /// padding is below 529), where a LAME, Lavc or Lavf extension states them.
        public var gapless: (priming: Int, remainder: Int)? {
            guard let delay = encoderDelay, let padding = encoderPadding else { return nil }
            return (delay + 529, max(padding - 529, 0))
        }
    }

    /// Looks for a Xing/Info or VBRI header in a whole first frame.
    static func encoderHeader(in frame: UnsafeRawBufferPointer, header: FrameHeader) -> EncoderHeader? {
        var cursor = ByteCursor(frame)
        func isXing(at offset: Int) -> Bool {
            guard frame.count >= offset + 8, let tag = cursor.getInteger(at: offset, endianness: .big, as: UInt32.self)
            else { return false }
            return tag == FourCharCode("Xing").rawValue || tag == FourCharCode("Info").rawValue
        }
        // In a CRC-protected frame the side information starts after the CRC; LAME (`-p`) still writes
        // its header where an unprotected frame's would be, so both places are looked at.
        let candidates = header.hasCRC ? [header.xingOffset, header.xingOffset - 2] : [header.xingOffset]
        if let xingAt = candidates.first(where: isXing) {
            let tag = cursor.getInteger(at: xingAt, endianness: .big, as: UInt32.self) ?? 0
            var result = EncoderHeader(kind: tag == FourCharCode("Xing").rawValue ? .xing : .info)
            cursor.position = xingAt + 4
            let flags = cursor.readInteger(endianness: .big, as: UInt32.self) ?? 0
            if flags & 1 != 0 {
                result.frameCount = cursor.readInteger(endianness: .big, as: UInt32.self).map(Int.init)
            }
            if flags & 2 != 0 { result.byteCount = cursor.readInteger(endianness: .big, as: UInt32.self).map(Int.init) }
            if flags & 4 != 0 { result.tableOfContents = cursor.readBytes(100) }
            if flags & 8 != 0 {
                result.qualityIndicator = cursor.readInteger(endianness: .big, as: UInt32.self).map(Int.init)
            }
            // A LAME-style extension: a 9-byte encoder string, its revision and method, ..., at byte 20 its bit
            // rate, at byte 21 the delay and padding.
            if let name = cursor.readBytes(9) {
                let encoder = String(decoding: name.prefix { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self)
                if encoder.hasPrefix("LAME") || encoder.hasPrefix("Lavc") || encoder.hasPrefix("Lavf"),
                    let fields = cursor.readBytes(12), let gapless = cursor.readBytes(3)
                {
                    result.encoder = encoder
                    if encoder.hasPrefix("LAME") {
                        result.lameMethod = Int(fields[0] & 0x0F)
                        result.lameBitRate = Int(fields[11])
                    }
                    result.encoderDelay = Int(gapless[0]) << 4 | Int(gapless[1]) >> 4
                    result.encoderPadding = Int(gapless[1] & 0x0F) << 8 | Int(gapless[2])
                } else if !encoder.isEmpty {
                    result.encoder = encoder
                }
            }
            return result
        }
        // VBRI: always 32 bytes after the header.
        if frame.count >= 36 + 26,
            cursor.getInteger(at: 36, endianness: .big, as: UInt32.self) == FourCharCode("VBRI").rawValue
        {
            cursor.position = 36 + 10
            var result = EncoderHeader(kind: .vbri)
            result.byteCount = cursor.readInteger(endianness: .big, as: UInt32.self).map(Int.init)
            result.frameCount = cursor.readInteger(endianness: .big, as: UInt32.self).map(Int.init)
            let entries = Int(cursor.readInteger(endianness: .big, as: UInt16.self) ?? 0)
            let scale = Int(cursor.readInteger(endianness: .big, as: UInt16.self) ?? 0)
            let entrySize = Int(cursor.readInteger(endianness: .big, as: UInt16.self) ?? 0)
            result.framesPerEntry = Int(cursor.readInteger(endianness: .big, as: UInt16.self) ?? 0)
            if (1...4).contains(entrySize), entries * entrySize <= cursor.remaining {
                result.vbriEntries = (0..<entries).map { _ in
                    var value = 0
                    for _ in 0..<entrySize {
                        value = value << 8 | Int(cursor.readInteger(endianness: .big, as: UInt8.self) ?? 0)
                    }
                    return value * scale
                }
            }
            return result
        }
        return nil
    }
}

extension MPEGAudio.EncoderHeader {
    init(kind: Kind) { self.kind = kind }
}

extension FileType {
    /// MPEG audio (Layers I, II and III) without a container.
    public static let mp3 = FileType(rawValue: "mp3")
}

extension MPEGAudio {
    /// Bare MPEG audio: no signature; frames decide, on strong evidence (``ElementaryStreamParser``).
    package static let descriptor = ContainerDescriptor(
        .mp3, name: "MPEG audio", kind: "an MPEG audio stream", fileTypeID: "MPG3",
        extensions: ["mp3", "mp2", "mp1", "mpa"], hintExtensions: ["mp3", "mp2", "mp1", "mpa", "mpga"],
        formatCodes: ["MPG3", "mp3"], writtenExtensions: [".mp3"],
        mediaTypes: ["audio/mpeg", "audio/mp3", "audio/mpeg3", "audio/x-mpeg"], recordsPriming: true,
        keeps: WrittenTimeline(chapters: ID3.maximumChapters),
        writer: ContainerWriter(policy: WriterPolicy(defaultDataFormat: ".mp3"), cookiePlacement: .firstPacket) {
            format, options, _, _ in try MPEGAudio.layout(format: format, options: options)
        })
}
