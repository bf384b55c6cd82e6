/// The IMA ADPCM tables.
///
/// Source: Interactive Multimedia Association, "Recommended Practices for Enhancing Digital Audio
/// Compatibility in Multimedia Systems", revision 3.00 (1992), section 6 (the DVI ADPCM algorithm):
/// the 89-entry step-size table and the 16-entry index adjustment table.
public enum IMA {
    /// Quantizer step sizes, indexed 0...88.
    public static let stepTable: [Int32] = [
        7, 8, 9, 10, 11, 12, 13, 14, 16, 17,
        19, 21, 23, 25, 28, 31, 34, 37, 41, 45,
        50, 55, 60, 66, 73, 80, 88, 97, 107, 118,
        130, 143, 157, 173, 190, 209, 230, 253, 279, 307,
        337, 371, 408, 449, 494, 544, 598, 658, 724, 796,
        876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066,
        2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428, 4871, 5358,
        5894, 6484, 7132, 7845, 8630, 9493, 10442, 11487, 12635, 13899,
        15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794, 32767,
    ]

    /// Step index adjustment for each 4-bit code (the sign bit does not matter).
    public static let indexTable: [Int32] = [
        -1, -1, -1, -1, 2, 4, 6, 8,
        -1, -1, -1, -1, 2, 4, 6, 8,
    ]

    /// The highest step index.
    public static let maximumStepIndex: Int32 = 88

    /// How a decoder turns a code's magnitude into a difference.
    public enum Reconstruction: Sendable {
        /// The reference algorithm: step/8, plus step, step/2 and step/4 for each magnitude bit, each
        /// shift truncating on its own. Apple's IMA4 decoder and FFmpeg's `adpcm_ima_qt` use it.
        case shiftAndAdd
        /// `(2·magnitude + 1)·step / 8` in one multiply, as FFmpeg's `adpcm_ima_wav` decoder does.
        case multiply
    }

    /// The difference a code's 3-bit magnitude adds at a step index.
    @inlinable
    public static func difference(step: Int32, magnitude: Int32, _ reconstruction: Reconstruction) -> Int32 {
        switch reconstruction {
        case .shiftAndAdd:
            var diff = step >> 3
            if magnitude & 4 != 0 { diff += step }
            if magnitude & 2 != 0 { diff += step >> 1 }
            if magnitude & 1 != 0 { diff += step >> 2 }
            return diff
        case .multiply:
            return ((2 * magnitude + 1) * step) >> 3
        }
    }

    /// Differences for every (step index, magnitude) pair: `table[index << 3 | magnitude]`.
    static func differenceTable(_ reconstruction: Reconstruction) -> [Int32] {
        (0..<89 * 8).map { difference(step: stepTable[$0 >> 3], magnitude: Int32($0 & 7), reconstruction) }
    }

    /// Per (step index, code): the signed difference in the high 20 bits and the next step index times
    /// 16 in the low 12, so a decoder does one lookup per code, `table[index << 4 | code]`, and the
    /// next lookup's row is a mask away (no shift on the chain of dependent lookups).
    static func transitionTable(_ reconstruction: Reconstruction) -> [Int32] {
        (0..<89 * 16).map { entry in
            let index = entry >> 4
            let code = Int32(entry & 15)
            let difference = difference(step: stepTable[index], magnitude: code & 7, reconstruction)
            let next: Int32 = min(max(Int32(index) + indexTable[Int(code)], 0), maximumStepIndex)
            let signed: Int32 = code & 8 != 0 ? -difference : difference
            return signed << 12 | next << 4
        }
    }

    static let shiftAndAddTransitions = transitionTable(.shiftAndAdd)
    static let multiplyTransitions = transitionTable(.multiply)

    /// The step index after each code: `table[index << 4 | code]`, clamped to 0...88.
    static let nextIndexTable: [UInt8] = (0..<89 * 16).map { entry in
        UInt8(min(max(Int32(entry >> 4) + indexTable[entry & 15], 0), maximumStepIndex))
    }
}

/// One channel's IMA ADPCM decoder state.
@frozen
public struct IMAChannelState: Hashable, Sendable {
    /// The last reconstructed sample.
    public var predictor: Int32
    /// The step index, 0...88.
    public var stepIndex: Int32

    /// A coder starting at `predictor` and `stepIndex`.
    @inlinable
    public init(predictor: Int32 = 0, stepIndex: Int32 = 0) {
        self.predictor = predictor
        self.stepIndex = stepIndex
    }
}

/// The table a decode loop reads, hoisted out of the loop as a raw pointer.
@usableFromInline
struct IMATables {
    @usableFromInline let transitions: UnsafeBufferPointer<Int32>

    /// Runs `body` with the table for a reconstruction.
    static func with<R>(_ reconstruction: IMA.Reconstruction, _ body: (IMATables) throws -> R) rethrows -> R {
        let table = reconstruction == .shiftAndAdd ? IMA.shiftAndAddTransitions : IMA.multiplyTransitions
        return try table.withUnsafeBufferPointer { try body(IMATables(transitions: $0)) }
    }

    /// Decodes one 4-bit code, updating the state; returns the new sample.
    @inlinable @inline(__always)
    func expand(_ state: inout IMAChannelState, _ code: UInt8) -> Int16 {
        let transition = transitions[Int(state.stepIndex) << 4 | Int(code)]
        let predictor = min(max(state.predictor + (transition >> 12), -32768), 32767)
        state.predictor = predictor
        state.stepIndex = (transition & 0xFF0) >> 4
        return Int16(truncatingIfNeeded: predictor)
    }
}
