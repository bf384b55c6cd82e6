#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import AudioCodecs
import AudioContainers
import AudioDecoding
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

    /// The segments' kind (fMP4 by default, as Apple's authoring specification prefers).
    public var segmentType = SegmentType.fmp4
    /// The duration each segment aims at, seconds (Apple recommends 6).
    public var segmentDuration = 6.0
    /// One AAC-LC rendition per bit rate, bits per second, in the master playlist's order.
    public var bitRates = [128_000]
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

    /// The extensions of the files a package holds: an existing output folder holding anything else is
    /// not replaced.
    public static let writtenExtensions: Set<String> = ["m3u8", "mp4", "m4s", "aac"]

    /// Packages `source` into the folder `output` (replacing an earlier package there; anything else in the
    /// way is refused), and returns what each rendition holds.
    public static func package(source: String, output: String, settings: HLSSettings) throws -> [HLSRendition] {
        try checkOutputFolder(output, sources: [source])
        return try writeFolderAtomically(output) { folder in
            try write(source: source, into: folder, settings: settings)
        }
    }

    /// Refuses an output folder that would replace a source or that holds files a package does not.
    public static func checkOutputFolder(_ output: String, sources: [String]) throws {
        var link = stat()
        if lstatPath(output, &link) == 0, link.st_mode & S_IFMT == S_IFLNK {
            throw AudioFileError.illegalOperation(
                "hls: '\(output)' is a symbolic link: afkit replaces a folder as a whole, not through a link")
        }
        guard pathExists(output) else { return }
        guard isDirectory(output) else {
            throw AudioFileError.illegalOperation("hls: '\(output)' is a file: --out names a folder")
        }
        let identities = Set(sources.compactMap(FileIdentity.init(path:)))
        for file in try filesBelow(output) {
            if let identity = FileIdentity(path: file), identities.contains(identity) {
                throw AudioFileError.illegalOperation(
                    "hls: the source '\(file)' is inside the output folder '\(output)', which is replaced as a whole")
            }
            guard writtenExtensions.contains(nameExtension(of: file)) else {
                throw AudioFileError.illegalOperation(
                    "hls: '\(output)' holds '\(file)', which afkit hls does not write: give an empty or new folder "
                        + "(an earlier package is replaced as a whole)")
            }
        }
    }

    /// Writes the renditions and the master playlist into `folder`.
    static func write(source: String, into folder: String, settings: HLSSettings) throws -> [HLSRendition] {
        guard settings.segmentDuration >= 1, settings.segmentDuration <= 60 else {
            throw AudioFileError.illegalOperation(
                "hls: a segment duration of \(settings.segmentDuration) s: give 1 to 60 (Apple recommends 6)")
        }
        guard !settings.bitRates.isEmpty else { throw AudioFileError.illegalOperation("hls: give a bit rate") }
        var renditions: [HLSRendition] = []
        var names = Set<String>()
        for bitRate in settings.bitRates {
            var name = "aac-\(bitRate / 1000)k"
            if !names.insert(name).inserted { name += "-\(names.count)" }
            let rendition = try writeRendition(
                source: source, folder: folder, name: name, bitRate: bitRate, settings: settings)
            renditions.append(rendition)
        }
        var master = HLS.MasterPlaylist()
        master.version = settings.segmentType == .fmp4 ? 7 : 3
        master.independentSegments = true
        for rendition in renditions {
            let group = String(rendition.playlist.prefix { $0 != "/" })
            // The rendition's media is the variant's own URI: EXT-X-MEDIA names its channels, no URI of its own.
            var media = HLS.Rendition(groupID: group, name: "AAC \(rendition.bitRate / 1000) kbit/s")
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
        try writeFile(folder + "/" + masterPlaylistName, bytes: Array(master.text.utf8))
        if let rendition = renditions.first, !renditions.contains(where: { $0.format.channelsPerFrame <= 2 }) {
            renditions[0].notes.append(
                "every rendition has \(rendition.format.channelsPerFrame) channels: Apple's authoring specification asks "
                    + "for a stereo AAC-LC one too (package it again with -c 2)")
        }
        return renditions
    }

    /// Encodes one rendition into a temporary M4A in its folder, cuts its packets into segments and writes
    /// them with its media playlist.
    static func writeRendition(
        source: String, folder: String, name: String, bitRate: Int, settings: HLSSettings
    ) throws -> HLSRendition {
        let directory = folder + "/" + name
        try makeDirectories(directory)
        var conversion = settings.conversion
        conversion.fileType = .m4a
        conversion.dataFormat = DataFormatSpecifier("aac")
        conversion.adaptsToContainer = false
        conversion.bitRate = bitRate
        conversion.copiesCompressedPackets = false
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
        conversion.synchronizesFolder = false
        let encoded = directory + "/.encoded.m4a"
        defer { removeFile(encoded) }
        let result = try AudioConverter.convert(input: source, output: encoded, settings: conversion)
        let file = try AudioFile(path: encoded)
        let format = file.dataFormat
        guard let cookie = file.properties.magicCookie,
            let config = AudioSpecificConfig.audioSpecificConfig(inCookie: cookie),
            let codecs = HLS.codecs(for: format, magicCookie: cookie)
        else {
            throw AudioFileError.unsupportedDataFormat("hls: the encoder gave no AudioSpecificConfig", offset: nil)
        }
        let packets = file.packetCount
        guard packets > 0, (file.properties.validFrameCount ?? 0) > 0 else {
            throw AudioFileError.malformed("hls: '\(source)' holds no audio: nothing to package", offset: nil)
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
        if settings.segmentType == .fmp4 {
            let initialization = try MP4.fragmentedInitialization(
                format: format, magicCookie: cookie, primingFrames: priming, validFrames: validFrames, metadata: tags)
            try writeFile(directory + "/" + initializationName, bytes: initialization)
        }
        var sizes: [Int64] = []
        for segment in 0..<boundaries.count - 1 {
            let first = boundaries[segment]
            let count = Int(boundaries[segment + 1] - first)
            let (data, descriptions) = try file.readPackets(from: first, count: count)
            let startFrame = first * framesPerPacket
            var bytes: [UInt8]
            let uri: String
            switch settings.segmentType {
            case .fmp4:
                uri = "segment\(segment).m4s"
                bytes = MP4.mediaSegment(
                    sequenceNumber: UInt32(segment + 1), baseDecodeTime: UInt64(startFrame),
                    sampleSizes: descriptions.map(\.dataByteSize), data: data)
            case .packed:
                uri = "segment\(segment).aac"
                // The first sample's time on the MPEG-2 90 kHz clock, rounded to the nearest tick.
                let timestamp = UInt64((Double(startFrame) * 90000 / rate).rounded())
                bytes = ID3.transportStreamTimestampTag(timestamp, metadata: segment == 0 ? tags : [:])
                bytes.reserveCapacity(bytes.count + data.count + 7 * count)
                for description in descriptions {
                    let start = Int(description.startOffset)
                    let size = Int(description.dataByteSize)
                    bytes += try ADTS.frameHeader(payloadSize: size, audioSpecificConfig: config)
                    bytes += data[start..<start + size]
                }
            }
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
            notes: notes + result.notes)
    }
}
