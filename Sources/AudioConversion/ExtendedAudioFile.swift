import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioEngines
import AudioFormats
import FileAccess
import Synchronization

/// Extended Audio File Services in Swift: a file read or written as linear PCM in a format of the client's
/// choosing (the client data format: 8- to 32-bit integers or 32/64-bit floats, interleaved or not, at any
/// rate and channel count), converted for it by the pipeline's decoders, channel mixer and resampler.
///
/// Reading is exact where the format is: frames come out as `convert` decodes them (the valid frames: no
/// priming, no padding), ``seek(toFrame:)`` lands on the frame asked for (decoding from the packet that
/// covers the codec's pre-roll), and ``tell()`` says where the next read starts. Writing takes frames in the
/// client format and writes any container and codec afkit writes, gapless (the priming and remainder
/// recorded), into a temporary file that takes the path's place only at ``close()``.
///
/// ```swift
/// let file = try ExtendedAudioFile(readingPath: "take.m4a")
/// try file.setClientDataFormat(.linearPCM(sampleRate: 22050, channels: 1, bitsPerChannel: 16))
/// var bytes: [UInt8] = []
/// while try file.read(maximumFrames: 4096, into: &bytes) > 0 { consume(bytes) }
/// ```
///
/// An instance is safe to share between tasks: its calls take turns.
public final class ExtendedAudioFile: Sendable {
    /// Whether the file is read or written.
    public enum Mode: Sendable {
        case reading, writing
    }

    /// Whether the file is read or written.
    public let mode: Mode
    /// The file's own data format (Apple's `kExtAudioFileProperty_FileDataFormat`).
    public let fileDataFormat: StreamDescription
    /// The parsed file, when reading.
    public let audioFile: AudioFile?
    private let state: Mutex<State>

    private enum State {
        case reading(Reading)
        case writing(Writing)
        case closed
    }

    // MARK: Reading

    /// Opens a file for reading: every format `afkit convert` reads (the standard engines, libsndfile for
    /// the rest).
    public convenience init(readingPath path: String) throws {
        try self.init(reading: try AudioFile(path: path))
    }

    /// Opens bytes a client reads (Apple's `AudioFileOpenWithCallbacks` and `ExtAudioFileWrapAudioFileID`):
    /// `name` names them in messages.
    public convenience init(reading bytes: some RandomAccessBytes, name: String) throws {
        try self.init(reading: try AudioFile(bytes: bytes, name: name))
    }

    /// Reads a parsed file.
    public init(reading file: AudioFile) throws {
        let source = try SourceReader(file: file, registry: AudioConverter.registry, fallback: nil)
        mode = .reading
        fileDataFormat = file.dataFormat
        audioFile = file
        state = Mutex(.reading(try Reading(source: source)))
    }

    /// Opens a file for reading without blocking the caller: the parse runs on another thread.
    public static func open(readingPath path: String) async throws -> ExtendedAudioFile {
        let file = try await AudioFile.open(path: path)
        return try ExtendedAudioFile(reading: file)
    }

    /// The valid frames of the file (Apple's `kExtAudioFileProperty_FileLengthFrames`): at the client's rate when
    /// reading; when writing, the file's frames made so far, at the file's rate.
    public var fileLengthFrames: Int64 {
        state.withLock { state in
            switch state {
            case .reading(let reading): reading.clientLength
            case .writing(let writing): writing.stagedFrames
            case .closed: 0
            }
        }
    }

    /// The format frames are read or written in (Apple's `kExtAudioFileProperty_ClientDataFormat`): at first
    /// 32-bit float, interleaved, at the file's rate and channel count (a linear PCM file is written in its
    /// own format until the client says otherwise).
    public var clientDataFormat: StreamDescription {
        state.withLock { state in
            switch state {
            case .reading(let reading): reading.client.format
            case .writing(let writing): writing.client.format
            case .closed: fileDataFormat
            }
        }
    }

    /// Sets the client data format: linear PCM of any layout, rate and channel count. Reading starts
    /// over from where it stood; a writer takes it before its first frames.
    public func setClientDataFormat(_ format: StreamDescription) throws {
        try state.withLock { state in
            switch state {
            case .reading(var reading):
                try reading.setClient(ClientFormat(format))
                state = .reading(reading)
            case .writing(var writing):
                guard writing.framesWritten == 0 else {
                    throw AudioFileError.illegalOperation(
                        "the client format is set before the first frames are written")
                }
                try writing.setClient(ClientFormat(format))
                state = .writing(writing)
            case .closed: throw Self.closedError
            }
        }
    }

