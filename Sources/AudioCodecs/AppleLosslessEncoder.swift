import AudioFormats

/// Apple Lossless (`alac`): packets of 4096 frames (the last one shorter, which the packet says), no
/// encoder delay. The magic cookie is the 24-byte ALACSpecificConfig that CAF's `kuki` holds and an
/// MP4 `alac` box wraps.
///
/// A packet is a run of elements (one channel, or a pair), then an end tag, padded to a byte. An
/// element is stored verbatim or compressed: a pair is first decorrelated (a weighted mid and the
/// difference), the low bytes of 24- and 32-bit samples are set aside uncoded, each channel is
/// predicted by an adaptive FIR filter whose coefficients the decoder keeps adjusting by the sign of
/// each residual, and the residuals are written with an adaptive Golomb–Rice code that folds runs
/// of zeros.
public enum AppleLossless {
    /// Frames in every packet but the last.
    public static let framesPerPacket = 4096
    /// The Rice coder's parameters every encoder writes (ALACSpecificConfig's `pb`, `mb`, `kb`).
    static let historyMultiplier = 40
    /// Each channel's factor on `pb` (the history multiplier used is factor × pb / 4).
    static let historyFactor = 4
    static let initialHistory = 10
    static let riceLimit = 14
    /// The longest run of zeros one code may fold (ALACSpecificConfig's `maxRun`).
    static let maximumRun = 255

    /// The stream description of ALAC packets.
    public static func format(sampleRate: Double, channels: UInt32, bitDepth: Int) -> StreamDescription {
        .appleLossless(
            sampleRate: sampleRate, channels: channels, bitDepth: bitDepth,
            framesPerPacket: UInt32(framesPerPacket))
    }

    /// The 24-byte ALACSpecificConfig inside a cookie: bare (alone, or followed by the `chan` layout info Apple's
    /// encoder adds past two channels), or in an `alac` atom (size, type, version and
    /// flags, then the config: libavcodec's 36-byte extradata, an MP4 `alac` box), found by walking the atoms
    /// as Apple's decoder does, past a `frma` atom (whose data is the tag `alac`, no config: FFmpeg's CAF
    /// cookies start with one) and into a QuickTime `wave` atom.
    public static func specificConfig(inCookie cookie: [UInt8]) -> [UInt8]? {
        if cookie.count == 24 { return cookie }
        // Apple's encoder follows the config with an ALACChannelLayoutInfo (24 bytes, 'chan') past two channels.
        if cookie.count >= 48, cookie[24..<28] == [0, 0, 0, 24], cookie[28..<32].elementsEqual("chan".utf8) {
            return Array(cookie[0..<24])
        }
        return specificConfig(inAtoms: cookie[...])
    }

