import AudioCodecs
import AudioFormats
internal import CFLAC

/// Encodes FLAC with libFLAC, the reference encoder (as fast as libavcodec's on the 10-minute track and
/// within 1 % of its size: BENCHMARKS.md). Packets are FLAC frames, one per call of libFLAC's
/// write callback; the magic cookie is the 34-byte `STREAMINFO`, completed by libFLAC at the end
/// (MD5 of the samples, total samples, smallest and largest frame), which the writer puts in place of
/// the provisional one.
///
/// The depth is the source's (4 to 24 bits; a floating-point source is written at 24 bits, a lossy
/// one at 16); afconvert's `-q 0...127` maps onto libFLAC's compression levels 0 to 8 (`q / 16`,
/// rounded; level 5, `flac`'s default, when unset).
public final class FLACEncoder: IntegerSampleEncoder {
    /// The format of the packets made.
    public let destinationFormat: StreamDescription
    /// FLAC has no delay.
    public var primingFrames: Int { 0 }
    /// `STREAMINFO`: provisional until ``finish(into:)``, then libFLAC's final one.
    public private(set) var magicCookie: [UInt8]?
    /// The largest packet made, in bytes: a frame of verbatim subframes (a side channel has a bit more).
    public let maximumPacketSize: Int
    /// Bits per sample stored.
    public let bitDepth: Int
    /// The bits of the integers it keeps.
    public var integerBitDepth: Int { bitDepth }
    /// The compression level used (0 to 8).
    public let compressionLevel: Int
    /// What the encoder takes: 1 to 8 channels, any whole rate up to 1,048,575 Hz.
    public static let limits = EncoderLimits(sampleRates: nil, maximumChannels: 8)

    private let engine: UnsafeMutablePointer<FLAC__StreamEncoder>
    private let channels: Int
    private let blockSize: Int
    private var samples: [Int32] = []
    /// Frames libFLAC wrote since the last hand-over: their bytes back to back and their sizes.
    fileprivate var written: [UInt8] = []
    fileprivate var writtenSizes: [Int] = []
    fileprivate var finalStreamInfo: [UInt8]?
    private var sourceFrames: Int64 = 0
    private var packetsMade: Int64 = 0
    private var finished = false

    /// An encoder for `settings`.
    public init(_ settings: EncoderSettings) throws {
        let format = settings.format
        channels = Int(format.channelsPerFrame)
        guard (1...8).contains(channels) else {
            throw AudioFileError.unsupportedDataFormat("flac: FLAC holds 1 to 8 channels, not \(channels)", offset: nil)
        }
        guard format.sampleRate >= 1, format.sampleRate <= 1_048_575, format.sampleRate == format.sampleRate.rounded()
        else {
            throw AudioFileError.unsupportedDataFormat(
                "flac: FLAC holds whole sample rates up to 1048575 Hz, not \(format.sampleRate) Hz", offset: nil)
        }
        let quality = settings.quality ?? 80
        guard (0...127).contains(quality) else {
            throw AudioFileError.unsupportedDataFormat("flac: quality \(quality) is outside 0...127", offset: nil)
        }
        compressionLevel = min(8, (quality + 8) / 16)
        let isFloat = settings.sourceFormat.isLinearPCM && settings.sourceFormat.formatFlags.contains(.isFloat)
        bitDepth = CodecDescriptor.flac.storedDepth(forSourceBits: settings.sourceBitDepth, isFloat: isFloat) ?? 16
        guard let engine = FLAC__stream_encoder_new() else {
            throw AudioFileError.illegalOperation("flac: libFLAC could not make an encoder")
        }
        self.engine = engine
        FLAC__stream_encoder_set_channels(engine, UInt32(channels))
        FLAC__stream_encoder_set_bits_per_sample(engine, UInt32(bitDepth))
        FLAC__stream_encoder_set_sample_rate(engine, UInt32(format.sampleRate))
        FLAC__stream_encoder_set_compression_level(engine, UInt32(compressionLevel))
        // The streamable subset's frame headers state rates up to 655,350 Hz; above, libFLAC must leave it.
        if format.sampleRate > 655_350 { FLAC__stream_encoder_set_streamable_subset(engine, 0) }
        // The block size the presets choose (libFLAC settles it only as the stream starts): 1152 for
        // levels 0 to 2, 4096 above.
        blockSize = compressionLevel <= 2 ? 1152 : 4096
        FLAC__stream_encoder_set_blocksize(engine, UInt32(blockSize))
        maximumPacketSize = blockSize * channels * (bitDepth + 1) / 8 + 64
        magicCookie =
            FLACStreamInfo(
                minimumBlockSize: blockSize, maximumBlockSize: blockSize, minimumFrameSize: 0, maximumFrameSize: 0,
                sampleRate: Int(format.sampleRate), channels: channels, bitsPerSample: bitDepth, totalSamples: 0,
                md5: Array(repeating: 0, count: 16)
            ).bytes
        destinationFormat = .flac(
            sampleRate: format.sampleRate, channels: UInt32(channels), bitDepth: bitDepth,
            framesPerPacket: UInt32(blockSize))
        let status = FLAC__stream_encoder_init_stream(
            engine,
            { _, buffer, bytes, samples, _, client in
                // A call with samples is one whole frame; the metadata libFLAC writes first is not wanted (the
                // writer makes its own), and its final STREAMINFO comes through the metadata callback.
                guard let client, let buffer else { return FLAC__STREAM_ENCODER_WRITE_STATUS_FATAL_ERROR }
                let encoder = Unmanaged<FLACEncoder>.fromOpaque(client).takeUnretainedValue()
                if samples > 0 {
                    encoder.written.append(contentsOf: UnsafeBufferPointer(start: buffer, count: bytes))
                    encoder.writtenSizes.append(bytes)
                }
                return FLAC__STREAM_ENCODER_WRITE_STATUS_OK
            }, nil, nil,
            { _, metadata, client in
                guard let client, let metadata, metadata.pointee.type == FLAC__METADATA_TYPE_STREAMINFO else { return }
                let encoder = Unmanaged<FLACEncoder>.fromOpaque(client).takeUnretainedValue()
                let info = metadata.pointee.data.stream_info
                let md5 = withUnsafeBytes(of: info.md5sum) { Array($0) }
                encoder.finalStreamInfo =
                    FLACStreamInfo(
                        minimumBlockSize: Int(info.min_blocksize), maximumBlockSize: Int(info.max_blocksize),
                        minimumFrameSize: Int(info.min_framesize), maximumFrameSize: Int(info.max_framesize),
                        sampleRate: Int(info.sample_rate), channels: Int(info.channels),
                        bitsPerSample: Int(info.bits_per_sample), totalSamples: Int64(info.total_samples), md5: md5
                    ).bytes
            },
            Unmanaged.passUnretained(self).toOpaque())
        guard status == FLAC__STREAM_ENCODER_INIT_STATUS_OK else {
            throw AudioFileError.unsupportedDataFormat(
                "flac: libFLAC refused \(channels) channels of \(bitDepth) bits at \(Int(format.sampleRate)) Hz "
                    + "(status \(status.rawValue))", offset: nil)
        }
    }

