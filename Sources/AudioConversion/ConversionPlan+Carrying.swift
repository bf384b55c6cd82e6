import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioEngines
import AudioFormats
import FileAccess

extension ConversionPlan {
    /// Sets what is taken of the source (a silence cut found by `cut`, the duration limit) and what the
    /// writer records, from the source's description.
    mutating func take(from source: SourceReader, input: String, cut: SilenceCut?) throws {
        if let cut {
            render.start = cut.start
            render.count = cut.count
            render.fadeIn = cut.fadeIn
            render.fadeOut = cut.fadeOut
            trimmedFrames = (cut.start, cut.total - cut.start - cut.count)
            if let note = cut.note { notes.append(note) }
        }
        try applyEdits(settings.edits, to: source, input: input)
        if let length = settings.loopCrossfade { try planLoopCrossfades(length, source: source, input: input) }
        let taken = render.count ?? source.frameCount
        // The limit holds for the output: the silence padded counts (at the source's rate).
        let padded = Int64(
            (Double(render.padStart + render.padEnd) * source.sampleRate / format.sampleRate).rounded(.up))
        if let limit = settings.maximumSeconds, padded > 0, Double(padded) >= limit * source.sampleRate {
            throw ConversionUsageError(
                "--pad adds \(shortDecimal(Double(padded) / source.sampleRate)) s, as long as or longer than the "
                    + "\(shortDecimal(limit)) s limit")
        }
        if let allowed = try Self.frameLimit(
            frames: taken.map { $0 + padded }, rate: source.sampleRate, input: input, settings: settings)
        {
            render.count = allowed - padded
            // A fade-out asked for ends the part kept, else the trim's own (a hard cut for `--trim-fade 0`); a
            // silence cut's, at the end cut away, goes.
            let fade = settings.edits.fadeOut ?? settings.trimFade
            render.fadeOut = Int(min(fade.frames(at: source.sampleRate), allowed - padded))
            let length = taken.map {
                "from " + shortDecimal((Double($0) / source.sampleRate * 100).rounded() / 100) + " s "
            }
            let faded =
                render.fadeOut > 0
                ? ", its last \(shortDecimal((Double(render.fadeOut) / source.sampleRate * 1000).rounded())) ms faded out"
                : ", a hard cut"
            notes.append(
                "--trim: cut \(length ?? "")to \(shortDecimal(settings.maximumSeconds ?? 0)) s, the limit of "
                    + "\(settings.limitName ?? settings.name ?? "the settings")" + faded)
        }
        var options = writerOptions
        options.metadata =
            settings.keepsMetadata ? source.metadata.filter { MetadataKeys.carried.contains($0.key) } : [:]
        if let note = settings.encodingNote { options.metadata["encoding application"] = note }
        let scale = format.sampleRate / source.sampleRate
        if let frames = render.count ?? source.frameCount {
            // The pipeline's own count: the frames taken from the source, at the output's rate, and the padding.
            expectedFrameCount =
                copier != nil
                ? frames : Int64(saturating: Double(frames) * scale) + render.padStart + render.padEnd
        }
        if let provenance = settings.provenance {
            options.metadata[MetadataKeys.source] = provenance
            if let expectedFrameCount { options.metadata[MetadataKeys.frames] = String(expectedFrameCount) }
        }
        try carryTimeline(of: source, scale: scale, into: &options)
        // Last, as it asks whether the cover fits beside the rest (Ogg Opus's one-page comment header).
        if settings.keepsMetadata, let file = source.audioFile { carryFrontCover(of: file, into: &options) }
        // (A whole loop's wrap, encoded each side, counts as priming and remainder.)
        let priming = Int64(primingFrames) + Int64(2 * loopWrap)
        if let frames = render.count ?? source.frameCount {
            let outputFrames = Double(frames) * scale
            options.estimatedDataByteCount = Int64(saturating: outputFrames * Double(max(format.bytesPerFrame, 2)))
            if format.framesPerPacket > 0 {
                options.estimatedPacketCount = Int64(saturating: outputFrames / Double(format.framesPerPacket))
                    .saturatingAdd(2 + priming / Int64(format.framesPerPacket))
            }
        }
        writerOptions = options
    }

