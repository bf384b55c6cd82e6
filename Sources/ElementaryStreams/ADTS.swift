import AudioFormats
import StreamParsing

/// AAC in ADTS (Audio Data Transport Stream) framing: frame headers, the AudioSpecificConfig that
/// describes the stream, and the ES descriptor form that CAF (`kuki`) and MP4 (`esds`) carry.
/// The stream machinery is `ElementaryStreamParser`, shared with MPEG audio.
public enum ADTS {
    // Fixed and variable header, 56 bits (72 with CRC), most significant first:
    //
    //   AAAAAAAA AAAABCCD EEFFFFGH HHIJKLMM MMMMMMMM MMMOOOOO OOOOOOPP (QQQQQQQQ QQQQQQQQ)
    //   A sync (12 ones)   B MPEG version (0 MPEG-4, 1 MPEG-2)   C layer (00)   D protection absent
    //   E profile (audio object type − 1)   F sampling frequency index   G private
    //   H channel configuration   I original   J home   K copyright id bit   L copyright id start
    //   M frame length (13 bits, header included)   O buffer fullness (11 bits)
    //   P raw data blocks in the frame − 1   Q CRC, when protection is not absent

    /// One ADTS frame header.
    public struct FrameHeader: Hashable, Sendable {
        /// MPEG-2 (1) or MPEG-4 (0) ID bit.
        public var isMPEG2: Bool
        /// Whether a CRC follows the header.
        public var hasCRC: Bool
        /// MPEG-4 audio object type (2 is AAC-LC).
        public var objectType: Int
        /// The sampling frequency index.
        public var sampleRateIndex: Int
        /// The channel configuration (0: a program config element says).
        public var channelConfiguration: Int
        /// Bytes of the whole frame, header included.
        public var frameLength: Int
        /// The buffer fullness (0x7FF: variable bit rate).
        public var bufferFullness: Int
        /// Raw data blocks in the frame (AAC frames of 1024 samples).
        public var rawDataBlocks: Int

        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count >= 7, bytes[0] == 0xFF, bytes[1] & 0xF6 == 0xF0 else { return nil }
            isMPEG2 = bytes[1] & 0x08 != 0
            hasCRC = bytes[1] & 1 == 0
            objectType = Int(bytes[2] >> 6) + 1
            sampleRateIndex = Int((bytes[2] >> 2) & 0x0F)
            channelConfiguration = Int((bytes[2] & 1) << 2 | bytes[3] >> 6)
            frameLength = Int(bytes[3] & 3) << 11 | Int(bytes[4]) << 3 | Int(bytes[5] >> 5)
            bufferFullness = Int(bytes[5] & 0x1F) << 6 | Int(bytes[6] >> 2)
            rawDataBlocks = Int(bytes[6] & 3) + 1
            guard sampleRateIndex < AudioSpecificConfig.sampleRates.count, frameLength >= headerLength else {
                return nil
            }
        }

        /// Bytes before the raw data: 7, or 9 with the CRC.
        public var headerLength: Int { hasCRC ? 9 : 7 }
        /// Samples per second the index names.
        public var sampleRate: Int { AudioSpecificConfig.sampleRates[sampleRateIndex] }
        /// Channels of the channel configuration (configuration 7 is 7.1: 8 channels; 0 means a program
        /// config element inside the stream says).
        public var channels: Int { channelConfiguration == 7 ? 8 : channelConfiguration }

        func continues(_ other: FrameHeader) -> Bool {
            objectType == other.objectType && sampleRateIndex == other.sampleRateIndex
                && channelConfiguration == other.channelConfiguration
        }

        /// The AudioSpecificConfig Apple builds for the stream: object type, frequency index, channel
        /// configuration, then GASpecificConfig with every flag clear (2 bytes).
        public var audioSpecificConfig: [UInt8] {
            let bits = UInt16(objectType) << 11 | UInt16(sampleRateIndex) << 7 | UInt16(channelConfiguration) << 3
            return [UInt8(bits >> 8), UInt8(bits & 0xFF)]
        }

        var streamDescription: StreamDescription {
            StreamDescription(
                sampleRate: Double(sampleRate), formatID: .aac, bytesPerPacket: 0, framesPerPacket: 1024,
                bytesPerFrame: 0, channelsPerFrame: UInt32(channels), bitsPerChannel: 0)
        }
    }
}

extension FileType {
    /// AAC in ADTS frames without a container.
    public static let adts = FileType(rawValue: "adts")
}

extension ADTS {
    /// Bare ADTS: no signature; frames decide. It records no priming: every decoded frame counts.
    package static let descriptor = ContainerDescriptor(
        .adts, name: "ADTS", kind: "an ADTS (AAC) stream", fileTypeID: "adts", extensions: ["aac", "adts"],
        formatCodes: ["adts"], writtenExtensions: [".aac", ".adts"],
        mediaTypes: ["audio/aac", "audio/aacp", "audio/x-aac", "audio/x-hx-aac-adts"],
        keeps: WrittenTimeline(chapters: ID3.maximumChapters),
        writer: ContainerWriter(
            policy: WriterPolicy(defaultDataFormat: "aac"),
            makeFramer: { _, options in
                Framer(
                    audioSpecificConfig: AudioSpecificConfig.audioSpecificConfig(inCookie: options.magicCookie ?? [])
                        ?? [])
            }
        ) { format, options, _, _ in try ADTS.layout(format: format, options: options) })
}
