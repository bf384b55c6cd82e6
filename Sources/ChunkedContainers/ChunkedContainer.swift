import AudioFormats
import StreamParsing

/// How a container lays out its chunk headers.
struct ChunkLayout {
    var sizeEndianness: Endianness
    /// 8 for CAF's and Wave64's 64-bit sizes, else 4.
    var sizeWidth: Int
    /// Chunks start at multiples of this from the previous one's start: RIFF and IFF pad odd-sized
    /// chunks with one byte (2), Wave64 to 8 bytes, CAF not at all (1).
    var alignment: Int64
    /// 16 for Wave64's GUIDs, else 4.
    var idWidth = 4
    /// Whether a chunk's size counts its own header (Wave64).
    var sizeCountsHeader = false

    var headerSize: Int { idWidth + sizeWidth }

    /// The pad bytes after a body of `size` bytes (none after a chunk that runs to the end).
    func pad(after size: Int64?) -> Int64 {
        guard let size, alignment > 1 else { return 0 }
        // Wave64 aligns whole chunks (header included, a multiple of 8): the body's remainder decides.
        return (alignment - size % alignment) % alignment
    }
}

/// One chunk header as read from the stream.
struct ChunkHeader {
    var id: FourCharCode
    /// Absolute offset of the header's first byte.
    var offset: Int64
    /// Body size; `nil` means "to the end of the stream" (CAF's -1, RIFF's 0xFFFFFFFF on `data`).
    var size: Int64?
    /// Absolute offset of the body's first byte.
    var bodyOffset: Int64
}

/// What a container does with a chunk once its header is read.
enum ChunkDisposition {
    /// Read the whole body (at most `limit` bytes) and hand it to `parseChunk`.
    case read
    /// The chunk holds the audio; its first `prefix` bytes go to `parseAudioPrefix`.
    case audioData(prefix: Int)
    /// Step over it.
    case skip(note: String)
}

/// The container-specific half of a chunked parser (CAF, AIFF, WAV): its file header and the
/// meaning of its chunks. ``ChunkWalker`` does the rest.
protocol ChunkedContainer: Sendable {
    static var name: String { get }
    /// Whether a file without an audio chunk is an empty sound rather than an error (AIFF).
    static var allowsMissingAudio: Bool { get }
    /// How its chunk headers are laid out (RIFX's byte order is known once its file header is read).
    var layout: ChunkLayout { get }
    static var fileHeaderSize: Int { get }
    init()
    /// Absolute end of the outer chunk (RIFF, FORM), where it has one.
    var outerEnd: Int64? { get }
    /// Reads the file header, all `fileHeaderSize` bytes of which are in `cursor`.
    mutating func parseFileHeader(_ cursor: inout ByteCursor, _ context: inout ParseContext) throws
    /// Decides what to do with a chunk; may correct its size (RF64's `ds64`).
    mutating func disposition(of chunk: inout ChunkHeader, _ context: inout ParseContext) throws -> ChunkDisposition
    /// Interprets a whole chunk body.
    mutating func parseChunk(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext) throws
    /// Reads the bytes before the audio in an audio chunk; returns how many more to skip before it.
    mutating func parseAudioPrefix(_ chunk: ChunkHeader, _ body: inout ByteCursor, _ context: inout ParseContext) throws
        -> Int64
    /// Container rules applied once the stream has ended (frame counts, required chunks).
    mutating func finish(_ context: inout ParseContext, endOffset: Int64) throws
    /// Whether a chunk this big is read whole; the chunk's role decides.
    func readLimit(for id: FourCharCode, limits: ParserLimits) -> (limit: Int, essential: Bool)
    /// The audio of a container without chunks (AU), right after its file header: the chunk it would
    /// be, and the bytes to step over at its start (an annotation). Asked once, after the file header.
    mutating func implicitAudioChunk() -> (chunk: ChunkHeader, lead: Int64)?
}

extension ChunkedContainer {
    static var allowsMissingAudio: Bool { false }
    mutating func implicitAudioChunk() -> (chunk: ChunkHeader, lead: Int64)? { nil }
}

/// Rejects the values that cannot be: no channels; a rate that is 0, negative, NaN or infinite.
func checkRateAndChannels(_ container: String, sampleRate: Double, channels: UInt32, offset: Int64) throws {
    guard channels > 0 else {
        throw AudioFileError.malformed("\(container): 0 channels", offset: offset)
    }
    guard channels <= 1024 else {
        throw AudioFileError.malformed("\(container): \(channels) channels is not a real stream", offset: offset)
    }
    // Any finite rate above 0 is a rate (0.01 Hz included), as Apple reads them.
    guard sampleRate.isFinite, sampleRate > 0 else {
        throw AudioFileError.malformed("\(container): sample rate \(sampleRate) cannot be", offset: offset)
    }
}