    /// Markers, loops, chapters and the instrument go where the container holds them, moved with any cut and to
    /// the output's rate, and kept within its frames; a loop the cut shortens or removes, and what an output
    /// cannot hold, is said in a note; ``timeline`` lists each one carried, moved or dropped (`convert -v`).
    /// Chapters written for the output (``ConversionSettings/chapters``) take the source's place, ending by the
    /// output's end (one starting past it is refused). Chapters become markers in an output that holds markers and
    /// no chapters, and markers chapters in one that holds chapters and no markers (where neither the source nor a
    /// chapter file gives chapters).
    mutating func carryTimeline(of source: SourceReader, scale: Double, into options: inout AudioFileWriterOptions)
        throws
    {
        // Positions are judged in the part taken (at the output's rate), then moved past the silence padded
        // before it: what the cut removed stays removed, however much padding comes in its place.
        let shift = TimelineShift(
            start: render.start, scale: scale, padding: render.padStart,
            end: (render.count ?? source.frameCount).map { Int64(saturating: (Double($0) * scale).rounded()) }
                ?? Int64.max)
        let container = fileType.descriptor.name
        let keeps = fileType.descriptor.keeps
        let holdsMarkers = keeps.markers
        let fate: MarkerFate =
            holdsMarkers
            ? .kept
            : keeps.chapters > 0 && settings.chapters == nil && source.chapters.isEmpty
                ? .chapters(end: expectedFrameCount) : .notCarried
        var (markers, markerChapters) = carriedMarkers(of: source, shift: shift, fate: fate)
        let loops = carriedLoops(of: source, shift: shift, held: keeps.loops)
        loopsWhole =
            expectedFrameCount.map { frames in
                loops.contains { $0.start == 0 && $0.end == frames && $0.playMode == .forward }
            } ?? false
        let heldLoops = min(loops.count, keeps.loops)
        var chapters = carriedChapters(of: source, held: keeps.chapters)
        var whose = "the source's"
        if let list = settings.chapters {
            // The output's end: its frames, or what the source gives at its rate where they are not known before.
            let frames = expectedFrameCount ?? Int64(saturating: Double(source.frameCount ?? 0) * scale)
            let written = try list.chapters(endingBy: Double(frames) / format.sampleRate)
            notes += written.notes
            if !chapters.isEmpty {
                notes.append("the source's \(chapters.count) chapters are replaced by those of '\(list.name)'")
            }
            chapters = written.chapters
            whose = "the chapter file's"
        } else if !markerChapters.isEmpty {
            chapters = markerChapters
            whose = "the source's markers'"
        }
        placedChapters = chapters
        if keeps.chapters > 0 {
            if chapters.count > keeps.chapters {
                notes.append(
                    "\(container) holds \(keeps.chapters) chapters: \(whose) first \(keeps.chapters) are carried, "
                        + "\(chapters.count - keeps.chapters) more are not")
                chapters.removeLast(chapters.count - keeps.chapters)
            }
            options.chapters = chapters
        } else if !chapters.isEmpty && !settings.isIntermediate {
            // (An intermediate's chapters are kept in the result for the step after: placedChapters.)
            if holdsMarkers {
                let firstID = (markers.map(\.id).max() ?? 0) + 1
                markers += chapters.enumerated().map { index, chapter in
                    Marker(
                        id: firstID + index, framePosition: Int64((chapter.startTime * format.sampleRate).rounded()),
                        name: chapter.title)
                }
                notes.append("\(container) holds no chapters: \(whose) \(chapters.count) become markers")
            } else {
                notes.append(
                    "\(container) holds no chapters: \(whose) \(chapters.count) chapter\(chapters.count == 1 ? " is" : "s are") not carried"
                )
            }
        }
        if holdsMarkers {
            options.markers = markers
            options.instrument = source.instrument
            options.comments = source.comments
            options.annotations = source.annotations
        } else if !markers.isEmpty {
            if case .notCarried = fate {
                let count = "the source's \(markers.count) marker" + (markers.count == 1 ? "" : "s")
                let instead =
                    keeps.chapters == 0
                    ? nil
                    : settings.chapters.map { "the chapters of '\($0.name)' are written instead" }
                        ?? "the source's chapters are written instead"
                notes.append(
                    "\(container) holds no markers: \(count) \(markers.count == 1 ? "is" : "are") not carried"
                        + (instead.map { " (\($0))" } ?? ""))
            }
        }
        options.loops = Array(loops.prefix(heldLoops))
        if loops.count > heldLoops {
            let left = loops.count - heldLoops
            let holds = ["no loops", "one loop", "two loops"][min(heldLoops, 2)]
            notes.append(
                "\(container) holds \(holds): the source's \(heldLoops == 0 ? "" : "other ")\(left) loop"
                    + "\(left == 1 ? " is" : "s are") not carried")
        }
    }

