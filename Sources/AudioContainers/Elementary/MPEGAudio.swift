import AudioFormats

/// MPEG-1, MPEG-2 and MPEG-2.5 audio, Layers I, II and III: frame headers, their tables, and the
/// Xing/Info, LAME and VBRI headers an encoder puts in the first frame. The stream machinery
/// (sync, resync, tags) is `ElementaryStreamParser`, shared with ADTS.
public enum MPEGAudio {
    /// MPEG-1, MPEG-2 (lower rates) or MPEG-2.5 (lower still).
    public enum Version: Sendable, Hashable { case mpeg1, mpeg2, mpeg25 }

    // Frame header, 32 bits, most significant first:
    //
    //   AAAAAAAA AAABBCCD EEEEFFGH IIJJKLMM
    //   A sync (11 ones)        B version (00 2.5, 01 reserved, 10 MPEG-2, 11 MPEG-1)
    //   C layer (01 III, 10 II, 11 I, 00 reserved)     D protection absent (0: CRC follows)
    //   E bitrate index (0 free, 15 bad)   F sample rate index (3 reserved)   G padding   H private
    //   I channel mode (11 mono)   J mode extension   K copyright   L original   M emphasis (10 reserved)

    /// Bitrates in kbit/s by [table][index]: MPEG-1 Layer I, II, III; MPEG-2/2.5 Layer I; Layer II and III.
    static let bitrates: [[Int]] = [
        [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
        [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
        [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    ]

    /// One frame header.
    public struct FrameHeader: Hashable, Sendable {
        /// The MPEG version.
        public var version: Version
        /// Layer I, II or III (1 to 3).
        public var layer: Int
        /// Whether a CRC follows the header.
        public var hasCRC: Bool
        /// Bits per second; 0 for a free-format stream.
        public var bitrate: Int
        /// The bit-rate index (0: free format).
        public var bitrateIndex: Int
        /// Samples per second.
        public var sampleRate: Int
        /// Whether the frame has a padding slot.
        public var padding: Bool
        /// Stereo, joint stereo, dual channel or mono (3).
        public var channelMode: Int
        /// 1 for mono, else 2.
        public var channels: Int { channelMode == 3 ? 1 : 2 }

        /// Parses the 4 bytes at `bytes`, or `nil` if they are not a valid header.
        public init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return nil }
            let versionBits = (bytes[1] >> 3) & 3
            let layerBits = (bytes[1] >> 1) & 3
            let bitrateIndex = Int(bytes[2] >> 4)
            let rateIndex = Int((bytes[2] >> 2) & 3)
            // The emphasis bits do not decide sync: decoders accept the reserved value 2.
            guard versionBits != 1, layerBits != 0, bitrateIndex != 15, rateIndex != 3 else {
                return nil
            }
            version = versionBits == 3 ? .mpeg1 : versionBits == 2 ? .mpeg2 : .mpeg25
            layer = 4 - Int(layerBits)
            hasCRC = bytes[1] & 1 == 0
            self.bitrateIndex = bitrateIndex
            let table = version == .mpeg1 ? layer - 1 : (layer == 1 ? 3 : 4)
            bitrate = MPEGAudio.bitrates[table][bitrateIndex] * 1000
            let base = rateIndex == 0 ? 44100 : rateIndex == 1 ? 48000 : 32000
            sampleRate = version == .mpeg1 ? base : version == .mpeg2 ? base / 2 : base / 4
            padding = (bytes[2] >> 1) & 1 == 1
            channelMode = Int(bytes[3] >> 6)
        }

        /// Frames of audio (samples per channel) the frame decodes to.
        public var samplesPerFrame: Int { layer == 1 ? 384 : (layer == 3 && version != .mpeg1) ? 576 : 1152 }

        /// The frame's length in bytes, padding included; `nil` in free format (measured from the next sync).
        public var frameLength: Int? {
            guard bitrate > 0 else { return nil }
            return length(forBitrate: bitrate)
        }

        func length(forBitrate bitrate: Int) -> Int {
            if layer == 1 { return (12 * bitrate / sampleRate + (padding ? 1 : 0)) * 4 }
            let coefficient = layer == 3 && version != .mpeg1 ? 72 : 144
            return coefficient * bitrate / sampleRate + (padding ? 1 : 0)
        }

        /// Whether another header can belong to the same stream: same version, layer and rate (and, in free
        /// format, free format too).
        func continues(_ other: FrameHeader) -> Bool {
            version == other.version && layer == other.layer && sampleRate == other.sampleRate
                && (bitrate == 0) == (other.bitrate == 0)
        }

        /// Whether another header can belong to the same stream at another rate: same version and layer.
        func continuesAllowingRateChange(_ other: FrameHeader) -> Bool {
            version == other.version && layer == other.layer && (bitrate == 0) == (other.bitrate == 0)
        }

        /// Apple's format ID for the layer.
        public var formatID: FourCharCode { layer == 1 ? .mpegLayer1 : layer == 2 ? .mpegLayer2 : .mpegLayer3 }

        var streamDescription: StreamDescription {
            StreamDescription(
                sampleRate: Double(sampleRate), formatID: formatID, bytesPerPacket: 0,
                framesPerPacket: UInt32(samplesPerFrame), bytesPerFrame: 0, channelsPerFrame: UInt32(channels),
                bitsPerChannel: 0)
        }

        /// Where a Xing/Info header would start: after the header, the CRC and the side information.
        /// The longest a free-format frame may be: the length at 640 kbit/s (LAME's free-format ceiling,
        /// above every layer's table; 896 kbit/s for Layer I), padding included.
        var maximumFreeFormatLength: Int { length(forBitrate: layer == 1 ? 896_000 : 640_000) + (layer == 1 ? 4 : 1) }

        /// Bytes of a padding slot: 4 in Layer I, 1 otherwise.
        var paddingBytes: Int { padding ? (layer == 1 ? 4 : 1) : 0 }

        var xingOffset: Int {
            let sideInformation = version == .mpeg1 ? (channels == 1 ? 17 : 32) : (channels == 1 ? 9 : 17)
            return 4 + (hasCRC ? 2 : 0) + sideInformation
        }
    }

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
            if flags & 8 != 0 { _ = cursor.skip(4) }
            // A LAME-style extension: a 9-byte encoder string, then at byte 21 the delay and padding.
            if let name = cursor.readBytes(9) {
                let encoder = String(decoding: name.prefix { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self)
                if encoder.hasPrefix("LAME") || encoder.hasPrefix("Lavc") || encoder.hasPrefix("Lavf"),
                    cursor.skip(12), let gapless = cursor.readBytes(3)
                {
                    result.encoder = encoder
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
    static let descriptor = ContainerDescriptor(
        .mp3, name: "MPEG audio", kind: "an MPEG audio stream", fileTypeID: "MPG3",
        extensions: ["mp3", "mp2", "mp1", "mpa"], hintExtensions: ["mp3", "mp2", "mp1", "mpa", "mpga"],
        formatCodes: ["MPG3", "mp3"], writtenExtensions: [".mp3"],
        mediaTypes: ["audio/mpeg", "audio/mp3", "audio/mpeg3", "audio/x-mpeg"], recordsPriming: true,
        writer: { format, options, _, _ in
            // An ID3v2 tag with the text tags, then MPEG frames back to back; LAME's tag frame is the first.
            guard format.formatID == .mpegLayer3 else {
                throw AudioFileError.unsupportedDataFormat(
                    "mp3: an MP3 file holds MPEG Layer III, not '\(format.formatID)'", offset: nil)
            }
            return ContainerLayout(header: ID3.tag(metadata: options.metadata), trailer: [])
        })
}