    private static func specificConfig(inAtoms atoms: ArraySlice<UInt8>) -> [UInt8]? {
        var offset = atoms.startIndex
        while offset + 8 <= atoms.endIndex {
            let size = atoms[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, size <= atoms.endIndex - offset else { return nil }
            switch String(decoding: atoms[offset + 4..<offset + 8], as: UTF8.self) {
            case "alac" where size >= 36: return Array(atoms[offset + 12..<offset + 36])
            case "wave": if let config = specificConfig(inAtoms: atoms[offset + 8..<offset + size]) { return config }
            default: break
            }
            offset += size
        }
        return nil
    }

    /// A config wrapped as libavcodec's ALAC extradata (an `alac` atom of 36 bytes).
    public static func atom(_ config: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendInteger(UInt32(36), endianness: .big)
        bytes.appendFourCharCode("alac")
        bytes.appendInteger(UInt32(0), endianness: .big)
        return bytes + config
    }

    /// The ALACSpecificConfig for a stream: frame length, version 0, bit depth, the Rice parameters,
    /// channels, the longest zero run, the largest packet, the average bit rate (0: not known when the
    /// cookie is written) and the sample rate, big-endian.
    static func specificConfig(bitDepth: Int, channels: Int, maximumPacketSize: Int, sampleRate: Double) -> [UInt8] {
        var config: [UInt8] = []
        config.appendInteger(UInt32(framesPerPacket), endianness: .big)
        config += [
            0, UInt8(bitDepth), UInt8(historyMultiplier), UInt8(initialHistory), UInt8(riceLimit), UInt8(channels),
        ]
        config.appendInteger(UInt16(maximumRun), endianness: .big)
        config.appendInteger(UInt32(maximumPacketSize), endianness: .big)
        config.appendInteger(UInt32(0), endianness: .big)
        config.appendInteger(UInt32(sampleRate), endianness: .big)
        return config
    }

    /// How the channels of an `n`-channel stream are grouped into elements (a pair or a single channel),
    /// each channel named by its index in WAV order: ALAC stores C, L R, Ls Rs, (Lc Rc,) then Cs and LFE,
    /// the order Apple's decoders deliver (`chan` records it).
    static func elements(channels: Int) -> [[Int]] {
        switch channels {
        case 1: [[0]]
        case 2: [[0, 1]]
        case 3: [[2], [0, 1]]
        case 4: [[2], [0, 1], [3]]
        case 5: [[2], [0, 1], [3, 4]]
        case 6: [[2], [0, 1], [4, 5], [3]]
        case 7: [[2], [0, 1], [4, 5], [6], [3]]
        default: [[2], [6, 7], [0, 1], [4, 5], [3]]
        }
    }
}

/// A sample set out for an integer encoder: interleaved 32-bit words, the sample in the high bits
/// (PCM's own left-justified form), so a lossless path hands over stored integers without a trip
/// through Float.
public protocol IntegerSampleEncoder: AudioEncoder {
    /// Significant bits the encoder keeps of each word (from the top).
    var integerBitDepth: Int { get }
    /// Encodes interleaved left-justified samples, appending whole packets to `packets`.
    mutating func encode(leftJustified frames: UnsafeBufferPointer<Int32>, into packets: inout EncodedPackets) throws
}

/// Encodes Apple Lossless at 16, 20, 24 or 32 bits, exactly: what FFmpeg's and Apple's decoders make
/// of the packets is the source's integers. Each element is written in whichever form is smaller:
/// verbatim, or compressed with the better of a few stereo weightings and predictor orders.
public struct AppleLosslessEncoder: IntegerSampleEncoder {
    /// The format of the packets made.
    public let destinationFormat: StreamDescription
    /// Frames of delay before the first source frame.
    public var primingFrames: Int { 0 }
    /// The codec configuration the container records.
    public let magicCookie: [UInt8]?
    /// The largest packet made, in bytes.
    public let maximumPacketSize: Int
    /// Bits per sample stored.
    public let bitDepth: Int
    /// The bits of the integers it keeps (the source's depth).
    public var integerBitDepth: Int { bitDepth }
    private let channels: Int
    private let elements: [[Int]]
    /// Low bits of each sample written uncoded (8 of 24, 16 of 32), so the coded part fits 16 bits.
    private let shift: Int
    /// The frames of the packets being filled, one plane per channel, `batch` packets long.
    private var planes: [[Int32]]
    private var filled = 0
    private var lastPacketFrames = 0
    /// One workspace per packet of a batch: a batch's packets are coded at once, on as many cores as there are.
    private var works: [ElementWork]
    private static let batch = 8

