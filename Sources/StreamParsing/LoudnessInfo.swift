/// The loudness a file states for its sound, measured when it was made, so a player can level it without
/// measuring it: MPEG-4's `ludt` box (ISO/IEC 14496-12, 12.2.7), which carries ISO/IEC 23003-4's loudness
/// information, as Apple's HLS authoring specification asks for audio.
///
/// Each figure is optional (`nil`: not stated). A file holds them as 23003-4's codes, so they come back
/// quantised (``quantized()``): loudness to 0.25 LU between -57.75 and +6 LUFS; loudness range to 0.25 LU up
/// to 32 LU, 0.5 LU up to 70 and 1 LU up to 121; peaks to 1/32 dB between -107.97 and +19.97 dB. A value past
/// a code's range is written at its end; one that is not finite (silence's -inf) is not written.
public struct LoudnessInfo: Hashable, Sendable {
    /// Programme (integrated) loudness, LUFS (23003-4 method 1).
    public var integratedLoudness: Double?
    /// Anchor loudness (the speech's, where there is speech), LUFS (method 2).
    public var anchorLoudness: Double?
    /// The largest momentary (400 ms) loudness, LUFS (method 4).
    public var maximumMomentaryLoudness: Double?
    /// The largest short-term (3 s) loudness, LUFS (method 5).
    public var maximumShortTermLoudness: Double?
    /// Loudness range, LU (EBU Tech 3342; method 6).
    public var loudnessRange: Double?
    /// The true peak, dBTP.
    public var truePeak: Double?
    /// The sample peak, dBFS.
    public var samplePeak: Double?
    /// How the figures were measured: written for each of them, read from the programme loudness's (else the
    /// first figure's, else the true peak's).
    public var measurementSystem: MeasurementSystem
    /// How far the figures can be trusted, written and read as ``measurementSystem`` is.
    public var reliability: Reliability

    /// Loudness information; every figure not stated unless given.
    public init(
        integratedLoudness: Double? = nil, anchorLoudness: Double? = nil, maximumMomentaryLoudness: Double? = nil,
        maximumShortTermLoudness: Double? = nil, loudnessRange: Double? = nil, truePeak: Double? = nil,
        samplePeak: Double? = nil, measurementSystem: MeasurementSystem = .bs1770_4,
        reliability: Reliability = .accurate
    ) {
        self.integratedLoudness = integratedLoudness
        self.anchorLoudness = anchorLoudness
        self.maximumMomentaryLoudness = maximumMomentaryLoudness
        self.maximumShortTermLoudness = maximumShortTermLoudness
        self.loudnessRange = loudnessRange
        self.truePeak = truePeak
        self.samplePeak = samplePeak
        self.measurementSystem = measurementSystem
        self.reliability = reliability
    }

    /// Whether it states no figure at all.
    public var isEmpty: Bool {
        measurements.isEmpty && truePeak.flatMap(Self.peakCode) == nil && samplePeak.flatMap(Self.peakCode) == nil
    }

    /// The figures as a file holds them: each on its code's grid, within its range; one not finite left out.
    public func quantized() -> LoudnessInfo {
        var copy = LoudnessInfo(measurementSystem: measurementSystem, reliability: reliability)
        for (method, code) in measurements { copy[method] = Self.value(method: method, code: code) }
        copy.truePeak = truePeak.flatMap(Self.peakCode).flatMap(Self.peak)
        copy.samplePeak = samplePeak.flatMap(Self.peakCode).flatMap(Self.peak)
        return copy
    }
}

extension LoudnessInfo {
    /// How a loudness figure was measured (ISO/IEC 23003-4's `measurementSystem`, 4 bits); codes it does not
    /// name are kept as they are.
    public struct MeasurementSystem: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code, 0...15.
        public var rawValue: UInt8

        /// The system with code `rawValue` (kept to 4 bits).
        public init(rawValue: UInt8) { self.rawValue = rawValue & 0x0F }

        /// Unknown or other.
        public static let unknown = MeasurementSystem(rawValue: 0)
        /// EBU R128.
        public static let ebuR128 = MeasurementSystem(rawValue: 1)
        /// ITU-R BS.1770-4.
        public static let bs1770_4 = MeasurementSystem(rawValue: 2)
        /// ITU-R BS.1770-4 with pre-processing.
        public static let bs1770_4PreProcessed = MeasurementSystem(rawValue: 3)
        /// Set by the user.
        public static let user = MeasurementSystem(rawValue: 4)
        /// Judged by an expert panel.
        public static let expertPanel = MeasurementSystem(rawValue: 5)

