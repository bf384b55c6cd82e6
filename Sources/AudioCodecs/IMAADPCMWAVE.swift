import AudioFormats

/// IMA ADPCM as WAV stores it (format tag 0x0011): blocks of `nBlockAlign` bytes holding, per
/// channel, a 4-byte header (a little-endian 16-bit first sample and a step index, as a 16-bit word
/// whose high byte is reserved), then groups of 4 bytes (8 codes, low nibble first) per channel in
/// turn. A block decodes to `wSamplesPerBlock` frames: the header sample and 8 per group.
public enum IMAADPCMWAVE {
    /// Frames in a block of `blockAlign` bytes for `channels` channels.
    public static func framesPerBlock(blockAlign: Int, channels: Int) -> Int {
        (blockAlign / channels - 4) * 2 + 1
    }
}

/// Decodes WAV IMA ADPCM exactly as FFmpeg's `adpcm_ima_wav` decoder does (its multiply
/// reconstruction included). Each block starts from its header.
public struct IMAADPCMWAVEDecoder: AudioDecoder {
    public let sourceFormat: StreamDescription
    public let maximumFramesPerPacket: Int
    private let blockAlign: Int
    private var states: [IMAChannelState]

    public init(format: StreamDescription) throws {
        let channels = Int(format.channelsPerFrame)
        guard channels > 0, format.bytesPerPacket > UInt32(4 * channels), Int(format.bytesPerPacket) % (4 * channels) == 0
        else {
            throw AudioFileError.unsupportedDataFormat(
                "ima-adpcm: block align \(format.bytesPerPacket) is not a whole number of 4-byte groups for "
                    + "\(channels) channels", offset: nil)
        }
        sourceFormat = format
        blockAlign = Int(format.bytesPerPacket)
        maximumFramesPerPacket = IMAADPCMWAVE.framesPerBlock(blockAlign: blockAlign, channels: channels)
        states = Array(repeating: IMAChannelState(), count: channels)
    }

    public mutating func reset() {}

    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int {
        try decodeBlocks(bytes, packetCount: packetCount) { sample, index in output[index] = Float(sample) * (1 / 32768) }
    }

    /// Decodes blocks to interleaved Int16 frames.
    public mutating func decode(_ bytes: UnsafeRawBufferPointer, packetCount: Int, into output: UnsafeMutableBufferPointer<Int16>)
        throws -> Int
    {
        try decodeBlocks(bytes, packetCount: packetCount) { sample, index in output[index] = sample }
    }

    @inline(__always)
    private mutating func decodeBlocks(_ bytes: UnsafeRawBufferPointer, packetCount: Int, _ store: (Int16, Int) -> Void)
        throws -> Int
    {
        let channels = states.count
        let frames = maximumFramesPerPacket
        guard packetCount >= 0, bytes.count >= packetCount * blockAlign else {
            throw AudioFileError.invalidPacket(
                "ima-adpcm: \(packetCount) blocks need \(packetCount * blockAlign) bytes; \(bytes.count) given", offset: nil)
        }
        for block in 0..<packetCount {
            let base = block * blockAlign
            for channel in 0..<channels {
                let header = base + 4 * channel
                let predictor = Int32(Int16(bitPattern: UInt16(bytes[header]) | UInt16(bytes[header + 1]) << 8))
                let stepWord = Int16(bitPattern: UInt16(bytes[header + 2]) | UInt16(bytes[header + 3]) << 8)
                guard stepWord >= 0 && Int32(stepWord) <= IMA.maximumStepIndex else {
                    throw AudioFileError.malformed(
                        "ima-adpcm: block \(block) channel \(channel) has step index \(stepWord); 0 to 88 exist",
                        offset: nil)
                }
                states[channel] = IMAChannelState(predictor: predictor, stepIndex: Int32(stepWord))
                store(Int16(truncatingIfNeeded: predictor), block * frames * channels + channel)
            }
            let groups = (frames - 1) / 8
            states.withUnsafeMutableBufferPointer { states in
                IMATables.with(.multiply) { tables in
                    for group in 0..<groups {
                        for channel in 0..<channels {
                            var state = states[channel]
                            let source = base + 4 * channels + (group * channels + channel) * 4
                            var out = (block * frames + 1 + group * 8) * channels + channel
                            for byte in 0..<4 {
                                let value = bytes[source + byte]
                                store(tables.expand(&state, value & 0x0F), out)
                                out += channels
                                store(tables.expand(&state, value >> 4), out)
                                out += channels
                            }
                            states[channel] = state
                        }
                    }
                }
            }
        }
        return packetCount * frames
    }
}
