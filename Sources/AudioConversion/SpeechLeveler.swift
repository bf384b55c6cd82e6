#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import AudioEngines
import AudioFormats

/// A gain that moves along the sound: one value a tenth of a second (the middle of each 100 ms block of the
/// output), and between two values the gain glides in a straight line, so no step is ever heard. The speech
/// leveler's (`--dynamic`); it is applied before the static gain and the limiter.
struct GainCurve: Sendable, Hashable {
    /// Output frames between two values: a tenth of a second at the output's rate.
    let step: Int
    /// The linear gain at the middle of each block.
    let gains: [Float]

    /// Scales the last `frames` interleaved frames of `samples`, the first of which is output frame `frame`.
    func apply(_ samples: inout [Float], channels: Int, from frame: Int64, frames: Int) {
        guard let last = gains.last, let first = gains.first else { return }
        let base = samples.count - frames * channels
        let half = Int64(step / 2)
        let step64 = Int64(step)
        samples.withUnsafeMutableBufferPointer { buffer in
            for index in 0..<frames {
                // Where the frame falls between the middles of two blocks.
                let position = frame + Int64(index) - half
                let gain: Float
                if position < 0 {
                    gain = first
                } else {
                    let block = Int(position / step64)
                    if block + 1 >= gains.count {
                        gain = last
                    } else {
                        let fraction = Float(position - Int64(block) * step64) / Float(step)
                        gain = gains[block] + (gains[block + 1] - gains[block]) * fraction
                    }
                }
                let start = base + index * channels
                for channel in 0..<channels { buffer[start + channel] *= gain }
            }
        }
    }
}

/// What the speech leveler did: the loudness of the sound before it, and how far its gain rode.
public struct SpeechLeveling: Sendable, Hashable {
    /// The source as the output's rate and channels carry it, before the leveler (its loudness range is what the
    /// leveler narrows).
    public var source: LoudnessMeasurement
    /// The leveler's least gain, dB.
    public var leastGain: Double
    /// The leveler's greatest gain, dB.
    public var greatestGain: Double
}

/// The speech leveler (`--loudness LUFS --dynamic`): a gain that rides slowly toward the programme's own level,
/// so a quiet speaker and a loud one, or a voice that drifts away from the microphone, come out alike, before the
/// static gain and the true-peak limiter bring the whole to the target.
///
/// - Each tenth of a second's local level is the energy mean of the *speech* around it: the 100 ms blocks within
///   ``reach`` (a centred 3.1 s, BS.1770's short-term window) whose loudness is within ``gateBelowProgramme`` LU
///   of the programme's integrated loudness. Pauses and room tone fall under that gate, so they never count toward
///   a level and are never raised for being quiet.
/// - The raw gain brings that local level to the programme's, within ``maximumBoost`` and ``maximumCut``. Where
///   fewer than ``leastSpeech`` blocks of speech are near (a long pause, a cough), the gain holds: it follows the
///   straight line between its neighbours' gains, so a pause keeps the level around it.
/// - The curve is then smoothed forward and backward by a one-pole filter (``smoothing``; zero phase: the gain
///   neither lags nor leads the speech), and its slope bounded to ``maximumSlope``, so it never pumps.
/// - A sound too short for a level of its own (a held gain over it) takes no more gain than brings it to the
///   programme's level.
enum SpeechLeveler {
    /// Blocks either side of the one whose level is taken: with it, 31 blocks (3.1 s).
    static let reach = 15
    /// How far under the programme's loudness a block still counts as speech, LU.
    static let gateBelowProgramme = 20.0
    /// The most the leveler raises a passage, and lowers one, dB.
    static let maximumBoost = 10.0
    static let maximumCut = 10.0
    /// The fewest blocks of speech (100 ms each) near a point for its own level to count.
    static let leastSpeech = 5
    /// The one-pole smoothing's time constant, each way, seconds.
    static let smoothing = 0.5
    /// The steepest the gain may change, dB a second.
    static let maximumSlope = 6.0

