import AudioFormats

/// FLAC (`flac`, RFC 9639): a packet is a frame, a header then one subframe per channel (constant,
/// verbatim, a fixed polynomial predictor of order 0-4, or a linear predictor of order 1-32 with
/// quantized coefficients), each predictor's residual Rice-coded in partitions; stereo frames may
/// store left/side, side/right or mid/side. Decoding is exact: the samples are the encoder's input.
///
/// The magic cookie is the stream's `STREAMINFO` (bare, as a metadata block, after `fLaC`, or in an
/// MP4 `dfLa` box): it gives the depth and rate where a frame header defers to it.
public struct FLACDecoder: IntegerAudioDecoder {
    /// The format of the packets.
    public let sourceFormat: StreamDescription
    /// The largest block a frame may hold (`STREAMINFO`'s maximum block size, else FLAC's limit).
    public let maximumFramesPerPacket: Int
    /// Bits per sample where frame headers defer to `STREAMINFO`.
    let streamBitsPerSample: Int?
    let channels: Int
    /// One block per channel, decoded.
    private var samples: [Int32]

    /// A decoder for `format` with the stream's `STREAMINFO` as `magicCookie`; throws `fmt?` for what
    /// afkit does not decode (more than 8 channels, samples over 24 bits).
    public init(format: StreamDescription, magicCookie: [UInt8]?) throws {
        sourceFormat = format
        channels = Int(format.channelsPerFrame)
        guard (1...8).contains(channels) else {
            throw AudioFileError.unsupportedDataFormat("flac: \(channels) channels (FLAC holds 1 to 8)", offset: nil)
        }
        let info = magicCookie.flatMap { FLACStreamInfo(cookie: $0) }
        streamBitsPerSample = info?.bitsPerSample ?? format.losslessBitDepth
        if let bits = streamBitsPerSample, bits > 24 {
            throw AudioFileError.unsupportedDataFormat(
                "flac: \(bits)-bit samples; afkit decodes FLAC of 4 to 24 bits", offset: nil)
        }
        maximumFramesPerPacket =
            info?.maximumBlockSize ?? (format.framesPerPacket > 0 ? Int(format.framesPerPacket) : 65535)
        samples = [Int32](repeating: 0, count: channels * maximumFramesPerPacket)
    }

    /// Frames are independent: nothing is carried from one to the next.
    public mutating func reset() {}

    /// Decodes whole frames into interleaved samples in -1...1.
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int {
        try decodeFrames(bytes, packetCount: packetCount, descriptions: descriptions) { block, base, bits in
            let scale = 1 / Float(1 << (bits - 1))
            // A damaged frame's prediction can leave the depth's range: held at its ends.
            let (low, high) = (-(Int32(1) << (bits - 1)), (Int32(1) << (bits - 1)) - 1)
            block.interleave(into: output.baseAddress.unsafelyUnwrapped + base) {
                Float(min(max($0, low), high)) * scale
            }
        }
    }

    /// The frames' samples written as integers: up to 16 bits in 16-bit words, deeper ones in 32-bit words.
    public var decodedLayout: PCMLayout {
        let bits = streamBitsPerSample ?? 24
        return PCMLayout(nativeIntegerWidth: bits <= 16 ? 2 : 4, bits: bits)
    }

