import ArgumentParser
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import AudioStreaming
import FileAccess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `afkit info`: what a file holds, as afinfo says it.
struct Info: NetworkCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the format, counts and layout of audio files.",
        discussion: "The container is detected from the bytes, never from the file name.\n\n" + reference
    )

    @Flag(help: "Print a JSON array with one object per file.")
    var json = false

    @Flag(help: "Also write the parser's chunk-by-chunk trace to standard error.")
    var trace = false

    @Flag(help: "Also measure loudness (ITU-R BS.1770-4 / EBU R128): integrated, range, true peak, sample peak.")
    var loudness = false

    @OptionGroup(title: "For http:// and https:// URLs")
    var network: NetworkOptions

    @Flag(help: allowNetworkHelp)
    var allowNetwork = false

    @Argument(
        help: "Audio files (- for standard input, or http:// and https:// URLs: the header is read and the rest left).")
    var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one FILE") }
        if loudness, let url = files.first(where: isStreamURL) {
            throw usageError("--loudness measures files, not streams", about: url, in: Self.self)
        }
    }

    /// A file that does not exist (or a folder) is reported in its place, like any other that cannot be read, and
    /// the others are still read (as `afinfo` and `ls` do); the status is then 2, a usage error.
    var readsNetwork: Bool { files.contains(where: isStreamURL) }

    func run() throws {
        try checkStandardOutput()
        try report(streams: [:])
    }

    /// A report written into one of the files (`afkit info a.caf >> a.caf`) is refused before anything is read.
    func checkStandardOutput() throws {
        try afkit.checkStandardOutput(against: files.filter { !isStreamURL($0) }, in: Self.self)
    }

    /// With URLs: each stream's header is read first (what awaits), then every path is reported in order.
    func runOverNetwork() async throws {
        try checkStandardOutput()
        var streams: [String: Result<(StreamProperties, HTTPAudioStream.Response, PlaylistReading?), AudioFileError>] =
            [:]
        for url in files where isStreamURL(url) && streams[url] == nil {
            do {
                streams[url] = .success(try await readStreamHeader(url, network: network))
            } catch let error as AudioFileError {
                streams[url] = .failure(error)
            }
        }
        try report(streams: streams)
    }

    /// Reports every path in order, streams from the headers read (`streams`).
    private func report(
        streams: [String: Result<(StreamProperties, HTTPAudioStream.Response, PlaylistReading?), AudioFileError>]
    ) throws {
        var failed = false
        var missing = false
        var objects: [JSONValue] = []
        for path in files {
            // A path that names nothing, or a folder: a usage error (status 2), reported in the file's place.
            let problem = path == "-" || isStreamURL(path) ? nil : inputPathProblem(path)
            if problem != nil { missing = true }
            let shown = shownArgument(path)
            do {
                if let problem { throw AudioFileError.io(problem, errno: pathExists(path) ? EISDIR : ENOENT) }
                if isStreamURL(path) {
                    let (properties, response, playlist) = try
                        (streams[path]
                        ?? .failure(.illegalOperation("\(shown): the stream's header was not read"))).get()
                    let summary = try AudioFileSummary(properties)
                    if json {
                        objects.append(
                            .object(
                                [("path", .string(shown))] + summary.jsonFields + [("http", response.json)]
                                    + (playlist.map { [("hls", $0.json)] } ?? [])))
                    } else {
                        var text = InfoText.render(path: shown, summary: summary, properties: properties)
                        text.insert(
                            contentsOf: response.text + (playlist?.text ?? ""),
                            at: text.index(text.endIndex, offsetBy: -5))
                        Output.standardOutput(text)
                    }
                    continue
                }
                if path != "-", HLS.isPlaylistFile(path) {
                    // An HLS playlist: its (best variant's) segments read as one stream. With --loudness, the
                    // segments as the stream took them are kept in a temporary file, and measured as that one file:
                    // the rendition decoded in order, its priming and remainder left out once.
                    var reader = HLS.Reader(fetch: playlistAccess(path, allowsNetwork: allowNetwork).fetcher)
                    var stream = AudioFileStream()
                    var spool: String?
                    defer { if let spool { TemporaryFiles.discard(spool) } }
                    if loudness {
                        spool = try Self.spooledSegments(of: path, by: &reader, into: &stream)
                    } else {
                        try reader.read(location: path, into: &stream) { _ in }
                    }
                    let summary = try AudioFileSummary(stream.properties)
                    let measured = try spool.map(LoudnessMeasurement.measure(path:))
                    let playlist = PlaylistReading(
                        mediaPlaylist: reader.mediaLocation ?? path, segments: reader.segments.count,
                        problems: reader.problems)
                    // A master's every rendition measured too (a player may play any): lowest bandwidth first.
                    var renditions: [(location: String, measured: LoudnessMeasurement, frames: Int64)] = []
                    if let measured, let shown = reader.mediaLocation, shown != path {
                        let access = playlistAccess(path, allowsNetwork: allowNetwork).fetcher
                        for location in try HLS.Reader(fetch: access).audioPlaylists(at: path) {
                            guard location != shown else {
                                renditions.append((location, measured, summary.frameCount))
                                continue
                            }
                            var other = HLS.Reader(fetch: access)
                            var otherStream = AudioFileStream()
                            let otherSpool = try Self.spooledSegments(of: location, by: &other, into: &otherStream)
                            defer { TemporaryFiles.discard(otherSpool) }
                            renditions.append(
                                (
                                    location, try LoudnessMeasurement.measure(path: otherSpool),
                                    try AudioFileSummary(otherStream.properties).frameCount
                                ))
                        }
                    }
                    if json {
                        var fields = [("path", .string(path))] + summary.jsonFields + [("hls", playlist.json)]
                        if let measured { fields.append(("loudness", measured.json)) }
                        if !renditions.isEmpty {
                            fields.append(
                                (
                                    "renditions",
                                    .array(
                                        renditions.map {
                                            .object([
                                                ("mediaPlaylist", .string($0.location)), ("loudness", $0.measured.json),
                                            ])
                                        })
                                ))
                        }
                        objects.append(.object(fields))
                    } else {
                        var text = InfoText.render(path: path, summary: summary, properties: stream.properties)
                        let each = renditions.map {
                            "Rendition loudness:     \($0.location): \($0.measured.figures(frames: $0.frames))\n"
                        }
                        text.insert(
                            contentsOf: playlist.text + (measured.map { $0.text(frames: summary.frameCount) } ?? "")
                                + each.joined(),
                            at: text.index(text.endIndex, offsetBy: -5))
                        Output.standardOutput(text)
                    }
                    continue
                }
                // `-`: standard input, kept in a temporary file while it is read.
                let spool = path == "-" ? try StandardStreams.spoolStandardInput() : nil
                defer { if let spool { TemporaryFiles.discard(spool) } }
                let file = try AudioFile(path: spool ?? path)
                if trace { Output.standardError(file.properties.trace.records.map { "\(path): \($0)\n" }.joined()) }
                let summary = try AudioFileSummary(file.properties)
                let measured = loudness ? try LoudnessMeasurement.measure(path: spool ?? path) : nil
                if json {
                    var fields: [(String, JSONValue)] = [("path", .string(path))] + summary.jsonFields
                    if let measured { fields.append(("loudness", measured.json)) }
                    objects.append(.object(fields))
                } else {
                    var text = InfoText.render(path: path, summary: summary, properties: file.properties)
                    if let measured {
                        text.insert(
                            contentsOf: measured.text(frames: summary.frameCount),
                            at: text.index(text.endIndex, offsetBy: -5))
                    }
                    Output.standardOutput(text)
                }
            } catch let error as AudioFileError {
                failed = true
                if json {
                    objects.append(.object([("path", .string(shown)), ("error", errorJSON(error))]))
                } else {
                    Output.standardError(fileMessage("info", path, .error, "\(error)"))
                }
            }
        }
        if json { Output.standardOutput(JSONValue.array(objects).serialized(pretty: true) + "\n") }
        if missing { throw ExitCode(AFKit.Status.usage) }
        if failed { throw ExitCode(AFKit.Status.problemFound) }
    }
}

