#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioEngines
import AudioFormats
import FileAccess

/// How `afkit hls` packages a sound for HTTP Live Streaming.
public struct HLSSettings: Sendable {
    /// What the segments are.
    public enum SegmentType: String, Sendable, CaseIterable {
        /// Packed audio: ADTS frames after an ID3 tag whose `PRIV` frame holds the first sample's
        /// MPEG-2 time (`.aac` segments).
        case packed
        /// Fragmented MPEG-4 (CMAF): an initialization section, then `moof`/`mdat` segments (`.m4s`).
        case fmp4
    }

    /// The segment durations afkit writes, seconds: Apple recommends 6; a longer one is a mistyped number.
    public static let segmentDurations = 1.0...60.0
    /// The most renditions (bit rates) one package holds: far more than a player chooses among.
    public static let maximumRenditions = 32
    /// The longest `--pad` each side, seconds (ten minutes): a longer silence is a mistyped number, not a lead-in.
    public static let maximumPadSeconds = 600.0

    /// The segments' kind (fMP4 by default, as Apple's authoring specification prefers).
    public var segmentType = SegmentType.fmp4
    /// The duration each segment aims at, seconds (Apple recommends 6), within ``segmentDurations``.
    public var segmentDuration = 6.0
    /// One AAC-LC rendition: its bit rate and channels.
    public struct Rendition: Sendable, Hashable {
        /// The encoder's bit rate, bits per second.
        public var bitRate: Int
        /// Its channels: 1 to 6 or 8 (AAC's channel configurations), mixed from the source's; `nil`: the
        /// conversion's (`-c`, else the source's at most 2).
        public var channels: Int?

        /// A rendition at `bitRate` bits per second with `channels` (`nil`: the conversion's).
        public init(bitRate: Int, channels: Int? = nil) {
            self.bitRate = bitRate
            self.channels = channels
        }
    }

    /// The renditions in the master playlist's order (at most ``maximumRenditions``): stereo beside surround
    /// as Apple asks (`[Rendition(bitRate: 128_000, channels: 2), Rendition(bitRate: 320_000, channels: 6)]`).
    public var renditions = [Rendition(bitRate: 128_000)]
    /// The renditions' bit rates, each with the conversion's channels (setting it replaces ``renditions``).
    public var bitRates: [Int] {
        get { renditions.map(\.bitRate) }
        set { renditions = newValue.map { Rendition(bitRate: $0) } }
    }
    /// The renditions' `LANGUAGE` (a BCP 47 tag); `nil`: the source's language tag where it has a well-formed
    /// one, else `und` (undetermined), with a note.
    public var language: String?
    /// The renditions' `NAME`, what a player's audio menu shows, one for every rendition of the content; `nil`:
    /// the source's title tag, else its file name's stem.
    public var renditionName: String?
    /// How each rendition is converted (edits, loudness, channels, rate): the output's format and bit
    /// rate are the packager's.
    public var conversion = ConversionSettings()

    /// Settings for one 128 kbit/s fMP4 rendition in 6 s segments.
    public init() {}
}

/// What `afkit hls` wrote for one rendition.
public struct HLSRendition: Sendable {
    /// The rendition's folder and media playlist, relative to the output folder.
    public var playlist: String
    /// The encoder's nominal bit rate, bits per second.
    public var bitRate: Int
    /// The stream's format.
    public var format: StreamDescription
    /// The `CODECS` name (`mp4a.40.2`).
    public var codecs: String
    /// The segments written.
    public var segmentCount: Int
    /// The longest segment, seconds.
    public var longestSegment: Double
    /// `BANDWIDTH` and `AVERAGE-BANDWIDTH`, bits per second.
    public var peakBitRate: Int64
    /// The average segment bit rate.
    public var averageBitRate: Int64
    /// The valid frames the rendition presents (priming and remainder left out).
    public var frameCount: Int64
    /// The conversion's notes.
    public var notes: [String]
    /// Its loudness as decoded (fMP4: what its init section states).
    public var loudness: LoudnessInfo?
    /// The chapters it carries (`--chapters`, else the source's), on its presentation clock: packed audio's starts
    /// at the encoder's priming, fMP4's edit list skips it.
    public var chapters: [Chapter] = []
}

