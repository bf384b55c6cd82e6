import AudioFormats

/// Turns packets of one format into interleaved Float32 frames in -1...1, keeping its state
/// from call to call (a stream is decoded packet run by packet run).
public protocol AudioDecoder {
    /// The format of the packets.
    var sourceFormat: StreamDescription { get }
    /// Frames one packet decodes to at most.
    var maximumFramesPerPacket: Int { get }
    /// Decodes `packetCount` whole packets from `bytes` (`descriptions` where packets vary),
    /// writing interleaved frames to `output`, which must hold `packetCount × maximumFramesPerPacket`
    /// frames. Returns the frames written.
    mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int
    /// Forgets the state carried between packets (after a seek).
    mutating func reset()
}

extension AudioDecoder {
    /// Decodes packets, appending the frames to `output` (whose capacity grows geometrically, so a
    /// caller that reuses the array does no allocation per packet).
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>? = nil,
        appendingTo output: inout [Float]
    ) throws -> Int {
        let channels = Int(sourceFormat.channelsPerFrame)
        let start = output.count
        let room = packetCount * maximumFramesPerPacket * channels
        output.append(contentsOf: repeatElement(0, count: room))
        let frames = try output.withUnsafeMutableBufferPointer { buffer in
            try decode(bytes, packetCount: packetCount, descriptions: descriptions,
                into: UnsafeMutableBufferPointer(rebasing: buffer[start...]))
        }
        output.removeLast(room - frames * channels)
        return frames
    }

    /// Decodes packets held in an array.
    public mutating func decode(_ bytes: [UInt8], packetCount: Int, appendingTo output: inout [Float]) throws -> Int {
        try bytes.withUnsafeBytes { try decode($0, packetCount: packetCount, descriptions: nil, appendingTo: &output) }
    }
}

/// Turns interleaved Float32 frames into packets of one format, keeping a partial packet's frames
/// until more arrive or the stream ends.
public protocol AudioEncoder {
    /// The format of the packets made.
    var destinationFormat: StreamDescription { get }
    /// Encodes frames, appending whole packets to `output`; returns the packets appended.
    mutating func encode(_ frames: UnsafeBufferPointer<Float>, into output: inout [UInt8]) throws -> Int
    /// Ends the stream: pads and encodes a partial last packet. Returns the packets appended and the
    /// padding frames added (the remainder frames to record).
    mutating func finish(into output: inout [UInt8]) throws -> (packets: Int, remainderFrames: Int)
}

extension AudioEncoder {
    /// Encodes frames held in an array.
    public mutating func encode(_ frames: [Float], into output: inout [UInt8]) throws -> Int {
        try frames.withUnsafeBufferPointer { try encode($0, into: &output) }
    }
}

/// The decoder afkit has for a format, or `nil`.
public func makeDecoder(for format: StreamDescription) throws -> any AudioDecoder {
    switch format.formatID {
    case .lpcm: return try PCMDecoder(format: format)
    case .ima4: return AppleIMA4Decoder(format: format)
    case .imaADPCMWAVE: return try IMAADPCMWAVEDecoder(format: format)
    case .ulaw, .alaw: return G711Decoder(format: format)
    default:
        throw AudioFileError.unsupportedDataFormat(
            "codecs: afkit has no decoder of its own for '\(format.formatID)'", offset: nil)
    }
}

/// Converts a sample in -1...1 to Int16 with rounding and clipping (no dither); NaN is silence.
@inlinable @inline(__always)
func int16Sample(_ value: Float) -> Int16 {
    Int16(truncatingIfNeeded: quantizedSample(Double(value) * 32768, low: -32768, high: 32767))
}

/// `value` clipped to `low...high` and rounded to the nearest integer, ties to even; NaN becomes 0.
/// Every encoder quantizes through this, so no input sample (NaN, infinity, 1e30) can trap a conversion.
/// `low` and `high` lie within ±2^50. Adding 1.5 × 2^52 rounds to the nearest integer (the default
/// rounding mode) and leaves it in the low bits of the sum, so no libm call or checked conversion
/// stands in the way of vectorizing the loops that use this.
@inlinable @inline(__always)
func quantizedSample(_ value: Double, low: Double, high: Double) -> Int64 {
    let clipped = value < low ? low : (value > high ? high : value)
    let sum = (clipped.isNaN ? 0 : clipped) + 0x1.8p52
    return Int64(bitPattern: sum.bitPattern) &- Int64(bitPattern: (0x1.8p52 as Double).bitPattern)
}
