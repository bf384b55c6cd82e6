/// MPEG-1, MPEG-2 and MPEG-2.5 audio, Layers I, II and III: the frame header and its tables, read by
/// the container (AudioContainers' `ElementaryStreamParser`, with the encoder headers) and by the MP3
/// encoder, which measures the frames it makes.
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
    package static let bitrates: [[Int]] = [
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

        package func length(forBitrate bitrate: Int) -> Int {
            if layer == 1 { return (12 * bitrate / sampleRate + (padding ? 1 : 0)) * 4 }
            let coefficient = layer == 3 && version != .mpeg1 ? 72 : 144
            return coefficient * bitrate / sampleRate + (padding ? 1 : 0)
        }

        /// Whether another header can belong to the same stream: same version, layer and rate (and, in free
        /// format, free format too).
        package func continues(_ other: FrameHeader) -> Bool {
            version == other.version && layer == other.layer && sampleRate == other.sampleRate
                && (bitrate == 0) == (other.bitrate == 0)
        }

        /// Whether another header can belong to the same stream at another rate: same version and layer.
        package func continuesAllowingRateChange(_ other: FrameHeader) -> Bool {
            version == other.version && layer == other.layer && (bitrate == 0) == (other.bitrate == 0)
        }

        /// Apple's format ID for the layer.
        public var formatID: FourCharCode { layer == 1 ? .mpegLayer1 : layer == 2 ? .mpegLayer2 : .mpegLayer3 }

        package var streamDescription: StreamDescription {
            StreamDescription(
                sampleRate: Double(sampleRate), formatID: formatID, bytesPerPacket: 0,
                framesPerPacket: UInt32(samplesPerFrame), bytesPerFrame: 0, channelsPerFrame: UInt32(channels),
                bitsPerChannel: 0)
        }

        /// Where a Xing/Info header would start: after the header, the CRC and the side information.
        /// The longest a free-format frame may be: the length at 640 kbit/s (LAME's free-format ceiling,
        /// above every layer's table; 896 kbit/s for Layer I), padding included.
        package var maximumFreeFormatLength: Int {
            length(forBitrate: layer == 1 ? 896_000 : 640_000) + (layer == 1 ? 4 : 1)
        }

        /// Bytes of a padding slot: 4 in Layer I, 1 otherwise.
        package var paddingBytes: Int { padding ? (layer == 1 ? 4 : 1) : 0 }

        package var xingOffset: Int {
            let sideInformation = version == .mpeg1 ? (channels == 1 ? 17 : 32) : (channels == 1 ? 9 : 17)
            return 4 + (hasCRC ? 2 : 0) + sideInformation
        }
    }
}