/// Writes HTTP Live Streaming audio renditions as Apple's HLS Authoring Specification asks: AAC-LC
/// encoded once per bit rate, cut into segments on packet boundaries (one priming, at the start; fMP4 by
/// an edit list and exact `tfdt` decode times, packed audio by `PRIV` timestamps exact to the sample
/// clock), gapless across segments, a media playlist per rendition and a master playlist over them, the
/// whole folder written as a set.
public enum HLSPackager {
    /// The master playlist's name in the output folder.
    public static let masterPlaylistName = "master.m3u8"
    /// Each rendition's media playlist's name in its folder.
    public static let mediaPlaylistName = "prog_index.m3u8"
    /// The fMP4 initialization section's name.
    public static let initializationName = "init.mp4"
    /// Apple's JSON chapters' name in the output folder, named by the master playlist's `EXT-X-SESSION-DATA`.
    public static let chaptersName = "chapters.json"

    /// The hidden file in a package that says afkit wrote it and names every file it wrote: the next run
    /// replaces the folder only where it holds nothing else.
    public static let markerName = ".afkit-package"
    /// The marker's first line.
    static let markerHeading = "afkit hls package"

    /// A rendition's folder: `aac-128k` for a whole number of kbit/s, else the bits per second (`aac-16050`), so
    /// two rates never share one; a rendition given its channels has them in its name (`aac-6ch-320k`).
    public static func renditionName(bitRate: Int, channels: Int? = nil) -> String {
        let rate = bitRate % 1000 == 0 ? "\(bitRate / 1000)k" : "\(bitRate)"
        return "aac-" + (channels.map { "\($0)ch-" } ?? "") + rate
    }

    /// A rendition's folder name, as ``renditionName(bitRate:channels:)`` gives it.
    static func folderName(_ rendition: HLSSettings.Rendition) -> String {
        renditionName(bitRate: rendition.bitRate, channels: rendition.channels)
    }

    /// Packages `source` into the folder `output` (replacing an earlier package there; anything else in the
    /// way is refused), and returns what each rendition holds.
    public static func package(source: String, output: String, settings: HLSSettings) throws -> [HLSRendition] {
        let reader = try SourceReader(path: source)
        try checkSettings(settings, sourceRate: reader.sampleRate)
        if let channels = settings.conversion.channels, channels > reader.channels {
            throw ConversionUsageError(
                "-c \(channels) for a \(reader.channels)-channel source: afkit mixes down, never up (give at most "
                    + "\(reader.channels) channels)")
        }
        for rendition in settings.renditions {
            if let channels = rendition.channels, channels > reader.channels {
                throw ConversionUsageError(
                    "a \(channels)-channel rendition of a \(reader.channels)-channel source: afkit mixes down, never "
                        + "up (give at most \(reader.channels) channels)")
            }
        }
        try checkOutputFolder(output, sources: [source])
        return try writeFolderAtomically(output, checkingReplaced: { try checkOutputFolder($0, sources: [source]) }) {
            folder in try write(source: source, into: folder, settings: settings)
        }
    }