/// The contract's error object.
func errorJSON(_ error: AudioFileError) -> JSONValue {
    .object([
        ("code", .string(error.code.description)),
        ("message", .string(error.message)),
        ("offset", error.offset.map { .integer($0) } ?? .null),
    ])
}

/// afinfo's layout, in afkit's words.
extension Info {
    /// The segments of the playlist at `location` as `reader` reads them into `stream` (a rendition decoded in order,
    /// its priming and remainder left out once), kept in a temporary file to be measured as one file.
    static func spooledSegments(
        of location: String, by reader: inout HLS.Reader, into stream: inout AudioFileStream
    ) throws -> String {
        try StandardStreams.spool(named: "hls", what: "the playlist's segments") { write in
            try reader.read(location: location, into: &stream, fed: { try $0.withUnsafeBytes(write) }) { _ in }
        }
    }
}

enum InfoText {
    static func render(path: String, summary: AudioFileSummary, properties: StreamProperties) -> String {
        let format = summary.format
        var lines = [
            "File:                   \(path)",
            "File type ID:           \(summary.container.fileTypeID) (\(summary.container.rawValue))",
            "Data format:            \(format.summary)",
        ]
        if summary.formatList.count > 1 {
            for (index, layer) in summary.formatList.enumerated() {
                lines.append("Format list:            [\(index)] \(layer.summary)")
            }
        }
        if let layout = properties.channelLayout {
            lines.append(
                "Channel layout:         \(layout.spokenName) [tag 0x\(String(layout.tag, radix: 16)), bitmap "
                    + "0x\(String(layout.bitmap, radix: 16)), \(layout.descriptions.count) descriptions]"
            )
        }
        if let cookie = summary.magicCookie {
            lines.append(
                "Magic cookie:           \(cookie.count) bytes (\(hexString(Array(cookie.prefix(32))))\(cookie.count > 32 ? "..." : ""))"
            )
        }
        lines += [
            "Duration:               \(formatSeconds(summary.durationSeconds)) sec",
            "Audio bytes:            \(summary.dataByteCount)",
            "Audio packets:          \(summary.packetCount)",
            "Bit rate:               \(summary.bitRate) bits per second",
            "Maximum packet size:    \(summary.maximumPacketSize)",
            "Audio data file offset: \(summary.dataOffset)",
        ]
        if let optimized = summary.isOptimized {
            lines.append(
                "Layout:                 " + (optimized ? "optimized" : "not optimized ('moov' follows the audio)"))
        }
        lines += [
            "Frames:                 \(summary.frameCount) valid + \(summary.primingFrames) priming + \(summary.remainderFrames) remainder"
        ]
        // An AIFF's COMT comments are their own lines (``timelineLines(_:)``), not the `comments` tag made of them too.
        let commentsTag = summary.comments.isEmpty ? nil : summary.comments.map(\.text).joined(separator: "\n")
        for (key, value) in summary.metadata.sorted(by: { $0.key < $1.key })
        where !(key == "comments" && value == commentsTag) {
            lines.append("Metadata:               \(key): \(PathEscaping.controlEscaped(value))")
        }
        for picture in summary.pictures {
            let size = picture.width.flatMap { w in picture.height.map { " \(w)x\($0)" } } ?? ""
            lines.append(
                "Picture:                \(picture.roleName), \(picture.mimeType)\(size), "
                    + "\(picture.byteCount) bytes")
        }
        if let info = summary.loudnessInfo { lines.append("Loudness info:          " + info.text) }
        if let source = summary.chapterSource { lines.append("Chapters from:          \(source)") }
        for chapter in summary.chapters {
            let end = chapter.endTime.map { "-" + formatSeconds($0) } ?? ""
            lines.append(
                "Chapter:                \(formatSeconds(chapter.startTime))\(end) sec: "
                    + PathEscaping.controlEscaped(chapter.title))
        }
        lines += timelineLines(summary)
        for warning in properties.warnings {
            lines.append("Warning:                \(PathEscaping.controlEscaped(warning))")
        }
        if summary.isTruncated {
            let place = properties.truncationOffset.map { " at byte \($0)" } ?? ""
            lines.append("Warning:                the file is truncated\(place): its audio ends before its header says")
        }
        lines.append("----")
        return lines.joined(separator: "\n") + "\n"
    }