    deinit { FLAC__stream_encoder_delete(engine) }

    /// Encodes interleaved frames, appending the whole packets they complete.
    public func encode(_ frames: UnsafeBufferPointer<Float>, into packets: inout EncodedPackets) throws {
        // Quantized as Apple Lossless's encoder and PCM's are: rounded, clipped, NaN as silence.
        let scale = Double(Int64(1) << (bitDepth - 1))
        if samples.count < frames.count { samples = Array(repeating: 0, count: frames.count) }
        for index in 0..<frames.count {
            samples[index] = Int32(
                truncatingIfNeeded: quantizedSample(Double(frames[index]) * scale, low: -scale, high: scale - 1))
        }
        try process(count: frames.count, into: &packets)
    }

    /// Encodes interleaved integers left-justified in 32 bits, every bit kept.
    public func encode(leftJustified frames: UnsafeBufferPointer<Int32>, into packets: inout EncodedPackets) throws {
        let drop = Int32(32 - bitDepth)
        if samples.count < frames.count { samples = Array(repeating: 0, count: frames.count) }
        for index in 0..<frames.count { samples[index] = frames[index] >> drop }
        try process(count: frames.count, into: &packets)
    }

    /// Ends the stream: libFLAC codes what it holds and gives the final `STREAMINFO`. Returns the frames
    /// the last packet lacks of a whole block.
    public func finish(into packets: inout EncodedPackets) throws -> Int {
        guard !finished else { return 0 }
        finished = true
        guard FLAC__stream_encoder_finish(engine) != 0 else {
            throw AudioFileError.illegalOperation("flac: libFLAC failed to finish the stream")
        }
        handOver(into: &packets)
        if let finalStreamInfo { magicCookie = finalStreamInfo }
        return Int(packetsMade * Int64(blockSize) - sourceFrames)
    }

    private func process(count: Int, into packets: inout EncodedPackets) throws {
        let frames = count / channels
        guard frames > 0 else { return }
        let ok = samples.withUnsafeBufferPointer {
            FLAC__stream_encoder_process_interleaved(engine, $0.baseAddress, UInt32(frames))
        }
        guard ok != 0 else {
            let state = FLAC__stream_encoder_get_state(engine)
            throw AudioFileError.illegalOperation("flac: libFLAC stopped (state \(state.rawValue))")
        }
        sourceFrames += Int64(frames)
        handOver(into: &packets)
    }

    /// Moves the frames libFLAC wrote into `packets`.
    private func handOver(into packets: inout EncodedPackets) {
        guard !writtenSizes.isEmpty else { return }
        written.withUnsafeBytes { bytes in
            var start = 0
            for size in writtenSizes {
                packets.append(packet: UnsafeRawBufferPointer(rebasing: bytes[start..<start + size]))
                start += size
            }
        }
        packetsMade += Int64(writtenSizes.count)
        written.removeAll(keepingCapacity: true)
        writtenSizes.removeAll(keepingCapacity: true)
    }
}
