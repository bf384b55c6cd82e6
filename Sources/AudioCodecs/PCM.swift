import AudioFormats

/// How linear PCM samples are laid out: width, integer or float, byte order, signedness.
public struct PCMLayout: Hashable, Sendable {
    /// Bytes per sample.
    public var width: Int
    public var isFloat: Bool
    public var isBigEndian: Bool
    /// Whether integers are signed (8-bit WAV samples are not).
    public var isSigned: Bool
    /// Significant bits (at most `width × 8`, left-justified).
    public var bits: Int

    /// The layout of a linear PCM description.
    public init(_ format: StreamDescription) throws {
        guard format.isLinearPCM, format.channelsPerFrame > 0, format.bytesPerFrame % format.channelsPerFrame == 0
        else {
            throw AudioFileError.unsupportedDataFormat("pcm: \(format.summary) is not interleaved linear PCM", offset: nil)
        }
        width = Int(format.bytesPerFrame / format.channelsPerFrame)
        isFloat = format.formatFlags.contains(.isFloat)
        isBigEndian = format.formatFlags.contains(.isBigEndian)
        isSigned = isFloat || format.formatFlags.contains(.isSignedInteger)
        bits = Int(format.bitsPerChannel)
        guard isFloat ? (width == 4 || width == 8) : (1...4).contains(width), bits >= 1, bits <= width * 8 else {
            throw AudioFileError.unsupportedDataFormat("pcm: \(bits)-bit samples in \(width) bytes are not supported",
                offset: nil)
        }
    }
}

/// Decodes any interleaved linear PCM layout to Float32 in -1...1: integers are divided by
/// 2^(bits-1) of their container (so 16-bit 32767 is 32767/32768), floats pass through.
public struct PCMDecoder: AudioDecoder {
    public let sourceFormat: StreamDescription
    public let layout: PCMLayout
    public var maximumFramesPerPacket: Int { 1 }

    public init(format: StreamDescription) throws {
        sourceFormat = format
        layout = try PCMLayout(format)
    }

    public mutating func reset() {}

    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int {
        let count = packetCount * Int(sourceFormat.channelsPerFrame)
        guard packetCount >= 0, bytes.count >= count * layout.width else {
            throw AudioFileError.invalidPacket("pcm: \(packetCount) frames need \(count * layout.width) bytes", offset: nil)
        }
        PCM.decode(bytes, layout, count: count, into: output)
        return packetCount
    }
}

/// Encodes Float32 frames to any interleaved linear PCM layout, rounding to nearest and clipping,
/// with optional TPDF dither when the destination has fewer bits than the source.
public struct PCMEncoder: AudioEncoder {
    public let destinationFormat: StreamDescription
    public let layout: PCMLayout
    private var dither: TPDFDither?

    /// `dither` adds triangular noise of ±1 LSB before rounding; use it when reducing bit depth
    /// (see ``PCM/shouldDither(from:to:)``), never on a lossless path.
    public init(format: StreamDescription, dither: Bool = false, seed: UInt64 = 0x5EED) throws {
        destinationFormat = format
        layout = try PCMLayout(format)
        self.dither = dither && !layout.isFloat ? TPDFDither(seed: seed) : nil
    }

    /// An encoder for audio decoded from `source`: dithered exactly when the conversion loses bits
    /// (``PCM/shouldDither(from:to:)``), so float to 16-bit is dithered and lossless paths are not.
    public init(format: StreamDescription, convertingFrom source: StreamDescription) throws {
        try self.init(format: format, dither: PCM.shouldDither(from: source, to: format))
    }

    /// Whether this encoder adds dither.
    public var isDithering: Bool { dither != nil }

    public mutating func encode(_ frames: UnsafeBufferPointer<Float>, into output: inout [UInt8]) throws -> Int {
        let channels = Int(destinationFormat.channelsPerFrame)
        let count = frames.count / channels * channels
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: count * layout.width))
        output.withUnsafeMutableBytes { raw in
            PCM.encode(UnsafeBufferPointer(rebasing: frames[0..<count]), layout,
                into: UnsafeMutableRawBufferPointer(rebasing: raw[start...]), dither: &dither)
        }
        return count / channels
    }

    public mutating func finish(into output: inout [UInt8]) throws -> (packets: Int, remainderFrames: Int) { (0, 0) }
}

/// Sample conversion between linear PCM layouts and Float32.
public enum PCM {
    /// Whether converting `source` to `destination` loses bits, so dither should be added: a float or
    /// wider integer source going to an integer destination of fewer bits.
    public static func shouldDither(from source: StreamDescription, to destination: StreamDescription) -> Bool {
        guard destination.isLinearPCM, !destination.formatFlags.contains(.isFloat) else { return false }
        let sourceBits = source.isLinearPCM
            ? (source.formatFlags.contains(.isFloat) ? 25 : Int(source.bitsPerChannel)) : 16
        return sourceBits > Int(destination.bitsPerChannel)
    }

