import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioFormats
import FileAccess
import Synchronization

/// An encode made only to be measured: a signal (the float CAF a loudness normalizer keeps) cut into parts encoded at
/// once, one a core, each decoded back onto the signal's own frames, so the result lines up with the signal sample
/// for sample as a whole encode read back does. Each part is encoded with ``overlapSeconds`` more on either side,
/// decoded and dropped: at every frame kept the encoder has the programme's history behind it (its psychoacoustic
/// state, its bit reservoir) and the programme ahead of it, not a start or an end. What the encoder does to the
/// signal, its true-peak overshoot and its loudness offset, then measures as a whole encode's does, in a part's time;
/// the packets differ at the joins, so the output is never kept (a level it shows meets is encoded whole).
struct TrialEncode {
    /// The encoder, as the output's own is made.
    let settings: EncoderSettings
    let registry: AudioCodecRegistry

    /// The trial of the encoder `settings` name for `output`, given the float CAF at `signal` (an HLS rendition's
    /// normalized signal, at the rendition's rate and layout).
    init(encoding signal: String, as output: String, settings: ConversionSettings) throws {
        let plan = try ConversionPlan(
            source: SourceReader(path: signal),
            destination: ConversionPlan.Destination(output: output, settings: settings),
            settings: settings)
        guard let encoder = plan.encoderSettings else {
            throw AudioFileError.illegalOperation("'\(output)': a trial encode of an output with no encoder")
        }
        self.init(settings: encoder, registry: plan.registry)
    }

    init(settings: EncoderSettings, registry: AudioCodecRegistry) {
        self.settings = settings
        self.registry = registry
    }

    /// The seconds each part is encoded past its own frames on either side, and dropped.
    static let overlapSeconds = 2.0
    /// The shortest part worth a core, seconds.
    static let leastPartSeconds = 20.0

    /// The parts a signal of `seconds` is encoded in: one a core, at most 8, each at least ``leastPartSeconds``
    /// long; 1 (no trial: a whole encode costs no more) on one core.
    static func parts(seconds: Double, cores: Int = activeProcessorCount()) -> Int {
        // (A length from a hostile header may be past any Int, or not a number.)
        guard seconds >= 2 * leastPartSeconds else { return 1 }
        return max(1, min(cores, 8, Int(min(seconds / leastPartSeconds, 8))))
    }

    /// Encodes the float CAF at `signal` in `parts` parts at once and writes their decode, on the signal's frames,
    /// to a float CAF at `output`; `progress` is told the frames encoded (from any thread), as `activity`.
    func decode(
        signal: String, into output: String, parts: Int,
        progress: (@Sendable (ConversionProgress) -> Void)? = nil, activity: String = "a trial encode"
    ) throws {
        let reader = try SourceReader(path: signal)
        guard let total = reader.frameCount, total > 0 else {
            throw AudioFileError.illegalOperation("'\(signal)': a trial encode needs a signal of known length")
        }
        let format = StreamDescription.linearPCM(
            sampleRate: reader.sampleRate, channels: UInt32(reader.channels), bitsPerChannel: 32, isFloat: true)
        let overlap = Int64(Self.overlapSeconds * reader.sampleRate)
        let count = Int64(max(1, parts))
        let paths = try (0..<count).map { _ in
            try createTemporaryFile(beside: TemporaryFiles.folder + "/afkit-trial")
        }
        defer { paths.forEach(TemporaryFiles.discard) }
        // (A stream header is a file's, not the stream's: LAME's tag frame, decoded, put 576 frames of silence before
        // the signal.)
        var bare = settings
        bare.writesStreamHeader = false
        let (settings, registry) = (bare, registry)
        let encoded = Atomic<Int64>(0)
        let rate = reader.sampleRate
        let activity = activity + " in \(count) parts at once"
        _ = try (0..<count).parallelMap(width: Int(count)) { part in
            let kept = (total * part / count)..<(total * (part + 1) / count)
            try Self.encode(
                signal: signal, frames: kept, overlap: overlap, total: total, format: format,
                encoder: registry.encoder(settings), registry: registry, into: paths[Int(part)]
            ) { frames in
                let done = encoded.wrappingAdd(frames, ordering: .relaxed).newValue
                progress?(
                    ConversionProgress(framesWritten: done, expectedFrames: total, sampleRate: rate, activity: activity)
                )
            }
        }
        // The parts, end to end.
        let writer = try AudioFileWriter(path: output, fileType: .caf, format: format)
        do {
            for path in paths {
                try SourceReader(path: path).forEachBlock { samples, _ in
                    try writer.writePackets(UnsafeRawBufferPointer(samples))
                }
            }
            try writer.close()
        } catch {
            writer.cancel()
            throw error
        }
    }

