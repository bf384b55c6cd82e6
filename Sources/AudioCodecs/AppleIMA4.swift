import AudioFormats

/// Apple IMA4 (`ima4`): packets of 64 frames per channel, each channel's 34 bytes in turn. A
/// channel's block is a big-endian 16-bit header (the top 9 bits of the predictor, then a 7-bit
/// step index) and 32 bytes of 4-bit codes, low nibble first.
public enum AppleIMA4 {
    public static let framesPerPacket = 64
    public static let bytesPerChannelBlock = 34
}

/// Decodes Apple IMA4 exactly as FFmpeg's `adpcm_ima_qt` and Apple's decoder do.
///
/// At each block the header is compared with the running state: when its step index equals the
/// running one and its predictor is within 0x7F of the running predictor, decoding continues from
/// the running state (the header only rounds it); otherwise the header's values are taken. A
/// header step index above 88 is clamped to 88. (Older FFmpeg clamps too; FFmpeg 5 and later
/// reject the whole packet instead, which shortens their output by 64 frames.)
public struct AppleIMA4Decoder: AudioDecoder {
    public let sourceFormat: StreamDescription
    public var maximumFramesPerPacket: Int { AppleIMA4.framesPerPacket }
    private var states: [IMAChannelState]
    /// Block headers whose step index was out of range and clamped.
    public private(set) var clampedHeaderCount = 0

    public init(format: StreamDescription) {
        sourceFormat = format
        states = Array(repeating: IMAChannelState(), count: Int(format.channelsPerFrame))
    }

    public mutating func reset() {
        for index in states.indices { states[index] = IMAChannelState() }
    }

    /// Decodes packets to interleaved Int16 frames; `output` holds `packetCount × 64` frames.
    public mutating func decode(_ bytes: UnsafeRawBufferPointer, packetCount: Int, into output: UnsafeMutableBufferPointer<Int16>)
        throws -> Int
    {
        try decodePackets(bytes, packetCount: packetCount) { sample, index in output[index] = sample }
    }

    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int {
        try decodePackets(bytes, packetCount: packetCount) { sample, index in output[index] = Float(sample) * (1 / 32768) }
    }

    /// Decodes packets, appending Int16 frames to an array.
    public mutating func decode(_ bytes: [UInt8], packetCount: Int, appendingTo output: inout [Int16]) throws -> Int {
        let start = output.count
        let channels = Int(sourceFormat.channelsPerFrame)
        output.append(contentsOf: repeatElement(0, count: packetCount * 64 * channels))
        return try bytes.withUnsafeBytes { raw in
            try output.withUnsafeMutableBufferPointer { buffer in
                try decode(raw, packetCount: packetCount, into: UnsafeMutableBufferPointer(rebasing: buffer[start...]))
            }
        }
    }

    @inline(__always)
    private mutating func decodePackets(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, _ store: (Int16, Int) -> Void
    ) throws -> Int {
        let channels = states.count
        let packetSize = AppleIMA4.bytesPerChannelBlock * channels
        guard packetCount >= 0, bytes.count >= packetCount * packetSize else {
            throw AudioFileError.invalidPacket(
                "ima4: \(packetCount) packets need \(packetCount * packetSize) bytes; \(bytes.count) given", offset: nil)
        }
        var clamped = 0
        states.withUnsafeMutableBufferPointer { states in
            IMATables.with(.shiftAndAdd) { tables in
                for packet in 0..<packetCount {
                    for channel in 0..<channels {
                        let block = packet * packetSize + channel * AppleIMA4.bytesPerChannelBlock
                        let header = Int32(Int16(bitPattern: UInt16(bytes[block]) << 8 | UInt16(bytes[block + 1])))
                        var stepIndex = header & 0x7F
                        let predictor = header & ~0x7F
                        var state = states[channel]
                        if stepIndex > IMA.maximumStepIndex {
                            stepIndex = IMA.maximumStepIndex
                            clamped += 1
                            state = IMAChannelState(predictor: predictor, stepIndex: stepIndex)
                        } else if state.stepIndex != stepIndex || abs(predictor - state.predictor) > 0x7F {
                            state = IMAChannelState(predictor: predictor, stepIndex: stepIndex)
                        }
                        var out = packet * 64 * channels + channel
                        for byte in 2..<AppleIMA4.bytesPerChannelBlock {
                            let value = bytes[block + byte]
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
        clampedHeaderCount += clamped
        return packetCount * AppleIMA4.framesPerPacket
    }
}
