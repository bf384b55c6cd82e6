import AudioCodecs
import AudioFormats

extension AudioCodecRegistry {
    /// Whether an AMR frame carries no speech bits: NO_DATA (header only) or comfort noise (AMR-NB's type 8,
    /// AMR-WB's 9), which libavcodec does not decode.
    static func carriesNoSpeech(_ packet: UnsafeRawBufferPointer, comfortNoiseType: UInt8) -> Bool {
        packet.count <= 1 || (packet[0] >> 3) & 0x0F == comfortNoiseType
    }

    /// afkit's own codecs and the C engines: MPEG audio decoded by libavcodec (2.6 times as fast as
    /// libmp3lame's decoder, in float; BENCHMARKS.md; libmp3lame's where libavcodec is missing) and MP3
    /// encoded by LAME, AAC decoded by libavcodec or libfaad2 (AACDecoder chooses) and encoded by
    /// libavcodec, Apple Lossless decoded by libavcodec (afkit encodes it itself), FLAC encoded by libFLAC
    /// (afkit decodes it itself), Opus encoded by libopus, Vorbis by libvorbis. Every conversion, the
    /// validator and the command ask this registry.
    public static let standard: AudioCodecRegistry = {
        var registry = AudioCodecRegistry.builtIn
        registry.hasEngines = true
        for (id, codec) in [
            (FourCharCode.mpegLayer1, "mp1float"), (.mpegLayer2, "mp2float"), (.mpegLayer3, "mp3float"),
        ] {
            registry.registerDecoder(for: id) { format, _ in
                guard format.channelsPerFrame <= 2 else {
                    throw AudioFileError.unsupportedDataFormat(
                        "mp3: MPEG audio has 1 or 2 channels, not \(format.channelsPerFrame)",
                        offset: nil)
                }
                // Where libavcodec is not installed, libmp3lame's decoder (16-bit, slower) stands in.
                guard LibAV.isAvailable else { return try MP3Decoder(format: format) }
                return try LibavcodecDecoder(
                    codec: codec, format: format, extradata: nil,
                    maximumFramesPerPacket: Int(max(format.framesPerPacket, 1152)), concealsErrors: true,
                    upmixesMono: true)
            }
        }
        // AIFF-C's older codecs, by libavcodec: MACE 3:1 and 6:1 and G.722 take many of their tiny packets at
        // once, GSM 6.10 and QUALCOMM PureVoice one packet (one 20 ms frame) at a time.
        let older: [(FourCharCode, String, Int)] = [
            ("MAC3", "mace3", 1024), ("MAC6", "mace6", 1024),
            ("G722", "g722", 1024), ("GSM ", "gsm", 1), ("Qclp", "qcelp", 1), ("qclp", "qcelp", 1),
        ]
        for (id, codec, perCall) in older {
            registry.registerDecoder(for: id) { format, _ in
                try LibavcodecDecoder(
                    codec: codec, format: format, extradata: nil,
                    maximumFramesPerPacket: Int(format.framesPerPacket), packetsPerCall: perCall)
            }
        }
        // QDesign Music 1 and 2, configured by the `wave` chunk's atoms (the magic cookie, whole, as
        // FFmpeg's AIFF demuxer hands it over); each packet decodes to the frames the configuration says.
        for (id, codec) in [(FourCharCode("QDM2"), "qdm2"), (FourCharCode("QDMC"), "qdmc")] {
            registry.registerDecoder(for: id) { format, cookie in
                guard let cookie, !cookie.isEmpty, format.framesPerPacket > 0, format.bytesPerPacket > 0 else {
                    throw AudioFileError.unsupportedDataFormat(
                        "\(codec): the file carries no QDesign configuration (a 'wave' chunk before the audio)",
                        offset: nil)
                }
                return try LibavcodecDecoder(
                    codec: codec, format: format, extradata: cookie,
                    maximumFramesPerPacket: Int(format.framesPerPacket), setsBlockAlign: true)
            }
        }
        // Vorbis and Opus by libavcodec, configured by the stream's headers (Vorbis: its three headers
        // Xiph-laced; Opus: OpusHead). Opus decodes at 48 kHz.
        registry.registerDecoder(for: .vorbis) { format, cookie in
            guard let cookie, !cookie.isEmpty else {
                throw AudioFileError.unsupportedDataFormat("vorbis: the stream has no headers", offset: nil)
            }
            return try LibavcodecDecoder(
                codec: "vorbis", format: format, extradata: cookie, maximumFramesPerPacket: 8192)
        }
        registry.registerDecoder(for: .opus) { format, cookie in
            // libavcodec drops an OpusHead's pre-skip itself; the reader trims it as priming (Ogg's and CAF's
            // alike), so the engine is given the header with a pre-skip of 0.
            var head = cookie
            if var bytes = head, bytes.count >= 12 {
                bytes[10] = 0
                bytes[11] = 0
                head = bytes
            }
            return try LibavcodecDecoder(codec: "opus", format: format, extradata: head, maximumFramesPerPacket: 5760)
        }
        // AC-3, E-AC-3, AMR-NB and AMR-WB by libavcodec, a packet (a sync frame, a 20 ms frame) at a time.
        let speechAndSurround: [(FourCharCode, String, Int)] = [
            (.ac3, "ac3", 1536), (.enhancedAC3, "eac3", 1536), ("samr", "amrnb", 160), ("sawb", "amrwb", 320),
        ]
        for (id, codec, frames) in speechAndSurround {
            // AMR's frames without speech bits (NO_DATA, and the comfort-noise SID frames libavcodec does not
            // decode) are 20 ms of silence each, keeping the stream's time.
            var silent: (@Sendable (UnsafeRawBufferPointer) -> Bool)?
            if id == "samr" { silent = { AudioCodecRegistry.carriesNoSpeech($0, comfortNoiseType: 8) } }
            if id == "sawb" { silent = { AudioCodecRegistry.carriesNoSpeech($0, comfortNoiseType: 9) } }
            let noSpeech = silent
            registry.registerDecoder(for: id) { format, _ in
                try LibavcodecDecoder(
                    codec: codec, format: format, extradata: nil, maximumFramesPerPacket: frames,
                    isSilentPacket: noSpeech)
            }
        }
        registry.registerEncoder(for: .mpegLayer3, limits: MP3Encoder.limits) { settings in try MP3Encoder(settings) }
        registry.registerDecoder(for: .aac) { format, cookie in
            try AACDecoder(format: format, magicCookie: cookie ?? [])
        }
        registry.registerEncoder(for: .aac, limits: AACEncoder.limits) { settings in try AACEncoder(settings) }
        // HE-AAC and HE-AAC v2 (SBR, SBR with parametric stereo) whose configuration says so: libavcodec's AAC
        // decoder, at the output rate (2048 frames a packet), configured by the AudioSpecificConfig, as FFmpeg
        // decodes them; the file's priming (an edit list, `iTunSMPB`) is trimmed by the reader.
        for id in [FourCharCode.aacSpectralBandReplication, .aacParametricStereo] {
            registry.registerDecoder(for: id) { format, cookie in
                guard let config = AudioSpecificConfig.audioSpecificConfig(inCookie: cookie ?? []), !config.isEmpty
                else {
                    throw AudioFileError.unsupportedDataFormat(
                        "aac: no AudioSpecificConfig to configure the decoder", offset: nil)
                }
                return try LibavcodecDecoder(
                    codec: "aac", format: format, extradata: config,
                    maximumFramesPerPacket: Int(max(format.framesPerPacket, 2048)))
            }
        }
        // LOAS frames, whole, by libavcodec's LATM decoder (which reads each frame's StreamMuxConfig).
        registry.registerDecoder(for: .latmAAC) { format, _ in
            try LibavcodecDecoder(codec: "aac_latm", format: format, extradata: nil, maximumFramesPerPacket: 2048)
        }
        registry.registerEncoder(for: .flac, limits: FLACEncoder.limits) { settings in try FLACEncoder(settings) }
        registry.registerEncoder(for: .opus, limits: OpusEncoder.limits) { settings in try OpusEncoder(settings) }
        registry.registerEncoder(for: .vorbis, limits: VorbisEncoder.limits) { settings in try VorbisEncoder(settings) }
        registry.registerDecoder(for: .alac) { format, cookie in
            try AppleLosslessDecoder(format: format, magicCookie: cookie)
        }
        return registry
    }()
}