    /// Reads up to `maximumFrames` frames in the client format into `buffers`, replacing what they held:
    /// one buffer for an interleaved format, one per channel otherwise (an `AudioBufferList`'s buffers).
    /// Returns the frames read: 0 at the end.
    public func read(maximumFrames: Int, into buffers: inout [[UInt8]]) throws -> Int {
        try state.withLock { state in
            guard case .reading(var reading) = state else { throw Self.notReading }
            defer { state = .reading(reading) }
            return try reading.read(maximumFrames: maximumFrames, into: &buffers)
        }
    }

    /// Reads up to `maximumFrames` frames of an interleaved client format into `bytes`; returns how many.
    public func read(maximumFrames: Int, into bytes: inout [UInt8]) throws -> Int {
        var buffers = [bytes]
        bytes = []
        let frames = try read(maximumFrames: maximumFrames, into: &buffers)
        guard buffers.count == 1 else {
            throw AudioFileError.illegalOperation(
                "the client format is not interleaved: read into one buffer a channel")
        }
        bytes = buffers[0]
        return frames
    }

    /// Moves to client frame `frame` (Apple's `ExtAudioFileSeek`): exact at the file's own rate; after a rate
    /// change, at the source frame nearest it, the resampler started afresh there.
    public func seek(toFrame frame: Int64) throws {
        try state.withLock { state in
            guard case .reading(var reading) = state else { throw Self.notReading }
            try reading.seek(toFrame: frame)
            state = .reading(reading)
        }
    }

    /// Damaged packets the decoder replaced with silence so far (as FFmpeg and players conceal them).
    public var concealedPackets: Int {
        state.withLock { state in
            if case .reading(let reading) = state { return reading.source.concealedPackets }
            return 0
        }
    }

    /// The client frame the next read starts at (Apple's `ExtAudioFileTell`); when writing, the client frames written.
    public func tell() -> Int64 {
        state.withLock { state in
            switch state {
            case .reading(let reading): reading.position
            case .writing(let writing): writing.framesWritten
            case .closed: 0
            }
        }
    }

    // MARK: Writing

    /// Creates a file of `fileType` holding `fileFormat` (Apple's `ExtAudioFileCreateWithURL`): any container
    /// and codec afkit writes (linear PCM, IMA4, IMA ADPCM, u-law, A-law, AAC, Apple Lossless, FLAC, MP3,
    /// Opus). A codec's format needs only its ID, rate and channels. `bitRate` for the codecs that take one;
    /// an existing file at `path` is replaced only with `overwrite` (Apple's `kAudioFileFlags_EraseFile`).
    public init(
        creatingPath path: String, fileType: FileType, fileFormat: StreamDescription, bitRate: Int? = nil,
        overwrite: Bool = false, options: AudioFileWriterOptions = AudioFileWriterOptions()
    ) throws {
        if !overwrite, FileIdentity(path: path) != nil {
            throw AudioFileError.illegalOperation("\(path) exists: pass overwrite to replace it")
        }
        let format = try Self.complete(fileFormat)
        try AudioFileWriter.check(format, in: fileType)
        mode = .writing
        audioFile = nil
        let writing = try Writing(path: path, fileType: fileType, format: format, bitRate: bitRate, options: options)
        fileDataFormat = writing.fileFormat
        state = Mutex(.writing(writing))
    }

    /// Writes `frames` frames in the client format from `buffers` (one buffer interleaved, one per channel
    /// otherwise) (Apple's `ExtAudioFileWrite`).
    public func write(frames: Int, from buffers: [[UInt8]]) throws {
        try state.withLock { state in
            guard case .writing(var writing) = state else {
                throw AudioFileError.illegalOperation("the file is not open for writing")
            }
            defer { state = .writing(writing) }
            try writing.write(frames: frames, from: buffers)
        }
    }

    /// Writes `frames` frames of an interleaved client format.
    public func write(frames: Int, from bytes: [UInt8]) throws { try write(frames: frames, from: [bytes]) }

    /// Ends the file (Apple's `ExtAudioFileDispose`): a writer drains its codec, records the priming and
    /// remainder, and puts the file at its path; a reader lets go. Further calls throw.
    public func close() throws {
        try state.withLock { state in
            defer { state = .closed }
            if case .writing(var writing) = state { try writing.finish() }
        }
    }

    /// Abandons a file being written: the temporary goes, the path is left as it was.
    public func cancel() {
        state.withLock { state in
            if case .writing(let writing) = state { writing.cancel() }
            state = .closed
        }
    }

    deinit {
        state.withLock { state in
            if case .writing(let writing) = state { writing.cancel() }
        }
    }

