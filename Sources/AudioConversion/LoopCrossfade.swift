import AudioContainers
import AudioDecoding
import AudioFormats

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A forward loop's seam mended (`--loop-crossfade`), as a sampler editor's loop crossfade and SoX's `splice`
/// do: where the loop wraps from its last frame to its first, the frames before the wrap are made to run into the
/// loop's start as the audio before the start does.
///
/// The `length` frames before the loop's end are crossfaded, at equal power (the material fading out by
/// cos(πx/2), the material fading in by sin(πx/2), x running over the fade at each frame's middle), into the
/// `length` frames that come before the loop's start; the loop's last frame is then (nearly) the frame before its
/// start, so the wrap continues as the sound itself does. Where the loop starts too early for that, the loop's
/// first `length` frames are crossfaded instead from the audio after its end into their own. Equal power keeps the
/// level of uncorrelated material (a loop's two ends seldom line up in phase); frames outside the fade are
/// untouched, and the loop's points and the frame count stay as they are.
struct LoopCrossfade: Sendable {
    /// The source frames changed.
    var region: Range<Int64>
    /// The material crossfaded into them, interleaved.
    var other: [Float]
    /// Whether `other` fades in over the region (before the loop's end) or out (at the loop's start).
    var otherFadesIn: Bool

    /// The crossfade that mends `loop` over `length` frames of a source of `total` frames, its `other`
    /// material not yet read; `nil` where the audio on neither side is long enough.
    static func planned(for loop: Loop, length: Int64, total: Int64) -> (
        region: Range<Int64>, from: Int64, fadesIn: Bool
    )? {
        guard length > 0, loop.end - loop.start >= length else { return nil }
        if loop.start >= length { return (loop.end - length..<loop.end, loop.start - length, true) }
        if loop.end + length <= total { return (loop.start..<loop.start + length, loop.end, false) }
        return nil
    }

    /// Applies the crossfade to `frames` frames of `channels` at the end of `samples`, which start at source
    /// frame `position`.
    func apply(_ samples: inout [Float], channels: Int, at position: Int64, frames: Int) {
        Self.blend(&samples, channels: channels, at: position, frames: frames, region: region, other: other) {
            pair in otherFadesIn ? pair : (pair.1, pair.0)
        }
    }

    /// Blends `other` into the frames of `region` among `frames` frames of `channels` at the end of `samples` (which
    /// start at frame `position`), at equal power: `weights` orders the rising and falling gains as (own, other).
    static func blend(
        _ samples: inout [Float], channels: Int, at position: Int64, frames: Int, region: Range<Int64>,
        other: [Float], weights: ((Float, Float)) -> (Float, Float) = { $0 }
    ) {
        let from = max(position, region.lowerBound)
        let to = min(position + Int64(frames), region.upperBound)
        guard from < to else { return }
        let base = samples.count - frames * channels
        let length = Double(region.count)
        for frame in from..<to {
            let offset = Int(frame - region.lowerBound)
            let x = (Double(offset) + 0.5) / length
            // (falling, rising) as the fade runs; the material fading in rises.
            let (own, others) = weights((Float(cos(x * Double.pi / 2)), Float(sin(x * Double.pi / 2))))
            let index = base + Int(frame - position) * channels
            for channel in 0..<channels {
                samples[index + channel] = samples[index + channel] * own + other[offset * channels + channel] * others
            }
        }
    }
}

/// A forward loop's seam mended at the output's rate, where the sound is resampled: the loop's points, rounded to
/// the output's frames, decide where it wraps, and a loop whose length is no whole number of output frames would
/// wrap off its mend by a fraction of a frame (a bend of 20 dB on bright material at 22.05 kHz). The output's own
/// `length` frames before the loop's start are kept as they pass and faded in over the `length` before its end,
/// as ``LoopCrossfade`` does at the source's rate.
struct ResampledLoopCrossfade: Sendable {
    /// The output frames changed (counted from the start of the part taken, before any padding).
    var region: Range<Int64>
    /// The first of the output frames faded in: the region's length before the loop's start.
    var from: Int64

    /// Keeps what falls in the faded-in material of `frames` frames of `channels` at the end of `samples` (at
    /// output frame `position`) into `kept`, and blends what is kept into what falls in the region.
    func apply(_ samples: inout [Float], kept: inout [Float], channels: Int, at position: Int64, frames: Int) {
        let base = samples.count - frames * channels
        let low = max(position, from)
        let high = min(position + Int64(frames), from + Int64(region.count))
        if low < high {
            if kept.isEmpty { kept = [Float](repeating: 0, count: region.count * channels) }
            for frame in low..<high {
                let source = base + Int(frame - position) * channels
                let target = Int(frame - from) * channels
                for channel in 0..<channels { kept[target + channel] = samples[source + channel] }
            }
        }
        guard !kept.isEmpty else { return }
        LoopCrossfade.blend(&samples, channels: channels, at: position, frames: frames, region: region, other: kept)
    }
}

