import ReportGraphics
import AudioCodecs
import AudioContainers
import AudioFormats
import FileAccess

extension ValidationRule {
    /// The rules over HTTP Live Streaming playlists (the `hls-audio` profile's).
    static let playlistRules: [ValidationRule] = [
        hlsPlaylist, hlsSegments, hlsInitialization, hlsTargetDuration, hlsTimestamps, hlsBandwidth, hlsCodecs,
        hlsAudioRenditions, hlsChapters,
    ]

    /// A media playlist's name in messages: its URI, and the segment's where there is one.
    /// `uri: ` before a message about a media playlist, nothing for the playlist given alone.
    private static func prefix(_ media: MediaPlaylistFacts) -> String { media.uri.isEmpty ? "" : media.uri + ": " }

    private static func place(_ media: MediaPlaylistFacts, _ segment: HLS.SegmentFacts? = nil) -> String {
        [media.uri, segment?.uri].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
    }

    /// The playlists can be read and say what RFC 8216 asks: `EXTM3U`, a target duration, segments, a
    /// version that has the tags used (`EXT-X-MAP` needs 6; byte ranges 4; decimal durations 3), an ended VOD
    /// playlist; a master lists each media playlist once (per audio group); the renditions of a master agree on
    /// their media sequence.
    public static let hlsPlaylist = ValidationRule(id: "hls-playlist", parameters: []) { facts, _ in
        guard let playlist = facts.playlist else { return [] }
        if let error = playlist.error { return [Finding("the playlist cannot be read: \(error)")] }
        var findings: [Finding] = []
        if let master = playlist.master {
            if master.variants.isEmpty {
                findings.append(Finding("the master playlist names no variant stream (EXT-X-STREAM-INF)"))
            }
            findings += repeatedURIs(in: master, at: playlist.path)
        }
        for media in playlist.media {
            guard let list = media.playlist else {
                findings.append(Finding("\(prefix(media))cannot be read: \(media.error ?? "unknown")"))
                continue
            }
            if list.targetDuration == nil { findings.append(Finding("\(prefix(media))no EXT-X-TARGETDURATION")) }
            if list.segments.isEmpty { findings.append(Finding("\(prefix(media))no segment")) }
            let version = list.version ?? 1
            var needed = 1
            if list.segments.contains(where: { $0.duration != $0.duration.rounded() }) { needed = 3 }
            if list.segments.contains(where: { $0.byteRange != nil }) { needed = max(needed, 4) }
            if list.segments.contains(where: { $0.map != nil }) { needed = max(needed, 6) }
            if version < needed {
                findings.append(
                    Finding("\(prefix(media))EXT-X-VERSION \(version), but its tags need version \(needed) or later"))
            }
            if list.playlistType == "VOD" && !list.endList {
                findings.append(Finding("\(prefix(media))a VOD playlist without EXT-X-ENDLIST"))
            }
            // Apple's authoring specification: a VOD playlist says so (an ended playlist of no type may be
            // mistaken for a live one that stopped).
            if list.endList && list.playlistType == nil {
                findings.append(
                    Finding(
                        "\(prefix(media))ends (EXT-X-ENDLIST) but has no EXT-X-PLAYLIST-TYPE: Apple's authoring "
                            + "specification requires EXT-X-PLAYLIST-TYPE:VOD for video on demand"))
            }
        }
        for name in playlist.byteOrderMarks {
            findings.append(Finding("\(name): starts with a UTF-8 byte order mark, which RFC 8216 forbids"))
        }
        let sequences = Set(playlist.media.compactMap { $0.playlist?.mediaSequence })
        if sequences.count > 1 {
            findings.append(
                Finding(
                    "the renditions start at different media sequence numbers (\(sequences.sorted().map(String.init).joined(separator: ", ")))",
                    severity: .warning))
        }
        return findings
    }

