import AudioCodecs
import AudioFormats
internal import CLame

/// Encodes MP3 with libmp3lame at a constant, average or variable bit rate. Packets are whole MPEG frames; the
/// first is LAME's tag frame, a placeholder until ``finish(into:)``, after which ``magicCookie`` holds the
/// finished tag for the writer to put over it: one piece for every strategy, LAME's own (an `Info` header for
/// CBR, `Xing` for ABR and VBR: frame count, byte count, the 100-entry seek table, and the LAME extension's
/// encoder delay and padding, for gapless playback).
///
/// afconvert's options map onto the engine as follows (the README has the table):
/// - `-s 0` (default): CBR at `-b` (default 192 kbit/s); `-q` is LAME's algorithm quality, `-q 9-q×9/127`.
/// - `-s 1`: ABR averaging `-b` (`lame --abr`, default 192 kbit/s).
/// - `-s 2`, `-s 3`: VBR (`lame -V`, LAME's default VBR mode), `-q 0...127` the VBR quality `-V 9-q×9/127`,
///   rounded (`-q 127` is `-V 0`, the best; default `-V 2`, `-q 99`); `-b` there is the highest bit rate a
///   frame takes (`lame -B`).
public final class MP3Encoder: AudioEncoder {
    /// The format of the packets made.
    public let destinationFormat: StreamDescription
    /// The encoder's delay: frames before the first source frame.
    public let primingFrames: Int
    /// The codec configuration the container records.
    public private(set) var magicCookie: [UInt8]?
    /// The largest packet made, in bytes.
    public var maximumPacketSize: Int { 2881 }
    private let flags: OpaquePointer
    private let channels: Int
    private var buffer: [UInt8] = []
    private var pending: [UInt8] = []
    private var clipped: [Float] = []
    private var sourceFrames: Int64 = 0
    private var audioPackets: Int64 = 0
    private var sawTagFrame = false

    /// LAME's VBR quality for afconvert's `-q` (`-V`, 0 the best to 9).
    public static func variableBitRateQuality(_ quality: Int) -> Int { LAMEScale.level(quality: quality) }
    /// The VBR quality when `-q` is not given: `lame -V 2`.
    public static let defaultVariableBitRateQuality = 2

    /// The bit-rate control used.
    public let strategy: BitRateStrategy

    /// `settings.bitRate` in bits per second (default 192 kbit/s); 1 or 2 channels.
    /// What LAME takes: MPEG-1, 2 and 2.5's rates, 1 or 2 channels.
    public static let limits = EncoderLimits(
        sampleRates: [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000], maximumChannels: 2
    ) { rate, _ in
        // The bit-rate tables of MPEG-1 (32 to 48 kHz), MPEG-2 (16 to 24 kHz) and MPEG-2.5 (8 to 12 kHz);
        // LAME takes the table's entry nearest a value between.
        rate >= 32000 ? 32000...320_000 : rate >= 16000 ? 8000...160_000 : 8000...64000
    }

    /// An encoder for `settings`.
    public init(_ settings: EncoderSettings) throws {
        let format = settings.format
        channels = Int(format.channelsPerFrame)
        let bitRate = (settings.bitRate ?? 192_000) / 1000
        guard (1...2).contains(channels), let flags = lame_init() else {
            throw AudioFileError.unsupportedDataFormat(
                "mp3: LAME encodes 1 or 2 channels, not \(channels)", offset: nil)
        }
        self.flags = flags
        lame_set_in_samplerate(flags, Int32(format.sampleRate))
        lame_set_out_samplerate(flags, Int32(format.sampleRate))
        lame_set_num_channels(flags, Int32(channels))
        strategy = settings.strategy ?? .constant
        switch strategy {
        case .constant:
            lame_set_brate(flags, Int32(bitRate))
        case .longTermAverage:
            lame_set_VBR(flags, vbr_abr)
            lame_set_VBR_mean_bitrate_kbps(flags, Int32(bitRate))
        case .variableConstrained, .variable:
            lame_set_VBR(flags, vbr_default)
            let level = settings.quality.map(Self.variableBitRateQuality) ?? Self.defaultVariableBitRateQuality
            lame_set_VBR_quality(flags, Float(level))
            if settings.bitRate != nil { lame_set_VBR_max_bitrate_kbps(flags, Int32(bitRate)) }
        }
        lame_set_bWriteVbrTag(flags, settings.writesStreamHeader ? 1 : 0)
        // Without the tag frame, the first frame LAME makes is audio.
        sawTagFrame = !settings.writesStreamHeader
        if let quality = settings.quality, strategy == .constant || strategy == .longTermAverage {
            let level: Int = 9 - min(127, max(0, quality)) * 9 / 127
            lame_set_quality(flags, Int32(level))
        }
        guard lame_init_params(flags) >= 0 else {
            lame_close(flags)
            throw AudioFileError.unsupportedDataFormat(
                "mp3: LAME cannot encode \(format.sampleRate) Hz at \(bitRate) kbit/s (-s \(strategy.rawValue))",
                offset: nil)
        }
        // Apple's priming for LAME files: the encoder delay plus the decoder's 529 frames.
        primingFrames = Int(lame_get_encoder_delay(flags)) + 529
        let framesPerPacket = UInt32(lame_get_framesize(flags))
        destinationFormat = StreamDescription(
            sampleRate: format.sampleRate, formatID: .mpegLayer3, bytesPerPacket: 0,
            framesPerPacket: framesPerPacket, bytesPerFrame: 0, channelsPerFrame: UInt32(channels), bitsPerChannel: 0)
    }