    /// An encoder for `settings`.
    public init(_ settings: EncoderSettings) throws {
        let format = settings.format
        channels = Int(format.channelsPerFrame)
        guard (1...8).contains(channels) else {
            throw AudioFileError.unsupportedDataFormat("alac: ALAC holds 1 to 8 channels, not \(channels)", offset: nil)
        }
        guard format.sampleRate >= 1, format.sampleRate <= Double(UInt32.max),
            format.sampleRate == format.sampleRate.rounded()
        else {
            throw AudioFileError.unsupportedDataFormat(
                "alac: ALAC holds whole sample rates, not \(format.sampleRate) Hz",
                offset: nil)
        }
        let isFloat = settings.sourceFormat.isLinearPCM && settings.sourceFormat.formatFlags.contains(.isFloat)
        bitDepth =
            CodecDescriptor.appleLossless.storedDepth(forSourceBits: settings.sourceBitDepth, isFloat: isFloat) ?? 16
        shift = bitDepth > 20 ? bitDepth - 16 : 0
        elements = AppleLossless.elements(channels: channels)
        let frames = AppleLossless.framesPerPacket
        // The largest packet: every element verbatim (a 55-bit header and the samples), the end tag, a byte's padding.
        maximumPacketSize = (elements.count * 55 + frames * channels * bitDepth + 3 + 7) / 8
        magicCookie = AppleLossless.specificConfig(
            bitDepth: bitDepth, channels: channels,
            maximumPacketSize: maximumPacketSize, sampleRate: format.sampleRate)
        destinationFormat = AppleLossless.format(
            sampleRate: format.sampleRate, channels: format.channelsPerFrame,
            bitDepth: bitDepth)
        planes = Array(repeating: Array(repeating: 0, count: frames * Self.batch), count: channels)
        // A compressed try is abandoned for verbatim only after a channel is written, so a packet's buffer
        // holds the worst try: per sample the low bits, an escaped residual (9 + 32 bits) and a zero-run
        // code (9 + 16), and per element its header and two predictor tables.
        let capacity = (frames * channels * (shift + 66) + elements.count * 2 * (16 + 32 * 16 + 71)) / 8 + 64
        works = (0..<Self.batch).map { _ in ElementWork(frames: frames, capacity: capacity) }
    }

    /// Encodes interleaved frames, appending the whole packets they complete with their descriptions.
    public mutating func encode(_ frames: UnsafeBufferPointer<Float>, into packets: inout EncodedPackets) throws {
        let scale = Double(Int64(1) << (bitDepth - 1))
        let channels = channels
        try fill(count: frames.count / channels, into: &packets) { frame, channel in
            Int32(
                truncatingIfNeeded: quantizedSample(
                    Double(frames[frame * channels + channel]) * scale,
                    low: -scale, high: scale - 1))
        }
    }

    /// Encodes interleaved integers left-justified in 32 bits, every bit kept.
    public mutating func encode(leftJustified frames: UnsafeBufferPointer<Int32>, into packets: inout EncodedPackets)
        throws
    {
        let drop = Int32(32 - bitDepth)
        let channels = channels
        try fill(count: frames.count / channels, into: &packets) { frame, channel in
            frames[frame * channels + channel] >> drop
        }
    }

    /// Encodes what is left; returns the remainder frames (the last packet's padding).
    public mutating func finish(into packets: inout EncodedPackets) throws -> Int {
        if filled > 0 { writePackets(into: &packets) }
        return lastPacketFrames == 0 ? 0 : AppleLossless.framesPerPacket - lastPacketFrames
    }

    /// Copies `count` frames into the planes (`sample(frame, channel)` gives each), writing each batch filled.
    private mutating func fill(count: Int, into packets: inout EncodedPackets, _ sample: (Int, Int) -> Int32) throws {
        let size = AppleLossless.framesPerPacket * Self.batch
        var index = 0
        while index < count {
            let take = min(size - filled, count - index)
            for channel in 0..<channels {
                planes[channel].withUnsafeMutableBufferPointer { plane in
                    for frame in 0..<take { plane[filled + frame] = sample(index + frame, channel) }
                }
            }
            filled += take
            index += take
            if filled == size { writePackets(into: &packets) }
        }
    }

    /// Codes the filled frames as packets, each on its own workspace and all at once, and appends them in order.
    private mutating func writePackets(into packets: inout EncodedPackets) {
        let size = AppleLossless.framesPerPacket
        let count = (filled + size - 1) / size
        let (planes, elements, bitDepth, shift, filled) = (planes, elements, bitDepth, shift, filled)
        works.withUnsafeMutableBufferPointer { works in
            nonisolated(unsafe) let works = works
            (0..<count).parallelMap { packet in
                let start = packet * size
                let frames = min(size, filled - start)
                works[packet].writer.reset()
                for element in elements {
                    works[packet].write(
                        element: element, planes: planes, start: start, frames: frames, bitDepth: bitDepth,
                        shift: shift)
                }
                works[packet].writer.write(7, bits: 3)  // the end tag
                works[packet].size = works[packet].writer.finish()
            }
        }
        for packet in 0..<count {
            let work = works[packet]
            packets.append(
                packet: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(work.writer.storage)[0..<work.size]))
        }
        lastPacketFrames = filled - (count - 1) * size
        self.filled = 0
    }
}