    /// What becomes of the source's markers in the output.
    enum MarkerFate {
        /// The output holds markers.
        case kept
        /// They become chapters (the output holds chapters and no markers, and nothing else gives it chapters); the
        /// output ends at frame `end` (`nil`: not known before it is written).
        case chapters(end: Int64?)
        /// The output holds neither, or holds chapters from elsewhere.
        case notCarried
    }

    /// Where a frame of the source lands in the output: moved with the cut and to the output's rate, kept within
    /// the part taken (`end`, at the output's rate), then past the silence padded before it.
    struct TimelineShift {
        var start: Int64
        var scale: Double
        var padding: Int64
        var end: Int64

        /// A source frame at the output's rate, from the start of the part taken.
        func moved(_ frame: Int64) -> Int64 { Int64(saturating: (Double(frame - start) * scale).rounded()) }
    }

    /// The source's markers inside the part taken, moved, and the chapters they become (``MarkerFate/chapters``:
    /// in time order, each from its marker's frame to the next one's, titled by its name, else 'Marker' and its id;
    /// none from a marker at the output's end or at the frame of one before it); each listed in ``timeline``, those
    /// outside the audio or starting no chapter said.
    private mutating func carriedMarkers(of source: SourceReader, shift: TimelineShift, fate: MarkerFate) -> (
        markers: [Marker], chapters: [Chapter]
    ) {
        let end = shift.end
        let padding = shift.padding
        var markers: [Marker] = []
        // Each source marker and where it lands (nil: outside the audio kept).
        var placed: [(source: Marker, index: Int?)] = []
        for marker in source.markers {
            var carried = marker
            carried.framePosition = shift.moved(marker.framePosition)
            guard (0...end).contains(carried.framePosition) else {
                placed.append((marker, nil))
                continue
            }
            carried.framePosition = carried.framePosition.saturatingAdd(padding)
            placed.append((marker, markers.count))
            markers.append(carried)
        }
        func name(_ marker: Marker) -> String {
            marker.name.isEmpty ? "marker \(marker.id)" : "marker '\(marker.name)'"
        }
        // The chapters, and why a marker starts none.
        var chapters: [Chapter] = []
        var starting: [Int: String] = [:]
        var startsNone: [Int: String] = [:]
        if case .chapters(let outputEnd) = fate {
            let rate = format.sampleRate
            var previous: Marker?
            for index in markers.indices.sorted(by: {
                (markers[$0].framePosition, $0) < (markers[$1].framePosition, $1)
            }) {
                let marker = markers[index]
                if let outputEnd, marker.framePosition >= outputEnd {
                    startsNone[index] = "is at the output's end (frame \(outputEnd)), where no chapter can start"
                } else if let previous, previous.framePosition == marker.framePosition {
                    startsNone[index] =
                        "is at the frame of \(name(previous)) (\(marker.framePosition)), whose chapter starts there"
                } else {
                    let title = marker.name.isEmpty ? "Marker \(marker.id)" : marker.name
                    if !chapters.isEmpty { chapters[chapters.count - 1].endTime = Double(marker.framePosition) / rate }
                    chapters.append(Chapter(startTime: Double(marker.framePosition) / rate, title: title))
                    starting[index] = title
                    previous = marker
                }
            }
            if let outputEnd, !chapters.isEmpty { chapters[chapters.count - 1].endTime = Double(outputEnd) / rate }
        }
        for (marker, index) in placed {
            guard let index else {
                timeline.append("\(name(marker)) at frame \(marker.framePosition): outside the audio kept, dropped")
                continue
            }
            let moved = markers[index].framePosition
            let what: String
            switch fate {
            case .kept: what = ""
            case .notCarried: what = ": not carried"
            case .chapters:
                if let title = starting[index] {
                    what = ": the chapter '\(title)'"
                } else {
                    what = ": not carried"
                    notes.append("\(name(marker)) \(startsNone[index] ?? "starts no chapter"): not carried")
                }
            }
            timeline.append(
                "\(name(marker)) at frame \(marker.framePosition)"
                    + (moved == marker.framePosition ? "" : " moved to \(moved)")
                    + what)
        }
        if markers.count < source.markers.count {
            let left = source.markers.count - markers.count
            notes.append(
                "\(left) marker\(left == 1 ? " lies" : "s lie") outside the audio kept and \(left == 1 ? "is" : "are") dropped"
            )
        }
        if case .chapters = fate, !chapters.isEmpty {
            let container = fileType.descriptor.name
            let unnamed = starting.filter { markers[$0.key].name.isEmpty }.values.sorted()
            let count = chapters.count
            let titled =
                switch unnamed.count {
                case 0: ""
                case 1: count == 1 ? ", titled '\(unnamed[0])'" : ", the unnamed one titled '\(unnamed[0])'"
                case count: ", titled 'Marker' and their id"
                default: ", the \(unnamed.count) unnamed titled 'Marker' and their id"
                }
            notes.append(
                "\(container) holds no markers: the source's \(count) marker"
                    + (count == 1 ? " becomes a chapter" : "s become chapters") + titled)
        }
        return (markers, chapters)
    }

