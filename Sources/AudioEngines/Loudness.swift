import AudioFormats
internal import CEBUR128

/// Loudness per ITU-R BS.1770-4 / EBU R128, measured by libebur128 (the library loudness scanners and
/// players use; the gated loudness, range and sample peak) and afkit's own true-peak meter
/// (``TruePeakMeter``: libebur128's spent four fifths of the time) over a sound's valid frames, as afkit
/// decodes them.
public struct LoudnessMeasurement: Hashable, Sendable {
    /// Integrated loudness, LUFS; `-infinity` for silence.
    public var integrated: Double
    /// Loudness range, LU.
    public var range: Double
    /// The highest true peak (4x oversampled) of any channel, dBTP.
    public var truePeak: Double
    /// The highest sample peak of any channel, dBFS.
    public var samplePeak: Double
    /// The loudest 3-second (short-term) window, LUFS.
    public var shortTermMaximum: Double
    /// For a sound shorter than one 400 ms gating block (a click, a tap), which has no integrated
    /// loudness: its K-weighted loudness as one block, ungated, LUFS; `nil` for longer sounds.
    public var shortSoundLoudness: Double? = nil

    /// The loudness normalization aims at: the integrated loudness, or a short sound's own.
    public var normalizable: Double { integrated.isFinite ? integrated : shortSoundLoudness ?? integrated }
}

/// A loudness meter fed interleaved Float32 frames a block at a time (libebur128's state, and afkit's
/// true-peak meter): integrated loudness, range, short-term maximum, true and sample peak of everything added.
public final class LoudnessMeter {
    private var state: UnsafeMutablePointer<ebur128_state>?
    private let truePeakMeter: TruePeakMeter
    private let rate: Double
    private var shortTermMaximum = -Double.infinity
    private var sinceShortTerm = 0
    /// The K-weighted energy of each of the last thirty 100 ms blocks (a 3 s short-term window), and their
    /// mean is the short-term loudness: libebur128's own short-term reading sums its whole 3 s buffer each
    /// time it is asked, which took half the time of measuring a long file.
    private var blockEnergies = [Double](repeating: 0, count: 30)
    private var blockIndex = 0
    private var framesAdded = 0
    /// The short-term loudness (3 s window, LUFS; `-infinity` for silence) every tenth of a second so far.
    public private(set) var shortTermReadings: [Float] = []
    /// The momentary loudness (400 ms window, LUFS; `-infinity` for silence) every tenth of a second so far.
    public private(set) var momentaryReadings: [Float] = []
    /// The loudness of each whole tenth of a second so far (a 100 ms block, LUFS; `-infinity` for silence): block
    /// `i` holds frames `i * blockFrames ..< (i + 1) * blockFrames`.
    public private(set) var blockReadings: [Float] = []
    /// Frames in each of ``blockReadings``' blocks: a tenth of a second at the meter's rate.
    public var blockFrames: Int { max(1, Int(rate / 10)) }
    /// Channels of the frames measured.
    public let channels: Int
    /// Whether the meter measures the integrated loudness alone (``init(integratedOnly:sampleRate:)``).
    public let isIntegratedOnly: Bool

    /// A meter for interleaved frames of `channels` at `sampleRate`.
    public convenience init(channels: Int, sampleRate: Double) throws {
        try self.init(channels: channels, sampleRate: sampleRate, integratedOnly: false)
    }

    /// A meter of the integrated loudness alone (and a sound shorter than a gating block's own), for a search's
    /// measuring passes, which ask nothing else: no true or sample peak, range or readings, which cost it more than
    /// half its time. Its measurement's range is 0 and its peaks `-infinity`.
    public convenience init(integratedOnly channels: Int, sampleRate: Double) throws {
        try self.init(channels: channels, sampleRate: sampleRate, integratedOnly: true)
    }

    private init(channels: Int, sampleRate: Double, integratedOnly: Bool) throws {
        let rate = sampleRate.rounded()
        guard channels > 0, rate >= 1, rate <= Double(UInt32.max) else {
            throw AudioFileError.unsupportedDataFormat(
                "loudness: \(channels) channels at \(sampleRate) Hz cannot be measured", offset: nil)
        }
        let mode = Int32(
            integratedOnly
                ? EBUR128_MODE_I.rawValue
                : EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue | EBUR128_MODE_SAMPLE_PEAK.rawValue
                    | EBUR128_MODE_S.rawValue)
        guard let state = ebur128_init(UInt32(channels), UInt(rate), mode) else {
            throw AudioFileError.unsupportedDataFormat(
                "loudness: libebur128 cannot measure \(channels) channels",
                offset: nil)
        }
        self.state = state
        truePeakMeter = TruePeakMeter(channels: channels, sampleRate: rate)
        self.rate = rate
        self.channels = channels
        isIntegratedOnly = integratedOnly
        // afkit delivers WAV's channel order: the fourth of six or more is the LFE, which BS.1770 leaves out.
        if channels >= 6 {
            let map: [channel] = [
                EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_LEFT_SURROUND,
                EBUR128_RIGHT_SURROUND,
            ]
            for (index, role) in map.enumerated() {
                _ = ebur128_set_channel(state, UInt32(index), Int32(role.rawValue))
            }
        }
    }

