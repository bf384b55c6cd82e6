import ArgumentParser
import AudioContainers
import AudioConversion
import AudioDecoding
import AudioFormats
import FileAccess
import Foundation

/// `afkit hls`: HTTP Live Streaming audio renditions, as Apple's HLS Authoring Specification asks.
struct HLSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hls",
        abstract: "Write HTTP Live Streaming audio: AAC-LC renditions in segments, media and master playlists.",
        discussion: """
            Each bit rate is one AAC-LC rendition (stereo at most unless -c asks, 48 kHz at most; --renditions gives each \
            its channels, stereo beside 5.1), encoded once and \
            cut into segments on packet boundaries: fMP4 (an init.mp4, then .m4s segments with exact decode times \
            and an edit list for the encoder's priming) or packed audio (ADTS .aac segments, each starting with an \
            ID3 PRIV timestamp on the 90 kHz clock). Every rendition has its folder and prog_index.m3u8; \
            master.m3u8 lists them with BANDWIDTH (the peak segment bit rate), AVERAGE-BANDWIDTH, CODECS and \
            CHANNELS, one NAME and LANGUAGE for all. The output folder is written as a set: a temporary folder exchanged for the old one in one \
            step, so a killed run leaves the old package or the new one whole (and the next run removes what it \
            left). Only a package afkit wrote is replaced: its \(HLSPackager.markerName) names the files afkit \
            wrote, and a folder holding anything else is refused. With several sources, each gets a folder named \
            after it. Limits: --segment-duration \(durations), at most \(HLSSettings.maximumRenditions) renditions \
            (bit rates), --pad at most \(shortDecimal(HLSSettings.maximumPadSeconds)) s each side. Check the result \
            with 'afkit validate --profile hls-audio DIR/master.m3u8'.
            """ + "\n\n" + reference)

    /// `--segment-duration`'s range, as help and errors say it.
    static let durations =
        "\(shortDecimal(HLSSettings.segmentDurations.lowerBound)) to "
        + "\(shortDecimal(HLSSettings.segmentDurations.upperBound)) s"

    @Option(
        help: ArgumentHelp(
            "The output folder (created; an earlier package afkit wrote there is replaced, anything else refused).",
            valueName: "DIR"))
    var out: String

    @Option(
        help: ArgumentHelp("The segments: fmp4 (the default) or packed (ADTS with ID3 timestamps).", valueName: "type"))
    var segmentType: SegmentTypeArgument = .fmp4

    @Option(
        help: ArgumentHelp(
            "The duration each segment aims at, \(durations) (Apple recommends 6).", valueName: "seconds"))
    var segmentDuration = 6.0

    @Option(
        help: ArgumentHelp(
            "One AAC-LC rendition per bit rate, comma-separated, in bits per second or k (default 128k; 64k,128k).",
            valueName: "rates"))
    var bitrates: String?

    @Option(
        help: ArgumentHelp(
            "Renditions with their channels, comma-separated LAYOUT:RATE (mono, stereo, 5.1, 7.1 or 1-6, 8), such as "
                + "stereo:64k,stereo:128k,5.1:320k: stereo beside surround in one package (instead of --bitrates and -c).",
            valueName: "list"))
    var renditions: String?

    @Option(
        name: .customShort("d"),
        help: ArgumentHelp("The codec: aac (AAC-LC, the only one afkit's encoders make for HLS).", valueName: "format"))
    var dataFormat = "aac"

    @Option(
        name: .customShort("c"),
        help: ArgumentHelp("Output channels (default: the source's, at most 2).", valueName: "N"))
    var channels: Int?

    @Option(
        help: ArgumentHelp(
            "The renditions' LANGUAGE, a BCP 47 tag such as en or pt-BR (Apple requires one; default: the source's "
                + "language tag, else und, undetermined, with a note).", valueName: "tag"))
    var language: String?

    @Option(
        help: ArgumentHelp(
            "The renditions' NAME, one for all of them: what a player's audio menu shows (default: the source's title "
                + "tag, else its file name).", valueName: "name"))
    var name: String?

    @OptionGroup var shared: SharedConversionOptions

    @OptionGroup var chapterFile: ChapterFileOptions

    @Argument(help: "Sound files.")
    var sources: [String]

    enum SegmentTypeArgument: String, ExpressibleByArgument, CaseIterable {
        case fmp4, packed
    }

    func validate() throws {
        guard !sources.isEmpty else { throw ValidationError("give at least one SOURCE") }
        if renditions != nil && (bitrates != nil || channels != nil) {
            throw ValidationError("--renditions gives each rendition's rate and channels: leave out --bitrates and -c")
        }
        _ = try renditionList()
        let format = try DataFormatSpecifier.fromArgument(dataFormat)
        guard format.kind == .aac, (format.sampleRate ?? 48000) <= 48000 else {
            throw ValidationError(
                "-d \(dataFormat): afkit hls writes AAC-LC renditions (-d aac, at most 48 kHz); packed MP3, AC-3, "
                    + "FLAC and Opus renditions are not written yet")
        }
        if let channels, !(1...8).contains(channels) || channels == 7 {
            throw ValidationError("-c takes 1 to 6 or 8 channels (AAC has no 7-channel configuration)")
        }
        if let language, !HLS.isLanguageTag(language) {
            throw ValidationError("--language '\(language)' is no BCP 47 language tag (en, pt-BR, und)")
        }
        if let name, name.isEmpty || name.contains("\"") || name.contains(where: { $0.isNewline }) {
            throw ValidationError("--name: give a NAME with no quote or line break")
        }
        // The packager's limits (segment duration, renditions, pads in seconds), before anything is read.
        do {
            try HLSPackager.checkSettings(try settings())
        } catch let error as ConversionUsageError {
            throw ValidationError(error.description)
        }
    }

    /// What the options ask of the packager.
    func settings() throws -> HLSSettings {
        var settings = HLSSettings()
        settings.segmentType = segmentType == .fmp4 ? .fmp4 : .packed
        settings.segmentDuration = segmentDuration
        settings.renditions = try renditionList()
        settings.language = language
        settings.renditionName = name
        var conversion = ConversionSettings()
        conversion.channels = channels
        conversion.sampleRate = try DataFormatSpecifier.fromArgument(dataFormat).sampleRate
        conversion.apply(shared.adjustments())
        settings.conversion = conversion
        return settings
    }

    /// The renditions `--renditions` or `--bitrates` give (128k where neither does): each rate as `-b` takes it
    /// (spaces around the commas allowed), each rendition once.
    func renditionList() throws -> [HLSSettings.Rendition] {
        let option = renditions != nil ? "--renditions" : "--bitrates"
        let list = renditions ?? bitrates ?? "128k"
        var result: [HLSSettings.Rendition] = []
        for part in list.split(separator: ",", omittingEmptySubsequences: false) {
            let item = part.trimmingCharacters(in: .whitespaces)
            guard !item.isEmpty else {
                throw ValidationError("\(option) '\(list)': a rendition is missing between commas")
            }
            var channels: Int?
            var text = item
            if renditions != nil {
                let pieces = item.split(separator: ":", omittingEmptySubsequences: false)
                let layouts = ["mono": 1, "stereo": 2, "5.1": 6, "7.1": 8]
                guard pieces.count == 2,
                    let count = layouts[pieces[0].lowercased()] ?? Int(pieces[0]), (1...8).contains(count), count != 7
                else {
                    throw ValidationError(
                        "--renditions: '\(item)' is no LAYOUT:RATE (mono, stereo, 5.1, 7.1 or 1-6, 8 channels; as in "
                            + "stereo:128k or 5.1:320k)")
                }
                channels = count
                text = String(pieces[1])
            }
            let rate: Int
            do {
                rate = try CodecOptions.bitRate(text)
            } catch {
                throw ValidationError(
                    "\(option): '\(text)' is no bit rate: give bits per second, such as 128000 or 128k")
            }
            guard (8000...(channels.map { $0 > 2 } == true ? 1_536_000 : 320_000)).contains(rate) else {
                throw ValidationError(
                    "\(option): \(rate / 1000)k is outside AAC-LC's 8k to \(channels.map { $0 > 2 } == true ? "1536k" : "320k")"
                )
            }
            let rendition = HLSSettings.Rendition(bitRate: rate, channels: channels)
            guard !result.contains(rendition) else { throw ValidationError("\(option): \(item) is given twice") }
            result.append(rendition)
        }
        return result
    }

    func run() throws {
        try checkPathsExist(sources, in: Self.self)
        var settings = try settings()
        if chapterFile.chapters != nil && sources.count > 1 {
            throw usageError(
                "--chapters gives one sound's chapters, and \(sources.count) sources are given: package each with its "
                    + "own", in: Self.self)
        }
        settings.conversion.chapters = try chapterFile.chapterList(in: Self.self)

        // One source: the package is the folder; several: a folder each, named after it.
        var targets: [(source: String, folder: String)] = []
        if sources.count == 1 {
            targets = [(sources[0], out)]
        } else {
            // Keyed by the name's bytes: two spellings Unicode takes as one (`café` composed and decomposed) are two
            // names on the disk, and two folders.
            var seen: [[UInt8]: String] = [:]
            var clashes: [String] = []
            for source in sources {
                let stem = pathParts(source).base
                // A folder of its own, not hidden: not '.', '..' (the output folder itself, or its parent), nor a name
                // of afkit's own (its temporaries, the package marker).
                if stem.isEmpty || stem.hasPrefix(".") || TemporaryFolders.isTemporaryName(stem) {
                    throw usageError(
                        "each source gets a folder named after it, and '\(source)' would get '\(stem)', which names "
                            + "no folder of its own (a hidden name): rename it, or package it alone", in: Self.self)
                }
                let key = PathEscaping.bytes(of: stem)
                if let other = seen[key] { clashes.append("'\(other)' and '\(source)' would both be '\(stem)'") }
                seen[key] = source
                targets.append((source, out + "/" + stem))
            }
            if !clashes.isEmpty {
                throw usageError(
                    "each source gets a folder named after it: " + clashes.joined(separator: "; "), in: Self.self)
            }
        }
        // An output folder that cannot be written as a set, or a pad in frames over the limit at a source's rate,
        // is a usage error, before any work.
        for (source, folder) in targets {
            do {
                try HLSPackager.checkOutputFolder(folder, sources: sources)
                // (A source that cannot be read is said when it is packaged, as a problem of its own.)
                if settings.conversion.edits.padStart != nil || settings.conversion.edits.padEnd != nil,
                    let rate = try? SourceReader(path: source).sampleRate
                {
                    try HLSPackager.checkSettings(settings, sourceRate: rate)
                }
            } catch let error as AudioFileError {
                throw usageError(error.message, in: Self.self)
            } catch let error as ConversionUsageError {
                throw usageError(error.description, about: source, in: Self.self)
            }
        }
        var failed = false
        // On a terminal (or with --progress), a line shows the rendition being made and the loudness passes.
        let line =
            ProgressLine.isShown(forced: shared.progress, quiet: shared.quiet)
            ? ProgressLine(command: "hls", total: sources.count > 1 ? sources.count : nil) : nil
        defer { line?.clear() }
        for (source, folder) in targets {
            do {
                if sources.count > 1 { try makeDirectories(out) }
                var settings = settings
                if let line {
                    let name = shownInput(source)
                    settings.conversion.progress = { line.report(name, $0) }
                    line.begin(name)
                }
                defer { line?.end(shownInput(source)) }
                let renditions = try HLSPackager.package(source: source, output: folder, settings: settings)
                line?.clear()
                // --quiet: errors only.
                if shared.quiet { continue }
                for note in Set(renditions.flatMap(\.notes)).sorted() {
                    Output.standardError(fileMessage("hls", source, .note, note))
                }
                for rendition in renditions {
                    Output.standardOutput(
                        "\(folder)/\(rendition.playlist): \(rendition.codecs), "
                            + "\(rendition.format.channelsPerFrame) ch, \(formatSampleRate(rendition.format.sampleRate)) Hz, "
                            + "\(rendition.segmentCount) segment\(rendition.segmentCount == 1 ? "" : "s") "
                            + "(longest \(fixedPoint(rendition.longestSegment, places: 3)) s), "
                            + "BANDWIDTH \(rendition.peakBitRate), AVERAGE-BANDWIDTH \(rendition.averageBitRate)\n")
                }
                Output.standardOutput(
                    "\(folder)/\(HLSPackager.masterPlaylistName): \(renditions.count) rendition"
                        + (renditions.count == 1 ? "\n" : "s\n"))
                if let chapters = renditions.first?.chapters, !chapters.isEmpty {
                    Output.standardOutput(
                        "\(folder)/\(HLSPackager.chaptersName): \(chapters.count) chapter"
                            + (chapters.count == 1 ? "\n" : "s\n"))
                }
            } catch let error as ConversionUsageError {
                // (An edit that does not fit the source: a usage error, as convert says it.)
                throw usageError(error.description, about: source, in: Self.self)
            } catch let error as AudioFileError {
                failed = true
                // (The line the rendition's end redrew goes first: the error starts a line of its own.)
                line?.clear()
                Output.standardError(fileMessage("hls", source, .error, "\(error)"))
            }
        }
        if failed { throw ExitCode(AFKit.Status.problemFound) }
    }
}
