import AudioFormats

/// How linear PCM samples are laid out: width, integer or float, byte order, signedness.
public struct PCMLayout: Hashable, Sendable {
    /// Bytes per sample.
    public var width: Int
    /// Whether samples are IEEE floats.
    public var isFloat: Bool
    /// Whether the most significant byte comes first.
    public var isBigEndian: Bool
    /// Whether integers are signed (8-bit WAV samples are not).
    public var isSigned: Bool
    /// Significant bits (at most `width × 8`, left-justified unless ``lowAlignment`` says otherwise).
    public var bits: Int
    /// The bits below the samples' top where they sit at the bottom of a wider integer (no aligned-high bit:
    /// ALSA's S24_LE, 24 bits in 4 bytes); 0 where they are left-justified.
    public var lowAlignment = 0

    /// Native-endian signed integers of `width` bytes holding `bits` significant bits, left-justified.
    public init(nativeIntegerWidth width: Int, bits: Int) {
        self.width = width
        isFloat = false
        isBigEndian = UInt16(1).bigEndian == 1
        isSigned = true
        self.bits = bits
    }

    /// The layout of a linear PCM description.
    public init(_ format: StreamDescription) throws {
        guard format.isLinearPCM, format.channelsPerFrame > 0, format.bytesPerFrame % format.channelsPerFrame == 0
        else {
            throw AudioFileError.unsupportedDataFormat(
                "pcm: \(format.summary) is not interleaved linear PCM", offset: nil)
        }
        width = Int(format.bytesPerFrame / format.channelsPerFrame)
        isFloat = format.formatFlags.contains(.isFloat)
        isBigEndian = format.formatFlags.contains(.isBigEndian)
        isSigned = isFloat || format.formatFlags.contains(.isSignedInteger)
        bits = Int(format.bitsPerChannel)
        guard isFloat ? (width == 4 || width == 8) : (1...4).contains(width), bits >= 1, bits <= width * 8 else {
            throw AudioFileError.unsupportedDataFormat(
                "pcm: \(bits)-bit samples in \(width) bytes are not supported",
                offset: nil)
        }
        if !isFloat && width > 1 && bits < width * 8 && !format.formatFlags.contains(.isAlignedHigh) {
            lowAlignment = width * 8 - bits
        }
    }
}

/// Decodes any interleaved linear PCM layout to Float32 in -1...1: integers are divided by
/// 2^(bits-1) of their container (so 16-bit 32767 is 32767/32768), floats pass through.
public struct PCMDecoder: AudioDecoder {
    /// The format of the packets decoded.
    public let sourceFormat: StreamDescription
    /// The sample layout, as stored.
    public let layout: PCMLayout
    /// The most frames one packet decodes to.
    public var maximumFramesPerPacket: Int { 1 }

    /// A decoder for `format`.
    public init(format: StreamDescription) throws {
        sourceFormat = format
        layout = try PCMLayout(format)
    }

    /// Forgets the state kept between packets (after a seek).
    public mutating func reset() {}

    /// Decodes the packets into interleaved frames; returns the frames written.
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int {
        let count = packetCount * Int(sourceFormat.channelsPerFrame)
        guard packetCount >= 0, bytes.count >= count * layout.width else {
            throw AudioFileError.invalidPacket(
                "pcm: \(packetCount) frames need \(count * layout.width) bytes", offset: nil)
        }
        PCM.decode(bytes, layout, count: count, into: output)
        return packetCount
    }
}

/// Encodes Float32 frames to any interleaved linear PCM layout, rounding to nearest and clipping,
/// with optional TPDF dither when the destination has fewer bits than the source.
public struct PCMEncoder: ConstantPacketEncoder {
    /// The format of the packets made.
    public let destinationFormat: StreamDescription
    /// The sample layout, as stored.
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