    private static let closedError = AudioFileError.illegalOperation("the file is closed")
    private static let notReading = AudioFileError.illegalOperation("the file is not open for reading")

    /// A codec's format filled in from its ID, rate and channels (as `-d` would give it).
    static func complete(_ format: StreamDescription) throws -> StreamDescription {
        guard format.sampleRate > 0, format.channelsPerFrame > 0 else {
            throw AudioFileError.unsupportedDataFormat(
                "a file's format needs a sample rate and a channel count", offset: nil)
        }
        if format.formatID == .lpcm {
            _ = try PCMLayout(format)
            return format
        }
        guard let name = CodecDescriptor.afconvertName(of: format), let specifier = DataFormatSpecifier(name) else {
            throw AudioFileError.unsupportedDataFormat(
                "afkit does not write \(CodecDescriptor.spokenName(of: format.formatID))", offset: nil)
        }
        return specifier.streamDescription(sampleRate: format.sampleRate, channels: format.channelsPerFrame)
    }
}

/// A client format's layout: interleaved samples as the PCM encoder and decoder take them, and whether they
/// are split a channel a buffer.
struct ClientFormat {
    let format: StreamDescription
    /// The same samples interleaved.
    let interleaved: StreamDescription
    let isNonInterleaved: Bool
    let layout: PCMLayout

    init(_ format: StreamDescription) throws {
        guard format.formatID == .lpcm, format.sampleRate > 0, format.channelsPerFrame > 0 else {
            throw AudioFileError.unsupportedDataFormat(
                "a client format is linear PCM with a rate and channels, not \(format.summary)", offset: nil)
        }
        self.format = format
        isNonInterleaved = format.formatFlags.contains(.isNonInterleaved)
        var interleaved = format
        if isNonInterleaved {
            interleaved.formatFlags.remove(.isNonInterleaved)
            interleaved.bytesPerFrame = format.bytesPerFrame * format.channelsPerFrame
            interleaved.bytesPerPacket = interleaved.bytesPerFrame
        }
        self.interleaved = interleaved
        layout = try PCMLayout(interleaved)
    }

    /// 32-bit float, interleaved: what a file is read in until the client says otherwise.
    static func float(sampleRate: Double, channels: UInt32) throws -> ClientFormat {
        try ClientFormat(.linearPCM(sampleRate: sampleRate, channels: channels, bitsPerChannel: 32, isFloat: true))
    }

    var channels: Int { Int(format.channelsPerFrame) }

    /// Interleaved frames split into one buffer a channel, where the format asks for it.
    func split(_ bytes: [UInt8], into buffers: inout [[UInt8]]) {
        guard isNonInterleaved else {
            buffers = [bytes]
            return
        }
        let width = layout.width
        let frames = bytes.count / (width * channels)
        buffers = (0..<channels).map { channel in
            var buffer = [UInt8](repeating: 0, count: frames * width)
            for frame in 0..<frames {
                let from = (frame * channels + channel) * width
                buffer.replaceSubrange(frame * width..<(frame + 1) * width, with: bytes[from..<from + width])
            }
            return buffer
        }
    }

    /// Buffers in the client format joined into interleaved bytes.
    func join(_ buffers: [[UInt8]], frames: Int) throws -> [UInt8] {
        let width = layout.width
        guard buffers.count == (isNonInterleaved ? channels : 1),
            buffers.allSatisfy({ $0.count >= frames * width * (isNonInterleaved ? 1 : channels) })
        else {
            throw AudioFileError.illegalOperation(
                "\(frames) frames of \(format.summary) need \(isNonInterleaved ? channels : 1) buffer(s) of "
                    + "\(frames * width * (isNonInterleaved ? 1 : channels)) bytes")
        }
        guard isNonInterleaved else { return Array(buffers[0][0..<frames * width * channels]) }
        var bytes = [UInt8](repeating: 0, count: frames * width * channels)
        for frame in 0..<frames {
            for channel in 0..<channels {
                let to = (frame * channels + channel) * width
                bytes.replaceSubrange(to..<to + width, with: buffers[channel][frame * width..<(frame + 1) * width])
            }
        }
        return bytes
    }
}

/// Channel mix and rate conversion of interleaved Float32 frames, to exactly the length the rates give.
struct FormatStage {
    let inputRate: Double
    let outputRate: Double
    let mixer: ChannelMixer
    let outputChannels: Int
    private var resampler: (any Resampler)?
    private var inputFrames: Int64 = 0
    private var outputFrames: Int64 = 0
    private var mixed: [Float] = []

