#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Maps frames from one channel count to another with a gain matrix that cannot exceed full scale:
/// every output's gains sum to at most 1, as FFmpeg's and SoX's downmixes do. Any channels to mono are
/// their mean (5.1: BS.775's weights, LFE dropped, normalised); 5.1 to stereo takes ITU-R BS.775's
/// coefficients (centre and surrounds at -3 dB, LFE dropped) normalised so each side's sum is 1; mono
/// goes to every output channel; otherwise channel to channel (extra outputs silent, extra inputs
/// folded in at -3 dB, the row normalised). A source peaking below full scale never clips in a downmix.
public struct ChannelMixer: Sendable {
    /// Channels of the frames mixed.
    public let inputChannels: Int
    /// Channels of the frames made.
    public let outputChannels: Int
    /// `gains[output][input]`.
    public let gains: [[Float]]
    /// Each output channel's inputs with a nonzero gain, in channel order: a zero gain must not turn an
    /// infinite sample into NaN.
    private let taps: [[(input: Int, gain: Float)]]

    /// A mix from `input` channels to `output` channels, in WAV's channel order.
    public init(from input: Int, to output: Int) {
        inputChannels = input
        outputChannels = output
        let half: Float = 0.707_106_78  // -3 dB
        var matrix = Array(repeating: Array(repeating: Float(0), count: input), count: output)
        switch (input, output) {
        case let (i, o) where i == o:
            for c in 0..<i { matrix[c][c] = 1 }
        case (1, _):
            for c in 0..<output { matrix[c][0] = 1 }
        case (let i, 1) where i != 6:
            matrix[0] = Array(repeating: 1 / Float(i), count: i)
        case (6, 2):
            // L R C LFE Ls Rs (WAVE order).
            matrix[0] = [1, 0, half, 0, half, 0]
            matrix[1] = [0, 1, half, 0, 0, half]
        case (6, 1):
            matrix[0] = [half, half, 1, 0, half * half, half * half]
        default:
            for c in 0..<min(input, output) { matrix[c][c] = 1 }
            for extra in output..<max(input, output) where extra < input { matrix[extra % output][extra] = half }
        }
        // No output's gains may sum past 1: a full-scale source stays within full scale.
        for row in matrix.indices {
            let sum = matrix[row].reduce(0) { $0 + abs($1) }
            if sum > 1 { matrix[row] = matrix[row].map { $0 / sum } }
        }
        gains = matrix
        taps = Self.taps(of: matrix)
    }

    /// Each row's inputs with a nonzero gain.
    private static func taps(of matrix: [[Float]]) -> [[(input: Int, gain: Float)]] {
        matrix.map { row in row.indices.filter { row[$0] != 0 }.map { (input: $0, gain: row[$0]) } }
    }

    /// A mix of the user's own: `gains[output][input]`, as given (a row may sum past 1: see
    /// ``overloads(_:)``).
    public init(gains matrix: [[Float]]) {
        inputChannels = matrix.first?.count ?? 0
        outputChannels = matrix.count
        gains = matrix
        taps = Self.taps(of: matrix)
    }

    /// Whether mixing leaves the frames as they are (each output its own input, at unity).
    public var isIdentity: Bool {
        inputChannels == outputChannels
            && gains.indices.allSatisfy { row in gains[row].indices.allSatisfy { gains[row][$0] == (row == $0 ? 1 : 0) }
            }
    }

    /// Samples past full scale in mixed frames: what a matrix whose rows sum past 1 makes of a loud source.
    public static func overloads(_ samples: ArraySlice<Float>) -> Int {
        samples.reduce(0) { $0 + (abs($1) > 1 ? 1 : 0) }
    }

    /// Mixes `frames` interleaved frames, appending to `output`.
    public func mix(_ input: UnsafeBufferPointer<Float>, frames: Int, into output: inout [Float]) {
        if isIdentity {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: input[0..<frames * inputChannels]))
            return
        }
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: frames * outputChannels))
        output.withUnsafeMutableBufferPointer { out in
            for (channel, row) in taps.enumerated() {
                for frame in 0..<frames {
                    let base = frame * inputChannels
                    var sum: Float = 0
                    for (source, gain) in row { sum += gain * input[base + source] }
                    out[start + frame * outputChannels + channel] = sum
                }
            }
        }
    }
}

/// What a channel mix did over a render: samples it took past full scale (a user's matrix), and for a mix to fewer
/// channels the energy it was given and kept (each a mean over channels), so that a mixdown that cancels is said.
struct MixReport {
    var overloads = 0
    var inputEnergy = 0.0
    var outputEnergy = 0.0

    /// How far the mix brought the level down, dB (`infinity`: to silence); `nil` where nothing was weighed.
    var levelFall: Double? {
        guard inputEnergy > 0 else { return nil }
        return outputEnergy > 0 ? 10 * log10(inputEnergy / outputEnergy) : .infinity
    }
}
