#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--remove-dc`: a first-order high-pass (y[n] = x[n] - x[n-1] + r y[n-1]) at ``cutoff``, each channel its own,
/// which passes nothing at 0 Hz and everything a speaker plays. Each channel starts as though its first sample had
/// always been there, so a sound that starts on an offset does not start with a step.
struct DCBlocker {
    /// The corner, Hz: under any speaker's range, and settled within a tenth of a second.
    static let cutoff = 5.0

    private let pole: Float
    private var lastInput: [Float]
    private var lastOutput: [Float]
    private var started = false

    init(channels: Int, sampleRate: Double) {
        pole = Float(exp(-2 * Double.pi * Self.cutoff / sampleRate))
        lastInput = [Float](repeating: 0, count: channels)
        lastOutput = [Float](repeating: 0, count: channels)
    }

    /// Filters the last `frames` interleaved frames of `samples` in place.
    mutating func apply(_ samples: inout [Float], frames: Int) {
        let channels = lastInput.count
        let base = samples.count - frames * channels
        guard frames > 0 else { return }
        if !started {
            for channel in 0..<channels { lastInput[channel] = samples[base + channel] }
            started = true
        }
        for frame in 0..<frames {
            for channel in 0..<channels {
                let index = base + frame * channels + channel
                let input = samples[index]
                let output = input - lastInput[channel] + pole * lastOutput[channel]
                lastInput[channel] = input
                lastOutput[channel] = output
                samples[index] = output
            }
        }
    }
}