    /// A media playlist the master lists twice: two variant streams (`EXT-X-STREAM-INF`) with one URI and one
    /// audio group, or two `EXT-X-MEDIA` renditions with one URI in one group, are one stream offered twice (two
    /// renditions written into one folder, the later over the earlier). URIs compare as resolved against `path`.
    private static func repeatedURIs(in master: HLS.MasterPlaylist, at path: String) -> [Finding] {
        var counts: [String: (uri: String, count: Int)] = [:]
        var order: [String] = []
        let listed =
            master.variants.map { ("EXT-X-STREAM-INF", $0.audioGroup ?? "", $0.uri) }
            + master.renditions.compactMap { rendition in
                rendition.uri.map { ("EXT-X-MEDIA", rendition.type + " " + rendition.groupID, $0) }
            }
        for (tag, group, uri) in listed {
            let key = tag + "\n" + group + "\n" + HLS.resolve(uri, against: path)
            if counts[key] == nil { order.append(key) }
            counts[key, default: (uri, 0)].count += 1
        }
        return order.compactMap { key in
            guard let (uri, count) = counts[key], count > 1 else { return nil }
            let tag = key.prefix { $0 != "\n" }
            let how = tag == "EXT-X-MEDIA" ? "in one group" : "and one audio group"
            return Finding(
                "the master lists '\(uri)' \(count) times (\(tag) tags with one URI \(how)): each rendition is a "
                    + "media playlist of its own")
        }
    }

    /// Every segment can be read and is one audio stream that starts on a sync point; its format changes only
    /// after `EXT-X-DISCONTINUITY`. MPEG-TS and encrypted segments are refused by name.
    public static let hlsSegments = ValidationRule(id: "hls-segments", parameters: []) { facts, _ in
        guard let playlist = facts.playlist else { return [] }
        var findings: [Finding] = []
        for media in playlist.media {
            var previous: StreamDescription?
            // The same failure in many segments (every one an MPEG-TS segment) is one finding.
            var failures: [(error: String, segments: [String])] = []
            var failureIndex: [String: Int] = [:]
            for segment in media.segments {
                if let error = segment.error {
                    if let index = failureIndex[error] {
                        failures[index].segments.append(segment.uri)
                    } else {
                        failureIndex[error] = failures.count
                        failures.append((error, [segment.uri]))
                    }
                    continue
                }
                if segment.trackCount > 1 {
                    findings.append(
                        Finding("\(place(media, segment)): \(segment.trackCount) tracks; a segment holds one stream"))
                }
                if segment.startsWithSyncPoint == false {
                    findings.append(Finding("\(place(media, segment)): its first packet is not a sync point"))
                }
                if let format = segment.format, let before = previous, !segment.discontinuity,
                    format.formatID != before.formatID || format.sampleRate != before.sampleRate
                        || format.channelsPerFrame != before.channelsPerFrame
                {
                    findings.append(
                        Finding(
                            "\(place(media, segment)): the format changes (\(before.channelsPerFrame) ch "
                                + "\(formatSampleRate(before.sampleRate)) Hz to \(format.channelsPerFrame) ch "
                                + "\(formatSampleRate(format.sampleRate)) Hz) without EXT-X-DISCONTINUITY"))
                }
                previous = segment.format ?? previous
            }
            for (error, segments) in failures {
                let which =
                    segments.count == 1
                    ? segments[0]
                    : "\(segments[0]) and \(segments.count - 1) more segment\(segments.count == 2 ? "" : "s")"
                findings.append(
                    Finding([media.uri, which].filter { !$0.isEmpty }.joined(separator: ": ") + ": " + error))
            }
        }
        return findings
    }

    /// The brands an fMP4 initialization section's `ftyp` may name to be "compatible with `iso6` or higher" (RFC
    /// 8216, 3.3): ISO base media from `iso6` on, and CMAF's brands, which require it.
    static let fragmentedBrands: Set<FourCharCode> = [
        "iso6", "iso7", "iso8", "iso9", "isoa", "isob", "isoc", "cmfc", "cmf2",
    ]

