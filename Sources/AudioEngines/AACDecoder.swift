import AudioCodecs
import AudioFormats
internal import CFAAD

/// Decodes AAC packets (raw access units, as afkit's ADTS, CAF and MPEG-4 parsers deliver them),
/// configured from the stream's AudioSpecificConfig: AAC-LC at 32 kHz and above by libavcodec (2.9
/// times as fast), everything else, and any stream libavcodec decodes to other than 1024 frames of the
/// stream's rate and channels (implicit SBR or parametric stereo), by libfaad2, which can hold such a
/// stream at its core rate as Apple reports it. Both deliver the same alignment: the first packet's
/// 1024 frames are not output.
public final class AACDecoder: AudioDecoder {
    /// The format of the packets decoded.
    public let sourceFormat: StreamDescription
    /// Frames a packet decodes to.
    public var maximumFramesPerPacket: Int { 1024 }
    /// The first packet decodes to nothing (libfaad2 gives nothing for it; libavcodec's ramp is dropped):
    /// the output starts one packet (1024 frames) into the stream, so that much of the priming is already gone.
    public static let outputDelay = 1024
    /// Frames of the priming the decoder never outputs: its first packet's (none once asked to keep them).
    public var framesDroppedAtStart: Int { keepsFirstPacket ? 0 : AACDecoder.outputDelay }
    /// Whether the first packet's frames are delivered: libavcodec's own, or libfaad2's delay as silence.
    private var keepsFirstPacket = false
    private var fast: LibavcodecDecoder?
    private var reference: FAADDecoder?
    private let magicCookie: [UInt8]
    /// Whether libavcodec's first packet has been decoded (and checked).
    private var checked = false

    /// `magicCookie` is an AudioSpecificConfig or an ES descriptor holding one (CAF's `kuki`).
    public init(format: StreamDescription, magicCookie: [UInt8]) throws {
        sourceFormat = format
        self.magicCookie = magicCookie
        guard let config = AudioSpecificConfig.audioSpecificConfig(inCookie: magicCookie), !config.isEmpty else {
            throw AudioFileError.unsupportedDataFormat(
                "aac: no AudioSpecificConfig to configure the decoder", offset: nil)
        }
        // AAC-LC (object type 2) at 32 kHz or more: implicit SBR there would mean 64 kHz output, which no
        // encoder makes.
        let objectType = config[0] >> 3
        if objectType == 2, format.sampleRate >= 32000, format.framesPerPacket == 1024, format.channelsPerFrame <= 8,
            let engine = try? LibavcodecDecoder(
                codec: "aac", format: format, extradata: config, maximumFramesPerPacket: 1024, concealsErrors: true)
        {
            fast = engine
        } else {
            reference = try FAADDecoder(format: format, magicCookie: magicCookie)
        }
    }

    /// Delivers the first packet's frames too (a stream that records no priming, as ADTS: every decoded frame
    /// counts, as FFmpeg's decoder gives them).
    public func keepFramesDroppedAtStart() {
        keepsFirstPacket = true
        reference?.keepFramesDroppedAtStart()
    }

    /// Forgets the state kept between packets (after a seek).
    public func reset() {
        fast?.reset()
        reference?.reset()
    }

    /// Damaged packets replaced with silence (as FFmpeg's decoder conceals them).
    public var concealedPackets: Int { (fast?.concealedPackets ?? 0) + (reference?.concealedPackets ?? 0) }

    /// Decodes the packets into interleaved frames; returns the frames written.
    public func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int {
        guard let engine = fast else {
            guard let reference else { throw AudioFileError.illegalOperation("aac: the decoder has no engine") }
            return try reference.decode(bytes, packetCount: packetCount, descriptions: descriptions, into: output)
        }
        var first = 0
        var written = 0
        if !checked, packetCount > 0 {
            // The first packet alone: 1024 frames of the stream's channels, or libfaad2 takes over from here.
            // Those frames are the ramp libfaad2 never outputs: what follows is written over them.
            let frames = try? engine.decode(bytes, packetCount: 1, descriptions: descriptions, into: output)
            checked = true
            guard frames == 1024 else {
                fast = nil
                let faad = try FAADDecoder(format: sourceFormat, magicCookie: magicCookie)
                if keepsFirstPacket { faad.keepFramesDroppedAtStart() }
                reference = faad
                return try faad.decode(bytes, packetCount: packetCount, descriptions: descriptions, into: output)
            }
            first = 1
            // Kept, they stay; dropped, what follows is written over them.
            if keepsFirstPacket { written = 1024 }
        }
        if packetCount > first {
            let rest = descriptions.map { UnsafeBufferPointer(rebasing: $0[first...]) }
            let channels = Int(sourceFormat.channelsPerFrame)
            written += try engine.decode(
                bytes, packetCount: packetCount - first, descriptions: rest,
                into: UnsafeMutableBufferPointer(rebasing: output[(written * channels)...]))
        }
        return written
    }
}

