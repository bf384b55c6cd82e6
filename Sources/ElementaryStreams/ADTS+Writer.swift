import AudioFormats
import StreamParsing

extension ADTS {
    /// The 7-byte ADTS header (no CRC) that frames a raw access unit of `payloadSize` bytes, from the
    /// stream's AudioSpecificConfig. ADTS holds AAC Main, LC, SSR and LTP at the rates of the index table
    /// and channel configurations 1 to 7.
    public static func frameHeader(payloadSize: Int, audioSpecificConfig config: [UInt8]) throws -> [UInt8] {
        guard config.count >= 2 else {
            throw AudioFileError.unsupportedDataFormat("adts: no AudioSpecificConfig to frame the packets", offset: nil)
        }
        let objectType = Int(config[0] >> 3)
        let rateIndex = Int((config[0] & 7) << 1 | config[1] >> 7)
        let channelConfiguration = Int((config[1] >> 3) & 0xF)
        guard (1...4).contains(objectType), rateIndex < 13, (1...7).contains(channelConfiguration) else {
            throw AudioFileError.unsupportedDataFormat(
                "adts: ADTS cannot frame object type \(objectType), rate index \(rateIndex), channel configuration "
                    + "\(channelConfiguration)", offset: nil)
        }
        let length = payloadSize + 7
        guard length < 1 << 13 else {
            throw AudioFileError.invalidPacket(
                "adts: a \(payloadSize)-byte packet does not fit an ADTS frame", offset: nil)
        }
        return [
            0xFF, 0xF1,  // sync, MPEG-4, layer 0, no CRC
            UInt8((objectType - 1) << 6 | rateIndex << 2 | channelConfiguration >> 2),
            UInt8((channelConfiguration & 3) << 6 | length >> 11),
            UInt8(length >> 3 & 0xFF),
            UInt8((length & 7) << 5 | 0x1F),  // buffer fullness 0x7FF: variable rate
            0xFC,  // one raw data block
        ]
    }

    /// Header of an ADTS file: an ID3v2 tag with the text tags (as HLS's packed audio and FFmpeg have it); raw
    /// AAC access units follow, each behind its own header (``frameHeader(payloadSize:audioSpecificConfig:)``).
    package static func layout(format: StreamDescription, options: AudioFileWriterOptions) throws -> ContainerLayout {
        try .taggedStream(
            format, holding: .aac, options: options, refusal: "adts: ADTS holds AAC, not '\(format.formatID)'")
    }
}

extension ADTS {
    /// Puts each packet behind its own ADTS header, made from the AudioSpecificConfig in the cookie.
    package struct Framer: PacketFramer {
        let audioSpecificConfig: [UInt8]

        /// A framer making each header from `audioSpecificConfig`.
        package init(audioSpecificConfig: [UInt8]) { self.audioSpecificConfig = audioSpecificConfig }

        package mutating func append(packet: UnsafeRawBufferPointer, frames: Int, into out: inout [UInt8]) throws {
            out += try ADTS.frameHeader(payloadSize: packet.count, audioSpecificConfig: audioSpecificConfig)
            out += packet
        }
    }
}