    /// The curve for a sound whose 100 ms blocks measured `blocks` (LUFS, in order) and whose integrated
    /// loudness is `programme`, at `step` frames a block; `nil` where no passage counts as speech.
    static func curve(blocks: [Float], programme: Double, step: Int) -> (curve: GainCurve, decibels: [Double])? {
        let count = blocks.count
        guard count > 0, programme.isFinite else { return nil }
        let energy = blocks.map { LoudnessGate.energy(ofLoudness: Double($0)) }
        // Speech: blocks whose own loudness passes the gate (the gaps between words and the pauses do not count, so
        // a turn's level is its voice's, and a pause's edge does not dilute the turn beside it).
        let gate = LoudnessGate.energy(ofLoudness: max(LoudnessGate.absolute, programme - gateBelowProgramme))
        let speech = energy.map { $0 > gate }
        // Each block's level: the mean energy of the speech within reach (prefix sums: one pass).
        var sums = [Double](repeating: 0, count: count + 1)
        var counts = [Int](repeating: 0, count: count + 1)
        for index in 0..<count {
            sums[index + 1] = sums[index] + (speech[index] ? energy[index] : 0)
            counts[index + 1] = counts[index] + (speech[index] ? 1 : 0)
        }
        var raw = [Double?](repeating: nil, count: count)
        for index in 0..<count {
            let low = max(0, index - reach)
            let high = min(count, index + reach + 1)
            let blocks = counts[high] - counts[low]
            guard blocks >= min(leastSpeech, count) && blocks > 0 else { continue }
            let level = LoudnessGate.loudness(ofEnergy: (sums[high] - sums[low]) / Double(blocks))
            raw[index] = min(maximumBoost, max(-maximumCut, programme - level))
        }
        guard var gains = held(raw) else { return nil }
        // Zero-phase smoothing, then the slope bound (a pass each way: every step within it after the second).
        let pole = exp(-0.1 / smoothing)
        for index in gains.indices.dropFirst() { gains[index] = pole * gains[index - 1] + (1 - pole) * gains[index] }
        for index in gains.indices.dropLast().reversed() {
            gains[index] = pole * gains[index + 1] + (1 - pole) * gains[index]
        }
        let slope = maximumSlope / 10
        for index in gains.indices.dropFirst() {
            gains[index] = min(gains[index - 1] + slope, max(gains[index - 1] - slope, gains[index]))
        }
        for index in gains.indices.dropLast().reversed() {
            gains[index] = min(gains[index + 1] + slope, max(gains[index + 1] - slope, gains[index]))
        }
        // A sound too short for a level of its own (a hit, a cough: its gain held from its neighbours') takes no
        // more gain than brings it to the programme's loudness, as a longer one would be brought there: a hit after
        // a fade-out once took the fade's +9 dB, and the leveled episode's true peak stood 11 dB over its linear one
        // (the loudest target it allowed, -29.8 LUFS where the linear gain allowed -16.4). The bound spreads at the
        // slope either way, so the curve keeps its slope.
        var ceiling = [Double](repeating: .infinity, count: count)
        for index in 0..<count where raw[index] == nil && speech[index] {
            ceiling[index] = max(-maximumCut, programme - Double(blocks[index]))
        }
        for index in ceiling.indices.dropFirst() { ceiling[index] = min(ceiling[index], ceiling[index - 1] + slope) }
        for index in ceiling.indices.dropLast().reversed() {
            ceiling[index] = min(ceiling[index], ceiling[index + 1] + slope)
        }
        for index in gains.indices { gains[index] = min(gains[index], ceiling[index]) }
        return (GainCurve(step: step, gains: gains.map { Float(pow(10, $0 / 20)) }), gains)
    }

    /// The raw gains with each gap (no speech near) filled: the straight line between the gains either side, or
    /// the nearest gain at the ends; `nil` where there is none.
    private static func held(_ raw: [Double?]) -> [Double]? {
        guard let firstKnown = raw.firstIndex(where: { $0 != nil }) else { return nil }
        var gains = [Double](repeating: 0, count: raw.count)
        var previous = firstKnown
        for index in 0..<raw.count {
            if let value = raw[index] {
                gains[index] = value
                if index > previous + 1, let before = raw[previous] {
                    for gap in (previous + 1)..<index {
                        let fraction = Double(gap - previous) / Double(index - previous)
                        gains[gap] = before + (value - before) * fraction
                    }
                }
                previous = index
            } else if index < firstKnown {
                gains[index] = raw[firstKnown] ?? 0
            } else {
                gains[index] = raw[previous] ?? 0
            }
        }
        return gains
    }
}
