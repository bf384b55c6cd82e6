import AudioEngines
import AudioDecoding

/// What a lossy encoder did to one signal, kept to predict what it does to another aimed a little differently: the
/// signal it was given and the encode's output, as decoded. A lossy encoder's true-peak overshoot is the extreme of
/// its own error riding on the signal's peaks, somewhere in the programme (AAC at 64 kbit/s on a limited spoken
/// episode: +2.2 dB at a syllable the limiter did not touch, and at another spot once the ceiling was lowered), so
/// it follows no rule of the ceiling and a first encode's overshoot says little of a second's. The error itself
/// hardly moves when the signal moves by a limiter's few dB: the new signal plus the last encode's error (decoded
/// minus given, sample for sample, afkit's reader placing both on the same frames) decodes to within a few
/// hundredths of a dB of the true peak and loudness the encode then measures (AAC 64 kbit/s, ceilings 1.2 and 3.8 dB
/// lower: -0.50 and -1.68 dBTP predicted, -0.49 and -1.74 measured). So a normalizer tries ceilings on the
/// prediction, a pass over three files, and encodes once more where it used to encode each try.
struct EncodingPrediction {
    /// The signal the encode was given.
    let signal: String
    /// The encode's output.
    let encoded: String

    /// The measure of `newSignal` (on the same frames as ``signal``) plus the encode's error: what an encode of it
    /// is likely to decode to. `nil` where the three do not line up frame for frame (a reader that cannot place the
    /// encode's frames, or files of different shapes): the normalizer then learns by encoding.
    func measure(_ newSignal: String) throws -> LoudnessMeasurement? {
        let given = try SourceReader(path: signal)
        let decoded = try SourceReader(path: encoded)
        let next = try SourceReader(path: newSignal)
        let channels = next.channels
        guard given.channels == channels, decoded.channels == channels, given.sampleRate == next.sampleRate,
            decoded.sampleRate == next.sampleRate
        else { return nil }
        let meter = try LoudnessMeter(channels: channels, sampleRate: next.sampleRate)
        var (a, b, c): ([Float], [Float], [Float]) = ([], [], [])
        let block = 8192
        while true {
            a.removeAll(keepingCapacity: true)
            b.removeAll(keepingCapacity: true)
            c.removeAll(keepingCapacity: true)
            let frames = try next.read(maximum: block, into: &c)
            guard try given.read(maximum: block, into: &a) == frames,
                try decoded.read(maximum: block, into: &b) == frames
            else { return nil }
            if frames == 0 { return meter.measurement }
            for index in c.indices { c[index] += b[index] - a[index] }
            try c.withUnsafeBufferPointer { try meter.add($0, frames: frames) }
        }
    }
}