/// Where coded bits go: a writer, or a counter that only measures.
protocol BitSink {
    mutating func write(_ value: UInt32, bits: Int)
}

/// Counts bits instead of writing them (to compare codings).
struct BitCounter: BitSink {
    var count = 0
    @inline(__always) mutating func write(_ value: UInt32, bits: Int) { count += bits }
}

/// Writes bits most significant first into a buffer sized for the largest packet.
final class BitWriter: BitSink {
    /// Where the writer stands: restoring it forgets what was written since.
    struct Mark {
        fileprivate var byteCount: Int
        fileprivate var accumulator: UInt64
        fileprivate var pending: Int
    }

    let storage: UnsafeMutableBufferPointer<UInt8>
    private var byteCount = 0
    private var accumulator: UInt64 = 0
    private var pending = 0

    init(capacity: Int) {
        storage = .allocate(capacity: capacity + 8)
    }

    deinit { storage.deallocate() }

    /// Bits written so far.
    var bitCount: Int { byteCount * 8 + pending }

    var mark: Mark { Mark(byteCount: byteCount, accumulator: accumulator, pending: pending) }

    func restore(_ mark: Mark) {
        byteCount = mark.byteCount
        accumulator = mark.accumulator
        pending = mark.pending
    }

    func reset() { restore(Mark(byteCount: 0, accumulator: 0, pending: 0)) }

    /// Writes the low `bits` (0 to 32) of `value`.
    @inline(__always)
    func write(_ value: UInt32, bits: Int) {
        accumulator = accumulator << UInt64(bits) | (UInt64(value) & ((1 << UInt64(bits)) - 1))
        pending += bits
        if pending >= 32 {
            pending -= 32
            let word = UInt32(truncatingIfNeeded: accumulator >> UInt64(pending))
            precondition(byteCount + 4 <= storage.count, "alac: a packet past its bound")
            UnsafeMutableRawBufferPointer(storage).storeBytes(
                of: word.bigEndian, toByteOffset: byteCount, as: UInt32.self)
            byteCount += 4
        }
    }

    /// Pads to a whole byte; returns the bytes written.
    func finish() -> Int {
        if pending % 8 != 0 { write(0, bits: 8 - pending % 8) }
        while pending > 0 {
            pending -= 8
            storage[byteCount] = UInt8(truncatingIfNeeded: accumulator >> UInt64(pending))
            byteCount += 1
        }
        return byteCount
    }
}

/// Scratch space for coding one element: mixed channels, residuals, and a second writer for trial codings.
struct ElementWork {
    let writer: BitWriter
    /// The bytes of the packet last written.
    var size = 0
    /// The element's channels without their low bits (then weighted, for a pair), `frameCapacity` each.
    private var mixed: [Int32]
    /// The low bits set aside, likewise.
    private var low: [UInt32]
    private let frameCapacity: Int
    /// The chosen predictor's residuals for each channel of the element, `frameCapacity` each.
    private var residuals: [Int32]
    private var trial: [Int32]

    init(frames: Int, capacity: Int) {
        writer = BitWriter(capacity: capacity)
        frameCapacity = frames
        mixed = Array(repeating: 0, count: 2 * frames)
        low = Array(repeating: 0, count: 2 * frames)
        residuals = Array(repeating: 0, count: 2 * frames)
        trial = Array(repeating: 0, count: frames)
    }

    /// The stereo weighting's fraction bits: a pair is coded as r + w·(l − r)/4 and l − r for w in 1...4
    /// (2: their mean; 4: the left), or as l and r (w = 0).
    private static let mixBits = 2
    /// Predictor orders tried.
    private static let orders = Array(1...8)
    /// The frames at a packet's start each order is tried on.
    private static let probeFrames = 1024
    /// The most fraction bits a coefficient gets (`denShift`), and the bits a coefficient may span: fewer
    /// fraction bits for larger coefficients, which also makes the decoder's ±1 steps adapt faster.
    private static let maximumQuantization = 9
    private static let coefficientPrecision = 8

