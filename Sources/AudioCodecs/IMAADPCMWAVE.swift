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

/// Decodes WAV IMA ADPCM; by default exactly as FFmpeg's `adpcm_ima_wav` decoder does (its multiply
/// reconstruction included), or with the IMA reference's shift-and-add as Windows, Apple and
/// libsndfile decode. Each block starts from its header.
public struct IMAADPCMWAVEDecoder: AudioDecoder {
    /// The format of the packets decoded.
    public let sourceFormat: StreamDescription
    /// The most frames one packet decodes to.
    public let maximumFramesPerPacket: Int
    /// The arithmetic the decoder reconstructs samples with.
    public let reconstruction: IMA.Reconstruction
    private let blockAlign: Int
    private var states: [IMAChannelState]

    /// A decoder for `format`.
    public init(format: StreamDescription, reconstruction: IMA.Reconstruction = .multiply) throws {
        self.reconstruction = reconstruction
        let channels = Int(format.channelsPerFrame)
        guard channels > 0, format.bytesPerPacket > UInt32(4 * channels),
            Int(format.bytesPerPacket) % (4 * channels) == 0
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

    /// Forgets the state kept between packets (after a seek).
    public mutating func reset() {}

    /// Decodes the packets into interleaved frames; returns the frames written.
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int {
        try decodeBlocks(bytes, packetCount: packetCount, into: output)
    }

    /// Decodes blocks to interleaved Int16 frames.
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, into output: UnsafeMutableBufferPointer<Int16>
    )
        throws -> Int
    {
        try decodeBlocks(bytes, packetCount: packetCount, into: output)
    }

