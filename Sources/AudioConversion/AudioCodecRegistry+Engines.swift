import AudioCodecs
import AudioFormats

extension AudioCodecRegistry {
    /// afkit's own codecs and the C engines: MPEG audio decoded by libmp3lame (and MP3 encoded by
    /// LAME), AAC decoded by libfaad2 and encoded by libavcodec, Apple Lossless both ways by
    /// libavcodec. Every conversion, the validator and the command ask this registry.
    public static let standard: AudioCodecRegistry = {
        var registry = AudioCodecRegistry.builtIn
        for id in [FourCharCode.mpegLayer1, .mpegLayer2, .mpegLayer3] {
            registry.registerDecoder(for: id) { format, _ in try MP3Decoder(format: format) }
        }
        registry.registerEncoder(for: .mpegLayer3) { settings in try MP3Encoder(settings) }
        registry.registerDecoder(for: .aac) { format, cookie in try AACDecoder(format: format, magicCookie: cookie ?? []) }
        registry.registerEncoder(for: .aac) { settings in try AACEncoder(settings) }
        registry.registerDecoder(for: .alac) { format, cookie in try AppleLosslessDecoder(format: format, magicCookie: cookie) }
        registry.registerEncoder(for: .alac) { settings in try AppleLosslessEncoder(settings) }
        return registry
    }()
}
