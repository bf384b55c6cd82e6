import AudioFormats
import StreamParsing

/// The facts `afkit info` reports for a parsed file, computed as the command-line contract says.
public struct AudioFileSummary: Hashable, Sendable {
    /// The container.
    public var container: FileType
    /// The data format.
    public var format: StreamDescription
    /// Every layer, richest first (more than one for HE-AAC).
    public var formatList: [StreamDescription]
    /// For MPEG-4 files: whether `moov` precedes the audio.
    public var isOptimized: Bool?
    /// Packets of audio.
    public var packetCount: Int64
    /// Frames of the encoder's delay before the sound.
    public var primingFrames: Int64
    /// Frames of padding after it.
    public var remainderFrames: Int64
    /// Valid frames: decoded frames less priming and remainder, or what the file states.
    public var frameCount: Int64
    /// Seconds of valid frames.
    public var durationSeconds: Double
    /// Where the audio starts in the file.
    public var dataOffset: Int64
    /// Bytes of audio.
    public var dataByteCount: Int64
    /// Bits per second of the audio.
    public var bitRate: Int64
    /// The largest packet, bytes.
    public var maximumPacketSize: Int64
    /// The codec configuration.
    public var magicCookie: [UInt8]?
    /// Text tags (title, artist, ...).
    public var metadata: [String: String]
    /// The pictures (cover art) the file carries.
    public var pictures: [Picture]
    /// Markers, comments, annotations, the instrument and its loops, the channel layout, where the file
    /// has them.
    public var markers: [Marker]
    /// Chapters, in time order.
    public var chapters: [Chapter]
    /// Which of the container's chapter forms they come from, where it has two (MPEG-4's chapter track or `chpl`).
    public var chapterSource: String?
    /// Comments with their times (AIFF `COMT`).
    public var comments: [Comment]
    /// Annotations (AIFF `ANNO`).
    public var annotations: [String]
    /// The instrument, where the file has one.
    public var instrument: Instrument?
    /// Loops, in frames.
    public var loops: [Loop]
    /// Which speaker each channel feeds.
    public var channelLayout: ChannelLayout?
    /// The loudness the file states (MPEG-4 `ludt`), where it states one.
    public var loudnessInfo: LoudnessInfo?
    /// Whether the file ends before the audio its header states.
    public var isTruncated: Bool
    /// Where audio was skipped as damaged (empty: none was).
    public var damage: [String]
    /// Metadata left unread to keep memory bounded (empty: all was read).
    public var notRead: [NotRead]

    /// Summarizes settled stream properties (after `finish`).
    public init(_ properties: StreamProperties) throws {
        guard let container = properties.fileType, let format = properties.dataFormat else {
            throw AudioFileError.illegalOperation("the stream has not been parsed to its end")
        }
        self.container = container
        self.format = format
        formatList = properties.formatList
        isOptimized = properties.isOptimized
        packetCount = properties.audioDataPacketCount ?? 0
        primingFrames = Int64(properties.packetTableInfo?.primingFrames ?? 0)
        remainderFrames = Int64(properties.packetTableInfo?.remainderFrames ?? 0)
        frameCount = max(0, properties.validFrameCount ?? 0)
        durationSeconds = format.sampleRate > 0 ? Double(frameCount) / format.sampleRate : 0
        dataOffset = properties.dataOffset ?? 0
        dataByteCount = properties.audioDataByteCount ?? 0
        bitRate = properties.bitRate ?? 0
        maximumPacketSize = Int64(properties.maximumPacketSize ?? 0)
        magicCookie = properties.magicCookie
        metadata = properties.infoDictionary
        pictures = properties.pictures
        markers = properties.markers
        chapters = properties.chapters
        chapterSource = properties.chapters.isEmpty ? nil : properties.chapterSource
        comments = properties.comments
        annotations = properties.annotations
        instrument = properties.instrument
        loops = properties.loops
        channelLayout = properties.channelLayout
        loudnessInfo = properties.loudnessInfo
        isTruncated = properties.isTruncated
        damage = properties.damage
        notRead = properties.notRead
    }
}