    /// Every fMP4 initialization section (`EXT-X-MAP`) is what RFC 8216, 3.3 requires: an `ftyp` with a brand
    /// compatible with `iso6` or higher, movie and track headers of zero duration, a sound track whose sample table
    /// is empty, and a Movie Extends box (`mvex`) after the last track. One finding per section and fault.
    public static let hlsInitialization = ValidationRule(id: "hls-initialization", parameters: []) { facts, _ in
        guard let playlist = facts.playlist else { return [] }
        var findings: [Finding] = []
        for media in playlist.media {
            guard let list = media.playlist else { continue }
            var checked = Set<String>()
            for (segment, entry) in zip(media.segments, list.segments) {
                guard let map = entry.map, let section = segment.initialization, checked.insert(map.uri).inserted
                else { continue }
                let place = [media.uri, map.uri].filter { !$0.isEmpty }.joined(separator: ": ") + ": "
                if section.brands.isEmpty {
                    findings.append(
                        Finding(place + "no 'ftyp' box: RFC 8216 requires one, with the 'iso6' brand or later"))
                } else if fragmentedBrands.isDisjoint(with: section.brands) {
                    findings.append(
                        Finding(
                            place + "'ftyp' names " + section.brands.map { "'\($0)'" }.joined(separator: ", ")
                                + ": RFC 8216 requires a brand compatible with 'iso6' or later"))
                }
                for (box, duration) in [("mvhd", section.movieDuration), ("tkhd", section.trackDuration)] {
                    if let duration, duration != 0 {
                        findings.append(
                            Finding(place + "'\(box)' lasts \(duration) units: RFC 8216 requires a duration of zero"))
                    }
                }
                if let samples = section.sampleCount, samples != 0 {
                    findings.append(
                        Finding(
                            place + "its sample table holds \(samples) samples: RFC 8216 requires none (the "
                                + "samples come in the segments)"))
                }
                if section.trackCount == 0 {
                    findings.append(Finding(place + "no track ('trak')"))
                } else if !section.movieExtendsFollowsTracks {
                    findings.append(
                        Finding(place + "no Movie Extends box ('mvex') after its last track, which RFC 8216 requires"))
                }
                if let handler = section.handlerType, handler != "soun" {
                    findings.append(Finding(place + "its first track is '\(handler)', not sound ('soun')"))
                }
            }
        }
        return findings
    }

    /// No segment lasts longer than the target duration (its `EXTINF` rounded, RFC 8216; Apple's tools fail
    /// a segment more than 0.5 s past it), a segment's `EXTINF` is what it holds (within one packet), every
    /// rendition has the same target duration, and the target is Apple's `recommendedSeconds` (default 6; a
    /// warning).
    public static let hlsTargetDuration = ValidationRule(
        id: "hls-target-duration", parameters: ["recommendedSeconds", "toleranceSeconds"]
    ) { facts, settings in
        guard let playlist = facts.playlist else { return [] }
        let recommended = settings.number("recommendedSeconds") ?? 6
        let tolerance = settings.number("toleranceSeconds") ?? 0.5
        var findings: [Finding] = []
        var targets = Set<Int>()
        for media in playlist.media {
            guard let list = media.playlist, let target = list.targetDuration else { continue }
            targets.insert(target)
            if Double(target) != recommended {
                findings.append(
                    Finding(
                        "\(prefix(media))a target duration of \(target) s; Apple recommends \(fixedPoint(recommended, places: 0)) s",
                        severity: .warning))
            }
            for segment in media.segments {
                if segment.declaredDuration.rounded() > Double(target) {
                    findings.append(
                        Finding(
                            "\(place(media, segment)): EXTINF \(fixedPoint(segment.declaredDuration, places: 3)) s is "
                                + "over the target duration of \(target) s"))
                }
                guard let measured = segment.measuredDuration else { continue }
                if measured > Double(target) + tolerance {
                    findings.append(
                        Finding(
                            "\(place(media, segment)): holds \(fixedPoint(measured, places: 3)) s, more than "
                                + "\(fixedPoint(tolerance, places: 1)) s past the target duration of \(target) s"))
                }
                // One packet of slack: fMP4's edit list and the last packet's remainder are presentation matters.
                let packet = segment.format.map { Double($0.framesPerPacket) / $0.sampleRate } ?? 0
                if abs(measured - segment.declaredDuration) > packet + 0.001 {
                    findings.append(
                        Finding(
                            "\(place(media, segment)): EXTINF says \(fixedPoint(segment.declaredDuration, places: 3)) s; "
                                + "its packets hold \(fixedPoint(measured, places: 3)) s"))
                }
            }
        }
        if targets.count > 1 {
            findings.append(
                Finding(
                    "the renditions have different target durations (\(targets.sorted().map(String.init).joined(separator: ", ")) s)"
                ))
        }
        return findings
    }

