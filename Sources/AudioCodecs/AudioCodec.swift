import AudioFormats

/// Turns packets of one format into interleaved Float32 frames in -1...1, keeping its state
/// from call to call (a stream is decoded packet run by packet run).
///
/// An error about one packet carries, as its offset, where that packet starts in the bytes the decoder
/// was given; the reader (`SourceReader`) turns it into the packet's number and its offset in the file.
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
    /// Frames of the stream's priming the decoder never outputs (libfaad2 gives nothing for the first
    /// AAC packet): a reader trims that many fewer.
    var framesDroppedAtStart: Int { get }
    /// Asks the decoder to deliver the frames it would drop at the start (``framesDroppedAtStart`` is 0
    /// after): for a stream that records less priming than that, whose every decoded frame counts.
    mutating func keepFramesDroppedAtStart()
    /// Packets the codec refused that the decoder replaced with a packet of silence (a damaged MP3 or AAC
    /// packet, as players and FFmpeg conceal them): a reader says how many.
    var concealedPackets: Int { get }
}

/// A decoder whose samples are integers by nature (Apple IMA4's 16 bits, FLAC's 4 to 24): it writes them
/// as such, in ``decodedLayout``, so an integer destination of that depth or wider takes them exactly,
/// without a round trip through Float.
public protocol IntegerAudioDecoder: AudioDecoder {
    /// How the integers are written: native-endian signed words of 2 or 4 bytes, the samples' bits
    /// left-justified in them.
    var decodedLayout: PCMLayout { get }
    /// Decodes `packetCount` whole packets (`descriptions` where packets vary) to interleaved integers in
    /// ``decodedLayout``; `output` holds `packetCount × maximumFramesPerPacket` frames. Returns the
    /// frames written.
    mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        integersInto output: UnsafeMutableRawBufferPointer
    ) throws -> Int
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
            try decode(
                bytes, packetCount: packetCount, descriptions: descriptions,
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

/// Packets an encoder made: their bytes back to back and, for formats whose packets vary in size
/// or frames, one description each (offsets relative to `bytes`). Reused from call to call, it
/// allocates nothing once it has grown.
public struct EncodedPackets: Sendable {
    /// The packets' bytes, back to back.
    public var bytes: [UInt8] = []
    /// One per packet where the format's packets vary; empty for constant packets.
    public var descriptions: [PacketDescription] = []
    /// Packets held.
    public var packetCount = 0

    /// No packets yet.
    public init() {}

    /// Empties the buffer, keeping its capacity.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        descriptions.removeAll(keepingCapacity: true)
        packetCount = 0
    }

    /// Appends one packet of a variable format; `variableFrames` is its frame count where the
    /// format's packets vary in frames (else 0).
    public mutating func append(packet: UnsafeRawBufferPointer, variableFrames: Int = 0) {
        descriptions.append(
            PacketDescription(
                startOffset: Int64(bytes.count), variableFramesInPacket: UInt32(variableFrames),
                dataByteSize: UInt32(packet.count)))
        bytes.append(contentsOf: packet)
        packetCount += 1
    }
}

/// Turns interleaved Float32 frames into packets of one format, keeping a partial packet's frames
/// until more arrive or the stream ends. Lossy codecs with a delay report the priming frames they put
/// in front of the audio and, at the end, the remainder frames they padded it with, so a container
/// can record exactly which decoded frames are the source's.
public protocol AudioEncoder {
    /// The format of the packets made.
    var destinationFormat: StreamDescription { get }
    /// Frames of encoder delay before the first source frame in the decoded stream.
    var primingFrames: Int { get }
    /// The codec configuration a container stores with the packets (CAF `kuki`, an MP4 sample
    /// entry's `esds` or `alac` box), or `nil`. For MP3 it is LAME's Xing/LAME tag frame, complete
    /// only after ``finish(into:)``, which the file's writer puts over the stream's first packet.
    var magicCookie: [UInt8]? { get }
    /// The largest packet the encoder can make, in bytes.
    var maximumPacketSize: Int { get }
    /// Encodes frames, appending whole packets (and descriptions where packets vary) to `packets`.
    mutating func encode(_ frames: UnsafeBufferPointer<Float>, into packets: inout EncodedPackets) throws
    /// Ends the stream: encodes what is held and drains the codec. Returns the remainder frames: the
    /// decoded frames past the last source frame.
    mutating func finish(into packets: inout EncodedPackets) throws -> Int
}

