import AudioCodecs
import AudioFormats
internal import CAVCodec

/// Decodes ALAC packets with libavcodec to interleaved Float32.
public final class AppleLosslessDecoder: AudioDecoder {
    /// The format of the packets decoded.
    public var sourceFormat: StreamDescription { engine.sourceFormat }
    /// The most frames one packet decodes to.
    public var maximumFramesPerPacket: Int { engine.maximumFramesPerPacket }
    private let engine: LibavcodecDecoder

    /// `magicCookie`: the ALACSpecificConfig, bare or wrapped as Apple and MP4 wrap it.
    public init(format: StreamDescription, magicCookie: [UInt8]?) throws {
        guard let cookie = magicCookie, let config = AppleLossless.specificConfig(inCookie: cookie) else {
            throw AudioFileError.unsupportedDataFormat(
                "alac: no ALACSpecificConfig to configure the decoder", offset: nil)
        }
        let frameLength = Int(
            UInt32(config[0]) << 24 | UInt32(config[1]) << 16 | UInt32(config[2]) << 8 | UInt32(config[3]))
        let channels = Int(config[9])
        // ALAC holds 1 to 8 channels; Apple's encoders use 4096 frames a packet, and 16384 is far beyond any.
        guard (1...16384).contains(frameLength), (1...8).contains(channels), channels == Int(format.channelsPerFrame)
        else {
            throw AudioFileError.unsupportedDataFormat(
                "alac: the ALACSpecificConfig says \(frameLength) frames and \(channels) channels; the stream has "
                    + "\(format.channelsPerFrame)", offset: nil)
        }
        engine = try LibavcodecDecoder(
            codec: "alac", format: format, extradata: AppleLossless.atom(config),
            maximumFramesPerPacket: frameLength)
    }

    /// Forgets the state kept between packets (after a seek).
    public func reset() { engine.reset() }

    /// Decodes the packets into interleaved frames; returns the frames written.
    public func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int {
        try engine.decode(bytes, packetCount: packetCount, descriptions: descriptions, into: output)
    }
}