    /// The source's loops moved and kept within the part taken (a loop the cut shortens or removes said), in
    /// order; the first `held` are carried.
    private mutating func carriedLoops(of source: SourceReader, shift: TimelineShift, held: Int) -> [Loop] {
        let end = shift.end
        let padding = shift.padding
        func moved(_ frame: Int64) -> Int64 { shift.moved(frame) }
        func span(_ loop: Loop) -> String { "\(loop.start)-\(loop.end)" }
        var loops: [Loop] = []
        for (index, loop) in source.loops.enumerated() {
            let whole = Loop(start: moved(loop.start), end: moved(loop.end), playMode: loop.playMode)
            let kept = Loop(start: max(0, whole.start), end: min(whole.end, end), playMode: loop.playMode)
            let name = "loop \(index + 1) (source frames \(span(loop)))"
            if kept.end <= kept.start {
                notes.append(
                    render.count == nil
                        ? "\(name) lies past the end of the audio (\(end) frames) and is dropped"
                        : "\(name) lies outside the audio kept and is dropped")
                timeline.append("\(name): outside the audio kept, dropped")
                continue
            }
            if kept != whole {
                notes.append(
                    render.count == nil && render.start == 0
                        ? "\(name) runs past the end of the audio: it ends at frame \(kept.end + padding) in the output"
                        : "the cut shortens \(name) to output frames \(kept.start + padding)-\(kept.end + padding)")
            }
            let isHeld = loops.count < held
            let placed = Loop(
                start: kept.start.saturatingAdd(padding), end: kept.end.saturatingAdd(padding), playMode: loop.playMode)
            loops.append(placed)
            timeline.append(
                "\(name)" + (placed == loop ? "" : " now \(span(placed))") + (isHeld ? "" : ": not carried"))
        }
        return loops
    }