    /// Each segment's timestamp continues the one before (packed audio's `PRIV` on the 90 kHz clock, within one
    /// tick; fMP4's `tfdt`, exact), except after `EXT-X-DISCONTINUITY`; every packed segment has one.
    public static let hlsTimestamps = ValidationRule(id: "hls-timestamps", parameters: []) { facts, _ in
        guard let playlist = facts.playlist else { return [] }
        var findings: [Finding] = []
        for media in playlist.media {
            var timeline = HLS.Timeline()
            for segment in media.segments {
                // A segment that cannot be read is hls-segments' finding; the count starts again after it.
                guard segment.error == nil else {
                    timeline = HLS.Timeline()
                    continue
                }
                if let problem = timeline.check(segment) {
                    findings.append(Finding(prefix(media) + problem))
                }
            }
        }
        return findings
    }

    /// Each variant's `BANDWIDTH` is at least its playlists' peak segment bit rate and `AVERAGE-BANDWIDTH` at
    /// least their average, within `tolerance` (default 0.1: 10 %); more than that above what is measured is a
    /// warning. A variant without either fails (Apple's authoring specification requires both); a peak over twice
    /// the average warns (Apple's limit).
    public static let hlsBandwidth = ValidationRule(id: "hls-bandwidth", parameters: ["tolerance"]) {
        facts, settings in
        guard let playlist = facts.playlist, let master = playlist.master else { return [] }
        let tolerance = settings.number("tolerance") ?? 0.1
        var findings: [Finding] = []
        for variant in master.variants {
            // The variant's own playlist, and its audio group's renditions that have a URI of their own.
            var members = playlist.media.filter { $0.uri == variant.uri }
            if let group = variant.audioGroup {
                let uris = master.renditions.filter { $0.groupID == group }.compactMap(\.uri)
                members += playlist.media.filter { uris.contains($0.uri) && $0.uri != variant.uri }.prefix(1)
            }
            let peaks = members.compactMap(\.peakBitRate)
            let averages = members.compactMap(\.averageBitRate)
            let checks: [(String, Int64?, Double?)] = [
                ("BANDWIDTH", variant.bandwidth, peaks.count == members.count ? peaks.reduce(0, +) : nil),
                (
                    "AVERAGE-BANDWIDTH", variant.averageBandwidth,
                    averages.count == members.count ? averages.reduce(0, +) : nil
                ),
            ]
            // Apple's authoring specification: the peak bit rate SHOULD be at most twice the average.
            if peaks.count == members.count, averages.count == members.count, !members.isEmpty {
                let peak = peaks.reduce(0, +)
                let average = averages.reduce(0, +)
                if average > 0, peak > 2 * average {
                    findings.append(
                        Finding(
                            "\(variant.uri): its peak segment bit rate (\(fixedPoint(peak.rounded(), places: 0))) is "
                                + "\(fixedPoint((peak / average * 100).rounded(), places: 0)) % of its average "
                                + "(\(fixedPoint(average.rounded(), places: 0))); Apple asks for at most 200 %",
                            severity: .warning))
                }
            }
            for (name, declared, measured) in checks {
                guard let declared else {
                    findings.append(
                        Finding(
                            "\(variant.uri): EXT-X-STREAM-INF has no \(name)"
                                + (name == "AVERAGE-BANDWIDTH" ? " (Apple's authoring specification requires it)" : ""))
                    )
                    continue
                }
                guard let measured, measured > 0, !members.isEmpty else { continue }
                let what = name == "BANDWIDTH" ? "peak segment bit rate" : "average segment bit rate"
                if measured > Double(declared) * (1 + tolerance) {
                    findings.append(
                        Finding(
                            "\(variant.uri): \(name) \(declared) understates the measured \(what) of "
                                + "\(fixedPoint(measured.rounded(), places: 0)) by more than \(fixedPoint(tolerance * 100, places: 0)) %"
                        ))
                } else if Double(declared) > measured * (1 + tolerance) {
                    findings.append(
                        Finding(
                            "\(variant.uri): \(name) \(declared) is more than \(fixedPoint(tolerance * 100, places: 0)) % "
                                + "over the measured \(what) of \(fixedPoint(measured.rounded(), places: 0))",
                            severity: .warning))
                }
            }
        }
        return findings
    }