    static func formatSeconds(_ seconds: Double) -> String { fixedPoint(seconds, places: 6) }

    /// Lines of each kind shown before the rest are counted: a file's marker count is its own to choose.
    static let timelineLineLimit = 32

    /// The markers, loops, instrument and comments `--json` gives, a concise line each (at most
    /// ``timelineLineLimit`` of a kind, then how many more).
    static func timelineLines(_ summary: AudioFileSummary) -> [String] {
        let rate = summary.format.sampleRate
        func at(_ frame: Int64) -> String {
            "frame \(frame)" + (rate > 0 ? " (\(formatSeconds(Double(frame) / rate)) sec)" : "")
        }
        func capped(_ label: String, _ items: [String]) -> [String] {
            let shown = items.prefix(timelineLineLimit).map { label + $0 }
            let more = items.count - shown.count
            return shown + (more > 0 ? [label + "... and \(more) more (--json lists them all)"] : [])
        }
        var lines = capped(
            "Marker:                 ",
            summary.markers.map { marker in
                "\(marker.id) at \(at(marker.framePosition))"
                    + (marker.name.isEmpty ? "" : ": " + PathEscaping.controlEscaped(marker.name))
            })
        lines += capped(
            "Loop:                   ",
            summary.loops.map {
                "\($0.playMode.rawValue), frames \($0.start) to \($0.end) (\($0.end - $0.start) frames)"
            })
        if let instrument = summary.instrument {
            func loop(_ loop: InstrumentLoop?) -> String {
                guard let loop, let mode = loop.playMode else { return "off" }
                return "\(mode.rawValue), markers \(loop.beginMarker) to \(loop.endMarker)"
            }
            lines.append(
                "Instrument:             base note \(instrument.baseNote), detune \(instrument.detune) cents, notes "
                    + "\(instrument.lowNote)-\(instrument.highNote), velocities \(instrument.lowVelocity)-"
                    + "\(instrument.highVelocity), gain \(instrument.gain) dB; sustain loop \(loop(instrument.sustainLoop)), "
                    + "release loop \(loop(instrument.releaseLoop))")
        }
        lines += capped(
            "Comment:                ",
            summary.comments.map { comment in
                (comment.marker == 0 ? "" : "marker \(comment.marker): ") + PathEscaping.controlEscaped(comment.text)
            })
        return lines
    }
}