    /// The source's chapters moved with the cut (one that began before it starts at 0), each ending where the next
    /// begins and the last at the end, past the silence padded before the audio; past the first `held` (0: no
    /// limit), listed as not carried.
    private mutating func carriedChapters(of source: SourceReader, held: Int) -> [Chapter] {
        let start = render.start
        let padding = render.padStart
        let rate = source.sampleRate
        let seconds = Double(start) / rate
        let length = (render.count ?? source.frameCount).map { Double($0) / rate }
        var chapters: [Chapter] = []
        for (index, chapter) in source.chapters.enumerated() {
            let shifted = chapter.startTime - seconds
            let next = index + 1 < source.chapters.count ? source.chapters[index + 1].startTime - seconds : nil
            let ending = [chapter.endTime.map { $0 - seconds }, next, length].compactMap { $0 }.min()
            let name = "chapter '\(chapter.title)' at \(shortDecimal(chapter.startTime)) s"
            if let ending, ending <= max(0, shifted) || length.map({ shifted >= $0 }) == true {
                timeline.append("\(name): outside the audio kept, dropped")
                continue
            }
            // Past the silence padded before the audio.
            let padded = Double(padding) / format.sampleRate
            // Past the most the output holds: not carried (said below, with how many).
            let isHeld = held == 0 || chapters.count < held
            chapters.append(
                Chapter(startTime: max(0, shifted) + padded, endTime: ending.map { $0 + padded }, title: chapter.title))
            timeline.append(
                name + (seconds == 0 && padded == 0 ? "" : " moved to \(shortDecimal(max(0, shifted) + padded)) s")
                    + (isHeld ? "" : ": not carried"))
        }
        return chapters
    }

    /// The edits in the render plan: the part of the source taken (checked against its length), the fades in
    /// its frames, the padding at the output's rate, the gain.
    mutating func applyEdits(_ edits: Edits, to source: SourceReader, input: String) throws {
        guard !edits.isEmpty else { return }
        let rate = source.sampleRate
        if edits.cuts {
            guard settings.silenceThreshold == nil else {
                throw ConversionUsageError(
                    "--trim-silence finds its own cut: give it or --start/--end/--duration, not both")
            }
            let start = edits.start?.frames(at: rate) ?? 0
            if let total = source.frameCount, start >= total {
                throw ConversionUsageError(
                    "--start \(edits.start?.description ?? "0") is past the end of '\(input)' (\(total) frames, "
                        + "\(shortDecimal((Double(total) / rate * 1000).rounded() / 1000)) s)")
            }
            var end = edits.end.map { $0.frames(at: rate) } ?? edits.duration.map { start + $0.frames(at: rate) }
            if let total = source.frameCount {
                if let asked = end, asked > total {
                    notes.append(
                        "the cut asked to end at \(shortDecimal(Double(asked) / rate)) s, past the source's "
                            + "\(shortDecimal(Double(total) / rate)) s: it goes to the end")
                }
                end = min(end ?? total, total)
            }
            if let end, end <= start {
                throw ConversionUsageError("the cut ends at or before it starts (--end or --duration)")
            }
            render.start = start
            render.count = end.map { $0 - start }
        }
        if edits.fadeIn != nil || edits.fadeOut != nil {
            let taken = render.count ?? source.frameCount.map { $0 - render.start }
            guard let taken else {
                throw ConversionUsageError("--fade-out needs the source's length, which '\(input)' does not state")
            }
            render.count = taken
            // SoX's fades: a fade longer than the sound keeps its slope (the sound ends short of full level), and
            // a fade-in and a fade-out that overlap are refused.
            let fadeIn = edits.fadeIn.map { $0.frames(at: rate) } ?? 0
            let fadeOut = edits.fadeOut.map { $0.frames(at: rate) } ?? 0
            if fadeIn > 0, fadeOut > 0, fadeIn + fadeOut > taken {
                throw ConversionUsageError(
                    "--fade-in and --fade-out overlap: together \(shortDecimal(Double(fadeIn + fadeOut) / rate)) s, the "
                        + "sound kept \(shortDecimal(Double(taken) / rate)) s")
            }
            for (name, length) in [("--fade-in", fadeIn), ("--fade-out", fadeOut)] where length > taken {
                let level = edits.fadeShape.gain((Double(taken) - 0.5) / Double(length))
                notes.append(
                    "\(name) \(shortDecimal(Double(length) / rate)) s is longer than the \(shortDecimal(Double(taken) / rate)) s "
                        + "kept: its slope is kept, so the sound \(name == "--fade-in" ? "ends" : "starts") at "
                        + "\(shortDecimal(level * 100)) % of its level, as SoX fades")
            }
            render.fadeIn = Int(fadeIn)
            render.fadeOut = Int(fadeOut)
            render.fadeShape = edits.fadeShape
        }
        // Padding frames of the source's count become the output's at its rate.
        let scale = format.sampleRate / rate
        func outputFrames(_ time: EditTime?) -> Int64 {
            switch time {
            case .seconds(let seconds)?: Int64((seconds * format.sampleRate).rounded())
            case .frames(let frames)?: Int64((Double(frames) * scale).rounded())
            case nil: 0
            }
        }
        render.padStart = outputFrames(edits.padStart)
        render.padEnd = outputFrames(edits.padEnd)
        render.removesDC = edits.removesDC
        if let gain = edits.gain {
            guard settings.loudness == nil else {
                throw ConversionUsageError("--loudness sets the gain itself: give it or --gain, not both")
            }
            if let peak = settings.peak {
                let option = peak.measure == .sample ? "--normalize-peak" : "--normalize-true-peak"
                throw ConversionUsageError("\(option) sets the gain itself: give it or --gain, not both")
            }
            render.gain = gain
        }
    }

