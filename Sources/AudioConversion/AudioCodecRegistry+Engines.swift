import AudioCodecs
import AudioFormats

extension AudioCodecRegistry {
    /// afkit's own codecs and the C engines: MPEG audio decoded by libavcodec (2.6 times as fast as
    /// libmp3lame's decoder, in float; BENCHMARKS.md) and MP3 encoded by LAME, AAC decoded by
    /// libfaad2 and encoded by libavcodec, Apple Lossless both ways by libavcodec. Every conversion,
    /// the validator and the command ask this registry.
    public static let standard: AudioCodecRegistry = {
        var registry = AudioCodecRegistry.builtIn
        for (id, codec) in [(FourCharCode.mpegLayer1, "mp1float"), (.mpegLayer2, "mp2float"), (.mpegLayer3, "mp3float")] {
            registry.registerDecoder(for: id) { format, _ in
                guard format.channelsPerFrame <= 2 else {
                    throw AudioFileError.unsupportedDataFormat("mp3: MPEG audio has 1 or 2 channels, not \(format.channelsPerFrame)",
                        offset: nil)
                }
                return try LibavcodecDecoder(codec: codec, format: format, extradata: nil,
                    maximumFramesPerPacket: Int(max(format.framesPerPacket, 1152)), concealsErrors: true)
            }
        }
        registry.registerEncoder(for: .mpegLayer3) { settings in try MP3Encoder(settings) }
        registry.registerDecoder(for: .aac) { format, cookie in try AACDecoder(format: format, magicCookie: cookie ?? []) }
        registry.registerEncoder(for: .aac) { settings in try AACEncoder(settings) }
        registry.registerDecoder(for: .alac) { format, cookie in try AppleLosslessDecoder(format: format, magicCookie: cookie) }
        registry.registerEncoder(for: .alac) { settings in try AppleLosslessEncoder(settings) }
        return registry
    }()
}