    deinit { lame_close(flags) }

    /// Encodes interleaved frames, appending the whole packets they complete with their descriptions.
    public func encode(_ frames: UnsafeBufferPointer<Float>, into packets: inout EncodedPackets) throws {
        // LAME asserts (aborting the process) on NaN and on energies that overflow: full scale at most,
        // NaN as silence, as the PCM encoders do.
        clipped.removeAll(keepingCapacity: true)
        clipped.append(contentsOf: frames.lazy.map { $0 < -1 ? -1 : ($0 > 1 ? 1 : ($0.isNaN ? 0 : $0)) })
        let count = clipped.count / channels
        sourceFrames += Int64(count)
        let room = count * 5 / 4 + 7200
        if buffer.count < room { buffer = [UInt8](repeating: 0, count: room) }
        let written = clipped.withUnsafeBufferPointer { input in
            buffer.withUnsafeMutableBufferPointer { out -> Int32 in
                if channels == 2 {
                    return lame_encode_buffer_interleaved_ieee_float(
                        flags, input.baseAddress, Int32(count), out.baseAddress,
                        Int32(room))
                }
                return lame_encode_buffer_ieee_float(
                    flags, input.baseAddress, input.baseAddress, Int32(count),
                    out.baseAddress, Int32(room))
            }
        }
        guard written >= 0 else {
            throw AudioFileError.malformed("mp3: LAME failed to encode (\(written))", offset: nil)
        }
        pending += buffer[0..<Int(written)]
        try splitFrames(into: &packets)
    }

    /// Encodes what is left; returns the remainder frames (the last packet's padding).
    public func finish(into packets: inout EncodedPackets) throws -> Int {
        if buffer.count < 7200 { buffer = [UInt8](repeating: 0, count: 7200) }
        let written = buffer.withUnsafeMutableBufferPointer {
            lame_encode_flush(flags, $0.baseAddress, Int32($0.count))
        }
        guard written >= 0 else {
            throw AudioFileError.malformed("mp3: LAME failed to flush (\(written))", offset: nil)
        }
        pending += buffer[0..<Int(written)]
        try splitFrames(into: &packets)
        guard pending.isEmpty else {
            throw AudioFileError.malformed("mp3: LAME left \(pending.count) bytes that are not a frame", offset: nil)
        }
        let decoded = audioPackets * Int64(destinationFormat.framesPerPacket)
        let remainder = Int(max(0, decoded - Int64(primingFrames) - sourceFrames))
        guard lame_get_bWriteVbrTag(flags) != 0 else { return remainder }
        var tag = [UInt8](repeating: 0, count: 2880)
        let size = tag.withUnsafeMutableBufferPointer { lame_get_lametag_frame(flags, $0.baseAddress, $0.count) }
        magicCookie = size > 0 ? Array(tag[0..<min(size, tag.count)]) : nil
        return remainder
    }

    /// Moves every whole frame of `pending` into `packets`.
    private func splitFrames(into packets: inout EncodedPackets) throws {
        var start = 0
        while pending.count - start >= 4 {
            let length = pending.withUnsafeBytes { raw -> Int? in
                MPEGAudio.FrameHeader(UnsafeRawBufferPointer(rebasing: raw[start..<start + 4]))?.frameLength
            }
            guard let length, length > 0 else {
                throw AudioFileError.malformed("mp3: LAME's output has no frame header where one belongs", offset: nil)
            }
            guard pending.count - start >= length else { break }
            pending.withUnsafeBytes {
                packets.append(packet: UnsafeRawBufferPointer(rebasing: $0[start..<start + length]))
            }
            if sawTagFrame { audioPackets += 1 } else { sawTagFrame = true }
            start += length
        }
        pending.removeFirst(start)
    }
}
