import AudioFormats

/// What a writer puts in the header besides the format.
public struct AudioFileWriterOptions: Sendable {
    /// Which speaker each channel feeds (CAF `chan`; a WAVE_FORMAT_EXTENSIBLE mask).
    public var channelLayout: ChannelLayout?
    /// Codec configuration (CAF `kuki`).
    public var magicCookie: [UInt8]?
    /// Text tags by afkit's lower-case names: title, artist, album, comments, copyright, ...
    public var metadata: [String: String] = [:]
    /// Pictures with their ``Picture/data`` (M4A `covr`, FLAC `PICTURE`, ID3v2 `APIC` in MP3, ADTS, AIFF and
    /// WAV, Ogg Opus `METADATA_BLOCK_PICTURE`); CAF holds none.
    public var pictures: [Picture] = []
    /// Chapters with their ends (MP4 `chpl`, ID3v2 `CHAP` with a `CTOC` in MP3 and ADTS, `CHAPTERnnn` comments
    /// in FLAC and Ogg Opus).
    public var chapters: [Chapter] = []
    /// Markers (AIFF `MARK`, WAV `cue ` and `LIST/adtl`, CAF `mark` and `strg`).
    public var markers: [Marker] = []
    /// Loops in frames (AIFF `INST` between markers, WAV `smpl`, CAF `regn`), the first as the sustain
    /// loop, the second as the release loop.
    public var loops: [Loop] = []
    /// The instrument's notes, ranges and gain (AIFF `INST`, WAV `smpl` and `inst`, CAF `inst`).
    public var instrument: Instrument?
    /// AIFF `COMT` comments and `ANNO` annotations.
    public var comments: [Comment] = []
    /// AIFF `ANNO` annotations.
    public var annotations: [String] = []
    /// The loudness to state for the sound (MPEG-4 `trak/udta/ludt/tlou`); `nil`: none is written.
    public var loudnessInfo: LoudnessInfo?
    /// For WAV: the expected audio size. Without it (or when it nears 4 GiB) a `JUNK` chunk is
    /// reserved so the file can become RF64 if it grows past what RIFF's 32-bit sizes hold.
    public var estimatedDataByteCount: Int64?
    /// For MPEG-4 files: the expected packet count, so the sample tables before the audio are sized to
    /// fit and the audio need not move when the file is closed.
    public var estimatedPacketCount: Int64?

    /// No metadata, markers or estimates.
    public init() {}
}

extension AudioFileWriterOptions {
    /// The markers, plus one at each loop end that no marker stands at, and the marker IDs each loop
    /// runs between: what a container that names loops by markers (AIFF) needs.
    package func markersWithLoopPoints() -> (markers: [Marker], loops: [(loop: Loop, begin: Int, end: Int)]) {
        var all = markers
        var nextID = (markers.map(\.id).max() ?? 0) + 1
        func marker(at position: Int64, _ name: String) -> Int {
            if let existing = all.first(where: { $0.framePosition == position }) { return existing.id }
            all.append(Marker(id: nextID, framePosition: position, name: name))
            nextID += 1
            return nextID - 1
        }
        let named = loops.enumerated().map { index, loop in
            (loop, marker(at: loop.start, "loop \(index + 1) start"), marker(at: loop.end, "loop \(index + 1) end"))
        }
        return (all, named)
    }
}

/// The bytes a container puts before and after the audio, for given final counts.
package struct ContainerLayout {
    /// Everything before the first audio byte, the audio chunk's header included.
    package var header: [UInt8]
    /// Everything after the last audio byte (pad byte, a packet table written last).
    package var trailer: [UInt8]

    package init(header: [UInt8], trailer: [UInt8]) {
        self.header = header
        self.trailer = trailer
    }
}

/// Counts known when a file is closed.
package struct WrittenCounts {
    package var dataByteCount: Int64
    package var packetCount: Int64
    package var packetSizes: [UInt32]
    package var packetFrames: [UInt32]
    package var packetTableInfo: PacketTableInfo?
    /// `true` while the file is open: sizes are placeholders.
    package var isProvisional: Bool
    /// The encoder's cookie as completed at the end (FLAC's `STREAMINFO` with its MD5), replacing the
    /// provisional one of the same size.
    package var finalCookie: [UInt8]? = nil

    package init(
        dataByteCount: Int64, packetCount: Int64, packetSizes: [UInt32], packetFrames: [UInt32],
        packetTableInfo: PacketTableInfo?, isProvisional: Bool, finalCookie: [UInt8]? = nil
    ) {
        self.dataByteCount = dataByteCount
        self.packetCount = packetCount
        self.packetSizes = packetSizes
        self.packetFrames = packetFrames
        self.packetTableInfo = packetTableInfo
        self.isProvisional = isProvisional
        self.finalCookie = finalCookie
    }

    /// The cookie to write: the final one once the file closes, else the provisional one.
    package func cookie(_ options: AudioFileWriterOptions) -> [UInt8]? { finalCookie ?? options.magicCookie }
}

/// Canonical names of text tags, shared by the writers.
package enum MetadataKey {
    package static let title = "title"
    package static let artist = "artist"
    package static let album = "album"
    package static let comments = "comments"
    package static let copyright = "copyright"
}