    /// An adaptive FIR's starting state as a channel's table writes it.
    struct Predictor {
        var order: Int
        /// Fraction bits of the coefficients.
        var quantization: Int
        /// The oldest sample's coefficient first (the decoder's order; the table writes them newest first).
        var coefficients: [Int16]
    }

    /// Writes one element (one channel or a pair, by index into `planes`) of `frames` frames.
    mutating func write(
        element: [Int], planes: [[Int32]], start frameOffset: Int, frames: Int, bitDepth: Int, shift: Int
    ) {
        let count = element.count
        let start = writer.bitCount
        let startMark = writer.mark
        let isPartial = frames != AppleLossless.framesPerPacket
        func header(verbatim: Bool) {
            writer.write(count == 2 ? 1 : 0, bits: 3)  // element type: pair or single
            writer.write(0, bits: 4)  // instance tag
            writer.write(0, bits: 12)
            writer.write(isPartial ? 1 : 0, bits: 1)
            writer.write(UInt32(shift / 8), bits: 2)
            writer.write(verbatim ? 1 : 0, bits: 1)
            if isPartial { writer.write(UInt32(frames), bits: 32) }
        }
        let verbatimBits = 3 + 4 + 12 + 1 + 2 + 1 + (isPartial ? 32 : 0) + frames * count * bitDepth

        // Split off the uncoded low bits; the coded part of a pair gets the best stereo weighting.
        let bits = bitDepth - shift + count - 1
        let lowMask = UInt32((1 << shift) - 1)
        let capacity = frameCapacity
        for (slot, channel) in element.enumerated() {
            planes[channel].withUnsafeBufferPointer { plane in
                mixed.withUnsafeMutableBufferPointer { high in
                    low.withUnsafeMutableBufferPointer { rest in
                        for index in 0..<frames {
                            let sample = plane[frameOffset + index]
                            high[slot * capacity + index] = sample >> Int32(shift)
                            rest[slot * capacity + index] = UInt32(bitPattern: sample) & lowMask
                        }
                    }
                }
            }
        }
        let weight = count == 2 ? mixPair(frames: frames) : 0

        header(verbatim: false)
        writer.write(UInt32(Self.mixBits), bits: 8)
        writer.write(UInt32(weight), bits: 8)
        // Choose each channel's predictor (its residuals kept for after the low bits) and write its table.
        for slot in 0..<count {
            let choice = choosePredictor(slot: slot, frames: frames, bits: bits)
            writer.write(0, bits: 4)  // prediction mode: the adaptive FIR
            writer.write(UInt32(choice.quantization), bits: 4)
            writer.write(UInt32(AppleLossless.historyFactor), bits: 3)
            writer.write(UInt32(choice.order), bits: 5)
            // The newest sample's coefficient first.
            for coefficient in choice.coefficients.reversed() {
                writer.write(UInt32(UInt16(bitPattern: coefficient)), bits: 16)
            }
        }
        if shift > 0 {
            for index in 0..<frames {
                for slot in 0..<count { writer.write(low[slot * capacity + index], bits: shift) }
            }
        }
        for slot in 0..<count {
            residuals.withUnsafeBufferPointer { all in
                var sink = writer
                Self.code(
                    UnsafeBufferPointer(rebasing: all[slot * capacity..<slot * capacity + frames]), bits: bits,
                    into: &sink)
            }
            if writer.bitCount - start >= verbatimBits { break }
        }
        guard writer.bitCount - start >= verbatimBits else { return }

        // Verbatim is no larger: rewrite the element so.
        writer.restore(startMark)
        header(verbatim: true)
        let mask = bitDepth == 32 ? UInt32.max : UInt32((1 << bitDepth) - 1)
        for index in 0..<frames {
            for channel in element {
                writer.write(UInt32(bitPattern: planes[channel][frameOffset + index]) & mask, bits: bitDepth)
            }
        }
    }