    /// Each variant's `CODECS` names its streams' codecs (`mp4a.40.2` for AAC-LC, ...), and each audio
    /// rendition's `CHANNELS` its channel count.
    public static let hlsCodecs = ValidationRule(id: "hls-codecs", parameters: []) { facts, _ in
        guard let playlist = facts.playlist, let master = playlist.master else { return [] }
        var findings: [Finding] = []
        func codecs(of media: MediaPlaylistFacts) -> String? {
            media.format.flatMap { CodecDescriptor.codecString(for: $0.0, magicCookie: $0.1) }
        }
        for variant in master.variants {
            guard let written = variant.codecs else {
                findings.append(Finding("\(variant.uri): EXT-X-STREAM-INF has no CODECS"))
                continue
            }
            var members = playlist.media.filter { $0.uri == variant.uri }
            if let group = variant.audioGroup {
                let uris = master.renditions.filter { $0.groupID == group }.compactMap(\.uri)
                members += playlist.media.filter { uris.contains($0.uri) && $0.uri != variant.uri }
            }
            // (`mp4a.40.02` is `mp4a.40.2`: numbers compare without their leading zeros.)
            func normal(_ codec: String) -> String {
                codec.split(separator: ".").map { part in
                    part.allSatisfy(\.isNumber) ? String(Int(part).map(String.init) ?? String(part)) : String(part)
                }.joined(separator: ".")
            }
            let declared = written.map(normal)
            var held: [String] = []
            var mismatched = false
            for media in members {
                guard let actual = codecs(of: media) else { continue }
                held.append(actual)
                if !declared.contains(actual) {
                    mismatched = true
                    findings.append(
                        Finding(
                            "\(variant.uri): CODECS \"\(declared.joined(separator: ","))\" does not name the stream's "
                                + actual + (media.uri == variant.uri ? "" : " (\(media.uri))")))
                }
            }
            // Every format CODECS lists is in the variant (RFC 8216, 4.3.4.2): where each of its playlists is one
            // audio stream, read whole, a codec no stream holds (a video codec on audio alone) is an error.
            let wholeAudio =
                !members.isEmpty
                && members.allSatisfy { media in
                    media.format != nil && media.segments.allSatisfy { $0.error == nil && $0.trackCount == 1 }
                }
            for extra in declared where wholeAudio && !mismatched && !held.contains(extra) {
                findings.append(
                    Finding("\(variant.uri): CODECS names \(extra), which none of the variant's streams holds"))
            }
        }
        for rendition in master.renditions where rendition.type == "AUDIO" {
            // The rendition's media: its own URI, or the variants of its group.
            let uris =
                rendition.uri.map { [$0] }
                ?? master.variants.filter { $0.audioGroup == rendition.groupID }.map(\.uri)
            guard let media = playlist.media.first(where: { uris.contains($0.uri) }), let format = media.format
            else { continue }
            guard let channels = rendition.channels else {
                findings.append(
                    Finding("rendition '\(rendition.name)': EXT-X-MEDIA has no CHANNELS", severity: .warning))
                continue
            }
            let count = channels.split(separator: "/").first.flatMap { Int($0) }
            if count != Int(format.0.channelsPerFrame) {
                findings.append(
                    Finding(
                        "rendition '\(rendition.name)': CHANNELS \"\(channels)\", but \(media.uri) has "
                            + "\(format.0.channelsPerFrame) channels"))
            }
        }
        return findings
    }