    /// Encodes interleaved frames, appending the whole packets they complete; returns how many.
    public mutating func encode(_ frames: UnsafeBufferPointer<Float>, into output: inout [UInt8]) throws -> Int {
        let channels = Int(destinationFormat.channelsPerFrame)
        let count = frames.count / channels * channels
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: count * layout.width))
        output.withUnsafeMutableBytes { raw in
            PCM.encode(
                UnsafeBufferPointer(rebasing: frames[0..<count]), layout,
                into: UnsafeMutableRawBufferPointer(rebasing: raw[start...]), dither: &dither)
        }
        return count / channels
    }

    /// Encodes what is left, padded to a whole packet; returns the packets made and the padding frames.
    public mutating func finish(into output: inout [UInt8]) throws -> (packets: Int, remainderFrames: Int) { (0, 0) }
}

/// Sample conversion between linear PCM layouts and Float32.
public enum PCM {
    /// Whether converting `source` to `destination` loses bits, so dither should be added: a float or
    /// wider integer source going to an integer destination of fewer bits.
    public static func shouldDither(from source: StreamDescription, to destination: StreamDescription) -> Bool {
        guard destination.isLinearPCM, !destination.formatFlags.contains(.isFloat) else { return false }
        let sourceBits =
            source.isLinearPCM && source.formatFlags.contains(.isFloat) ? 25 : source.losslessBitDepth ?? 16
        return sourceBits > Int(destination.bitsPerChannel)
    }