/// libfaad2's functions, loaded when an AAC stream first needs them (the CFAAD shim says why).
enum LibFAAD {
    private static let loaded = loadFunctionTable(of: "libfaad2", with: afkit_faad_load)

    /// The functions, or why libfaad2 cannot be used.
    static func functions() throws -> afkit_faad { try loaded.get() }
}

/// Decodes AAC packets with libfaad2 alone, configured from the stream's AudioSpecificConfig (what
/// ``AACDecoder`` uses for every stream but AAC-LC at 32 kHz and above; public for the benchmarks).
public final class FAADDecoder: AudioDecoder {
    /// The format of the packets decoded.
    public let sourceFormat: StreamDescription
    /// Frames a packet decodes to (libfaad2 is kept from doubling them for implicit SBR).
    public var maximumFramesPerPacket: Int { 1024 }
    /// Frames of the priming the decoder never outputs: its first packet's (none once asked to keep them).
    public var framesDroppedAtStart: Int { keepsDelay ? 0 : AACDecoder.outputDelay }
    /// Whether libfaad2's one-packet delay is delivered, as silence, before its first output.
    private var keepsDelay = false
    /// Whether that silence is still to come.
    private var delayPending = false
    /// The rate and channels libfaad2 decodes to (they differ from the stream's for HE-AAC).
    public private(set) var outputSampleRate: Int = 0
    /// The channels libfaad2 outputs (known after the first packet).
    public private(set) var outputChannels: Int = 0
    private let handle: NeAACDecHandle?
    private let faad: afkit_faad
    /// Damaged packets replaced with silence.
    public private(set) var concealedPackets = 0

    /// `magicCookie` is an AudioSpecificConfig or an ES descriptor holding one (CAF's `kuki`).
    public init(format: StreamDescription, magicCookie: [UInt8]) throws {
        sourceFormat = format
        let faad = try LibFAAD.functions()
        self.faad = faad
        let config = AudioSpecificConfig.audioSpecificConfig(inCookie: magicCookie)
        guard let config, !config.isEmpty, let handle = faad.NeAACDecOpen() else {
            throw AudioFileError.unsupportedDataFormat(
                "aac: no AudioSpecificConfig to configure the decoder", offset: nil)
        }
        // Every step that can fail runs on the local handle and closes it there: `self.handle` is set last, so a
        // refusal is closed exactly once (once every property is set, a throwing initializer runs `deinit` too).
        if let settings = faad.NeAACDecGetCurrentConfiguration(handle) {
            settings.pointee.outputFormat = UInt8(FAAD_FMT_FLOAT)
            settings.pointee.downMatrix = 0
            // ADTS cannot say whether SBR is present; decode at the stream's own rate, 1024 frames a
            // packet, as Apple reports it (libfaad2 would otherwise guess and double the rate).
            settings.pointee.dontUpSampleImplicitSBR = 1
            _ = faad.NeAACDecSetConfiguration(handle, settings)
        }
        var rate: UInt = 0
        var channels: UInt8 = 0
        var bytes = config
        let result = bytes.withUnsafeMutableBufferPointer {
            faad.NeAACDecInit2(handle, $0.baseAddress, UInt($0.count), &rate, &channels)
        }
        guard result >= 0 else {
            faad.NeAACDecClose(handle)
            throw AudioFileError.unsupportedDataFormat(
                "aac: libfaad2 refuses the AudioSpecificConfig \(hexString(config))",
                offset: nil)
        }
        self.handle = handle
        outputSampleRate = Int(rate)
        outputChannels = Int(channels)
    }

    deinit { if let handle { faad.NeAACDecClose(handle) } }