    /// Throws a ``ConversionUsageError`` where `settings` cannot be packaged: a segment duration outside
    /// ``HLSSettings/segmentDurations``, no bit rate or more than ``HLSSettings/maximumRenditions``, two rates
    /// that would share a rendition's folder, a pad over ``HLSSettings/maximumPadSeconds`` (one given in frames
    /// is checked where `sourceRate`, the source's frames per second, is given).
    public static func checkSettings(_ settings: HLSSettings, sourceRate: Double? = nil) throws {
        let durations = HLSSettings.segmentDurations
        guard settings.segmentDuration.isFinite, durations.contains(settings.segmentDuration) else {
            throw ConversionUsageError(
                "a segment duration of \(shortDecimal(settings.segmentDuration)) s: give "
                    + "\(shortDecimal(durations.lowerBound)) to \(shortDecimal(durations.upperBound)) s "
                    + "(Apple recommends 6)")
        }
        guard !settings.renditions.isEmpty else { throw ConversionUsageError("give a bit rate") }
        guard settings.renditions.count <= HLSSettings.maximumRenditions else {
            throw ConversionUsageError(
                "\(settings.renditions.count) renditions: a package holds at most \(HLSSettings.maximumRenditions)")
        }
        var folders: [String: HLSSettings.Rendition] = [:]
        for rendition in settings.renditions {
            if let channels = rendition.channels, !(1...8).contains(channels) || channels == 7 {
                throw ConversionUsageError(
                    "a rendition of \(channels) channels: AAC has 1 to 6 or 8 (no 7-channel configuration)")
            }
            let name = folderName(rendition)
            if let other = folders[name] {
                let what = other == rendition ? "is given twice" : "and \(other.bitRate) would both be '\(name)'"
                throw ConversionUsageError("the rendition \(rendition.bitRate) \(what): give each once")
            }
            folders[name] = rendition
        }
        let limit = HLSSettings.maximumPadSeconds
        for (side, time) in [("start", settings.conversion.edits.padStart), ("end", settings.conversion.edits.padEnd)] {
            let over: String? =
                switch time {
                case .seconds(let seconds)? where seconds > limit: "\(shortDecimal(seconds)) s"
                case .frames(let frames)?:
                    sourceRate.flatMap { rate in
                        let most = Int64(limit * rate)
                        return frames > most
                            ? "\(frames) frames (over \(most) at the source's \(formatSampleRate(rate)) Hz)" : nil
                    }
                default: nil
                }
            if let over {
                throw ConversionUsageError(
                    "a pad of \(over) at the \(side): afkit hls pads at most \(shortDecimal(limit)) s each side")
            }
        }
    }

    /// Refuses an output folder that would replace a source, or that holds anything but a package afkit
    /// wrote: afkit replaces a folder only where every entry in it is a file its marker (``markerName``) names,
    /// or, for a package an earlier afkit wrote without one, its master playlist and what that names in afkit's
    /// layout (macOS's `.DS_Store` and `._` files aside). An empty folder is replaced.
    public static func checkOutputFolder(_ output: String, sources: [String]) throws {
        var link = stat()
        if lstatPath(output, &link) == 0, link.st_mode & S_IFMT == S_IFLNK {
            throw AudioFileError.illegalOperation(
                "hls: '\(output)' is a symbolic link: afkit replaces a folder as a whole, not through a link")
        }
        guard pathExists(output) else { return }
        guard isDirectory(output) else {
            throw AudioFileError.illegalOperation("'\(output)' is a file: --out names a folder")
        }
        let identities = Set(sources.compactMap(FileIdentity.init(path:)))
        let package = packageFiles(in: output)
        let folders = Set(
            (package?.files ?? []).flatMap { file in
                file.indices.filter { file[$0] == "/" }.map { String(file[..<$0]) }
            })
        try visitEntries(below: output) { relative, kind in
            let path = output + "/" + relative
            if kind == S_IFREG, let identity = FileIdentity(path: path), identities.contains(identity) {
                throw AudioFileError.illegalOperation(
                    "hls: the source '\(path)' is inside the output folder '\(output)', which is replaced as a whole")
            }
            let name = relative.split(separator: "/").last ?? ""
            if kind == S_IFREG && (name == ".DS_Store" || name.hasPrefix("._")) { return }
            guard let package else {
                throw AudioFileError.illegalOperation(
                    "hls: '\(output)' holds '\(path)' and is no package afkit wrote (it has no \(markerName) and no "
                        + "master playlist of afkit's): give an empty or new folder; afkit replaces only its own "
                        + "packages")
            }
            let named =
                kind == S_IFREG
                ? relative == markerName && package.marked || package.files.contains(relative)
                : kind == S_IFDIR && folders.contains(relative)
            guard named else {
                throw AudioFileError.illegalOperation(
                    "hls: '\(output)' is a package afkit wrote, but '\(path)' in it is not afkit's: the folder is "
                        + "replaced as a whole, and afkit deletes only what it made; move that away, or give another "
                        + "folder")
            }
        }
    }