    deinit { ebur128_destroy(&state) }

    /// Adds `frames` interleaved frames.
    public func add(_ samples: UnsafeBufferPointer<Float>, frames: Int) throws {
        guard frames > 0, let base = samples.baseAddress else { return }
        if isIntegratedOnly {
            try feed(base, frames: frames)
            framesAdded += frames
            return
        }
        truePeakMeter.add(samples, frames: frames)
        // libebur128 takes at most a second or so per call comfortably; the short-term loudness is read
        // every tenth of a second, as meters show it.
        let step = blockFrames
        var done = 0
        while done < frames {
            let count = min(frames - done, step - sinceShortTerm)
            try feed(base + done * channels, frames: count)
            done += count
            framesAdded += count
            sinceShortTerm += count
            if sinceShortTerm >= step {
                sinceShortTerm = 0
                // The last 100 ms block's energy (libebur128's window reading, undone from LUFS), into the
                // running 3 s sum: the short-term loudness every tenth of a second, as meters show it.
                var value = -Double.infinity
                var energy = 0.0
                if ebur128_loudness_window(state, 100, &value) == Int32(EBUR128_SUCCESS.rawValue) {
                    energy = LoudnessGate.energy(ofLoudness: value)
                }
                blockEnergies[blockIndex] = energy
                blockReadings.append(Float(value))
                blockIndex = blockIndex == 29 ? 0 : blockIndex + 1
                let mean = blockEnergies.reduce(0, +) / 30
                let reading = LoudnessGate.loudness(ofEnergy: mean)
                shortTermMaximum = max(shortTermMaximum, reading)
                shortTermReadings.append(Float(reading))
                // The momentary loudness: the last four blocks (400 ms), or those there are at the start (a
                // picture of a sound, not of the silence before it).
                let blocks = min(4, shortTermReadings.count)
                let recent =
                    (1...blocks).reduce(0.0) { $0 + blockEnergies[(blockIndex - $1 + 30) % 30] } / Double(blocks)
                momentaryReadings.append(Float(LoudnessGate.loudness(ofEnergy: recent)))
            }
        }
    }

    /// Hands `frames` interleaved frames to libebur128.
    private func feed(_ base: UnsafePointer<Float>, frames: Int) throws {
        let status = ebur128_add_frames_float(state, base, frames)
        guard status == Int32(EBUR128_SUCCESS.rawValue) else {
            throw AudioFileError.unsupportedDataFormat(
                "loudness: libebur128 refused the audio (\(status))", offset: nil)
        }
    }

    /// The true peak of what has been added so far, linear (1 is full scale), every channel's largest.
    public var truePeak: Double { truePeakMeter.peaks.max() ?? 0 }

    /// What has been added so far.
    public var measurement: LoudnessMeasurement {
        var integrated = -Double.infinity
        var range = 0.0
        _ = ebur128_loudness_global(state, &integrated)
        if !isIntegratedOnly { _ = ebur128_loudness_range(state, &range) }
        var samplePeak = 0.0
        for channel in 0..<UInt32(channels) where !isIntegratedOnly {
            var value = 0.0
            if ebur128_sample_peak(state, channel, &value) == Int32(EBUR128_SUCCESS.rawValue) {
                samplePeak = max(samplePeak, value)
            }
        }
        // Never below the sample peak (as libebur128 reports it, and as the samples are part of the waveform).
        let truePeak = max(self.truePeak, samplePeak)
        func decibels(_ linear: Double) -> Double { linear > 0 ? 20 * log10(linear) : -Double.infinity }
        var result = LoudnessMeasurement(
            integrated: integrated, range: range, truePeak: decibels(truePeak),
            samplePeak: decibels(samplePeak), shortTermMaximum: shortTermMaximum)
        let milliseconds = UInt(Double(framesAdded) * 1000 / rate)
        if framesAdded > 0, milliseconds < 400 {
            // The whole sound is within the meter's 400 ms window: measured as one block.
            var value = -Double.infinity
            if ebur128_loudness_window(state, max(1, milliseconds), &value) == Int32(EBUR128_SUCCESS.rawValue) {
                result.shortSoundLoudness = value
            }
        }
        return result
    }
}

extension LoudnessGate {
    /// BS.1770's loudness of a mean square (the K-weighted channels' weighted sum), LUFS: -0.691 + 10 log10 of it;
    /// -infinity for none. One place for the offset the meter's readers undo and redo.
    public static func loudness(ofEnergy energy: Double) -> Double {
        energy > 0 ? -0.691 + 10 * log10(energy) : -.infinity
    }

    /// The mean square a loudness in LUFS is (0 for -infinity): ``loudness(ofEnergy:)`` undone.
    public static func energy(ofLoudness loudness: Double) -> Double {
        loudness.isFinite ? pow(10, (loudness + 0.691) / 10) : 0
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