extension ConversionPlan {
    /// `--loop-crossfade`: a crossfade of `length` for each forward loop of the source (a ping-pong or backward
    /// loop turns around rather than wrapping: it has no seam to mend), each said in a note; a usage error where
    /// the source has no forward loop, or a loop is too short for the fade or has too little audio around it.
    mutating func planLoopCrossfades(_ length: EditTime, source: SourceReader, input: String) throws {
        let frames = length.frames(at: source.sampleRate)
        let forward = source.loops.enumerated().filter { $0.element.playMode == .forward }
        guard !forward.isEmpty else {
            let problem =
                "--loop-crossfade: '\(input)' has no forward loop to mend"
                + (source.loops.isEmpty ? " (it has no loop)" : " (its loops turn around; they have no seam)")
            // In a batch, such a sound is converted as it is.
            guard settings.loopCrossfadeSkipsUnmendable else { throw ConversionUsageError(problem) }
            notes.append(problem + ": converted without a crossfade")
            return
        }
        guard frames > 0 else { throw ConversionUsageError("--loop-crossfade takes a length above 0") }
        let total = source.frameCount ?? 0
        for (index, loop) in forward {
            let name = "loop \(index + 1) (frames \(loop.start)-\(loop.end))"
            guard let planned = LoopCrossfade.planned(for: loop, length: frames, total: total) else {
                // A loop over the whole sound (a batch's) has no audio beside it to fade from: left as it is.
                if settings.loopCrossfadeSkipsUnmendable {
                    notes.append(
                        "--loop-crossfade \(length): \(name) has fewer than \(frames) frames before its start and "
                            + "after its end to fade from (or is shorter than the fade): left as it is")
                    continue
                }
                throw ConversionUsageError(
                    "--loop-crossfade \(length): \(name) of '\(input)' "
                        + (loop.end - loop.start < frames
                            ? "is \(loop.end - loop.start) frames long, shorter than the \(frames)-frame fade"
                            : "has fewer than \(frames) frames before its start and after its end to fade from")
                        + "; give a shorter fade")
            }
            // Resampled, a fade before the loop's end is made at the output's rate, from the output's own frames.
            let scale = format.sampleRate / source.sampleRate
            if scale != 1, planned.fadesIn {
                // The loop's points as the output holds them (``TimelineShift``, before any padding).
                let shift = TimelineShift(start: render.start, scale: scale, padding: 0, end: .max)
                let (start, end) = (shift.moved(loop.start), shift.moved(loop.end))
                let fade = max(1, Int64((Double(frames) * scale).rounded()))
                if start - fade >= 0, end - fade >= start {
                    let region = end - fade..<end
                    if let overlap = render.resampledLoopCrossfades.first(where: { $0.region.overlaps(region) }) {
                        throw ConversionUsageError(
                            "--loop-crossfade \(length): the fades of two loops overlap (output frames "
                                + "\(overlap.region.lowerBound)-\(overlap.region.upperBound) and \(region.lowerBound)-"
                                + "\(region.upperBound)); give a shorter fade")
                    }
                    render.resampledLoopCrossfades.append(ResampledLoopCrossfade(region: region, from: start - fade))
                    notes.append(
                        "\(name): its last \(fade) frames at \(shortDecimal(format.sampleRate)) Hz crossfaded at equal "
                            + "power into the \(fade) frames before the loop's start")
                    continue
                }
            }
            if let overlap = render.loopCrossfades.first(where: { $0.region.overlaps(planned.region) }) {
                throw ConversionUsageError(
                    "--loop-crossfade \(length): the fades of two loops overlap (frames \(overlap.region.lowerBound)-"
                        + "\(overlap.region.upperBound) and \(planned.region.lowerBound)-\(planned.region.upperBound)); "
                        + "give a shorter fade")
            }
            let reader = try SourceReader(path: input)
            reader.skipFrames(planned.from)
            var other: [Float] = []
            while other.count < Int(frames) * source.channels {
                let count = try reader.read(maximum: Int(frames) - other.count / source.channels, into: &other)
                if count == 0 { break }
            }
            guard other.count == Int(frames) * source.channels else {
                throw AudioFileError.truncated(
                    "'\(input)': the audio ends before the \(frames) frames at \(planned.from) that \(name)'s "
                        + "crossfade takes", offset: nil)
            }
            render.loopCrossfades.append(
                LoopCrossfade(region: planned.region, other: other, otherFadesIn: planned.fadesIn))
            notes.append(
                "\(name): frames \(planned.region.lowerBound)-\(planned.region.upperBound) crossfaded at equal power "
                    + (planned.fadesIn
                        ? "into the \(frames) frames before the loop's start"
                        : "from the \(frames) frames after its end"))
        }
    }
}