    init(
        from inputRate: Double, channels: Int, to outputRate: Double, channels outputChannels: Int,
        resampler choice: ResamplerChoice = .soxr
    ) throws {
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.outputChannels = outputChannels
        mixer = ChannelMixer(from: channels, to: outputChannels)
        resampler =
            inputRate == outputRate
            ? nil : try choice.make(from: inputRate, to: outputRate, channels: outputChannels)
    }

    /// Whether frames pass unchanged.
    var isIdentity: Bool { resampler == nil && mixer.isIdentity }

    /// Output frames `input` frames make.
    func expected(_ input: Int64) -> Int64 { Int64((Double(input) * outputRate / inputRate).rounded(.down)) }

    mutating func process(_ input: UnsafeBufferPointer<Float>, frames: Int, into output: inout [Float]) throws {
        inputFrames += Int64(frames)
        let start = output.count
        guard let resampler else {
            mixer.mix(input, frames: frames, into: &output)
            outputFrames += Int64((output.count - start) / outputChannels)
            return
        }
        mixed.removeAll(keepingCapacity: true)
        mixer.mix(input, frames: frames, into: &mixed)
        try mixed.withUnsafeBufferPointer { try resampler.process($0, frames: frames, into: &output) }
        outputFrames += Int64((output.count - start) / outputChannels)
    }

    /// Drains the resampler; the output is then exactly ``expected(_:)`` frames long.
    mutating func finish(into output: inout [Float]) throws {
        let start = output.count
        try resampler?.finish(into: &output)
        outputFrames += Int64((output.count - start) / outputChannels)
        let want = expected(inputFrames)
        if outputFrames > want {
            output.removeLast(
                Int(min(outputFrames - want, Int64((output.count - start) / outputChannels))) * outputChannels)
        } else if outputFrames < want {
            output.append(contentsOf: repeatElement(0, count: Int(want - outputFrames) * outputChannels))
        }
        outputFrames = want
    }
}

extension ExtendedAudioFile {
    /// A file being read: the pipeline's reader, the stage to the client's rate and channels, and the frames
    /// made but not yet read.
    fileprivate struct Reading {
        let source: SourceReader
        var client: ClientFormat
        var stage: FormatStage
        var encoder: PCMEncoder
        var ready: [Float] = []
        var readyStart = 0
        var block: [Float] = []
        var ended = false
        var position: Int64 = 0

        init(source: SourceReader) throws {
            self.source = source
            let client = try ClientFormat.float(sampleRate: source.sampleRate, channels: UInt32(source.channels))
            self.client = client
            stage = try FormatStage(
                from: source.sampleRate, channels: source.channels, to: source.sampleRate, channels: source.channels)
            encoder = try PCMEncoder(format: client.interleaved)
        }

        /// The file's valid frames at the client's rate.
        var clientLength: Int64 { stage.expected(source.frameCount ?? 0) }

        mutating func setClient(_ format: ClientFormat) throws {
            let at = Int64((Double(position) * format.format.sampleRate / client.format.sampleRate).rounded(.down))
            client = format
            encoder = try PCMEncoder(format: format.interleaved)
            try seek(toFrame: min(at, clientLength))
        }

        mutating func seek(toFrame frame: Int64) throws {
            guard frame >= 0, frame <= clientLength else {
                throw AudioFileError.invalidPacket(
                    "\(source.path): frame \(frame) of \(clientLength) does not exist", offset: nil)
            }
            let sourceFrame = Int64((Double(frame) * source.sampleRate / client.format.sampleRate).rounded())
            try source.seek(toFrame: min(sourceFrame, source.frameCount ?? 0))
            stage = try FormatStage(
                from: source.sampleRate, channels: source.channels, to: client.format.sampleRate,
                channels: client.channels)
            ready.removeAll(keepingCapacity: true)
            readyStart = 0
            ended = false
            position = frame
        }

        mutating func read(maximumFrames: Int, into buffers: inout [[UInt8]]) throws -> Int {
            let channels = client.channels
            let want = max(0, min(Int64(maximumFrames), clientLength - position))
            while Int64((ready.count - readyStart) / channels) < want && !ended {
                if readyStart > 0 {
                    ready.removeFirst(readyStart)
                    readyStart = 0
                }
                block.removeAll(keepingCapacity: true)
                let frames = try source.read(maximum: 8192, into: &block)
                if frames == 0 {
                    try stage.finish(into: &ready)
                    ended = true
                } else {
                    try block.withUnsafeBufferPointer { try stage.process($0, frames: frames, into: &ready) }
                }
            }
            let frames = Int(min(want, Int64((ready.count - readyStart) / channels)))
            var bytes: [UInt8] = []
            try ready.withUnsafeBufferPointer { samples in
                _ = try encoder.encode(
                    UnsafeBufferPointer(rebasing: samples[readyStart..<readyStart + frames * channels]), into: &bytes)
            }
            readyStart += frames * channels
            position += Int64(frames)
            client.split(bytes, into: &buffers)
            return frames
        }
    }