    /// Decodes into Int16 or Float samples (specialized for each, the store inlined).
    private mutating func decodeBlocks<Sample: DecodedSample>(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int,
        into output: UnsafeMutableBufferPointer<Sample>
    ) throws -> Int {
        @inline(__always) func store(_ sample: Int16, _ index: Int) { output[index] = Sample(decoded: sample) }
        let channels = states.count
        let frames = maximumFramesPerPacket
        guard packetCount >= 0, bytes.count >= packetCount * blockAlign else {
            throw AudioFileError.invalidPacket(
                "ima-adpcm: \(packetCount) blocks need \(packetCount * blockAlign) bytes; \(bytes.count) given",
                offset: nil)
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
                IMATables.with(reconstruction) { tables in
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

extension IMAADPCMWAVE {
    /// The block size Microsoft's encoder uses: 256 bytes per channel at 11.025 kHz and below, 512 up
    /// to 22.05 kHz, 1024 above.
    public static func defaultBlockAlign(sampleRate: Double, channels: Int) -> Int {
        (sampleRate > 22050 ? 1024 : sampleRate > 11025 ? 512 : 256) * channels
    }

    /// The stream description of WAV IMA ADPCM with a block size.
    public static func format(sampleRate: Double, channels: UInt32, blockAlign: Int? = nil) -> StreamDescription {
        let align = blockAlign ?? defaultBlockAlign(sampleRate: sampleRate, channels: Int(channels))
        return StreamDescription(
            sampleRate: sampleRate, formatID: .imaADPCMWAVE, bytesPerPacket: UInt32(align),
            framesPerPacket: UInt32(framesPerBlock(blockAlign: align, channels: Int(channels))), bytesPerFrame: 0,
            channelsPerFrame: channels, bitsPerChannel: 0)
    }
}

/// Encodes WAV IMA ADPCM blocks. Each block's header holds its first sample exactly; the codes are
/// chosen for the IMA reference decoder (shift-and-add, as Windows, Apple and libsndfile decode),
/// greedily or by beam search. A final partial block is padded by holding the last sample; the
/// padding is returned as remainder frames so the `fact` chunk can state the true length. With the
/// search, a block's channels are searched at once, one thread each (a channel's block depends only on
/// its own samples and its own last step index).
public struct IMAADPCMWAVEEncoder: Int16BlockEncoder {
    /// The format of the packets made.
    public let destinationFormat: StreamDescription
    /// How the encoder searches.
    public let quality: IMAEncodingQuality
    /// The arithmetic the decoder reconstructs samples with.
    public let reconstruction: IMA.Reconstruction
    private let framesPerBlock: Int
    private var coders: [ChannelCoder]
    private var started = false
    var blocks: BlockAccumulator

    /// `format` gives the rate, channels and block size (see ``IMAADPCMWAVE/format(sampleRate:channels:blockAlign:)``).
    public init(
        format: StreamDescription, quality: IMAEncodingQuality = .balanced,
        reconstruction: IMA.Reconstruction = .shiftAndAdd
    ) throws {
        _ = try IMAADPCMWAVEDecoder(format: format)  // validates the block layout
        destinationFormat = format
        self.quality = quality
        self.reconstruction = reconstruction
        framesPerBlock = Int(format.framesPerPacket)
        let framesPerBlock = framesPerBlock
        coders = (0..<Int(format.channelsPerFrame)).map { _ in
            ChannelCoder(framesPerBlock: framesPerBlock, quality: quality)
        }
        blocks = BlockAccumulator(framesPerBlock: framesPerBlock, channels: Int(format.channelsPerFrame))
    }

    /// Encodes interleaved 16-bit frames; returns the blocks appended.
    public mutating func encode(int16 frames: UnsafeBufferPointer<Int16>, into output: inout [UInt8]) -> Int {
        withBlocks { encoder, blocks in blocks.add(frames) { encoder.encodeBlock($0, into: &output) } }
    }

    /// Encodes one block of interleaved frames.
    mutating func encodeBlock(_ frames: UnsafeBufferPointer<Int16>, into output: inout [UInt8]) {
        let channels = coders.count
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: Int(destinationFormat.bytesPerPacket)))
        let (started, reconstruction) = (started, reconstruction)
        output.withUnsafeMutableBytes { bytes in
            // Never empty: a block was appended above.
            guard let base = bytes.baseAddress else { return }
            coders.withUnsafeMutableBufferPointer { coders in
                nonisolated(unsafe) let (base, coders, frames) = (base, coders, frames)
                @Sendable func encode(_ channel: Int) {
                    coders[channel].encode(
                        frames, channel: channel, channels: channels, started: started,
                        reconstruction: reconstruction, into: base + start)
                }
                // A search's channels are independent of each other: each on a thread of its own.
                if case .search = quality, channels > 1 {
                    (0..<channels).parallelMap(encode)
                } else {
                    for channel in 0..<channels { encode(channel) }
                }
            }
        }
        self.started = true
    }

    /// One channel's encoder: its last step index, its search, and room for one block.
    struct ChannelCoder {
        private let framesPerBlock: Int
        private var stepIndex: Int32 = 0
        private let search: IMABeamSearch?
        private var samples: [Int32]
        private var codes: [UInt8]
        private var seeds = [IMAChannelState](repeating: IMAChannelState(), count: 16)

        init(framesPerBlock: Int, quality: IMAEncodingQuality) {
            self.framesPerBlock = framesPerBlock
            samples = Array(repeating: 0, count: framesPerBlock)
            codes = Array(repeating: 0, count: framesPerBlock)
            if case .search(let width) = quality {
                search = IMABeamSearch(width: width, maximumLength: framesPerBlock)
            } else {
                search = nil
            }
        }

        /// Encodes this channel of the block whose interleaved frames are `frames`, writing its 4-byte
        /// header and its 4-byte groups of codes into the block at `block`.
        mutating func encode(
            _ frames: UnsafeBufferPointer<Int16>, channel: Int, channels: Int, started: Bool,
            reconstruction: IMA.Reconstruction, into block: UnsafeMutableRawPointer
        ) {
            for position in 0..<framesPerBlock { samples[position] = Int32(frames[position * channels + channel]) }
            let headerIndex = encodeSamples(started: started, reconstruction: reconstruction)
            let first = UInt16(bitPattern: Int16(truncatingIfNeeded: samples[0]))
            block.storeBytes(of: UInt8(first & 0xFF), toByteOffset: 4 * channel, as: UInt8.self)
            block.storeBytes(of: UInt8(first >> 8), toByteOffset: 4 * channel + 1, as: UInt8.self)
            block.storeBytes(of: UInt8(headerIndex), toByteOffset: 4 * channel + 2, as: UInt8.self)
            block.storeBytes(of: 0, toByteOffset: 4 * channel + 3, as: UInt8.self)
            for group in 0..<(framesPerBlock - 1) / 8 {
                let base = 4 * channels + (group * channels + channel) * 4
                for byte in 0..<4 {
                    block.storeBytes(
                        of: codes[group * 8 + 2 * byte] | codes[group * 8 + 2 * byte + 1] << 4,
                        toByteOffset: base + byte, as: UInt8.self)
                }
            }
        }

        /// Chooses the header step index and codes (for samples 1...) in `codes`; returns the index.
        private mutating func encodeSamples(started: Bool, reconstruction: IMA.Reconstruction) -> Int32 {
            let count = framesPerBlock - 1
            let framesPerBlock = framesPerBlock
            let estimate = samples.withUnsafeBufferPointer { samples in
                AppleIMA4.estimatedStepIndex({ samples[$0] }, count: min(framesPerBlock, 64))
            }
            let first = samples[0]
            let previous = started ? stepIndex : estimate
            guard let beam = search else {
                var state = IMAChannelState(predictor: first, stepIndex: previous)
                samples.withUnsafeBufferPointer { samples in
                    codes.withUnsafeMutableBufferPointer { codes in
                        IMACoder.with(reconstruction) { coder in
                            _ = coder.encodeGreedy({ samples[$0 + 1] }, count: count, state: &state) { codes[$0] = $1 }
                        }
                    }
                }
                stepIndex = state.stepIndex
                return previous
            }
            var seedCount = 0
            for offset in stride(from: -15, through: 12, by: 3) {
                // The first candidate goes on from the previous block's step index; the rest bracket an estimate.
                let candidate = offset == -15 ? previous : estimate + Int32(offset)
                let state = IMAChannelState(predictor: first, stepIndex: min(max(candidate, 0), IMA.maximumStepIndex))
                if !seeds[0..<seedCount].contains(state) {
                    seeds[seedCount] = state
                    seedCount += 1
                }
            }
            let result = samples.withUnsafeBufferPointer { samples in
                codes.withUnsafeMutableBufferPointer { codes in
                    seeds.withUnsafeBufferPointer { seeds in
                        IMACoder.with(reconstruction) { coder in
                            beam.search(
                                { samples[$0 + 1] }, count: count,
                                seeds: UnsafeBufferPointer(rebasing: seeds[0..<seedCount]), coder: coder
                            ) { codes[$0] = $1 }
                        }
                    }
                }
            }
            stepIndex = result.state.stepIndex
            return seeds[result.seed].stepIndex
        }
    }
}