    /// Apple's audio rules: a stereo (or, for a mono programme, mono) AAC rendition is offered (AAC-LC or HE-AAC:
    /// Apple requires stereo beside surround); bit rates as Apple's table gives them, stereo AAC-LC between
    /// `minimumBitRate` and `maximumBitRate` (32 and 160 kbit/s), HE-AAC at most `maximumHEAACBitRate` (64
    /// kbit/s), 5.1 AAC at 320, a rate more than 10 % from a single figure warning; 44.1 or 48 kHz (warnings);
    /// every audio rendition says its LANGUAGE (an error).
    public static let hlsAudioRenditions = ValidationRule(
        id: "hls-audio-renditions", parameters: ["minimumBitRate", "maximumBitRate", "maximumHEAACBitRate"]
    ) { facts, settings in
        guard let playlist = facts.playlist else { return [] }
        // Stereo AAC-LC's bounds are the parameters' (Apple's table's by default); the table's other rows as they
        // stand.
        let stereoLC = HLS.appleAudioBitRates.first { $0.codecs.contains("mp4a.40.2") && $0.channels == 2 }
        let low = settings.number("minimumBitRate") ?? (stereoLC?.kilobits.lowerBound ?? 32) * 1000
        let high = settings.number("maximumBitRate") ?? (stereoLC?.kilobits.upperBound ?? 160) * 1000
        let highHE = settings.number("maximumHEAACBitRate") ?? 64000
        var findings: [Finding] = []
        var offersStereo = false
        for media in playlist.media {
            guard let (format, cookie) = media.format,
                let codecs = CodecDescriptor.codecString(for: format, magicCookie: cookie)
            else { continue }
            // The stream's own rate: its packets' bytes over its duration, ADTS headers and boxes left out.
            let frames = media.segments.compactMap(\.frames).reduce(0, +)
            let seconds = Double(frames) / format.sampleRate
            let payload = media.averageBitRate.map { $0 * media.durations.reduce(0, +) / max(seconds, 1e-9) }
            let rate = payload ?? 0
            let kilobits = fixedPoint((rate / 1000).rounded(.down), places: 0)
            let isAAC = ["mp4a.40.2", "mp4a.40.5", "mp4a.40.29"].contains(codecs)
            if isAAC && format.channelsPerFrame <= 2 { offersStereo = true }
            if codecs == "mp4a.40.2" && format.channelsPerFrame == 2, rate > 0, rate < low * 0.95 || rate > high * 1.05
            {
                findings.append(
                    Finding(
                        "\(prefix(media))stereo AAC-LC at \(kilobits) kbit/s; Apple recommends "
                            + "\(Int(low / 1000)) to \(Int(high / 1000)) kbit/s", severity: .warning))
            }
            if codecs == "mp4a.40.5" || codecs == "mp4a.40.29", rate > highHE * 1.05 {
                findings.append(
                    Finding(
                        "\(prefix(media))HE-AAC at \(kilobits) kbit/s; Apple says not above "
                            + "\(Int(highHE / 1000)) kbit/s (use AAC-LC)", severity: .warning))
            }
            if rate > 0,
                let row = HLS.appleAudioBitRates.first(where: {
                    $0.codecs.contains(codecs) && $0.channels == format.channelsPerFrame
                }), row.name != stereoLC?.name
            {
                let single = row.kilobits.lowerBound == row.kilobits.upperBound
                let slack = single ? 0.1 : 0.05
                if rate < row.kilobits.lowerBound * 1000 * (1 - slack)
                    || rate > row.kilobits.upperBound * 1000 * (1 + slack)
                {
                    let figure =
                        single
                        ? "\(Int(row.kilobits.lowerBound)) kbit/s"
                        : "\(Int(row.kilobits.lowerBound)) to \(Int(row.kilobits.upperBound)) kbit/s"
                    findings.append(
                        Finding(
                            "\(prefix(media))\(row.name) at \(kilobits) kbit/s; Apple's table gives \(figure)",
                            severity: .warning))
                }
            }
            if format.sampleRate != 44100 && format.sampleRate != 48000 {
                findings.append(
                    Finding(
                        "\(prefix(media))\(formatSampleRate(format.sampleRate)) Hz; Apple's devices expect 44.1 or 48 kHz",
                        severity: .warning))
            }
        }
        if !offersStereo, playlist.media.contains(where: { $0.format != nil }) {
            findings.append(
                Finding(
                    "no stereo AAC rendition (AAC-LC or HE-AAC; mono for a mono programme): Apple's authoring "
                        + "specification requires one beside surround (afkit hls --renditions)"))
        }
        // Apple's authoring specification: every audio rendition MUST say its language (a player's menu lists it).
        // (An undetermined one is said once for all of them: a package's renditions of one programme share a name.)
        var undetermined: [(name: String, group: String)] = []
        for rendition in playlist.master?.renditions ?? [] where rendition.type == "AUDIO" {
            if let language = rendition.language, !language.isEmpty {
                if !HLS.isLanguageTag(language) {
                    findings.append(
                        Finding(
                            "the audio rendition '\(rendition.name)' has LANGUAGE \"\(language)\", which is no BCP 47 "
                                + "language tag (en, pt-BR): Apple's authoring specification requires one"))
                } else if let normal = HLS.languageTag(language), normal != language {
                    findings.append(
                        Finding(
                            "the audio rendition '\(rendition.name)' has LANGUAGE \"\(language)\"; BCP 47 writes it "
                                + "\"\(normal)\"", severity: .warning))
                } else if language.lowercased() == "und" {
                    undetermined.append((rendition.name, rendition.groupID))
                }
                continue
            }
            findings.append(
                Finding(
                    "the audio rendition '\(rendition.name)' (GROUP-ID '\(rendition.groupID)') has no LANGUAGE: Apple's "
                        + "authoring specification requires one (afkit hls --language)"))
        }
        if !undetermined.isEmpty {
            var names: [String] = []
            for entry in undetermined where !names.contains(entry.name) { names.append(entry.name) }
            let groups = undetermined.map { "'\($0.group)'" }.joined(separator: ", ")
            let one = undetermined.count == 1
            findings.append(
                Finding(
                    "the audio rendition\(one ? "" : "s") " + names.map { "'\($0)'" }.joined(separator: ", ")
                        + " (GROUP-ID\(one ? "" : "s") \(groups)) \(one ? "has" : "have") LANGUAGE \"und\" (undetermined): "
                        + "a player's menu names no language (afkit hls --language)", severity: .warning))
        }
        return findings
    }