    /// Decodes `count` samples.
    public static func decode(_ bytes: UnsafeRawBufferPointer, _ layout: PCMLayout, count: Int,
        into output: UnsafeMutableBufferPointer<Float>)
    {
        let big = layout.isBigEndian
        switch (layout.isFloat, layout.width) {
        case (true, 4):
            for index in 0..<count {
                let raw = bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
                output[index] = Float(bitPattern: big ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw))
            }
        case (true, _):
            for index in 0..<count {
                let raw = bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)
                output[index] = Float(Double(bitPattern: big ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw)))
            }
        case (false, 1):
            let offset: Int32 = layout.isSigned ? 0 : 128
            for index in 0..<count {
                let value = layout.isSigned ? Int32(Int8(bitPattern: bytes[index])) : Int32(bytes[index]) - offset
                output[index] = Float(value) * (1 / 128)
            }
        case (false, 2):
            for index in 0..<count {
                let raw = bytes.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self)
                output[index] = Float(Int16(bitPattern: big ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw))) * (1 / 32768)
            }
        case (false, 3):
            for index in 0..<count {
                let b0 = UInt32(bytes[index * 3]), b1 = UInt32(bytes[index * 3 + 1]), b2 = UInt32(bytes[index * 3 + 2])
                let packed = big ? (b0 << 24 | b1 << 16 | b2 << 8) : (b2 << 24 | b1 << 16 | b0 << 8)
                output[index] = Float(Int32(bitPattern: packed) >> 8) * (1 / 8_388_608)
            }
        default:
            for index in 0..<count {
                let raw = bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
                output[index] = Float(Double(Int32(bitPattern: big ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)))
                    * (1 / 2_147_483_648))
            }
        }
    }

    /// Encodes samples; `dither` (if any) adds ±1 LSB TPDF noise before rounding.
    public static func encode(_ samples: UnsafeBufferPointer<Float>, _ layout: PCMLayout,
        into bytes: UnsafeMutableRawBufferPointer, dither: inout TPDFDither?)
    {
        let big = layout.isBigEndian
        if layout.isFloat {
            for (index, sample) in samples.enumerated() {
                if layout.width == 4 {
                    let bits = sample.bitPattern
                    bytes.storeBytes(of: big ? bits.bigEndian : bits.littleEndian, toByteOffset: index * 4, as: UInt32.self)
                } else {
                    let bits = Double(sample).bitPattern
                    bytes.storeBytes(of: big ? bits.bigEndian : bits.littleEndian, toByteOffset: index * 8, as: UInt64.self)
                }
            }
            return
        }
        // Quantize to the significant bits, then place them at the top of the container.
        let bits = layout.bits
        let scale = Double(Int64(1) << (bits - 1))
        let maximum = scale - 1
        let shift = layout.width * 8 - bits
        for (index, sample) in samples.enumerated() {
            var value = Double(sample) * scale
            if dither != nil { value += dither?.next() ?? 0 }
            let quantized = Int64(min(max(value.rounded(.toNearestOrEven), -scale), maximum)) << Int64(shift)
            switch layout.width {
            case 1:
                bytes[index] = layout.isSigned ? UInt8(bitPattern: Int8(quantized)) : UInt8(quantized + 128)
            case 2:
                let value = UInt16(bitPattern: Int16(quantized))
                bytes.storeBytes(of: big ? value.bigEndian : value.littleEndian, toByteOffset: index * 2, as: UInt16.self)
            case 3:
                let value = UInt32(bitPattern: Int32(quantized))
                let (b0, b1, b2) = (UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF))
                bytes[index * 3] = big ? b2 : b0
                bytes[index * 3 + 1] = b1
                bytes[index * 3 + 2] = big ? b0 : b2
            default:
                let value = UInt32(bitPattern: Int32(quantized))
                bytes.storeBytes(of: big ? value.bigEndian : value.littleEndian, toByteOffset: index * 4, as: UInt32.self)
            }
        }
    }
}

/// Triangular-PDF dither: the sum of two independent uniform values in -0.5..<0.5 LSB, so ±1 LSB
/// at most, from a small deterministic generator (the same input always encodes the same).
public struct TPDFDither: Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed | 1 }

    /// The next dither value in LSBs.
    @inlinable
    public mutating func next() -> Double {
        Double(nextUniform()) + Double(nextUniform()) - 1
    }

    @usableFromInline
    mutating func nextUniform() -> Float {
        // xorshift64*: fast, and plenty for noise.
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return Float((state &* 0x2545_F491_4F6C_DD1D) >> 40) * (1 / 16_777_216)
    }
}