    /// Decodes whole frames into interleaved integers in ``decodedLayout``, exactly.
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        integersInto output: UnsafeMutableRawBufferPointer
    ) throws -> Int {
        let width = decodedLayout.width
        return try decodeFrames(bytes, packetCount: packetCount, descriptions: descriptions) { block, base, bits in
            let (low, high) = (-(Int32(1) << (bits - 1)), (Int32(1) << (bits - 1)) - 1)
            if width == 2 {
                let shift = Int32(16 - bits)
                let target = output.bindMemory(to: Int16.self).baseAddress.unsafelyUnwrapped + base
                block.interleave(into: target) { Int16(truncatingIfNeeded: min(max($0, low), high) &<< shift) }
            } else {
                let shift = Int32(32 - bits)
                block.interleave(into: output.bindMemory(to: Int32.self).baseAddress.unsafelyUnwrapped + base) {
                    min(max($0, low), high) &<< shift
                }
            }
        }
    }

    /// A decoded block: one run of samples per channel, `stride` apart.
    struct Block {
        var first: UnsafePointer<Int32>
        var stride: Int
        var channels: Int
        var count: Int

        /// Writes the channels interleaved at `target`, each sample through `convert`.
        @inline(__always)
        func interleave<Sample>(into target: UnsafeMutablePointer<Sample>, _ convert: (Int32) -> Sample) {
            switch channels {
            case 1:
                for index in 0..<count { target[index] = convert(first[index]) }
            case 2:
                let second = first + stride
                for index in 0..<count {
                    target[2 * index] = convert(first[index])
                    target[2 * index + 1] = convert(second[index])
                }
            default:
                for channel in 0..<channels {
                    let source = first + channel * stride
                    for index in 0..<count { target[index * channels + channel] = convert(source[index]) }
                }
            }
        }
    }

    /// Decodes each frame in turn, handing `emit` its block, the sample index where its frames go (frames
    /// written before it × channels) and its depth; returns the frames decoded.
    private mutating func decodeFrames(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        _ emit: (_ block: Block, _ base: Int, _ bits: Int) -> Void
    ) throws -> Int {
        var written = 0
        for packet in 0..<packetCount {
            let range: Range<Int>
            if let descriptions {
                let description = descriptions[packet]
                let begin = Int(description.startOffset)
                range = begin..<begin + Int(description.dataByteSize)
            } else {
                guard packetCount == 1 else {
                    throw AudioFileError.illegalOperation("flac: packets need their descriptions")
                }
                range = 0..<bytes.count
            }
            let (blockSize, bits) = try decodeFrame(
                UnsafeRawBufferPointer(rebasing: bytes[range]), at: range.lowerBound)
            samples.withUnsafeBufferPointer { samples in
                let block = Block(
                    first: samples.baseAddress.unsafelyUnwrapped, stride: maximumFramesPerPacket, channels: channels,
                    count: blockSize)
                emit(block, written * channels, bits)
            }
            written += blockSize
        }
        return written
    }

    /// Decodes one frame into ``samples`` (one block per channel); returns its block size and depth.
    /// Errors carry `offset`, the frame's start in the bytes given.
    mutating func decodeFrame(_ frame: UnsafeRawBufferPointer, at offset: Int) throws -> (blockSize: Int, bits: Int) {
        guard let header = FLACFrameHeader(frame) else {
            throw AudioFileError.malformed("flac: the packet does not start with a frame header", offset: Int64(offset))
        }
        guard header.channels == channels else {
            throw AudioFileError.malformed(
                "flac: a frame of \(header.channels) channels in a stream of \(channels)", offset: Int64(offset))
        }
        guard header.blockSize <= maximumFramesPerPacket else {
            throw AudioFileError.malformed(
                "flac: a block of \(header.blockSize) samples, above the stream's largest (\(maximumFramesPerPacket))",
                offset: Int64(offset))
        }
        guard let bits = header.bitsPerSample ?? streamBitsPerSample, bits <= 24 else {
            throw AudioFileError.unsupportedDataFormat(
                "flac: \(header.bitsPerSample.map { "\($0)-bit samples" } ?? "a frame without its depth"); "
                    + "afkit decodes FLAC of 4 to 24 bits", offset: Int64(offset))
        }
        if let stream = streamBitsPerSample, bits != stream {
            throw AudioFileError.malformed(
                "flac: a frame of \(bits)-bit samples in a stream of \(stream)", offset: Int64(offset))
        }
        let blockSize = header.blockSize
        var reader = FLACBitReader(UnsafeRawBufferPointer(rebasing: frame[header.length...]))
        let stride = maximumFramesPerPacket
        do {
            try samples.withUnsafeMutableBufferPointer { samples in
                for channel in 0..<channels {
                    // The side channel carries one more bit.
                    let isSide =
                        (header.channelAssignment == 8 && channel == 1)
                        || (header.channelAssignment == 9 && channel == 0)
                        || (header.channelAssignment == 10 && channel == 1)
                    let block = UnsafeMutableBufferPointer(
                        rebasing: samples[channel * stride..<channel * stride + blockSize])
                    try Self.decodeSubframe(&reader, bits: bits + (isSide ? 1 : 0), into: block)
                }
                if header.channelAssignment >= 8 {
                    Self.restoreStereo(
                        header.channelAssignment, samples.baseAddress.unsafelyUnwrapped,
                        samples.baseAddress.unsafelyUnwrapped + stride, count: blockSize)
                }
            }
        } catch let error as AudioFileError {
            throw AudioFileError.malformed("flac: frame \(header.number): \(error.message)", offset: Int64(offset))
        }
        return (blockSize, bits)
    }

    /// Undoes left/side (8), side/right (9) or mid/side (10) stereo.
    private static func restoreStereo(
        _ assignment: UInt8, _ first: UnsafeMutablePointer<Int32>, _ second: UnsafeMutablePointer<Int32>, count: Int
    ) {
        switch assignment {
        case 8:
            for index in 0..<count { second[index] = first[index] &- second[index] }
        case 9:
            for index in 0..<count { first[index] = first[index] &+ second[index] }
        default:
            for index in 0..<count {
                let side = second[index]
                let mid = first[index] &<< 1 | (side & 1)
                first[index] = (mid &+ side) >> 1
                second[index] = (mid &- side) >> 1
            }
        }
    }

    /// Errors of the bit stream, placed by the frame by the caller.
    static func damaged(_ message: String) -> AudioFileError { .malformed(message, offset: nil) }

    private static func decodeSubframe(
        _ reader: inout FLACBitReader, bits frameBits: Int, into block: UnsafeMutableBufferPointer<Int32>
    ) throws {
        let header = try reader.read(8)
        guard header & 0x80 == 0 else { throw damaged("a subframe's padding bit is set") }
        let type = Int(header >> 1) & 0x3F
        var wasted = 0
        if header & 1 == 1 { wasted = try reader.readUnary() + 1 }
        let bits = frameBits - wasted
        guard bits > 0 else { throw damaged("a subframe wastes all \(frameBits) bits") }
        let count = block.count
        switch type {
        case 0:
            let value = try reader.readSigned(bits)
            block.update(repeating: value)
        case 1:
            for index in 0..<count { block[index] = try reader.readSigned(bits) }
        case 8...12:
            let order = type - 8
            guard order <= count else { throw damaged("a predictor of order \(order) for \(count) samples") }
            for index in 0..<order { block[index] = try reader.readSigned(bits) }
            try readResidual(
                &reader, into: UnsafeMutableBufferPointer(rebasing: block[order...]), order: order, blockSize: count)
            fixedPrediction(order: order, block)
        case 32...63:
            let order = type - 31
            guard order <= count else { throw damaged("a predictor of order \(order) for \(count) samples") }
            for index in 0..<order { block[index] = try reader.readSigned(bits) }
            let precision = Int(try reader.read(4)) + 1
            guard precision < 16 else { throw damaged("a coefficient precision of 16 bits (reserved)") }
            let shift = Int(try reader.readSigned(5))
            guard shift >= 0 else { throw damaged("a negative quantization shift") }
            var coefficients = (
                Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0),
                Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0),
                Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0),
                Int32(0), Int32(0)
            )
            try withUnsafeMutableBytes(of: &coefficients) { raw in
                let coefficients = raw.bindMemory(to: Int32.self)
                for index in 0..<order { coefficients[index] = try reader.readSigned(precision) }
                try readResidual(
                    &reader, into: UnsafeMutableBufferPointer(rebasing: block[order...]), order: order, blockSize: count
                )
                linearPrediction(
                    UnsafeBufferPointer(rebasing: coefficients[0..<order]), shift: shift, block,
                    isNarrow: bits + precision + (64 - UInt64(order).leadingZeroBitCount) <= 32)
            }
        default:
            throw damaged("a reserved subframe type (\(type))")
        }
        if wasted > 0 {
            for index in 0..<count { block[index] = block[index] &<< Int32(wasted) }
        }
    }

    /// Reads the Rice-coded residual of a predictor of `order` into `output` (the block after its
    /// warm-up samples).
    private static func readResidual(
        _ reader: inout FLACBitReader, into output: UnsafeMutableBufferPointer<Int32>, order: Int, blockSize: Int
    ) throws {
        let method = try reader.read(2)
        guard method < 2 else { throw damaged("a reserved residual coding method") }
        let parameterBits = method == 0 ? 4 : 5
        let escape = UInt32(method == 0 ? 15 : 31)
        let partitionOrder = Int(try reader.read(4))
        let partitions = 1 << partitionOrder
        let perPartition = blockSize >> partitionOrder
        guard perPartition << partitionOrder == blockSize, perPartition >= order else {
            throw damaged("\(partitions) residual partitions do not divide a block of \(blockSize) samples")
        }
        var index = 0
        for partition in 0..<partitions {
            let count = partition == 0 ? perPartition - order : perPartition
            let parameter = try reader.read(parameterBits)
            if parameter == escape {
                let bits = Int(try reader.read(5))
                for _ in 0..<count {
                    output[index] = bits == 0 ? 0 : try reader.readSigned(bits)
                    index += 1
                }
            } else {
                try reader.readRice(Int(parameter), count: count, into: output.baseAddress.unsafelyUnwrapped + index)
                index += count
            }
        }
    }

    /// Adds the fixed polynomial predictions to the residual after the warm-up samples.
    private static func fixedPrediction(order: Int, _ block: UnsafeMutableBufferPointer<Int32>) {
        let count = block.count
        guard order > 0, count > order else { return }
        switch order {
        case 1:
            for index in 1..<count { block[index] = block[index] &+ block[index - 1] }
        case 2:
            for index in 2..<count { block[index] = block[index] &+ 2 &* block[index - 1] &- block[index - 2] }
        case 3:
            for index in 3..<count {
                block[index] =
                    block[index] &+ 3 &* (block[index - 1] &- block[index - 2]) &+ block[index - 3]
            }
        default:
            for index in 4..<count {
                block[index] =
                    block[index] &+ 4 &* (block[index - 1] &+ block[index - 3]) &- 6 &* block[index - 2]
                    &- block[index - 4]
            }
        }
    }

    /// Adds the linear predictions (`sum(coefficients[j] × sample[i - 1 - j]) >> shift`) to the residual.
    /// `isNarrow`: the sums fit 32 bits (the depth, precision and order say so), the common case.
    private static func linearPrediction(
        _ coefficients: UnsafeBufferPointer<Int32>, shift: Int, _ block: UnsafeMutableBufferPointer<Int32>,
        isNarrow: Bool
    ) {
        let order = coefficients.count
        let count = block.count
        guard count > order else { return }
        let samples = block.baseAddress.unsafelyUnwrapped
        if isNarrow {
            // Orders up to 12 (every order the reference encoder's presets use) with the order a constant,
            // so each loop over the taps is unrolled.
            switch order {
            case 1: narrowPrediction(order: 1, coefficients, shift: shift, samples, count: count)
            case 2: narrowPrediction(order: 2, coefficients, shift: shift, samples, count: count)
            case 3: narrowPrediction(order: 3, coefficients, shift: shift, samples, count: count)
            case 4: narrowPrediction(order: 4, coefficients, shift: shift, samples, count: count)
            case 5: narrowPrediction(order: 5, coefficients, shift: shift, samples, count: count)
            case 6: narrowPrediction(order: 6, coefficients, shift: shift, samples, count: count)
            case 7: narrowPrediction(order: 7, coefficients, shift: shift, samples, count: count)
            case 8: narrowPrediction(order: 8, coefficients, shift: shift, samples, count: count)
            case 9: narrowPrediction(order: 9, coefficients, shift: shift, samples, count: count)
            case 10: narrowPrediction(order: 10, coefficients, shift: shift, samples, count: count)
            case 11: narrowPrediction(order: 11, coefficients, shift: shift, samples, count: count)
            case 12: narrowPrediction(order: 12, coefficients, shift: shift, samples, count: count)
            default: narrowPrediction(order: order, coefficients, shift: shift, samples, count: count)
            }
        } else {
            for index in order..<count {
                var sum: Int64 = 0
                let history = samples + index - 1
                for tap in 0..<order { sum = sum &+ Int64(coefficients[tap]) &* Int64(history[-tap]) }
                samples[index] = samples[index] &+ Int32(truncatingIfNeeded: sum >> Int64(shift))
            }
        }
    }

    @inline(__always)
    private static func narrowPrediction(
        order: Int, _ coefficients: UnsafeBufferPointer<Int32>, shift: Int, _ samples: UnsafeMutablePointer<Int32>,
        count: Int
    ) {
        let taps = coefficients.baseAddress.unsafelyUnwrapped
        let shift = Int32(shift)
        for index in order..<count {
            var sum: Int32 = 0
            let history = samples + index - 1
            for tap in 0..<order { sum = sum &+ taps[tap] &* history[-tap] }
            samples[index] = samples[index] &+ (sum >> shift)
        }
    }
}