    /// Replaces the pair in `mixed` by the weighting whose second differences are smallest (a rough
    /// measure of what prediction leaves); returns its weight.
    private mutating func mixPair(frames: Int) -> Int32 {
        // costs[w]: the weighted channel for weight w (w = 0: the left as it is); differences: l − r.
        var costs = [Int64](repeating: 0, count: 5)
        var rightCost: Int64 = 0
        var differenceCost: Int64 = 0
        let capacity = frameCapacity
        mixed.withUnsafeBufferPointer { both in
            let left = UnsafeBufferPointer(rebasing: both[0..<capacity])
            let right = UnsafeBufferPointer(rebasing: both[capacity...])
            do {
                guard frames > 2 else { return }
                for index in 2..<frames {
                    let l = Int64(left[index]) - 2 * Int64(left[index - 1]) + Int64(left[index - 2])
                    let r = Int64(right[index]) - 2 * Int64(right[index - 1]) + Int64(right[index - 2])
                    let v = l - r
                    rightCost += abs(r)
                    differenceCost += abs(v)
                    costs[0] += abs(l)
                    for weight in 1...4 { costs[weight] += abs(r + (Int64(weight) * v) >> Int64(Self.mixBits)) }
                }
            }
        }
        var weight: Int32 = 0
        var best = costs[0] + rightCost
        for candidate in 1...4 where costs[candidate] + differenceCost < best {
            best = costs[candidate] + differenceCost
            weight = Int32(candidate)
        }
        guard weight > 0 else { return 0 }
        mixed.withUnsafeMutableBufferPointer { both in
            let left = UnsafeMutableBufferPointer(rebasing: both[0..<capacity])
            let right = UnsafeMutableBufferPointer(rebasing: both[capacity...])
            do {
                for index in 0..<frames {
                    let l = left[index]
                    let r = right[index]
                    let v = l &- r
                    left[index] = r &+ Int32(truncatingIfNeeded: (Int64(weight) * Int64(v)) >> Int64(Self.mixBits))
                    right[index] = v
                }
            }
        }
        return weight
    }

    /// The predictor order (and its quantized coefficients, oldest sample's first) whose residuals are
    /// smallest, from the linear prediction of the channel's windowed autocorrelation.
    private mutating func choosePredictor(slot: Int, frames: Int, bits: Int) -> Predictor {
        let maximumOrder = Self.orders[Self.orders.count - 1]
        let offset = slot * frameCapacity
        // Too short to analyse, or silent: the samples themselves are the residuals.
        func unpredicted() -> Predictor {
            mixed.withUnsafeBufferPointer { from in
                residuals.withUnsafeMutableBufferPointer { to in
                    for index in 0..<frames { to[offset + index] = from[offset + index] }
                }
            }
            return Predictor(order: 0, quantization: Self.maximumQuantization, coefficients: [])
        }
        guard frames > maximumOrder * 2 else { return unpredicted() }
        let autocorrelation = mixed.withUnsafeBufferPointer { both in
            Self.autocorrelation(UnsafeBufferPointer(rebasing: both[offset...]), frames: frames, lags: maximumOrder)
        }
        guard autocorrelation[0] > 1 else { return unpredicted() }
        let predictors = Self.levinsonDurbin(autocorrelation, order: maximumOrder)
        // Code the packet's first frames with each order and keep the one that takes fewest bits (the
        // coefficients' 16 each included); then predict the whole packet with it.
        let probe = min(frames, Self.probeFrames)
        var best = (predictor: Predictor(order: 0, quantization: 0, coefficients: []), bits: Int.max)
        for order in Self.orders {
            // The decoder's coefficient j multiplies the sample `order - j` back.
            let lag = predictors[order - 1].reversed()
            let largest = lag.map(abs).max() ?? 0
            var quantization = Self.maximumQuantization
            let limit = Double(1 << (Self.coefficientPrecision - 1))
            while quantization > 1 && largest * Double(1 << quantization) >= limit { quantization -= 1 }
            let coefficients = lag.map { value -> Int16 in
                Int16(max(-32768, min(32767, (value * Double(1 << quantization)).rounded())))
            }
            let predictor = Predictor(order: order, quantization: quantization, coefficients: coefficients)
            predict(slot: slot, frames: probe, bits: bits, predictor, into: &trial)
            var counter = BitCounter(count: 16 * order)
            trial.withUnsafeBufferPointer {
                Self.code(UnsafeBufferPointer(rebasing: $0[0..<probe]), bits: bits, into: &counter)
            }
            if counter.count < best.bits { best = (predictor, counter.count) }
        }
        predict(slot: slot, frames: frames, bits: bits, best.predictor, into: &trial)
        trial.withUnsafeBufferPointer { from in
            residuals.withUnsafeMutableBufferPointer { to in
                for index in 0..<frames { to[offset + index] = from[index] }
            }
        }
        return best.predictor
    }

