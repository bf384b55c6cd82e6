import AudioFormats
internal import CSampleRate
internal import CSoxr

/// Streaming sample-rate conversion of interleaved Float32 frames, in bounded memory.
public protocol Resampler: AnyObject {
    /// Converts `frames` frames, appending what is ready to `output`.
    func process(_ input: UnsafeBufferPointer<Float>, frames: Int, into output: inout [Float]) throws
    /// Drains the filter's delay line at the end of the input.
    func finish(into output: inout [Float]) throws
}

/// Which engine resamples, and how well.
public enum ResamplerChoice: Hashable, Sendable {
    /// libsoxr at its very-high-quality setting (28-bit, steep): afkit's default.
    case soxr
    /// libsamplerate with one of its converters.
    case libsamplerate(SampleRateConverter)
    /// libsoxr at another of its recipes (afconvert's `-r` and `--src-complexity` pick it).
    case soxrQuality(SoxrQuality)

    /// libsoxr's quality recipes, by the precision they keep.
    public enum SoxrQuality: UInt, Sendable, CaseIterable {
        case low = 1, medium = 2, high = 4, veryHigh = 6, mastering = 7
    }

    /// The engine and its setting, in words.
    public var description: String {
        switch self {
        case .soxr: "libsoxr (very high quality, 28-bit)"
        case .soxrQuality(let quality): "libsoxr (\(quality) quality)"
        case .libsamplerate(let converter): "libsamplerate (\(converter))"
        }
    }

    /// afconvert's `-r 0..127` (`--src-quality`) and `--src-complexity line|norm|bats` on afkit's engines:
    /// `line` is libsamplerate's linear interpolation; `norm` (the default) is libsoxr, its recipe from the
    /// quality (below 32 low, below 64 medium, below 96 high (20-bit), from 96 very high (28-bit, afkit's
    /// default)); `bats` is libsoxr's 32-bit recipe. `-r` with libsamplerate picks its sinc converter
    /// (below 32 fastest, below 64 medium, else best).
    public static func afconvert(quality: Int?, complexity: String?, engine: String) -> ResamplerChoice {
        let quality = quality ?? 127
        if complexity == "line" { return .libsamplerate(.linear) }
        if engine == "libsamplerate" {
            return .libsamplerate(quality < 32 ? .sincFastest : quality < 64 ? .sincMedium : .sincBest)
        }
        if complexity == "bats" { return .soxrQuality(.mastering) }
        let recipe: SoxrQuality = quality < 32 ? .low : quality < 64 ? .medium : quality < 96 ? .high : .veryHigh
        return recipe == .veryHigh ? .soxr : .soxrQuality(recipe)
    }

    /// libsamplerate's converters.
    public enum SampleRateConverter: Int32, Sendable, CaseIterable {
        case sincBest = 0, sincMedium = 1, sincFastest = 2, zeroOrderHold = 3, linear = 4
    }

    /// The largest factor between two rates afkit resamples across (a file may state any rate above 0,
    /// 0.01 Hz included; making 22050 Hz of it would need two million output frames per input frame).
    public static let maximumRatio = 65536.0

    /// Throws where the rates are further apart than ``maximumRatio`` (or one is not a finite rate).
    public static func checkRatio(from inputRate: Double, to outputRate: Double) throws {
        let ratio = max(outputRate / inputRate, inputRate / outputRate)
        guard ratio.isFinite, ratio <= Self.maximumRatio else {
            throw AudioFileError.unsupportedDataFormat(
                "resampling from \(formatSampleRate(inputRate)) Hz to \(formatSampleRate(outputRate)) Hz is a factor of more than "
                    + "\(Int(Self.maximumRatio)); convert to a rate nearer the source's", offset: nil)
        }
    }

    /// An engine for a conversion.
    public func make(from inputRate: Double, to outputRate: Double, channels: Int) throws -> Resampler {
        try Self.checkRatio(from: inputRate, to: outputRate)
        switch self {
        case .soxr: return try SoxrResampler(from: inputRate, to: outputRate, channels: channels)
        case .soxrQuality(let quality):
            return try SoxrResampler(from: inputRate, to: outputRate, channels: channels, quality: quality)
        case .libsamplerate(let converter):
            return try SampleRateResampler(from: inputRate, to: outputRate, channels: channels, converter: converter)
        }
    }
}

/// libsoxr, very high quality unless another recipe is asked.
public final class SoxrResampler: Resampler {
    private let handle: soxr_t
    private let channels: Int
    private let ratio: Double