    /// For each output channel in WAV order (front left, right, centre, LFE, back left, right, back
    /// centre, side left, right), the decoded channel that feeds it, from libfaad2's channel positions.
    private func waveOrder(_ info: NeAACDecFrameInfo, channels: Int) -> [Int] {
        guard channels > 2 else { return Array(0..<channels) }
        let rank: [UInt8: Int] = [
            UInt8(FRONT_CHANNEL_LEFT): 0, UInt8(FRONT_CHANNEL_RIGHT): 1, UInt8(FRONT_CHANNEL_CENTER): 2,
            UInt8(LFE_CHANNEL): 3, UInt8(BACK_CHANNEL_LEFT): 4, UInt8(BACK_CHANNEL_RIGHT): 5,
            UInt8(BACK_CHANNEL_CENTER): 6, UInt8(SIDE_CHANNEL_LEFT): 7, UInt8(SIDE_CHANNEL_RIGHT): 8,
        ]
        let positions = withUnsafeBytes(of: info.channel_position) { Array($0.prefix(channels)) }
        // A stable sort: positions libfaad2 does not name keep their place after the named ones.
        return (0..<channels).sorted { (rank[positions[$0]] ?? 9 + $0, $0) < (rank[positions[$1]] ?? 9 + $1, $1) }
    }

    /// Delivers the first packet's frames: libfaad2 gives nothing for it, so 1024 frames of silence stand in
    /// (where libavcodec gives the decoder's ramp, a stream's priming).
    public func keepFramesDroppedAtStart() {
        keepsDelay = true
        delayPending = true
    }

    /// Forgets the state kept between packets (after a seek).
    public func reset() {
        if let handle { faad.NeAACDecPostSeekReset(handle, 0) }
    }

    /// Decodes the packets into interleaved frames; returns the frames written.
    public func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int {
        var written = 0
        if delayPending, packetCount > 0 {
            delayPending = false
            let count = AACDecoder.outputDelay * Int(sourceFormat.channelsPerFrame)
            guard count <= output.count else {
                throw AudioFileError.limitExceeded("aac: more frames than the output holds", offset: nil)
            }
            for index in 0..<count { output[index] = 0 }
            written = AACDecoder.outputDelay
        }
        for packet in 0..<packetCount {
            guard let descriptions else {
                throw AudioFileError.invalidPacket("aac: packets vary in size; each needs a description", offset: nil)
            }
            let start = Int(descriptions[packet].startOffset)
            let size = Int(descriptions[packet].dataByteSize)
            guard start >= 0, start + size <= bytes.count, let base = bytes.baseAddress else {
                throw AudioFileError.invalidPacket(
                    "aac: a packet lies outside the bytes given", offset: Int64(max(0, start)))
            }
            var info = NeAACDecFrameInfo()
            let samples = faad.NeAACDecDecode(
                handle, &info, UnsafeMutablePointer(mutating: (base + start).assumingMemoryBound(to: UInt8.self)),
                UInt(size))
            if info.error != 0 {
                // A damaged packet: a packet of silence stands in, counted (as FFmpeg conceals it).
                let channels = Int(sourceFormat.channelsPerFrame)
                guard (written + 1024) * channels <= output.count else {
                    let message =
                        faad.NeAACDecGetErrorMessage(info.error).map { String(cString: $0) } ?? "error \(info.error)"
                    throw AudioFileError.malformed(
                        "aac: libfaad2 could not decode the packet: \(message)", offset: Int64(start))
                }
                for sample in written * channels..<(written + 1024) * channels { output[sample] = 0 }
                written += 1024
                concealedPackets += 1
                continue
            }
            let count = Int(info.samples)
            guard count > 0, let samples else { continue }
            outputSampleRate = Int(info.samplerate)
            let decodedChannels = Int(info.channels)
            let channels = Int(sourceFormat.channelsPerFrame)
            let frames = count / max(decodedChannels, 1)
            guard (written + frames) * channels <= output.count else {
                throw AudioFileError.limitExceeded("aac: more frames than the output holds", offset: nil)
            }
            let floats = samples.assumingMemoryBound(to: Float.self)
            if decodedChannels == channels {
                // libfaad2 delivers AAC's order (C L R Ls Rs LFE); afkit's decoders all deliver WAV's.
                let order = waveOrder(info, channels: channels)
                for frame in 0..<frames {
                    for channel in 0..<channels {
                        output[(written + frame) * channels + channel] = floats[frame * channels + order[channel]]
                    }
                }
            } else if channels == 1 && decodedChannels == 2 {
                // libfaad2 built with parametric stereo turns every mono stream into two channels (the same
                // twice, for AAC-LC); keep the first, as the stream's format has one.
                for frame in 0..<frames { output[written + frame] = floats[frame * 2] }
            } else {
                throw AudioFileError.unsupportedDataFormat(
                    "aac: libfaad2 decodes \(decodedChannels) channels from a \(channels)-channel stream", offset: nil)
            }
            outputChannels = channels
            written += frames
        }
        return written
    }
}