extension LoudnessInfo {
    /// The figures stated, in `--loudness`'s order and words, then how they were measured: `-16.25 LUFS integrated,
    /// range 5.5 LU, true peak -1.03125 dBTP, sample peak -1.5 dBFS (as the file states: EBU R128, accurate)`.
    var text: String {
        // Every figure as stored: on a grid of 1/32, exact in five places.
        func value(_ number: Double, _ unit: String) -> String {
            var text = fixedPoint(number, places: 5)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return (text == "-0" ? "0" : text) + " " + unit
        }
        let figures = [
            integratedLoudness.map { value($0, "LUFS") + " integrated" },
            anchorLoudness.map { "anchor " + value($0, "LUFS") },
            maximumMomentaryLoudness.map { "momentary max " + value($0, "LUFS") },
            maximumShortTermLoudness.map { "short-term max " + value($0, "LUFS") },
            loudnessRange.map { "range " + value($0, "LU") }, truePeak.map { "true peak " + value($0, "dBTP") },
            samplePeak.map { "sample peak " + value($0, "dBFS") },
        ].compactMap { $0 }
        return figures.joined(separator: ", ") + " (as the file states: \(measurementSystem), \(reliability))"
    }
}

extension LoudnessMeasurement {
    /// A line for `info`'s text, of a sound of `frames` valid frames: a file of none (an init segment, or one
    /// damaged before its first) has nothing to measure, which is said, not a loudness of -inf.
    func text(frames: Int64) -> String { "Loudness:               " + figures(frames: frames) + "\n" }

    /// The figures of ``text(frames:)``, without its label.
    func figures(frames: Int64) -> String {
        guard frames > 0 else { return "none: the file holds no audio frames to measure" }
        func value(_ number: Double, _ unit: String) -> String {
            number.isFinite ? fixedPoint(number, places: 2) + " " + unit : "-inf " + unit
        }
        // A sound under one 400 ms block has no gated integrated loudness: its one-block measure stands in.
        let level =
            shortSoundLoudness.map { value($0, "LUFS") + " over one block (shorter than 400 ms)" }
            ?? value(integrated, "LUFS") + " integrated"
        return "\(level), range \(value(range, "LU")), "
            + "true peak \(value(truePeak, "dBTP")), sample peak \(value(samplePeak, "dBFS"))"
    }
}
