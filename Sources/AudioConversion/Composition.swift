import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioEngines
import AudioFormats

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sounds joined end to end (`afkit join`, as `sox A B OUT` and FFmpeg's concat) or mixed (`afkit mix`, as
/// `sox -m` and FFmpeg's amix), each with a gain and, mixed, a start time: one source for the conversion pipeline.
///
/// Each part is read by the pipeline's own reader (its valid frames: a lossy file's priming and remainder gone) and
/// brought to the composition's rate and channels by the stage ExtendedAudioFile uses (the channel mix that cannot
/// clip, the resampler), to exactly the length the rates give: joined, the output's frames are the sum of the parts'
/// at the output's rate. The composition then goes through ``AudioConverter`` like any source (cut, fades,
/// loudness, the encoder and writer), read afresh each time the pipeline reads it.
public struct Composition: Sendable {
    /// How the parts come together.
    public enum Kind: String, Sendable {
        /// One after another, with no gap and no overlap.
        case join
        /// Summed, each from its start time.
        case mix
    }

    /// One input and what is done to it.
    public struct Part: Hashable, Sendable {
        /// The file.
        public var path: String
        /// Its gain, dB.
        public var gain = 0.0
        /// Where it starts in the mix (at the composition's rate); a join ignores it.
        public var start = EditTime.seconds(0)

        /// `path` at unity gain from the start.
        public init(path: String, gain: Double = 0, start: EditTime = .seconds(0)) {
            self.path = path
            self.gain = gain
            self.start = start
        }
    }

    /// A note about one part: its file, and what is said of it.
    public struct PartNote: Hashable, Sendable, CustomStringConvertible {
        /// The part's file.
        public var path: String
        /// What is said of it, without its name.
        public var text: String

        /// The note as one line of text, naming the file first.
        public var description: String { "'\(path)': \(text)" }
    }

    /// What failed in one part: the part's file, and the error reading it (whose message may name the file too).
    /// Every error of a part's reading is one of these, so a command names the part (never the output) as the file
    /// the error is about.
    public struct PartError: Error, CustomStringConvertible {
        /// The part's file.
        public var path: String
        /// What failed.
        public var error: AudioFileError

        /// The error naming the file first, once.
        public var description: String {
            let text = "\(error)"
            return text.hasPrefix(path) || text.hasPrefix("'\(path)'") ? text : "'\(path)': \(text)"
        }
    }

    /// How the parts come together.
    public let kind: Kind
    /// The parts, in the order given.
    public let parts: [Part]
    /// What the composed frames stand for: linear PCM at the composition's rate and channels, of the deepest
    /// part's samples (float where a part is float), so the encoder dithers as it would for the deepest part.
    public let format: StreamDescription
    /// The composed frames: joined, the sum of the parts' at the composition's rate; mixed, to the end of the
    /// part that ends last.
    public let frameCount: Int64
    /// Where each part lies in the composition: its first frame and its frames.
    public let placements: [(start: Int64, frames: Int64)]
    /// The first part's tags; each part's chapters, moved to where it lies.
    public let metadata: [String: String]
    /// Each part's chapters, moved to where the part lies in the composition, in time order.
    public let chapters: [Chapter]
    /// What the parts' condition calls for (a part cut short or damaged, its channels folded), each about its file.
    public let notes: [PartNote]
    let channelLayout: ChannelLayout?
    let resampler: ResamplerChoice

    /// Plans the composition of `parts` at `sampleRate` (default: the first part's) with `channels` (default: the
    /// widest part's, in its layout, so that no part is folded to fewer channels unasked: a mono voice over a stereo
    /// bed mixes into stereo), resampled by `resampler`. A part folded to fewer channels (`channels` asked below its
    /// own) gets a note naming it. Each part is opened to learn its format and length; one whose length is not known
    /// before it is read, or that holds no frame, is refused by name.
    public init(
        _ kind: Kind, parts: [Part], sampleRate: Double? = nil, channels: Int? = nil,
        resampler: ResamplerChoice = .soxr
    ) throws {
        guard !parts.isEmpty else {
            throw AudioFileError.illegalOperation("\(kind.rawValue): no input")
        }
        self.kind = kind
        self.parts = parts
        self.resampler = resampler
        let sources = try parts.map { part in try naming(part.path) { try SourceReader(path: part.path) } }
        let first = sources[0]
        let rate = sampleRate ?? first.sampleRate
        // The first of the widest parts gives the channels and their layout.
        let widest = sources.first { $0.channels == sources.map(\.channels).max() } ?? first
        let outputChannels = channels ?? widest.channels
        var placements: [(start: Int64, frames: Int64)] = []
        var chapters: [Chapter] = []
        var notes: [PartNote] = []
        var depth = 8
        var isFloat = false
        var end: Int64 = 0
        for (index, part) in parts.enumerated() {
            let source = sources[index]
            try naming(part.path) {
                try AudioConverter.checkHoldsValidFrames(source, input: part.path, done: "\(kind.rawValue)ed")
            }
            guard let frames = source.frameCount else {
                throw PartError(
                    path: part.path,
                    error: .unsupportedDataFormat(
                        "its length is not known before it is read in full; convert it first", offset: nil))
            }
            if source.sampleRate != rate {
                try naming(part.path) { try ResamplerChoice.checkRatio(from: source.sampleRate, to: rate) }
            }
            notes += source.conditionNotes(whatIsHeld: "\(kind.rawValue)ed").map {
                PartNote(path: part.path, text: $0)
            }
            if source.channels > outputChannels {
                notes.append(
                    PartNote(
                        path: part.path,
                        text: "its \(source.channels) channels are folded to the output's \(outputChannels) "
                            + "(-c \(source.channels) keeps them)"))
            }
            isFloat = isFloat || (source.format.isLinearPCM && source.format.formatFlags.contains(.isFloat))
            depth = max(depth, source.bitDepth)
            let length = Int64((Double(frames) * rate / source.sampleRate).rounded(.down))
            let start = kind == .join ? end : part.start.frames(at: rate)
            placements.append((start, length))
            end = max(end, start.saturatingAdd(length))
            let seconds = Double(start) / rate
            chapters += source.chapters.map {
                Chapter(startTime: $0.startTime + seconds, endTime: $0.endTime.map { $0 + seconds }, title: $0.title)
            }
        }
        self.placements = placements
        frameCount = end
        metadata = first.metadata
        self.chapters = chapters.sorted { $0.startTime < $1.startTime }
        self.notes = notes
        channelLayout = widest.channels == outputChannels ? widest.channelLayout : nil
        let bits = UInt32(isFloat ? 32 : min(32, (depth + 7) / 8 * 8))
        format = .linearPCM(
            sampleRate: rate, channels: UInt32(outputChannels), bitsPerChannel: bits, isFloat: isFloat)
    }

    /// A name for the composition in messages: the parts, joined by `+`.
    public var name: String { parts.map(\.path).joined(separator: " + ") }

    /// The composed frames from the start, as the pipeline reads a source; `report` counts the samples the sum
    /// takes past full scale.
    public func open(report: OverloadReport? = nil) -> SourceReader {
        let frames = ComposedFrames(self, report: report)
        return SourceReader(
            composedAs: name, format: format, metadata: metadata, chapters: chapters, channelLayout: channelLayout,
            frames: ExternalDecoder(frameCount: frameCount) { try frames.read(maximum: $0) })
    }
}

/// What `body` does, its errors those of the part at `path` (``Composition/PartError``).
func naming<Result>(_ path: String, _ body: () throws -> Result) throws -> Result {
    do {
        return try body()
    } catch let error as AudioFileError {
        throw Composition.PartError(path: path, error: error)
    }
}

/// The samples a mix takes past full scale, and the first and last frame where it does: written as the mix is
/// read (by the one thread that converts), read when it is done.
public final class OverloadReport: @unchecked Sendable {
    /// Samples past full scale in the last reading.
    public private(set) var samples = 0
    /// The first and last frame holding one.
    public private(set) var frames: (first: Int64, last: Int64)?

    /// An empty count.
    public init() {}

    func reset() {
        samples = 0
        frames = nil
    }

    func count(_ block: ArraySlice<Float>, channels: Int, at position: Int64) {
        for (index, sample) in zip(block.indices, block) where abs(sample) > 1 {
            let frame = position + Int64((index - block.startIndex) / channels)
            samples += 1
            frames = (frames?.first ?? frame, frame)
        }
    }
}

/// The composition read: each part, opened when it is first needed and let go when spent, brought to the
/// composition's rate and channels, scaled by its gain and placed (joined: after the one before; mixed: added in).
final class ComposedFrames {
    /// One part being read: its reader, its stage, and the frames staged but not yet placed.
    private struct Stream {
        let source: SourceReader
        var stage: FormatStage
        var ready: [Float] = []
        var readyStart = 0
        var block: [Float] = []
        var ended = false
    }

    private let composition: Composition
    private let channels: Int
    private let gains: [Float]
    private var streams: [Stream?]
    /// Frames of each part placed so far.
    private var placed: [Int64]
    private var position: Int64 = 0
    private let report: OverloadReport?

    init(_ composition: Composition, report: OverloadReport?) {
        self.composition = composition
        channels = Int(composition.format.channelsPerFrame)
        gains = composition.parts.map { Float(pow(10, $0.gain / 20)) }
        streams = Array(repeating: nil, count: composition.parts.count)
        placed = Array(repeating: 0, count: composition.parts.count)
        self.report = report
        report?.reset()
    }

    /// Up to `maximum` composed frames, interleaved; empty at the end.
    func read(maximum: Int) throws -> [Float] {
        let count = Int(min(Int64(maximum), composition.frameCount - position))
        guard count > 0 else { return [] }
        var output = [Float](repeating: 0, count: count * channels)
        for (index, placement) in composition.placements.enumerated() {
            let from = max(position, placement.start + placed[index])
            let to = min(position + Int64(count), placement.start + placement.frames)
            guard from < to else { continue }
            let frames = Int(to - from)
            let at = Int(from - position) * channels
            let samples = try take(frames, of: index)
            let gain = gains[index]
            for offset in 0..<samples.count { output[at + offset] += samples[samples.startIndex + offset] * gain }
            placed[index] += Int64(frames)
            if placed[index] == placement.frames { streams[index] = nil }
        }
        if composition.kind == .mix { report?.count(output[...], channels: channels, at: position) }
        position += Int64(count)
        return output
    }

    /// The next `frames` staged frames of part `index` (silence where the part ends before its length: a damaged
    /// part keeps its place).
    private func take(_ frames: Int, of index: Int) throws -> ArraySlice<Float> {
        let path = composition.parts[index].path
        var stream = try streams[index] ?? naming(path) { try open(index) }
        let want = frames * channels
        while stream.ready.count - stream.readyStart < want && !stream.ended {
            if stream.readyStart > 0 {
                stream.ready.removeFirst(stream.readyStart)
                stream.readyStart = 0
            }
            stream.block.removeAll(keepingCapacity: true)
            let read = try naming(path) { try stream.source.read(maximum: 8192, into: &stream.block) }
            if read == 0 {
                try stream.stage.finish(into: &stream.ready)
                stream.ended = true
            } else {
                try stream.block.withUnsafeBufferPointer {
                    try stream.stage.process($0, frames: read, into: &stream.ready)
                }
            }
        }
        let available = min(want, stream.ready.count - stream.readyStart)
        var samples = stream.ready[stream.readyStart..<stream.readyStart + available]
        if available < want { samples = ArraySlice(Array(samples) + repeatElement(0, count: want - available)) }
        stream.readyStart += available
        streams[index] = stream
        return samples
    }

    /// Part `index`'s reader and stage, from its start.
    private func open(_ index: Int) throws -> Stream {
        let source = try SourceReader(path: composition.parts[index].path)
        let stage = try FormatStage(
            from: source.sampleRate, channels: source.channels, to: composition.format.sampleRate,
            channels: channels, resampler: composition.resampler)
        return Stream(source: source, stage: stage)
    }
}