    /// One part: the signal's `frames`, with `overlap` more on either side, through `encoder` and its decoder; the
    /// decode of `frames` alone written to a float CAF at `path`.
    private static func encode(
        signal: String, frames kept: Range<Int64>, overlap: Int64, total: Int64, format: StreamDescription,
        encoder made: any AudioEncoder, registry: AudioCodecRegistry, into path: String,
        encoded: (Int64) -> Void
    ) throws {
        var encoder = made
        let reader = try SourceReader(path: signal)
        let first = max(0, kept.lowerBound - overlap)
        let end = min(total, kept.upperBound + overlap)
        try reader.seek(toFrame: first)
        var decoder = try registry.decoder(for: encoder.destinationFormat, magicCookie: encoder.magicCookie)
        let channels = reader.channels
        // Decoded frames before the kept ones: the encoder's priming the decoder gives, and the overlap before.
        var skip = Int64(encoder.primingFrames - decoder.framesDroppedAtStart) + (kept.lowerBound - first)
        var left = Int64(kept.count)
        let writer = try AudioFileWriter(path: path, fileType: .caf, format: format)
        var packets = EncodedPackets()
        var decoded: [Float] = []
        func drain() throws {
            guard packets.packetCount > 0 else { return }
            let room = packets.packetCount * decoder.maximumFramesPerPacket * channels
            if decoded.count < room { decoded = Array(repeating: 0, count: room) }
            let made = try packets.bytes.withUnsafeBytes { bytes in
                try packets.descriptions.withUnsafeBufferPointer { descriptions in
                    try decoded.withUnsafeMutableBufferPointer {
                        try decoder.decode(
                            bytes, packetCount: packets.packetCount,
                            descriptions: descriptions.isEmpty ? nil : descriptions, into: $0)
                    }
                }
            }
            packets.removeAll()
            let dropped = Int(min(Int64(made), skip))
            skip -= Int64(dropped)
            let taken = Int(min(Int64(made - dropped), left))
            guard taken > 0 else { return }
            left -= Int64(taken)
            try decoded.withUnsafeBytes {
                try writer.writePackets(
                    UnsafeRawBufferPointer(
                        rebasing: $0[(dropped * channels * 4)..<((dropped + taken) * channels * 4)]))
            }
        }
        do {
            var block: [Float] = []
            var position = first
            while position < end {
                block.removeAll(keepingCapacity: true)
                let want = Int(min(16384, end - position))
                let got = try reader.read(maximum: want, into: &block)
                guard got > 0 else { break }
                position += Int64(got)
                try block.withUnsafeBufferPointer { try encoder.encode($0, into: &packets) }
                try drain()
                let fresh = min(kept.upperBound, position) - max(kept.lowerBound, position - Int64(got))
                if fresh > 0 { encoded(fresh) }
            }
            _ = try encoder.finish(into: &packets)
            try drain()
            guard left == 0 else {
                throw AudioFileError.illegalOperation(
                    "'\(signal)': a trial encode's part decoded \(left) frames short of its \(kept.count)")
            }
            try writer.close()
        } catch {
            writer.cancel()
            throw error
        }
    }
}