    /// The residuals the decoder's adaptive FIR turns back into the slot's channel: the filter and its
    /// coefficient updates mirror the decoder's arithmetic exactly (32-bit wrapping, results sign-extended to
    /// `bits`).
    private func predict(slot: Int, frames: Int, bits: Int, _ predictor: Predictor, into output: inout [Int32]) {
        let quantization = predictor.quantization
        let order = predictor.order
        let start = predictor.coefficients
        let extend = Int32(32 - bits)
        @inline(__always) func signExtended(_ value: Int32) -> Int32 { (value << extend) >> extend }
        let offset = slot * frameCapacity
        mixed.withUnsafeBufferPointer { both in
            let x = UnsafeBufferPointer(rebasing: both[offset...])
            output.withUnsafeMutableBufferPointer { residual in
                guard frames > 0 else { return }
                residual[0] = x[0]
                guard order > 0 else {
                    for index in 1..<frames { residual[index] = x[index] }
                    return
                }
                var index = 1
                while index <= order && index < frames {
                    residual[index] = signExtended(x[index] &- x[index - 1])
                    index += 1
                }
                withUnsafeTemporaryAllocation(of: Int16.self, capacity: order) { coefficient in
                    for j in 0..<order { coefficient[j] = start[j] }
                    let round = Int64(1) << Int64(quantization - 1)
                    while index < frames {
                        let base = index - order
                        let d = x[base - 1]
                        var sum: UInt32 = 0
                        for j in 0..<order {
                            sum =
                                sum &+ UInt32(bitPattern: x[base + j] &- d) &* UInt32(bitPattern: Int32(coefficient[j]))
                        }
                        let predicted = Int32(
                            truncatingIfNeeded: (Int64(Int32(bitPattern: sum)) + round) >> Int64(quantization))
                        let error = signExtended(x[index] &- predicted &- d)
                        residual[index] = error
                        if error != 0 {
                            // The decoder steps each coefficient, oldest first, against the sign of its sample's
                            // difference while the error left keeps the residual's sign.
                            let errorSign: Int32 = error > 0 ? 1 : -1
                            var remaining = UInt32(bitPattern: error)
                            var j = 0
                            while j < order && Int32(bitPattern: remaining &* UInt32(bitPattern: errorSign)) > 0 {
                                var value = d &- x[base + j]
                                let sign = (value > 0 ? 1 : value < 0 ? -1 : 0) * errorSign
                                coefficient[j] = coefficient[j] &- Int16(truncatingIfNeeded: sign)
                                value = value &* sign
                                remaining =
                                    remaining &- UInt32(bitPattern: value >> Int32(quantization)) &* UInt32(j + 1)
                                j += 1
                            }
                        }
                        index += 1
                    }
                }
            }
        }
    }