    /// Apple's chapters (`EXT-X-SESSION-DATA` with `DATA-ID="com.apple.hls.chapters"`, "Providing JavaScript Object
    /// Notation (JSON) chapters"): each file the master names can be read, is an array of chapter entries with a
    /// `start-time` each (titles with a language and a title), the starts in order, and every chapter starts and
    /// ends within the presentation (its longest media playlist's duration; a millisecond of rounding allowed).
    public static let hlsChapters = ValidationRule(id: "hls-chapters", parameters: []) { facts, _ in
        guard let playlist = facts.playlist else { return [] }
        let length = playlist.media.map { $0.durations.reduce(0, +) }.max() ?? 0
        var findings: [Finding] = []
        for file in playlist.chapterFiles {
            guard let chapters = file.chapters else {
                findings.append(Finding("\(file.uri): Apple's chapters cannot be read: \(file.error ?? "unknown")"))
                continue
            }
            if chapters.isEmpty { findings.append(Finding("\(file.uri): no chapter in it", severity: .warning)) }
            for (index, chapter) in chapters.enumerated() {
                let which = "\(file.uri): chapter \(index + 1) ('\(chapter.title)')"
                if index > 0, chapter.startTime < chapters[index - 1].startTime {
                    findings.append(
                        Finding(
                            "\(which) starts at \(fixedPoint(chapter.startTime, places: 3)) s, before chapter \(index) "
                                + "(\(fixedPoint(chapters[index - 1].startTime, places: 3)) s): the starts go in order")
                    )
                }
                if length > 0, chapter.startTime >= length {
                    findings.append(
                        Finding(
                            "\(which) starts at \(fixedPoint(chapter.startTime, places: 3)) s, at or past the end of the "
                                + "presentation (\(fixedPoint(length, places: 3)) s)"))
                } else if length > 0, let end = chapter.endTime, end > length + 0.001 {
                    findings.append(
                        Finding(
                            "\(which) ends at \(fixedPoint(end, places: 3)) s, past the end of the presentation "
                                + "(\(fixedPoint(length, places: 3)) s)"))
                }
            }
        }
        return findings
    }
}
