import AudioFormats

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The cores this process may use.
package func activeProcessorCount() -> Int {
    max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
}

/// Apple IMA4 (`ima4`): packets of 64 frames per channel, each channel's 34 bytes in turn. A
/// channel's block is a big-endian 16-bit header (the top 9 bits of the predictor, then a 7-bit
/// step index) and 32 bytes of 4-bit codes, low nibble first.
public enum AppleIMA4 {
    /// Frames in a packet of each channel.
    public static let framesPerPacket = 64
    /// Bytes of one channel's block in a packet: a 2-byte header and 32 bytes of codes.
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
    /// The format of the packets decoded.
    public let sourceFormat: StreamDescription
    /// The most frames one packet decodes to.
    public var maximumFramesPerPacket: Int { AppleIMA4.framesPerPacket }
    private var states: [IMAChannelState]
    /// Block headers whose step index was out of range and clamped.
    public private(set) var clampedHeaderCount = 0

    /// A decoder for `format`.
    public init(format: StreamDescription) {
        sourceFormat = format
        states = Array(repeating: IMAChannelState(), count: Int(format.channelsPerFrame))
    }

    /// Forgets the state kept between packets (after a seek).
    public mutating func reset() {
        for index in states.indices { states[index] = IMAChannelState() }
    }

    /// Decodes packets to interleaved Int16 frames; `output` holds `packetCount × 64` frames.
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, into output: UnsafeMutableBufferPointer<Int16>
    )
        throws -> Int
    {
        try decodePackets(bytes, packetCount: packetCount, into: output)
    }

    /// Decodes the packets into interleaved frames; returns the frames written.
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int {
        try decodePackets(bytes, packetCount: packetCount, into: output)
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

    /// Decodes into Int16 or Float samples (generic rather than a closure, so each is specialized
    /// and the store inlined into the decode loop).
    private mutating func decodePackets<Sample: DecodedSample>(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, into output: UnsafeMutableBufferPointer<Sample>
    ) throws -> Int {
        @inline(__always) func store(_ sample: Int16, _ index: Int) { output[index] = Sample(decoded: sample) }
        let channels = states.count
        let packetSize = AppleIMA4.bytesPerChannelBlock * channels
        guard packetCount >= 0, bytes.count >= packetCount * packetSize else {
            throw AudioFileError.invalidPacket(
                "ima4: \(packetCount) packets need \(packetCount * packetSize) bytes; \(bytes.count) given", offset: nil
            )
        }
        var clamped = 0
        states.withUnsafeMutableBufferPointer { states in
            IMATables.with(.shiftAndAdd) { tables in
                /// The state a channel's block starts from (a step index out of range is counted).
                @inline(__always) func start(_ block: Int, channel: Int, clamped: inout Int) -> IMAChannelState {
                    let header = UInt16(bytes[block]) << 8 | UInt16(bytes[block + 1])
                    clamped &+= Int32(header & 0x7F) > IMA.maximumStepIndex ? 1 : 0
                    return AppleIMA4.decoderState(after: header, from: states[channel])
                }
                for packet in 0..<packetCount {
                    // Channels two at a time: each channel's decoder is a chain of dependent table
                    // lookups, and two chains in one loop run side by side.
                    var channel = 0
                    while channel + 1 < channels {
                        let block = packet * packetSize + channel * AppleIMA4.bytesPerChannelBlock
                        let other = block + AppleIMA4.bytesPerChannelBlock
                        var state = start(block, channel: channel, clamped: &clamped)
                        var otherState = start(other, channel: channel + 1, clamped: &clamped)
                        var out = packet * 64 * channels + channel
                        for byte in 2..<AppleIMA4.bytesPerChannelBlock {
                            let value = bytes[block + byte], otherValue = bytes[other + byte]
                            store(tables.expand(&state, value & 0x0F), out)
                            store(tables.expand(&otherState, otherValue & 0x0F), out + 1)
                            out += channels
                            store(tables.expand(&state, value >> 4), out)
                            store(tables.expand(&otherState, otherValue >> 4), out + 1)
                            out += channels
                        }
                        states[channel] = state
                        states[channel + 1] = otherState
                        channel += 2
                    }
                    if channel < channels {
                        let block = packet * packetSize + channel * AppleIMA4.bytesPerChannelBlock
                        var state = start(block, channel: channel, clamped: &clamped)
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

extension AppleIMA4 {
    /// The state a decoder in `state` is in after reading block header `header`: its own when the
    /// header agrees (same step index, predictor within 0x7F), else the header's (a step index past 88,
    /// which never agrees, clamped to 88).
    @inline(__always)
    static func decoderState(after header: UInt16, from state: IMAChannelState) -> IMAChannelState {
        let predictor = Int32(Int16(bitPattern: header)) & ~0x7F
        let stepIndex = Int32(header & 0x7F)
        if stepIndex == state.stepIndex && abs(predictor - state.predictor) <= 0x7F { return state }
        return IMAChannelState(predictor: predictor, stepIndex: min(stepIndex, IMA.maximumStepIndex))
    }

    /// The header that starts a decoder at (`predictor` rounded to its top 9 bits, `stepIndex`).
    static func header(predictor: Int32, stepIndex: Int32) -> UInt16 {
        UInt16(bitPattern: Int16(truncatingIfNeeded: predictor & ~0x7F)) | UInt16(stepIndex)
    }

    /// The step index whose step is nearest the mean absolute change of `count` samples.
    static func estimatedStepIndex(_ samples: (Int) -> Int32, count: Int) -> Int32 {
        var total: Int64 = 0
        for position in 1..<max(count, 2) { total += Int64(abs(samples(position) - samples(position - 1))) }
        let mean = Int32(clamping: total / Int64(max(count - 1, 1)))
        var best: Int32 = 0
        for index in 0..<IMA.stepTable.count
        where abs(IMA.stepTable[index] - mean) < abs(IMA.stepTable[Int(best)] - mean) {
            best = Int32(index)
        }
        return best
    }
}

/// Encodes Apple IMA4, for the decoder Apple and FFmpeg share: each block header carries the
/// decoder's running state (so it decodes on exactly), unless restarting through the header wins.
///
/// A final partial packet is padded by holding the last sample; ``finish(into:)`` returns the padding
/// as remainder frames, so a CAF `pakt` makes the decoded length equal the source's. With the search,
/// the channels of a long run of packets are searched at once, one thread each (a channel's blocks
/// depend only on its own earlier blocks); a mono stream's packets are held until every core can
/// take a run of them (`segmentPackets` or more), the runs after the first searched from a guessed
/// start and then joined (below). Either way the bytes are those of a search packet by packet.
///
/// Joining a run searched from a guess: its blocks are searched again from the true state before it,
/// one by one, until a block ends in the state the guessed search ended that block in; from there on
/// the guessed search's blocks are the true ones (a block depends only on the state before it and its
/// samples). A search restarts through the header often, so that takes one or two blocks (measured
/// on the test signals, BENCHMARKS.md 2026-11-27).
public struct AppleIMA4Encoder: Int16BlockEncoder {
    /// The format of the packets made.
    public let destinationFormat: StreamDescription
    /// How the encoder searches.
    public let quality: IMAEncodingQuality
    private var coders: [ChannelCoder]
    var blocks: BlockAccumulator
    /// Whole packets a call must hold before its channels are searched in parallel.
    private static let parallelPackets = 32
    /// The shortest run of packets a core takes from a mono stream.
    static let segmentPackets = 256
    /// A mono search's whole packets' samples, held until there are enough for every core.
    private var held: [Int16] = []
    /// Channel coders for the runs after the first, kept between runs.
    private var spares: [ChannelCoder] = []
    /// The cores a mono search shares its packets among (1: packet by packet, nothing held).
    private let cores: Int

    /// An encoder making `format`.
    public init(format: StreamDescription, quality: IMAEncodingQuality = .balanced) {
        self.init(format: format, quality: quality, cores: activeProcessorCount())
    }

    /// An encoder making `format` that shares a mono search's packets among `cores` cores.
    package init(format: StreamDescription, quality: IMAEncodingQuality, cores: Int) {
        destinationFormat = StreamDescription.appleIMA4(
            sampleRate: format.sampleRate, channels: format.channelsPerFrame)
        self.quality = quality
        coders = (0..<Int(format.channelsPerFrame)).map { _ in ChannelCoder(quality: quality) }
        blocks = BlockAccumulator(framesPerBlock: AppleIMA4.framesPerPacket, channels: Int(format.channelsPerFrame))
        if case .search = quality, format.channelsPerFrame == 1 {
            self.cores = max(cores, 1)
        } else {
            self.cores = 1
        }
    }

    /// Encodes interleaved 16-bit frames; returns the packets appended.
    public mutating func encode(int16 frames: UnsafeBufferPointer<Int16>, into output: inout [UInt8]) -> Int {
        guard cores > 1 else {
            return withBlocks { encoder, accumulator in
                encoder.encode(frames, gatheredIn: &accumulator, into: &output)
            }
        }
        _ = withBlocks { encoder, accumulator in accumulator.add(frames) { encoder.held.append(contentsOf: $0) } }
        guard held.count >= Self.segmentPackets * AppleIMA4.framesPerPacket * cores else { return 0 }
        return encodeHeld(into: &output)
    }

    /// Encodes what is left (held packets, then a partial packet padded by holding its last sample);
    /// returns the packets appended and the padding frames.
    public mutating func finish(into output: inout [UInt8]) throws -> (packets: Int, remainderFrames: Int) {
        guard cores > 1 else {
            let padding = withBlocks { encoder, blocks in blocks.finish { encoder.encodeBlock($0, into: &output) } }
            return (padding > 0 ? 1 : 0, padding)
        }
        let padding = withBlocks { encoder, blocks in blocks.finish { encoder.held.append(contentsOf: $0) } }
        return (encodeHeld(into: &output), padding)
    }

    /// Encodes the held packets of a mono search, a run for each core when there are enough (see the
    /// type's description); returns how many.
    private mutating func encodeHeld(into output: inout [UInt8]) -> Int {
        let size = AppleIMA4.bytesPerChannelBlock
        let length = AppleIMA4.framesPerPacket
        let packets = held.count / length
        let runs = max(1, min(cores, packets / Self.segmentPackets))
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: packets * size))
        let bounds = (0...runs).map { $0 * packets / runs }
        while spares.count < runs - 1 { spares.append(ChannelCoder(quality: quality)) }
        // Each run's coder; those after the first start from a fresh decoder, a guess.
        var workers =
            [coders[0]]
            + spares[0..<runs - 1].map { coder in
                var coder = coder
                coder.resume(from: IMAChannelState())
                return coder
            }
        // The state each guessed run's blocks end in.
        var ends = [IMAChannelState](repeating: IMAChannelState(), count: packets)
        held.withUnsafeBufferPointer { samples in
            output.withUnsafeMutableBytes { bytes in
                // Never empty: whole packets were appended above.
                guard let base = bytes.baseAddress else { return }
                workers.withUnsafeMutableBufferPointer { workers in
                    ends.withUnsafeMutableBufferPointer { ends in
                        nonisolated(unsafe) let (base, workers, ends, samples) = (base, workers, ends, samples)
                        (0..<runs).parallelMap { run in
                            for packet in bounds[run]..<bounds[run + 1] {
                                ends[packet] = workers[run].encode(
                                    UnsafeBufferPointer(rebasing: samples[(packet * length)...]), channel: 0,
                                    channels: 1, into: base + start + packet * size)
                            }
                        }
                    }
                }
                // Join each guessed run to the true state before it.
                coders[0] = workers[0]
                for run in 1..<runs {
                    for packet in bounds[run]..<bounds[run + 1] {
                        let end = coders[0].encode(
                            UnsafeBufferPointer(rebasing: samples[(packet * length)...]), channel: 0, channels: 1,
                            into: base + start + packet * size)
                        guard end != ends[packet] else {
                            coders[0].resume(from: ends[bounds[run + 1] - 1])
                            break
                        }
                    }
                }
            }
        }
        for run in 1..<runs { spares[run - 1] = workers[run] }
        held.removeAll(keepingCapacity: true)
        return packets
    }

    private mutating func encode(
        _ frames: UnsafeBufferPointer<Int16>, gatheredIn accumulator: inout BlockAccumulator, into output: inout [UInt8]
    ) -> Int {
        let channels = coders.count
        let packetSamples = AppleIMA4.framesPerPacket * channels
        // A packet begun by an earlier call is completed first; whole packets after it go to the channels at once.
        let completing =
            accumulator.pendingFrames > 0
            ? min(frames.count, (AppleIMA4.framesPerPacket - accumulator.pendingFrames) * channels) : 0
        let whole = (frames.count - completing) / packetSamples
        guard case .search = quality, channels > 1, whole >= Self.parallelPackets else {
            return accumulator.add(frames) { encodeBlock($0, into: &output) }
        }
        var packets = accumulator.add(UnsafeBufferPointer(rebasing: frames[0..<completing])) {
            encodeBlock($0, into: &output)
        }
        let start = output.count
        let packetSize = AppleIMA4.bytesPerChannelBlock * channels
        output.append(contentsOf: repeatElement(0, count: whole * packetSize))
        output.withUnsafeMutableBytes { bytes in
            // Never empty: whole packets were appended above.
            guard let base = bytes.baseAddress else { return }
            coders.withUnsafeMutableBufferPointer { coders in
                nonisolated(unsafe) let (base, coders, frames) = (base, coders, frames)
                (0..<channels).parallelMap { channel in
                    for packet in 0..<whole {
                        let samples = UnsafeBufferPointer(rebasing: frames[(completing + packet * packetSamples)...])
                        coders[channel].encode(
                            samples, channel: channel, channels: channels,
                            into: base + start + packet * packetSize + channel * AppleIMA4.bytesPerChannelBlock)
                    }
                }
            }
        }
        packets += whole
        packets += accumulator.add(UnsafeBufferPointer(rebasing: frames[(completing + whole * packetSamples)...])) {
            encodeBlock($0, into: &output)
        }
        return packets
    }

    /// Encodes one packet of 64 interleaved frames.
    mutating func encodeBlock(_ frames: UnsafeBufferPointer<Int16>, into output: inout [UInt8]) {
        let channels = coders.count
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: AppleIMA4.bytesPerChannelBlock * channels))
        output.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            for channel in 0..<channels {
                coders[channel].encode(
                    frames, channel: channel, channels: channels,
                    into: base + start + channel * AppleIMA4.bytesPerChannelBlock)
            }
        }
    }

    /// One channel's encoder: its decoder's running state, its search, and room for one block.
    struct ChannelCoder {
        private var running = IMAChannelState()
        private let search: IMABeamSearch?
        private var block: [Int32] = Array(repeating: 0, count: AppleIMA4.framesPerPacket)
        private var codes: [UInt8] = Array(repeating: 0, count: AppleIMA4.framesPerPacket)
        private var seedStates = [IMAChannelState](repeating: IMAChannelState(), count: 16)
        private var seedHeaders = [UInt16](repeating: 0, count: 16)
        private var seedCount = 0

        init(quality: IMAEncodingQuality) {
            if case .search(let width) = quality {
                search = IMABeamSearch(width: width, maximumLength: AppleIMA4.framesPerPacket)
            } else {
                search = nil
            }
        }

        /// Continues from a decoder state (the state the last block ended in).
        mutating func resume(from state: IMAChannelState) { running = state }

        /// Encodes this channel's block of the packet whose interleaved frames start `frames`, writing its
        /// 34 bytes (header, then codes low nibble first) at `output`; returns the state it ends in.
        @discardableResult
        mutating func encode(
            _ frames: UnsafeBufferPointer<Int16>, channel: Int, channels: Int,
            into output: UnsafeMutableRawPointer
        ) -> IMAChannelState {
            for position in 0..<AppleIMA4.framesPerPacket {
                block[position] = Int32(frames[position * channels + channel])
            }
            let (header, state) = encodeBlock()
            running = state
            output.storeBytes(of: UInt8(header >> 8), as: UInt8.self)
            output.storeBytes(of: UInt8(header & 0xFF), toByteOffset: 1, as: UInt8.self)
            for pair in 0..<AppleIMA4.framesPerPacket / 2 {
                output.storeBytes(
                    of: codes[2 * pair] | codes[2 * pair + 1] << 4, toByteOffset: 2 + pair, as: UInt8.self)
            }
            return state
        }

        /// Chooses the header and codes for the block in `block`, leaving codes in `codes`.
        private mutating func encodeBlock() -> (header: UInt16, state: IMAChannelState) {
            let running = self.running
            let count = AppleIMA4.framesPerPacket
            let first = block[0]
            var estimate: Int32 {
                block.withUnsafeBufferPointer { block in AppleIMA4.estimatedStepIndex({ block[$0] }, count: count) }
            }
            let continuing = AppleIMA4.header(predictor: running.predictor, stepIndex: running.stepIndex)
            guard let beam = search else {
                // Fast: decode on from the running state; a fresh decoder starts at the first sample.
                let header =
                    running == IMAChannelState() ? AppleIMA4.header(predictor: first, stepIndex: estimate) : continuing
                var state = AppleIMA4.decoderState(after: header, from: running)
                block.withUnsafeBufferPointer { block in
                    codes.withUnsafeMutableBufferPointer { codes in
                        IMACoder.with(.shiftAndAdd) { coder in
                            _ = coder.encodeGreedy({ block[$0] }, count: count, state: &state) { codes[$0] = $1 }
                        }
                    }
                }
                return (header, state)
            }
            // Search: from the running state, or restarted by the header at step indices around an estimate.
            seedCount = 0
            addSeed(continuing, from: running)
            let center = estimate
            for offset in stride(from: -12, through: 12, by: 3) {
                addSeed(
                    AppleIMA4.header(
                        predictor: first, stepIndex: min(max(center + Int32(offset), 0), IMA.maximumStepIndex)),
                    from: running)
            }
            let seeds = seedCount
            let result = block.withUnsafeBufferPointer { block in
                codes.withUnsafeMutableBufferPointer { codes in
                    seedStates.withUnsafeBufferPointer { states in
                        IMACoder.with(.shiftAndAdd) { coder in
                            beam.search(
                                { block[$0] }, count: count, seeds: UnsafeBufferPointer(rebasing: states[0..<seeds]),
                                coder: coder
                            ) { codes[$0] = $1 }
                        }
                    }
                }
            }
            return (seedHeaders[result.seed], result.state)
        }

        private mutating func addSeed(_ header: UInt16, from running: IMAChannelState) {
            let state = AppleIMA4.decoderState(after: header, from: running)
            for index in 0..<seedCount where seedStates[index] == state { return }
            seedStates[seedCount] = state
            seedHeaders[seedCount] = header
            seedCount += 1
        }
    }
}

extension AppleIMA4Decoder: IntegerAudioDecoder {
    /// Native 16-bit integers.
    public var decodedLayout: PCMLayout { PCMLayout(nativeIntegerWidth: 2, bits: 16) }

    /// Decodes packets to interleaved native Int16 frames.
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        integersInto output: UnsafeMutableRawBufferPointer
    ) throws -> Int {
        try decode(bytes, packetCount: packetCount, into: output.bindMemory(to: Int16.self))
    }
}
