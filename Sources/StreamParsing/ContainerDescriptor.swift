import AudioFormats

/// What of a sound's timeline a container's writer keeps: markers, how many loops, chapters.
public struct WrittenTimeline: Sendable {
    /// Markers (AIFF `MARK`, WAV `cue `, CAF `mark`), and with them the instrument, comments and annotations.
    public var markers = false
    /// Loops: AIFF's instrument two, WAV's `smpl` and CAF's regions any number, FLAC's and Ogg Opus's comments one.
    public var loops = 0
    /// How many chapters: MP4 `chpl` and ID3 `CTOC` count them in a byte (255), Vorbis `CHAPTERnnn` comments in
    /// three digits (999); 0, none. A conversion carries the first ones and says how many more it leaves.
    public var chapters = 0

    /// Keeps nothing unless told.
    public init(markers: Bool = false, loops: Int = 0, chapters: Int = 0) {
        self.markers = markers
        self.loops = loops
        self.chapters = chapters
    }
}

/// What a container is, declared once, in its own file beside its parser (`CAF.descriptor`), as Symphonia
/// registers a reader's probe data: its names, Apple's type code, the extensions and media types its files go
/// by, the signatures that find it, its parser and its writer. Detection, folder walks, output naming, the
/// HTTP face's media types, `-f` and the help texts all ask ``ContainerRegistry``, never a list of their own.
public struct ContainerDescriptor: Sendable {
    /// The contract's `container` name.
    public let fileType: FileType
    /// The name in messages and help ("CAF", "MPEG audio").
    public let name: String
    /// What a file of it is, with its article ("a CAF file", "an ADTS (AAC) stream").
    public let kindDescription: String
    /// Apple's AudioFileTypeID (`caff`, `m4af`, ...).
    public let fileTypeID: FourCharCode
    /// Name extensions (lower case, no dot) its files go by; a folder walk takes files named so, and a file
    /// named otherwise is noted as misnamed.
    public let extensions: [String]
    /// Extensions its files may carry that a folder walk does not take (`.mov` is mostly video).
    public let otherExtensions: [String]
    /// The extensions that name it when the bytes leave a tie (an elementary stream's hint).
    public let hintExtensions: [String]
    /// afconvert's `-f` codes for it, the usual one first; empty where afkit does not write it.
    public let formatCodes: [String]
    /// The names afkit writes it under (`.caf`), the usual one first; empty where no name asks for it.
    public let writtenExtensions: [String]
    /// HTTP media types (`Content-Type`) that name it.
    public let mediaTypes: [String]
    /// Whether it records gapless information (priming and remainder): CAF's `pakt`, an MP4 edit list, a LAME
    /// tag, Opus's pre-skip. One that does not (ADTS, LOAS, WAV) delivers every decoded frame.
    public let recordsPriming: Bool
    /// What of a sound's timeline its writer keeps (markers, loops, chapters).
    public let keeps: WrittenTimeline
    /// The signature entries that find it (and refuse what its family holds and afkit does not read), tried
    /// in the registry's order; none for a type its family's parser decides (AIFF-C, RF64, E-AC-3).
    package let signatures: [FileSignature.Entry]
    /// Its incremental parser, for the family's first type.
    package let makeParser: (@Sendable (ParserSetup) -> any StreamParser)?
    /// Whether its parser steps over an ID3v2 tag before the stream (``ParserSetup/leadingTagSize``): taggers
    /// put one before FLAC, and HLS packed audio one (its timestamp) before every AC-3 and E-AC-3 segment.
    package let readsBehindID3Tag: Bool
    /// How afkit writes it (layout, framing, policy), where afkit writes it.
    public let writer: ContainerWriter?

    /// Whether afkit writes it.
    public var isWritten: Bool { writer != nil && !formatCodes.isEmpty }

    package init(
        _ fileType: FileType, name: String, kind: String, fileTypeID: FourCharCode, extensions: [String],
        otherExtensions: [String] = [], hintExtensions: [String]? = nil, formatCodes: [String] = [],
        writtenExtensions: [String] = [], mediaTypes: [String] = [], recordsPriming: Bool = false,
        keeps: WrittenTimeline = WrittenTimeline(), signatures: [FileSignature.Entry] = [],
        makeParser: (@Sendable (ParserSetup) -> any StreamParser)? = nil, readsBehindID3Tag: Bool = false,
        writer: ContainerWriter? = nil
    ) {
        self.fileType = fileType
        self.name = name
        kindDescription = kind
        self.fileTypeID = fileTypeID
        self.extensions = extensions
        self.otherExtensions = otherExtensions
        self.hintExtensions = hintExtensions ?? extensions
        self.formatCodes = formatCodes
        self.writtenExtensions = writtenExtensions
        self.mediaTypes = mediaTypes
        self.recordsPriming = recordsPriming
        self.keeps = keeps
        self.signatures = signatures
        self.makeParser = makeParser
        self.readsBehindID3Tag = readsBehindID3Tag
        self.writer = writer
    }
}

/// What a parser is made with.
package struct ParserSetup {
    package var mode: ParseMode
    package var limits: ParserLimits
    package var requestsSeeks: Bool
    /// The bytes of an ID3v2 tag before the stream, for a parser that steps over it.
    package var leadingTagSize: Int

    package init(mode: ParseMode, limits: ParserLimits, requestsSeeks: Bool, leadingTagSize: Int = 0) {
        self.mode = mode
        self.limits = limits
        self.requestsSeeks = requestsSeeks
        self.leadingTagSize = leadingTagSize
    }
}