    /// Decodes `count` samples.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, _ layout: PCMLayout, count: Int,
        into output: UnsafeMutableBufferPointer<Float>
    ) {
        let big = layout.isBigEndian
        if layout.lowAlignment > 0 {
            // Samples at the bottom of their integers: each moved to the top (the bits above them dropped),
            // then read as left-justified. Rare (ALSA's S24_LE in WAV): one plain loop.
            let width = layout.width
            let shift = UInt32(32 - width * 8 + layout.lowAlignment)
            for index in 0..<count {
                var word: UInt32 = 0
                for byte in 0..<width {
                    let value = UInt32(bytes[index * width + byte])
                    word |= big ? value << UInt32(8 * (width - 1 - byte)) : value << UInt32(8 * byte)
                }
                output[index] = Float(Double(Int32(bitPattern: word << shift)) * (1 / 2_147_483_648))
            }
            return
        }
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
        case (false, 2) where big:
            for index in 0..<count {
                let raw = bytes.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self)
                output[index] = Float(Int16(bitPattern: UInt16(bigEndian: raw))) * (1 / 32768)
            }
        case (false, 2):
            for index in 0..<count {
                let raw = bytes.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self)
                output[index] = Float(Int16(bitPattern: UInt16(littleEndian: raw))) * (1 / 32768)
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
                output[index] = Float(
                    Double(Int32(bitPattern: big ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)))
                        * (1 / 2_147_483_648))
            }
        }
    }

    /// Encodes samples; `dither` (if any) adds ±1 LSB TPDF noise before rounding.
    public static func encode(
        _ samples: UnsafeBufferPointer<Float>, _ layout: PCMLayout,
        into bytes: UnsafeMutableRawBufferPointer, dither: inout TPDFDither?
    ) {
        let big = layout.isBigEndian
        // One loop per layout, so the per-sample work has no branches on the layout.
        switch (layout.isFloat, layout.width) {
        case (true, 4):
            for index in samples.indices {
                let bits = samples[index].bitPattern
                bytes.storeBytes(of: big ? bits.bigEndian : bits.littleEndian, toByteOffset: index * 4, as: UInt32.self)
            }
            return
        case (true, _):
            for index in samples.indices {
                let bits = Double(samples[index]).bitPattern
                bytes.storeBytes(of: big ? bits.bigEndian : bits.littleEndian, toByteOffset: index * 8, as: UInt64.self)
            }
            return
        default: break
        }
        if dither == nil && layout.width == 2 && layout.bits == 16 {
            quantize16(samples, bigEndian: big, into: bytes)
            return
        }
        // Quantize to the significant bits, then place them at the top of the container (or keep them at its
        // bottom, sign-extended, where the layout is aligned low).
        let shift = layout.lowAlignment > 0 ? 0 : Int64(layout.width * 8 - layout.bits)
        switch layout.width {
        case 1:
            let offset: Int64 = layout.isSigned ? 0 : 128
            quantizeEach(samples, bits: layout.bits, dither: &dither) { index, value in
                bytes[index] = UInt8(truncatingIfNeeded: value &<< shift + offset)
            }
        case 2 where big:
            quantizeEach(samples, bits: layout.bits, dither: &dither) { index, value in
                bytes.storeBytes(
                    of: UInt16(truncatingIfNeeded: value &<< shift).bigEndian, toByteOffset: index * 2,
                    as: UInt16.self)
            }
        case 2:
            quantizeEach(samples, bits: layout.bits, dither: &dither) { index, value in
                bytes.storeBytes(
                    of: UInt16(truncatingIfNeeded: value &<< shift).littleEndian, toByteOffset: index * 2,
                    as: UInt16.self)
            }
        case 3:
            let (first, last) = big ? (16, 0) : (0, 16)
            quantizeEach(samples, bits: layout.bits, dither: &dither) { index, value in
                let packed = UInt32(truncatingIfNeeded: value &<< shift)
                bytes[index * 3] = UInt8(truncatingIfNeeded: packed >> first)
                bytes[index * 3 + 1] = UInt8(truncatingIfNeeded: packed >> 8)
                bytes[index * 3 + 2] = UInt8(truncatingIfNeeded: packed >> last)
            }
        default:
            quantizeEach(samples, bits: layout.bits, dither: &dither) { index, value in
                let packed = UInt32(truncatingIfNeeded: value &<< shift)
                bytes.storeBytes(
                    of: big ? packed.bigEndian : packed.littleEndian, toByteOffset: index * 4,
                    as: UInt32.self)
            }
        }
    }

    /// 16-bit samples without dither, the commonest case, in Float arithmetic so the loop vectorizes
    /// four samples wide: scaling by 32768 is exact in Float, so rounding (to nearest, ties to even)
    /// and clipping give exactly what the Double path gives, NaN included (0).
    private static func quantize16(
        _ samples: UnsafeBufferPointer<Float>, bigEndian: Bool,
        into bytes: UnsafeMutableRawBufferPointer
    ) {
        guard let output = bytes.baseAddress, let input = samples.baseAddress else { return }
        @inline(__always) func quantized(_ sample: Float) -> UInt16 {
            var value = sample * 32768
            value = value < -32768 ? -32768 : value
            value = value > 32767 ? 32767 : value
            value = value == value ? value : 0
            // Adding 1.5 × 2^23 rounds to an integer (ties to even) held in the low bits of the sum's
            // bit pattern: no conversion instruction, so the loop vectorizes.
            return UInt16(truncatingIfNeeded: (value + 0x1.8p23).bitPattern)
        }
        if bigEndian {
            for index in 0..<samples.count {
                output.storeBytes(of: quantized(input[index]).bigEndian, toByteOffset: index * 2, as: UInt16.self)
            }
        } else {
            for index in 0..<samples.count {
                output.storeBytes(of: quantized(input[index]).littleEndian, toByteOffset: index * 2, as: UInt16.self)
            }
        }
    }

    /// Scales each sample to `bits` signed bits, adds dither if any, rounds and clips, and hands the
    /// integer to `store`.
    @inline(__always)
    private static func quantizeEach(
        _ samples: UnsafeBufferPointer<Float>, bits: Int, dither: inout TPDFDither?,
        _ store: (Int, Int64) -> Void
    ) {
        let scale = Double(Int64(1) << (bits - 1))
        let (low, high) = (-scale, scale - 1)
        if var noise = dither {
            var index = 0
            while index + 1 < samples.count {
                let (first, second) = noise.nextPair()
                store(index, quantizedSample(Double(samples[index]) * scale + first, low: low, high: high))
                store(index + 1, quantizedSample(Double(samples[index + 1]) * scale + second, low: low, high: high))
                index += 2
            }
            if index < samples.count {
                store(index, quantizedSample(Double(samples[index]) * scale + noise.nextPair().0, low: low, high: high))
            }
            dither = noise
        } else {
            for index in samples.indices {
                store(index, quantizedSample(Double(samples[index]) * scale, low: low, high: high))
            }
        }
    }
}