    /// A file being written: the client's frames decoded to Float32, staged to the file's rate and
    /// channels, encoded and written to a temporary file.
    fileprivate struct Writing {
        let output: AtomicOutputFile
        let fileType: FileType
        let fileFormat: StreamDescription
        var client: ClientFormat
        var clientDecoder: PCMDecoder
        var stage: FormatStage
        var encoder: any AudioEncoder
        let writer: AudioFileWriter
        var framesWritten: Int64 = 0
        var samples: [Float] = []
        var staged: [Float] = []
        var packets = EncodedPackets()
        var stagedFrames: Int64 = 0

        init(
            path: String, fileType: FileType, format: StreamDescription, bitRate: Int?, options: AudioFileWriterOptions
        )
            throws
        {
            self.fileType = fileType
            // Linear PCM is written as it is stored until the client says otherwise; a codec takes Float32.
            let client =
                format.formatID == .lpcm && !format.formatFlags.contains(.isNonInterleaved)
                ? try ClientFormat(format)
                : try ClientFormat.float(sampleRate: format.sampleRate, channels: format.channelsPerFrame)
            self.client = client
            clientDecoder = try PCMDecoder(format: client.interleaved)
            stage = try FormatStage(
                from: format.sampleRate, channels: client.channels, to: format.sampleRate,
                channels: Int(format.channelsPerFrame))
            var settings = EncoderSettings(format: format, sourceFormat: client.interleaved)
            settings.bitRate = bitRate
            settings.writesStreamHeader = fileType.descriptor.writer?.cookiePlacement == .firstPacket
            encoder = try AudioConverter.registry.encoder(settings)
            fileFormat = encoder.destinationFormat
            output = try AtomicOutputFile(path)
            var options = options
            if options.magicCookie == nil { options.magicCookie = encoder.magicCookie }
            writer = try AudioFileWriter(
                path: output.temporaryPath, fileType: fileType, format: fileFormat, options: options)
        }

        mutating func setClient(_ format: ClientFormat) throws {
            client = format
            clientDecoder = try PCMDecoder(format: format.interleaved)
            stage = try FormatStage(
                from: format.format.sampleRate, channels: format.channels, to: fileFormat.sampleRate,
                channels: Int(fileFormat.channelsPerFrame))
            // Where a sample is narrowed, it is dithered as convert dithers.
            var settings = EncoderSettings(format: fileFormat, sourceFormat: format.interleaved)
            settings.writesStreamHeader = fileType.descriptor.writer?.cookiePlacement == .firstPacket
            if fileFormat.formatID == .lpcm { encoder = try AudioConverter.registry.encoder(settings) }
        }

        mutating func write(frames: Int, from buffers: [[UInt8]]) throws {
            guard frames > 0 else { return }
            let bytes = try client.join(buffers, frames: frames)
            samples.removeAll(keepingCapacity: true)
            _ = try bytes.withUnsafeBytes { raw in
                try clientDecoder.decode(raw, packetCount: frames, descriptions: nil, appendingTo: &samples)
            }
            staged.removeAll(keepingCapacity: true)
            try samples.withUnsafeBufferPointer { try stage.process($0, frames: frames, into: &staged) }
            try encodeStaged()
            framesWritten += Int64(frames)
        }

        mutating func encodeStaged() throws {
            stagedFrames += Int64(staged.count / Int(fileFormat.channelsPerFrame))
            try staged.withUnsafeBufferPointer { try encoder.encode($0, into: &packets) }
            try flush()
        }

        mutating func flush() throws {
            guard packets.packetCount > 0 || !packets.bytes.isEmpty else { return }
            try writer.writeEncoded(&packets)
        }

        mutating func finish() throws {
            do {
                staged.removeAll(keepingCapacity: true)
                try stage.finish(into: &staged)
                try encodeStaged()
                let remainder = try encoder.finish(into: &packets)
                try flush()
                try writer.close(encodedBy: encoder, validFrames: stagedFrames, remainderFrames: remainder)
                try output.commit()
            } catch {
                cancel()
                throw error
            }
        }

        func cancel() {
            writer.cancel()
            output.abandon()
        }
    }
}