    /// The files (relative paths) of the package afkit wrote in `folder`: those its marker names, or, without a
    /// marker, an earlier afkit's master playlist and what it names in afkit's layout (rendition folders as
    /// ``renditionName(bitRate:)`` names them, or an earlier afkit's `aac-NNk-N`; `prog_index.m3u8`, `init.mp4`,
    /// `segmentN.m4s` or `.aac`). `nil` where the folder holds no package afkit wrote.
    static func packageFiles(in folder: String) -> (files: Set<String>, marked: Bool)? {
        func read(_ relative: String) -> String? {
            var info = stat()
            let path = folder + "/" + relative
            guard lstatPath(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                let bytes = try? HLS.readLocalResource(path, limit: maximumListSize)
            else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
        if let marker = read(markerName) {
            let lines = marker.split(separator: "\n").map(String.init)
            guard lines.first?.hasPrefix(markerHeading) == true else { return nil }
            return (Set(lines.dropFirst()), true)
        }
        func playlist(_ relative: String) -> HLS.Playlist? {
            read(relative).flatMap { try? HLS.parse(Array($0.utf8)) }
        }
        guard case .master(let master)? = playlist(masterPlaylistName) else { return nil }
        var files: Set<String> = [masterPlaylistName]
        for variant in master.variants {
            let parts = variant.uri.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[1] == mediaPlaylistName, isRenditionName(parts[0]),
                case .media(let media)? = playlist(variant.uri)
            else { return nil }
            files.insert(variant.uri)
            for segment in media.segments {
                guard isSegmentName(segment.uri), segment.map.map({ $0.uri == initializationName }) ?? true else {
                    return nil
                }
                files.insert(parts[0] + "/" + segment.uri)
                if segment.map != nil { files.insert(parts[0] + "/" + initializationName) }
            }
        }
        return (files, false)
    }

    /// The largest marker or playlist read to recognise a package (64 MiB: a day of 1 s segments in 32 renditions).
    static let maximumListSize = 64 << 20

    /// Whether `name` is a rendition folder's name as afkit writes it, or as an earlier afkit wrote it (`aac-16k-1`).
    static func isRenditionName(_ name: Substring) -> Bool {
        guard name.hasPrefix("aac-") else { return false }
        var parts = name.dropFirst(4).split(separator: "-", omittingEmptySubsequences: false)
        let digits = { (part: Substring) in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } }
        // A rendition given its channels: `aac-6ch-320k`.
        if parts.count == 2, parts[0].hasSuffix("ch"), digits(parts[0].dropLast(2)) { parts.removeFirst() }
        switch parts.count {
        case 1: return digits(parts[0]) || parts[0].hasSuffix("k") && digits(parts[0].dropLast())
        case 2: return parts[0].hasSuffix("k") && digits(parts[0].dropLast()) && digits(parts[1])
        default: return false
        }
    }

    /// Whether `uri` is a segment's name as afkit writes it: `segmentN.m4s` or `segmentN.aac`.
    static func isSegmentName(_ uri: String) -> Bool {
        guard uri.hasPrefix("segment"), uri.hasSuffix(".m4s") || uri.hasSuffix(".aac") else { return false }
        let number = uri.dropFirst("segment".count).dropLast(4)
        return !number.isEmpty && number.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Writes the marker into the filled package `folder`: afkit's version, then every file below it.
    static func writeMarker(in folder: String) throws {
        var files: [String] = []
        try visitEntries(below: folder) { relative, kind in
            if kind == S_IFREG && relative != markerName { files.append(relative) }
        }
        let text =
            ([markerHeading + " (afkit \(AudioConverter.version)): the files afkit wrote here"] + files.sorted())
            .joined(separator: "\n") + "\n"
        try writeFile(folder + "/" + markerName, bytes: Array(text.utf8))
    }

    /// Writes the renditions and the master playlist into `folder`.
    static func write(source: String, into folder: String, settings: HLSSettings) throws -> [HLSRendition] {
        let reader = try SourceReader(path: source)
        let (language, name, labelNotes) = label(source: source, tags: reader.metadata, settings: settings)
        // --loudness: the source normalized once for each layout, every rendition encoded from it and checked.
        let seconds = reader.frameCount.map { Double($0) / reader.sampleRate }
        let loudness = settings.conversion.loudness.map {
            HLSLoudnessPass(target: $0, source: source, folder: folder, seconds: seconds)
        }
        defer { loudness?.removeSignals() }
        // With --loudness the lowest bit rate is made first: the one whose encoder overshoots most, so a target it
        // refuses costs no other rendition's encodes. The playlist keeps the order asked.
        let order = settings.renditions.indices.sorted {
            loudness == nil ? $0 < $1 : (settings.renditions[$0].bitRate, $0) < (settings.renditions[$1].bitRate, $1)
        }
        var made: [Int: HLSRendition] = [:]
        for index in order {
            let rendition = settings.renditions[index]
            made[index] = try writeRendition(
                source: source, folder: folder, name: folderName(rendition), rendition: rendition,
                settings: settings, loudness: loudness)
        }
        var renditions = settings.renditions.indices.compactMap { made[$0] }
        loudness?.removeSignals()
        var master = HLS.MasterPlaylist()
        master.version = settings.segmentType == .fmp4 ? 7 : 3
        master.independentSegments = true
        for rendition in renditions {
            let group = String(rendition.playlist.prefix { $0 != "/" })
            // The rendition's media is the variant's own URI: EXT-X-MEDIA names its channels, no URI of its own.
            // One NAME and LANGUAGE for every rendition of the same content (bit rates, stereo and surround), each
            // in the group of its own variant (as Apple's examples have them): a player's menu lists one audio
            // track, not one a bit rate.
            var media = HLS.Rendition(groupID: group, name: name)
            media.language = language
            media.channels = "\(rendition.format.channelsPerFrame)"
            media.isDefault = true
            media.autoselect = true
            master.renditions.append(media)
            var variant = HLS.Variant(uri: rendition.playlist)
            variant.bandwidth = rendition.peakBitRate
            variant.averageBandwidth = rendition.averageBitRate
            variant.codecs = [rendition.codecs]
            variant.audioGroup = group
            master.variants.append(variant)
        }
        // The chapters (the first rendition's: every rendition carries the same), as Apple's players read them.
        if let chapters = renditions.first?.chapters, !chapters.isEmpty {
            try writeFile(
                folder + "/" + chaptersName, bytes: Array(HLS.chaptersJSON(chapters, language: language).utf8))
            master.sessionData.append(HLS.SessionData(dataID: HLS.chaptersDataID, uri: chaptersName))
        }
        try writeFile(folder + "/" + masterPlaylistName, bytes: Array(master.text.utf8))
        try writeMarker(in: folder)
        if let rendition = renditions.first, !renditions.contains(where: { $0.format.channelsPerFrame <= 2 }) {
            renditions[0].notes.append(
                "every rendition has \(rendition.format.channelsPerFrame) channels: Apple's authoring specification asks "
                    + "for a stereo AAC rendition beside them (add one: --renditions 2:128k,...)")
        }
        var packageNotes = labelNotes + (loudness?.notes ?? [])
        // Renditions of one programme at different loudness: a player switching between them jumps (a stereo mix
        // of a 5.1 source is quieter than the 5.1).
        let levels = renditions.compactMap { $0.loudness?.integratedLoudness }
        if let low = levels.min(), let high = levels.max(), high - low > 2 {
            packageNotes.append(
                "the renditions' loudness differs by \(shortDecimal(((high - low) * 10).rounded() / 10)) LU "
                    + "(\(shortDecimal(low)) to \(shortDecimal(high)) LUFS): a player switching between them jumps; "
                    + "--loudness brings them to one level")
        }
        if let pictures = reader.audioFile?.properties.pictures, !pictures.isEmpty {
            packageNotes.append(
                "the source's cover is not carried: afkit's HLS init sections and packed segments hold no picture")
        }
        if !renditions.isEmpty { renditions[0].notes += packageNotes }
        return renditions
    }

    /// The renditions' `LANGUAGE` and `NAME`: the settings', else the source's language tag (where it is a
    /// well-formed BCP 47 tag) or `und` with a note, and its title tag or file name's stem.
    static func label(source: String, tags: [String: String], settings: HLSSettings) -> (
        language: String, name: String, notes: [String]
    ) {
        var notes: [String] = []
        var language = "und"
        if let given = settings.language {
            language = HLS.languageTag(given) ?? given
            if language != given {
                notes.append("LANGUAGE \(language) for --language \(given): BCP 47 takes ISO 639-1's two letters")
            }
        } else if let tag = tags["language"].map(trimmedText), let normal = HLS.languageTag(tag) {
            language = normal
            notes.append(
                "LANGUAGE \(normal), from the source's language tag"
                    + (normal == tag ? "" : " '\(tag)' (BCP 47's form)"))
        } else {
            notes.append(
                "LANGUAGE is und (undetermined): the source has "
                    + (tags["language"].map { "a language tag, '\($0)', that is no BCP 47 tag" } ?? "no language tag")
                    + "; give the programme's with --language")
        }
        let title = tags["title"].map(trimmedText) ?? ""
        let named = settings.renditionName ?? (title.isEmpty ? pathParts(source).base : title)
        // NAME is a quoted string: no quote or line break in it (RFC 8216).
        let name = String(named.map { $0 == "\"" ? "'" : $0.isNewline ? " " : $0 })
        return (language, name.isEmpty ? "Main" : name, notes)
    }

    /// `text` without the spaces and line breaks around it.
    static func trimmedText(_ text: String) -> String {
        String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }

    /// The conversion a rendition is encoded with: AAC-LC at the rendition's bit rate in M4A, at most 48 kHz and
    /// stereo unless the channels are asked for (by the rendition, else the settings), at 44.1 or 48 kHz (Apple's
    /// devices play HLS audio at those; other rates are resampled, 44.1 kHz's family to it), with a note for each
    /// change.
    static func renditionConversion(of source: String, rendition: HLSSettings.Rendition, settings: HLSSettings) throws
        -> (ConversionSettings, [String])
    {
        var conversion = settings.conversion
        conversion.fileType = .m4a
        conversion.dataFormat = DataFormatSpecifier("aac")
        conversion.adaptsToContainer = false
        conversion.bitRate = rendition.bitRate
        conversion.copiesCompressedPackets = false
        // A stream is no loop (packed audio would play a wrap's frames, which an M4A's edit list skips).
        conversion.encodesLoopWrap = false
        if let channels = rendition.channels {
            conversion.channels = channels
            conversion.maximumChannels = nil
        }
        // AAC-LC as HLS carries it: at most 48 kHz; stereo unless the channels are asked for.
        if conversion.channels == nil { conversion.maximumChannels = min(conversion.maximumChannels ?? 2, 2) }
        // Apple's devices play HLS audio at 44.1 or 48 kHz: other rates are resampled (44.1 kHz's family to it).
        var notes: [String] = []
        if conversion.sampleRate == nil {
            let rate = try SourceReader(path: source).sampleRate
            if rate != 44100 && rate != 48000 {
                let chosen: Double = rate.truncatingRemainder(dividingBy: 11025) == 0 ? 44100 : 48000
                conversion.sampleRate = chosen
                notes.append(
                    "HLS audio is 44.1 or 48 kHz on Apple's devices: resampled from \(formatSampleRate(rate)) Hz to "
                        + "\(formatSampleRate(chosen)) Hz")
            }
        }
        return (conversion, notes)
    }

    /// A segment's bytes: an fMP4 media segment (`moof` and `mdat`), or packed audio (an ID3 tag with the first
    /// sample's time on the MPEG-2 90 kHz clock, and the source's tags in the first, then ADTS frames).
    static func segmentBytes(
        _ segment: Int, startFrame: Int64, data: [UInt8], descriptions: [PacketDescription], rate: Double,
        config: [UInt8], tags: [String: String], type: HLSSettings.SegmentType
    ) throws -> [UInt8] {
        switch type {
        case .fmp4:
            return MP4.mediaSegment(
                sequenceNumber: UInt32(segment + 1), baseDecodeTime: UInt64(startFrame),
                sampleSizes: descriptions.map(\.dataByteSize), data: data)
        case .packed:
            // The first sample's time on the MPEG-2 90 kHz clock, rounded to the nearest tick.
            let timestamp = UInt64((Double(startFrame) * 90000 / rate).rounded())
            var bytes = ID3.transportStreamTimestampTag(timestamp, metadata: segment == 0 ? tags : [:])
            bytes.reserveCapacity(bytes.count + data.count + 7 * descriptions.count)
            // ADTS's own framing, as the ADTS writer frames its packets.
            var framer = ADTS.Framer(audioSpecificConfig: config)
            try data.withUnsafeBytes { all in
                for description in descriptions {
                    let start = Int(description.startOffset)
                    let packet = UnsafeRawBufferPointer(rebasing: all[start..<start + Int(description.dataByteSize)])
                    try framer.append(packet: packet, frames: 0, into: &bytes)
                }
            }
            return bytes
        }
    }

    /// Encodes one rendition into a temporary M4A in its folder, cuts its packets into segments and writes
    /// them with its media playlist.
    static func writeRendition(
        source: String, folder: String, name: String, rendition: HLSSettings.Rendition, settings: HLSSettings,
        loudness: HLSLoudnessPass? = nil
    ) throws -> HLSRendition {
        let bitRate = rendition.bitRate
        let directory = folder + "/" + name
        try makeDirectories(directory)
        var (conversion, notes) = try renditionConversion(of: source, rendition: rendition, settings: settings)
        conversion.synchronizesFolder = false
        // The progress says which rendition is being made (a normalizer's passes say their own activity).
        conversion.sayProgress(as: "encoding \(name)")
        let encoded = directory + "/.encoded.m4a"
        defer { removeFile(encoded) }
        let result: ConversionResult
        var measured: LoudnessMeasurement?
        if let loudness {
            let (encodedResult, decoded, loudnessNotes) = try loudness.encode(conversion, into: encoded, name: name)
            result = encodedResult
            measured = decoded
            notes += loudnessNotes
        } else {
            result = try AudioConverter.convert(input: source, output: encoded, settings: conversion)
        }
        let file = try AudioFile(path: encoded)
        let format = file.dataFormat
        guard let cookie = file.properties.magicCookie,
            let config = AudioSpecificConfig.audioSpecificConfig(inCookie: cookie),
            let codecs = CodecDescriptor.codecString(for: format, magicCookie: cookie)
        else {
            throw AudioFileError.unsupportedDataFormat("the encoder gave no AudioSpecificConfig", offset: nil)
        }
        let channels = format.channelsPerFrame
        if let range = HLS.appleAudioBitRates.first(where: { $0.codecs.contains(codecs) && $0.channels == channels })?
            .kilobits, !range.contains(Double(bitRate / 1000))
        {
            let (low, high) = (Int(range.lowerBound), Int(range.upperBound))
            let figure = low == high ? "\(low) kbit/s" : "\(low) to \(high) kbit/s"
            notes.append(
                "\(name): \(channels == 2 ? "stereo" : "5.1") AAC-LC at \(bitRate / 1000) kbit/s, where Apple's "
                    + "authoring specification gives \(figure)")
        }
        let packets = file.packetCount
        guard packets > 0, (file.properties.validFrameCount ?? 0) > 0 else {
            throw AudioFileError.malformed("'\(source)' holds no audio: nothing to package", offset: nil)
        }
        let framesPerPacket = Int64(format.framesPerPacket)
        let rate = format.sampleRate
        let table = file.properties.packetTableInfo
        let priming = Int64(table?.primingFrames ?? 0)
        let validFrames = table?.validFrames ?? packets * framesPerPacket - priming

        // Every segment holds the most whole packets that fit in the segment duration, so none lasts longer.
        let perSegment = max(1, Int64((settings.segmentDuration * rate / Double(framesPerPacket)).rounded(.down)))
        let boundaries = Array(stride(from: 0, to: packets, by: Int(perSegment)).map { Int64($0) }) + [packets]
        var playlist = HLS.MediaPlaylist()
        playlist.version = settings.segmentType == .fmp4 ? 7 : 3
        playlist.playlistType = "VOD"
        playlist.independentSegments = true
        playlist.endList = true
        let map = settings.segmentType == .fmp4 ? HLS.MediaInitializationSection(uri: initializationName) : nil
        // The source's tags (unless --no-metadata): in the initialization section, or the first packed segment's tag.
        let tags = file.properties.infoDictionary.filter { MetadataKeys.carried.contains($0.key) }
        // The rendition's loudness as decoded (--loudness's check measured it): in the init section's loudness box,
        // and compared with the other renditions'.
        let stated = try measured ?? LoudnessMeasurement.measure(path: encoded)
        if settings.segmentType == .fmp4 {
            let initialization = try MP4.fragmentedInitialization(
                format: format, magicCookie: cookie, primingFrames: priming, validFrames: validFrames, metadata: tags,
                loudness: LoudnessInfo(stated))
            try writeFile(directory + "/" + initializationName, bytes: initialization)
        }
        var sizes: [Int64] = []
        for segment in 0..<boundaries.count - 1 {
            let first = boundaries[segment]
            let count = Int(boundaries[segment + 1] - first)
            let (data, descriptions) = try file.readPackets(from: first, count: count)
            let startFrame = first * framesPerPacket
            let uri = "segment\(segment)" + (settings.segmentType == .fmp4 ? ".m4s" : ".aac")
            let bytes = try segmentBytes(
                segment, startFrame: startFrame, data: data, descriptions: descriptions, rate: rate, config: config,
                tags: tags, type: settings.segmentType)
            try writeFile(directory + "/" + uri, bytes: bytes)
            // fMP4 presents the frames its edit list keeps; packed audio plays every decoded frame.
            var frames = Int64(count) * framesPerPacket
            if settings.segmentType == .fmp4 {
                let end = startFrame + frames
                frames = max(0, min(end, priming + validFrames) - max(startFrame, priming))
            }
            var entry = HLS.Segment(uri: uri, duration: Double(frames) / rate)
            entry.map = map
            playlist.segments.append(entry)
            sizes.append(Int64(bytes.count))
        }
        let durations = playlist.segments.map(\.duration)
        let longest = durations.max() ?? 0
        // The duration asked for (Apple's 6 s), or the longest segment's where that rounds above it.
        let target = max(1, Int(settings.segmentDuration.rounded()), Int(longest.rounded()))
        playlist.targetDuration = target
        try writeFile(directory + "/" + mediaPlaylistName, bytes: Array(playlist.text.utf8))
        let peak = HLS.peakSegmentBitRate(sizes: sizes, durations: durations, targetDuration: Double(target))
        return HLSRendition(
            playlist: name + "/" + mediaPlaylistName, bitRate: bitRate, format: format, codecs: codecs,
            segmentCount: sizes.count, longestSegment: longest, peakBitRate: Int64(peak.rounded(.up)),
            averageBitRate: Int64(HLS.averageSegmentBitRate(sizes: sizes, durations: durations).rounded(.up)),
            frameCount: settings.segmentType == .fmp4 ? validFrames : packets * framesPerPacket,
            notes: notes + result.notes, loudness: LoudnessInfo(stated),
            chapters: presentedChapters(of: file, priming: settings.segmentType == .packed ? priming : 0, rate: rate))
    }

    /// The chapters the encoded rendition `file` carries (its chapter track's), moved by `priming` frames at `rate`
    /// (packed audio presents the encoder's priming; fMP4's edit list skips it), the last ending with the sound.
    static func presentedChapters(of file: AudioFile, priming: Int64, rate: Double) -> [Chapter] {
        let shift = Double(priming) / rate
        return file.properties.chapters.map { chapter in
            Chapter(
                startTime: chapter.startTime + shift, endTime: chapter.endTime.map { $0 + shift },
                title: chapter.title)
        }
    }
}