extension PCM {
    /// Whether `source` samples can become `destination` samples without loss and without going through
    /// Float32 (which holds 24 bits: 32-bit integers and doubles would lose their low bits): integers to
    /// integers of at least as many bits, floats to floats at least as wide.
    public static func transcodesExactly(from source: PCMLayout, to destination: PCMLayout) -> Bool {
        source.lowAlignment == 0 && destination.lowAlignment == 0 && source.isFloat == destination.isFloat
            && (source.isFloat ? destination.width >= source.width : destination.bits >= source.bits)
    }

    /// Rewrites `count` samples from one layout to another where ``transcodesExactly(from:to:)`` holds:
    /// integers keep their words as stored (left-justified; the padding bits of a sample size that is not
    /// a multiple of 8 are not masked, as Apple reads them), floats their values.
    public static func transcode(
        _ input: UnsafeRawBufferPointer, _ source: PCMLayout, count: Int,
        to destination: PCMLayout, into output: UnsafeMutableRawBufferPointer
    ) {
        precondition(
            transcodesExactly(from: source, to: destination) && input.count >= count * source.width
                && output.count >= count * destination.width)
        if source.width == destination.width && source.isFloat == destination.isFloat
            && source.isBigEndian == destination.isBigEndian && source.isSigned == destination.isSigned
        {
            // The same words in the same order: the bytes as they are.
            if let from = input.baseAddress, let to = output.baseAddress {
                to.copyMemory(from: from, byteCount: count * source.width)
            }
            return
        }
        if source.isFloat {
            for index in 0..<count {
                let value: Double
                if source.width == 4 {
                    let raw = input.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
                    value = Double(
                        Float(bitPattern: source.isBigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)))
                } else {
                    let raw = input.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)
                    value = Double(bitPattern: source.isBigEndian ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw))
                }
                if destination.width == 4 {
                    let bits = Float(value).bitPattern
                    output.storeBytes(
                        of: destination.isBigEndian ? bits.bigEndian : bits.littleEndian,
                        toByteOffset: index * 4, as: UInt32.self)
                } else {
                    let bits = value.bitPattern
                    output.storeBytes(
                        of: destination.isBigEndian ? bits.bigEndian : bits.littleEndian,
                        toByteOffset: index * 8, as: UInt64.self)
                }
            }
            return
        }
        // Integers pass through 32-bit words holding the sample left-justified, a block at a time, so each
        // half is one simple loop per layout.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: min(count, 4096)) { words in
            var done = 0
            while done < count {
                let run = min(count - done, words.count)
                let part = UnsafeMutableBufferPointer(rebasing: words[0..<run])
                loadLeftJustified(UnsafeRawBufferPointer(rebasing: input[(done * source.width)...]), source, into: part)
                storeLeftJustified(
                    UnsafeBufferPointer(part), destination,
                    into: UnsafeMutableRawBufferPointer(rebasing: output[(done * destination.width)...]))
                done += run
            }
        }
    }

    /// Integer samples as 32-bit words, left-justified (8-bit unsigned samples made signed).
    public static func loadLeftJustified(
        _ bytes: UnsafeRawBufferPointer, _ layout: PCMLayout,
        into words: UnsafeMutableBufferPointer<UInt32>
    ) {
        switch (layout.width, layout.isBigEndian) {
        case (1, _):
            let flip: UInt32 = layout.isSigned ? 0 : 0x80
            for index in words.indices { words[index] = (UInt32(bytes[index]) ^ flip) << 24 }
        case (2, true):
            for index in words.indices {
                words[index] =
                    UInt32(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self))) << 16
            }
        case (2, false):
            for index in words.indices {
                words[index] =
                    UInt32(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self))) << 16
            }
        case (3, let big):
            let (first, last) = big ? (24, 8) : (8, 24)
            for index in words.indices {
                words[index] =
                    UInt32(bytes[index * 3]) << first | UInt32(bytes[index * 3 + 1]) << 16
                    | UInt32(bytes[index * 3 + 2]) << last
            }
        case (_, true):
            for index in words.indices {
                words[index] = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
            }
        case (_, false):
            for index in words.indices {
                words[index] = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
            }
        }
    }

    /// Left-justified 32-bit words as integer samples of a layout (its top bits of each word).
    static func storeLeftJustified(
        _ words: UnsafeBufferPointer<UInt32>, _ layout: PCMLayout,
        into bytes: UnsafeMutableRawBufferPointer
    ) {
        switch (layout.width, layout.isBigEndian) {
        case (1, _):
            let flip: UInt8 = layout.isSigned ? 0 : 0x80
            for index in words.indices { bytes[index] = UInt8(truncatingIfNeeded: words[index] >> 24) ^ flip }
        case (2, true):
            for index in words.indices {
                bytes.storeBytes(
                    of: UInt16(truncatingIfNeeded: words[index] >> 16).bigEndian, toByteOffset: index * 2,
                    as: UInt16.self)
            }
        case (2, false):
            for index in words.indices {
                bytes.storeBytes(
                    of: UInt16(truncatingIfNeeded: words[index] >> 16).littleEndian, toByteOffset: index * 2,
                    as: UInt16.self)
            }
        case (3, let big):
            let (first, last) = big ? (24, 8) : (8, 24)
            for index in words.indices {
                let word = words[index]
                bytes[index * 3] = UInt8(truncatingIfNeeded: word >> first)
                bytes[index * 3 + 1] = UInt8(truncatingIfNeeded: word >> 16)
                bytes[index * 3 + 2] = UInt8(truncatingIfNeeded: word >> last)
            }
        case (_, true):
            for index in words.indices {
                bytes.storeBytes(of: words[index].bigEndian, toByteOffset: index * 4, as: UInt32.self)
            }
        case (_, false):
            for index in words.indices {
                bytes.storeBytes(of: words[index].littleEndian, toByteOffset: index * 4, as: UInt32.self)
            }
        }
    }
}