    /// A resampler from `inputRate` to `outputRate` for interleaved frames of `channels`.
    public init(
        from inputRate: Double, to outputRate: Double, channels: Int,
        quality recipe: ResamplerChoice.SoxrQuality = .veryHigh
    ) throws {
        var error: soxr_error_t?
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var quality = soxr_quality_spec(recipe.rawValue, 0)
        guard let handle = soxr_create(inputRate, outputRate, UInt32(channels), &error, &io, &quality, nil),
            error == nil
        else {
            throw AudioFileError.unsupportedDataFormat(
                "soxr: cannot resample \(inputRate) Hz to \(outputRate) Hz: \(error.map { String(cString: $0) } ?? "unknown")",
                offset: nil)
        }
        self.handle = handle
        self.channels = channels
        ratio = outputRate / inputRate
    }

    deinit { soxr_delete(handle) }

    /// Resamples `frames` interleaved frames, appending what comes out (the filter holds some back).
    public func process(_ input: UnsafeBufferPointer<Float>, frames: Int, into output: inout [Float]) throws {
        var used = 0
        while used < frames {
            let room = Int(Double(frames - used) * ratio) + 64
            let start = output.count
            output.append(contentsOf: repeatElement(0, count: room * channels))
            var inputDone = 0
            var outputDone = 0
            let error = output.withUnsafeMutableBufferPointer { out in
                soxr_process(
                    handle, input.baseAddress.map { $0 + used * channels }, frames - used, &inputDone,
                    out.baseAddress.map { $0 + start }, room, &outputDone)
            }
            if let error { throw AudioFileError.malformed("soxr: \(String(cString: error))", offset: nil) }
            output.removeLast((room - outputDone) * channels)
            used += inputDone
            if inputDone == 0 && outputDone == 0 { break }
        }
    }

    /// Appends the frames the filter still holds.
    public func finish(into output: inout [Float]) throws {
        while true {
            let room = 4096
            let start = output.count
            output.append(contentsOf: repeatElement(0, count: room * channels))
            var inputDone = 0
            var outputDone = 0
            let error = output.withUnsafeMutableBufferPointer { out in
                soxr_process(handle, nil, 0, &inputDone, out.baseAddress.map { $0 + start }, room, &outputDone)
            }
            if let error { throw AudioFileError.malformed("soxr: \(String(cString: error))", offset: nil) }
            output.removeLast((room - outputDone) * channels)
            if outputDone == 0 { return }
        }
    }
}

/// libsamplerate (Secret Rabbit Code).
public final class SampleRateResampler: Resampler {
    private let state: OpaquePointer
    private let channels: Int
    private let ratio: Double

    /// A resampler from `inputRate` to `outputRate` for interleaved frames of `channels`, by `converter`.
    public init(
        from inputRate: Double, to outputRate: Double, channels: Int,
        converter: ResamplerChoice.SampleRateConverter = .sincBest
    ) throws {
        // The ratio is checked before the state exists: a refusal never has a state to free (once every property
        // is set, a throwing initializer runs `deinit`, which frees it).
        ratio = outputRate / inputRate
        guard src_is_valid_ratio(ratio) != 0 else {
            throw AudioFileError.unsupportedDataFormat("libsamplerate: cannot resample by \(ratio)", offset: nil)
        }
        var error: Int32 = 0
        guard let state = src_new(converter.rawValue, Int32(channels), &error), error == 0 else {
            throw AudioFileError.unsupportedDataFormat(
                "libsamplerate: \(String(cString: src_strerror(error)))", offset: nil)
        }
        self.state = state
        self.channels = channels
    }

    deinit { src_delete(state) }

    /// Resamples `frames` interleaved frames, appending what comes out (the filter holds some back).
    public func process(_ input: UnsafeBufferPointer<Float>, frames: Int, into output: inout [Float]) throws {
        try run(input.baseAddress, frames: frames, endOfInput: false, into: &output)
    }

    /// Appends the frames the filter still holds.
    public func finish(into output: inout [Float]) throws {
        try run(nil, frames: 0, endOfInput: true, into: &output)
    }

    private func run(_ input: UnsafePointer<Float>?, frames: Int, endOfInput: Bool, into output: inout [Float]) throws {
        var used = 0
        repeat {
            let room = Int(Double(frames - used) * ratio) + 256
            let start = output.count
            output.append(contentsOf: repeatElement(0, count: room * channels))
            var data = SRC_DATA()
            data.data_in = input.map { $0 + used * channels }
            data.input_frames = frames - used
            data.end_of_input = endOfInput ? 1 : 0
            data.src_ratio = ratio
            data.output_frames = room
            let error = output.withUnsafeMutableBufferPointer { out -> Int32 in
                data.data_out = out.baseAddress.map { $0 + start }
                return src_process(state, &data)
            }
            if error != 0 {
                throw AudioFileError.malformed("libsamplerate: \(String(cString: src_strerror(error)))", offset: nil)
            }
            output.removeLast((room - data.output_frames_gen) * channels)
            used += data.input_frames_used
            if data.input_frames_used == 0 && data.output_frames_gen == 0 { return }
        } while used < frames || endOfInput
    }
}