    /// The source's front cover (its first picture where none is marked front) into `options`, where the output
    /// holds one; where it does not, or the picture cannot be read, a note says so.
    mutating func carryFrontCover(of file: AudioFile, into options: inout AudioFileWriterOptions) {
        let pictures = file.properties.pictures
        guard var cover = pictures.first(where: { $0.type == 3 }) ?? pictures.first else { return }
        let what = "the source's cover (\(cover.mimeType), \(cover.byteCount) bytes)"
        let dropped = pictures.count - 1
        if dropped > 0 {
            notes.append("the source's \(dropped) other picture\(dropped == 1 ? " is" : "s are") not carried")
        }
        // Asked before the picture is read (its type), and again with its bytes (whether it fits beside the rest).
        let refusal = fileType.descriptor.writer?.policy.pictureRefusal ?? { _, _ in nil }
        let reason = refusal(cover, options)
        if let reason {
            notes.append("\(what) is not carried: \(reason)")
            return
        }
        guard cover.byteCount <= Self.largestCarriedPicture, let bytes = try? file.pictureData(cover) else {
            notes.append("\(what) is not carried: it could not be read whole")
            return
        }
        cover.data = bytes
        if let reason = refusal(cover, options) {
            notes.append("\(what) is not carried: \(reason)")
            return
        }
        options.pictures = [cover]
    }

    /// The frames a duration limit allows of `frames`, where it cuts them (`nil`: no cut).
    static func frameLimit(frames: Int64?, rate: Double, input: String, settings: ConversionSettings) throws
        -> Int64?
    {
        guard let maximum = settings.maximumSeconds, let frames else { return nil }
        let allowed = Int64(saturating: (maximum * rate).rounded(.down))
        guard frames > allowed else { return nil }
        guard settings.trimToMaximum else {
            throw AudioFileError.limitExceeded(
                "'\(input)' lasts \(Double(frames) / rate) s; the limit is \(maximum) s "
                    + "(trim it, or convert with --trim)", offset: nil)
        }
        return allowed
    }
}