/// Triangular-PDF dither: the sum of two independent uniform values in -0.5..<0.5 LSB, so ±1 LSB
/// at most, from a small deterministic generator (the same input always encodes the same).
public struct TPDFDither: Sendable {
    @usableFromInline var state: UInt64

    /// A generator started from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next two dither values in LSBs.
    @inlinable
    public mutating func nextPair() -> (Double, Double) {
        // SplitMix64: the state only counts, so one value does not wait for the last (a shift-register
        // generator's chain held a whole conversion back); its 64 output bits are four independent
        // 16-bit uniforms, two per value.
        state &+= 0x9E37_79B9_7F4A_7C15
        var bits = (state ^ state >> 30) &* 0xBF58_476D_1CE4_E5B9
        bits = (bits ^ bits >> 27) &* 0x94D0_49BB_1331_11EB
        bits ^= bits >> 31
        let first = Int64(truncatingIfNeeded: bits >> 48) + Int64(truncatingIfNeeded: bits >> 32 & 0xFFFF) + 1
        let second = Int64(truncatingIfNeeded: bits >> 16 & 0xFFFF) + Int64(truncatingIfNeeded: bits & 0xFFFF) + 1
        return (Double(first) * (1 / 65536) - 1, Double(second) * (1 / 65536) - 1)
    }
}
