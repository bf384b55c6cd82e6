/// Gathers interleaved 16-bit frames into whole blocks (IMA4 packets, WAV IMA ADPCM blocks) across
/// calls, and pads a last partial block by holding its last frame.
struct BlockAccumulator {
    let framesPerBlock: Int
    let channels: Int
    private var pending: [Int16] = []

    init(framesPerBlock: Int, channels: Int) {
        self.framesPerBlock = framesPerBlock
        self.channels = channels
        pending.reserveCapacity(framesPerBlock * channels)
    }

    /// Frames held for a block not yet whole.
    var pendingFrames: Int { pending.count / channels }

    /// Calls `encode` for each whole block of `frames` (with what was pending); returns the blocks.
    mutating func add(_ frames: UnsafeBufferPointer<Int16>, _ encode: (UnsafeBufferPointer<Int16>) -> Void) -> Int {
        let blockSamples = framesPerBlock * channels
        var index = 0
        var blocks = 0
        if !pending.isEmpty {
            let take = min(blockSamples - pending.count, frames.count)
            pending.append(contentsOf: frames[0..<take])
            index = take
            if pending.count == blockSamples {
                pending.withUnsafeBufferPointer(encode)
                pending.removeAll(keepingCapacity: true)
                blocks += 1
            }
        }
        while frames.count - index >= blockSamples {
            encode(UnsafeBufferPointer(rebasing: frames[index..<index + blockSamples]))
            index += blockSamples
            blocks += 1
        }
        pending.append(contentsOf: frames[index...])
        return blocks
    }

    /// Encodes a last partial block, padded by holding its last frame; returns the padding frames (0 if
    /// there was nothing pending).
    mutating func finish(_ encode: (UnsafeBufferPointer<Int16>) -> Void) -> Int {
        guard !pending.isEmpty else { return 0 }
        let frames = pending.count / channels
        let last = Array(pending[(frames - 1) * channels..<frames * channels])
        while pending.count < framesPerBlock * channels { pending += last }
        pending.withUnsafeBufferPointer(encode)
        pending.removeAll(keepingCapacity: true)
        return framesPerBlock - frames
    }
}

/// An encoder of blocks of 16-bit samples (IMA4 packets, WAV IMA ADPCM blocks): the Float32 entry point
/// rounds and clips to them, the accumulator gathers them into blocks, and the last block is padded.
protocol Int16BlockEncoder: ConstantPacketEncoder {
    /// Frames gathered into blocks across calls.
    var blocks: BlockAccumulator { get set }
    /// Appends one block's packet, encoded from its interleaved frames.
    mutating func encodeBlock(_ frames: UnsafeBufferPointer<Int16>, into output: inout [UInt8])
    /// Encodes interleaved 16-bit frames; returns the packets appended.
    mutating func encode(int16 frames: UnsafeBufferPointer<Int16>, into output: inout [UInt8]) -> Int
}

extension Int16BlockEncoder {
    /// Runs `body` with the accumulator moved out of the encoder, so its buffer is not copied while the
    /// encoder writes blocks.
    mutating func withBlocks<Result>(_ body: (inout Self, inout BlockAccumulator) -> Result) -> Result {
        var accumulator = blocks
        blocks = BlockAccumulator(framesPerBlock: 0, channels: 1)
        defer { blocks = accumulator }
        return body(&self, &accumulator)
    }

    /// Encodes what is left, padded to a whole packet; returns the packets made and the padding frames.
    public mutating func finish(into output: inout [UInt8]) throws -> (packets: Int, remainderFrames: Int) {
        let padding = withBlocks { encoder, blocks in blocks.finish { encoder.encodeBlock($0, into: &output) } }
        return (padding > 0 ? 1 : 0, padding)
    }

    /// Encodes interleaved frames, appending the whole packets they complete; returns how many.
    public mutating func encode(_ frames: UnsafeBufferPointer<Float>, into output: inout [UInt8]) throws -> Int {
        var samples = [Int16](repeating: 0, count: frames.count)
        for index in frames.indices { samples[index] = int16Sample(frames[index]) }
        return samples.withUnsafeBufferPointer { encode(int16: $0, into: &output) }
    }
}