    /// Writes `residuals` with the adaptive Golomb–Rice code: the parameter follows a running history of
    /// the values, an escape holds values too large for nine unary steps, and where the history falls
    /// low the count of zeros that follow is written once for all of them.
    private static func code<Sink: BitSink>(_ residual: UnsafeBufferPointer<Int32>, bits: Int, into sink: inout Sink) {
        let frames = residual.count
        let multiplier = UInt32(AppleLossless.historyFactor * AppleLossless.historyMultiplier / 4)
        let limit = AppleLossless.riceLimit
        var history = UInt32(AppleLossless.initialHistory)
        var signModifier: UInt32 = 0
        var index = 0
        while index < frames {
            let k = min(log2Floor((history >> 9) + 3), limit)
            let error = residual[index]
            let value = UInt32(bitPattern: (error << 1) ^ (error >> 31))
            codeScalar(value &- signModifier, k: k, escapeBits: bits, into: &sink)
            signModifier = 0
            if value > 0xFFFF {
                history = 0xFFFF
            } else {
                history = history &+ value &* multiplier &- ((history &* multiplier) >> 9)
            }
            if history < 128 && index + 1 < frames {
                let k = min(7 - log2Floor(history) + Int((history + 16) >> 6), limit)
                var run = 0
                while index + 1 + run < frames && residual[index + 1 + run] == 0 && run < 0xFFFF { run += 1 }
                codeScalar(UInt32(run), k: k, escapeBits: 16, into: &sink)
                index += run
                signModifier = 1
                history = 0
            }
            index += 1
        }
    }

    /// One value with Rice parameter `k`: a unary quotient by 2^k − 1 (at most 8 ones and a zero), then the
    /// remainder in k bits as remainder + 1, or k − 1 zeros when it is 0; past 8, nine ones and the value in
    /// `escapeBits`.
    @inline(__always)
    private static func codeScalar<Sink: BitSink>(_ value: UInt32, k: Int, escapeBits: Int, into sink: inout Sink) {
        let divisor = UInt32((1 << k) - 1)
        let quotient = value / divisor
        guard quotient <= 8 else {
            sink.write(0x1FF, bits: 9)
            sink.write(value, bits: escapeBits)
            return
        }
        let remainder = value - quotient * divisor
        sink.write(((1 << quotient) - 1) << 1, bits: Int(quotient) + 1)
        guard k != 1 else { return }
        if remainder == 0 { sink.write(0, bits: k - 1) } else { sink.write(remainder + 1, bits: k) }
    }

    private static func log2Floor(_ value: UInt32) -> Int { value == 0 ? 0 : 31 - value.leadingZeroBitCount }

    /// Autocorrelation of a Welch-windowed block, lags 0 through `lags`.
    private static func autocorrelation(_ x: UnsafeBufferPointer<Int32>, frames: Int, lags: Int) -> [Double] {
        var windowed = [Double](repeating: 0, count: frames)
        let half = Double(frames - 1) / 2
        for index in 0..<frames {
            let t = (Double(index) - half) / (half + 1)
            windowed[index] = Double(x[index]) * (1 - t * t)
        }
        var result = [Double](repeating: 0, count: lags + 1)
        windowed.withUnsafeBytes { raw in
            for lag in 0...lags {
                // Four running sums at once, then the tail.
                var sums = SIMD4<Double>()
                var index = lag
                while index + 4 <= frames {
                    sums +=
                        raw.loadUnaligned(fromByteOffset: index * 8, as: SIMD4<Double>.self)
                        * raw.loadUnaligned(fromByteOffset: (index - lag) * 8, as: SIMD4<Double>.self)
                    index += 4
                }
                var sum = sums.sum()
                while index < frames {
                    sum += windowed[index] * windowed[index - lag]
                    index += 1
                }
                result[lag] = sum
            }
        }
        // A little lag windowing and a noise floor keep the recursion stable on pure tones.
        result[0] *= 1.0001
        result[0] += 1
        return result
    }

    /// Levinson–Durbin: for each order 1 through `order`, the coefficients of the samples 1, 2, … back.
    private static func levinsonDurbin(_ r: [Double], order: Int) -> [[Double]] {
        var predictors: [[Double]] = []
        var a = [Double](repeating: 0, count: order + 1)
        var error = r[0]
        for m in 1...order {
            var acc = r[m]
            for k in 1..<m { acc -= a[k] * r[m - k] }
            let reflection = error > 0 ? acc / error : 0
            var next = a
            next[m] = reflection
            for k in 1..<m { next[k] = a[k] - reflection * a[m - k] }
            a = next
            error *= 1 - reflection * reflection
            predictors.append(Array(a[1...m]))
        }
        return predictors
    }
}