        /// Its name ("ITU-R BS.1770-4"), or `code N`.
        public var description: String {
            let names = [
                "unknown", "EBU R128", "ITU-R BS.1770-4", "ITU-R BS.1770-4 with pre-processing", "user", "expert panel",
            ]
            return Int(rawValue) < names.count ? names[Int(rawValue)] : "code \(rawValue)"
        }
    }

    /// How far a figure can be trusted (ISO/IEC 23003-4's `reliability`; 4 bits in the box); codes it does not
    /// name are kept as they are.
    public struct Reliability: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code, 0...15.
        public var rawValue: UInt8

        /// The reliability with code `rawValue` (kept to 4 bits).
        public init(rawValue: UInt8) { self.rawValue = rawValue & 0x0F }

        /// Unknown.
        public static let unknown = Reliability(rawValue: 0)
        /// Reported, not verified.
        public static let unverified = Reliability(rawValue: 1)
        /// A ceiling: the real value is no higher.
        public static let ceiling = Reliability(rawValue: 2)
        /// Measured, accurate.
        public static let accurate = Reliability(rawValue: 3)

        /// Its name ("accurate"), or `code N`.
        public var description: String {
            let names = ["unknown", "unverified", "ceiling", "accurate"]
            return Int(rawValue) < names.count ? names[Int(rawValue)] : "code \(rawValue)"
        }
    }
}

// MARK: ISO/IEC 23003-4's codes: the one place they are made and read

extension LoudnessInfo {
    /// The methods (23003-4's `methodDefinition`) afkit reads and writes, in the order it writes them.
    package static let methods: [UInt8] = [1, 2, 4, 5, 6]

    /// The figure of a method (1, 2, 4, 5, 6); `nil` for another.
    package subscript(method: UInt8) -> Double? {
        get {
            switch method {
            case 1: integratedLoudness
            case 2: anchorLoudness
            case 4: maximumMomentaryLoudness
            case 5: maximumShortTermLoudness
            case 6: loudnessRange
            default: nil
            }
        }
        set {
            switch method {
            case 1: integratedLoudness = newValue
            case 2: anchorLoudness = newValue
            case 4: maximumMomentaryLoudness = newValue
            case 5: maximumShortTermLoudness = newValue
            case 6: loudnessRange = newValue
            default: break
            }
        }
    }

    /// The stated figures as (method, code) pairs, in `methods` order; a figure not finite is left out.
    package var measurements: [(method: UInt8, code: UInt8)] {
        Self.methods.compactMap { method in
            self[method].flatMap { Self.code(method: method, value: $0) }.map { (method, $0) }
        }
    }

    /// A method's `methodValue` code for `value`: for loudness (methods 1 to 5) (LUFS + 57.75) x 4; for loudness
    /// range (6) LU x 4 up to 32 LU, then 128 + (LU - 32) x 2 up to 70, then 204 + (LU - 70) up to 121; clamped,
    /// rounded to the nearest code; `nil` where `value` is not finite or the method is not one of these.
    package static func code(method: UInt8, value: Double) -> UInt8? {
        guard value.isFinite else { return nil }
        let code: Double
        switch method {
        case 1...5: code = (value + 57.75) * 4
        case 6:
            if value <= 32 {
                code = value * 4
            } else if value <= 70 {
                code = 128 + (value - 32) * 2
            } else {
                code = 204 + (value - 70)
            }
        default: return nil
        }
        return UInt8(min(255, max(0, code.rounded())))
    }

    /// A method's figure for its `methodValue` code (the inverse of `code(method:value:)`); `nil` for a method
    /// not read.
    package static func value(method: UInt8, code: UInt8) -> Double? {
        let code = Double(code)
        switch method {
        case 1...5: return code / 4 - 57.75
        case 6: return code <= 128 ? code / 4 : code <= 204 ? 32 + (code - 128) / 2 : 70 + (code - 204)
        default: return nil
        }
    }

    /// A peak's 12-bit code (`bsSamplePeakLevel`, `bsTruePeakLevel`): (20 - dB) x 32, rounded, within 1...4095
    /// (0 means no peak is stated); `nil` where `decibels` is not finite.
    ///
    /// 14496-12 declares the box's fields `signed int(12)`, but they carry 23003-4's codes, which are unsigned:
    /// afkit writes and reads them unsigned, so a peak under -43.97 dB (code 2048 and up) is one a reader taking
    /// the declaration literally would see wrongly.
    package static func peakCode(_ decibels: Double) -> UInt16? {
        guard decibels.isFinite else { return nil }
        return UInt16(min(4095, max(1, ((20 - decibels) * 32).rounded())))
    }

    /// A peak's decibels for its 12-bit code; `nil` for 0 (not stated).
    package static func peak(_ code: UInt16) -> Double? {
        let code = code & 0x0FFF
        return code == 0 ? nil : 20 - Double(code) / 32
    }
}
