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
        let from = max(position, region.lowerBound)
        let to = min(position + Int64(frames), region.upperBound)
        guard from < to else { return }
        let base = samples.count - frames * channels
        let length = Double(region.count)
        for frame in from..<to {
            let offset = Int(frame - region.lowerBound)
            let x = (Double(offset) + 0.5) / length
            let rising = Float(sin(x * Double.pi / 2))
            let falling = Float(cos(x * Double.pi / 2))
            let (own, others) = otherFadesIn ? (falling, rising) : (rising, falling)
            let index = base + Int(frame - position) * channels
            for channel in 0..<channels {
                samples[index + channel] = samples[index + channel] * own + other[offset * channels + channel] * others
            }
        }
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
