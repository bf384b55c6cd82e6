import AudioEngines
import AudioDecoding

/// What a lossy encoder did to one signal, kept to predict what it does to another aimed a little differently: the
/// signal it was given and the encode's output, as decoded. A lossy encoder's true-peak overshoot is the extreme of
/// its own error riding on the signal's peaks, somewhere in the programme (AAC at 64 kbit/s on a limited spoken
/// episode: +2.2 dB at a syllable the limiter did not touch, and at another spot once the ceiling was lowered), so
/// it follows no rule of the ceiling and a first encode's overshoot says little of a second's. The error itself
/// hardly moves when the signal moves by a limiter's few dB: the new signal plus the last encode's error (decoded
/// minus given, sample for sample, afkit's reader placing both on the same frames) measures within a few tenths of a
/// dB of the true peak the encode then decodes to (AAC 64 kbit/s on a 20-minute episode, ceilings 1.4 and 3.4 dB
/// lower: -0.45 and -1.59 dBTP predicted, -0.49 and -1.71 measured; less near on a sound of a few seconds, whose
/// error moves more). So a normalizer tries ceilings on the prediction, a pass over three files, and encodes once
/// more where it used to encode each try.
struct EncodingPrediction {
    /// The signal the encode was given.
    let signal: String
    /// The encode's output.
    let encoded: String

    /// The measure of `newSignal` (on the same frames as ``signal``) plus the encode's error: what an encode of it
    /// is likely to decode to. `nil` where the three do not line up frame for frame (a reader that cannot place the
    /// encode's frames, or files of different shapes): the normalizer then learns by encoding.
    func measure(_ newSignal: String) throws -> LoudnessMeasurement? {
        let next = try SourceReader(path: newSignal)
        guard let measuring = try measuring(channels: next.channels, sampleRate: next.sampleRate) else { return nil }
        try next.forEachBlock(maximum: 8192) { try measuring.add($0, frames: $1) }
        return try measuring.measurement()
    }

    /// A measure of a new signal handed over a block at a time (a normalizer's render, no file), plus the encode's
    /// error; `nil` where the encode's channels or rate are not the new signal's.
    func measuring(channels: Int, sampleRate: Double) throws -> Measuring? {
        let given = try SourceReader(path: signal)
        let decoded = try SourceReader(path: encoded)
        guard given.channels == channels, decoded.channels == channels, given.sampleRate == sampleRate,
            decoded.sampleRate == sampleRate
        else { return nil }
        return Measuring(
            given: given, decoded: decoded, meter: try LoudnessMeter(channels: channels, sampleRate: sampleRate))
    }

    /// The new signal's blocks, each with the encode's error for the same frames added, into a meter.
    final class Measuring {
        private let given: SourceReader
        private let decoded: SourceReader
        private let meter: LoudnessMeter
        private var lined = true
        private var (a, b, sum): ([Float], [Float], [Float]) = ([], [], [])

        init(given: SourceReader, decoded: SourceReader, meter: LoudnessMeter) {
            self.given = given
            self.decoded = decoded
            self.meter = meter
        }

        /// The next `frames` of the new signal.
        func add(_ samples: UnsafeBufferPointer<Float>, frames: Int) throws {
            guard lined, frames > 0 else { return }
            a.removeAll(keepingCapacity: true)
            b.removeAll(keepingCapacity: true)
            guard try given.read(maximum: frames, into: &a) == frames,
                try decoded.read(maximum: frames, into: &b) == frames,
                a.count == samples.count
            else {
                lined = false
                return
            }
            sum.removeAll(keepingCapacity: true)
            sum.append(contentsOf: samples)
            for index in sum.indices { sum[index] += b[index] - a[index] }
            try sum.withUnsafeBufferPointer { try meter.add($0, frames: frames) }
        }

        /// What the new signal plus the error measures; `nil` where the three did not end on the same frame.
        func measurement() throws -> LoudnessMeasurement? {
            a.removeAll(keepingCapacity: true)
            b.removeAll(keepingCapacity: true)
            guard lined, try given.read(maximum: 1, into: &a) == 0, try decoded.read(maximum: 1, into: &b) == 0 else {
                return nil
            }
            return meter.measurement
        }
    }
}