/// An encoder whose packets all have the same size and frame count (PCM, IMA4, WAV IMA ADPCM, G.711):
/// no descriptions, no delay, and a fast path that appends bytes straight to an array.
public protocol ConstantPacketEncoder: AudioEncoder {
    /// Encodes frames, appending whole packets to `output`; returns the packets appended.
    mutating func encode(_ frames: UnsafeBufferPointer<Float>, into output: inout [UInt8]) throws -> Int
    /// Ends the stream: pads and encodes a partial last packet. Returns the packets appended and the
    /// padding frames added (the remainder frames to record).
    mutating func finish(into output: inout [UInt8]) throws -> (packets: Int, remainderFrames: Int)
}

extension ConstantPacketEncoder {
    /// Frames of delay before the first source frame.
    public var primingFrames: Int { 0 }
    /// The codec configuration the container records.
    public var magicCookie: [UInt8]? { nil }
    /// The largest packet made, in bytes.
    public var maximumPacketSize: Int { Int(destinationFormat.bytesPerPacket) }

    /// Encodes interleaved frames, appending the whole packets they complete with their descriptions.
    public mutating func encode(_ frames: UnsafeBufferPointer<Float>, into packets: inout EncodedPackets) throws {
        packets.packetCount += try encode(frames, into: &packets.bytes)
    }

    /// Encodes what is left; returns the remainder frames (the last packet's padding).
    public mutating func finish(into packets: inout EncodedPackets) throws -> Int {
        let (count, remainder) = try finish(into: &packets.bytes)
        packets.packetCount += count
        return remainder
    }

    /// Encodes frames held in an array.
    public mutating func encode(_ frames: [Float], into output: inout [UInt8]) throws -> Int {
        try frames.withUnsafeBufferPointer { try encode($0, into: &output) }
    }
}

extension AudioDecoder {
    /// Frames of the priming the decoder never outputs (none).
    public var framesDroppedAtStart: Int { 0 }

    /// Nothing to keep: the decoder drops nothing.
    public mutating func keepFramesDroppedAtStart() {}

    /// None: the decoder conceals nothing (a packet it cannot decode is an error).
    public var concealedPackets: Int { 0 }

    /// How many packets to decode at once (at most `limit`) so the output holds about a million samples
    /// at most, whatever a header says a packet decodes to.
    public func packetsPerRun(atMost limit: Int) -> Int {
        max(1, min(limit, (1 << 20) / max(1, maximumFramesPerPacket * Int(sourceFormat.channelsPerFrame))))
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
public func quantizedSample(_ value: Double, low: Double, high: Double) -> Int64 {
    let clipped = value < low ? low : (value > high ? high : value)
    let sum = (clipped.isNaN ? 0 : clipped) + 0x1.8p52
    return Int64(bitPattern: sum.bitPattern) &- Int64(bitPattern: (0x1.8p52 as Double).bitPattern)
}

/// A sample type the 16-bit decoders (IMA4, WAV IMA ADPCM) write: their loops are generic over it
/// rather than taking a store closure, so each is specialized with the store inlined.
protocol DecodedSample {
    init(decoded sample: Int16)
}

extension Int16: DecodedSample {
    @inline(__always) init(decoded sample: Int16) { self = sample }
}

extension Float: DecodedSample {
    @inline(__always) init(decoded sample: Int16) { self = Float(sample) * (1 / 32768) }
}