/// Reads a FLAC frame's bits, most significant first, through a 64-bit cache. Past the frame's end it
/// throws: a damaged frame cannot read outside its bytes.
struct FLACBitReader {
    private let bytes: UnsafeRawBufferPointer
    /// The next byte to load into the cache.
    private var next = 0
    /// Bits waiting, left-aligned; the bits below the `count` valid ones are the following bytes' (or 0).
    private var cache: UInt64 = 0
    private var count = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    @inline(__always)
    private mutating func refill() {
        if next + 8 <= bytes.count {
            let word = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: next, as: UInt64.self))
            cache |= word &>> UInt64(count)
            let taken = (63 - count) >> 3
            next += taken
            count += taken << 3
        } else {
            while count <= 56 && next < bytes.count {
                cache |= UInt64(bytes[next]) &<< UInt64(56 - count)
                next += 1
                count += 8
            }
        }
    }

    private static let pastTheEnd = FLACDecoder.damaged("the frame ends inside a subframe")

    /// The next `width` bits (0 to 32) as an unsigned number.
    @inline(__always)
    mutating func read(_ width: Int) throws -> UInt32 {
        if width == 0 { return 0 }
        if count < width {
            refill()
            if count < width { throw Self.pastTheEnd }
        }
        let value = UInt32(truncatingIfNeeded: cache &>> UInt64(64 - width))
        cache = cache &<< UInt64(width)
        count -= width
        return value
    }

    /// The next `width` bits (1 to 32) as a two's-complement number.
    @inline(__always)
    mutating func readSigned(_ width: Int) throws -> Int32 {
        let value = try read(width)
        let shift = UInt32(32 - width)
        return Int32(bitPattern: value &<< shift) &>> Int32(shift)
    }

    /// Zeros before the next 1 (which is consumed).
    mutating func readUnary() throws -> Int {
        var zeros = 0
        while true {
            if count == 0 {
                refill()
                if count == 0 { throw Self.pastTheEnd }
            }
            let leading = cache.leadingZeroBitCount
            if leading < count {
                zeros += leading
                cache = (cache &<< UInt64(leading)) &<< 1
                count -= leading + 1
                return zeros
            }
            zeros += count
            cache = 0
            count = 0
        }
    }

    /// `total` Rice codes of parameter `parameter`, folded to signed values, into `output`.
    @inline(__always)
    mutating func readRice(_ parameter: Int, count total: Int, into output: UnsafeMutablePointer<Int32>) throws {
        let shift = UInt64(parameter)
        // The cache in locals, so the loop keeps it in registers; written back around the slow path.
        var cache = self.cache
        var count = self.count
        var next = self.next
        let base = bytes.baseAddress.unsafelyUnwrapped
        let fastEnd = bytes.count - 8
        for index in 0..<total {
            if count < 32 {
                if next <= fastEnd {
                    let word = UInt64(bigEndian: (base + next).loadUnaligned(as: UInt64.self))
                    cache |= word &>> UInt64(count)
                    let taken = (63 - count) >> 3
                    next += taken
                    count += taken << 3
                } else {
                    (self.cache, self.count, self.next) = (cache, count, next)
                    refill()
                    (cache, count, next) = (self.cache, self.count, self.next)
                }
            }
            let leading = cache.leadingZeroBitCount
            let used = leading + 1 + parameter
            let folded: UInt64
            if used < count {
                // The whole code is in the cache: its quotient's zeros, the stop bit, the remainder (shifted
                // in two steps, so a parameter of 0 gives 0).
                folded = UInt64(leading) &<< shift | ((cache &<< UInt64(leading + 1)) &>> 1) &>> (63 &- shift)
                cache = cache &<< UInt64(used)
                count -= used
            } else {
                (self.cache, self.count, self.next) = (cache, count, next)
                let quotient = UInt64(try readUnary())
                folded = quotient &<< shift | UInt64(try read(parameter))
                (cache, count, next) = (self.cache, self.count, self.next)
            }
            output[index] = Self.unfold(UInt32(truncatingIfNeeded: folded))
        }
        (self.cache, self.count, self.next) = (cache, count, next)
    }

    /// Rice's folding undone: 0, 1, 2, 3, ... become 0, -1, 1, -2, ...
    @inline(__always)
    static func unfold(_ folded: UInt32) -> Int32 { Int32(bitPattern: folded >> 1) ^ -Int32(bitPattern: folded & 1) }
}
