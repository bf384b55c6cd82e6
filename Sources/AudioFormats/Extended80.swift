/// An IEEE 754 80-bit extended-precision number as AIFF stores its sample rate: a sign bit, a 15-bit
/// exponent biased by 16383 and a 64-bit mantissa with an explicit integer bit.
@frozen
public struct Extended80: Hashable, Sendable {
    /// The sign bit and the 15-bit exponent.
    public var signAndExponent: UInt16
    /// The 64-bit mantissa, its integer bit explicit.
    public var mantissa: UInt64

    /// The value from its two fields.
    @inlinable
    public init(signAndExponent: UInt16, mantissa: UInt64) {
        self.signAndExponent = signAndExponent
        self.mantissa = mantissa
    }

    /// The number, or `nil` for infinities and NaNs.
    ///
    /// Exact for every integer up to 2^53, so for every sample rate in use.
    public var doubleValue: Double? {
        let exponent = Int(signAndExponent & 0x7FFF)
        if exponent == 0x7FFF { return nil }
        let negative = signAndExponent & 0x8000 != 0
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        // value = mantissa * 2^(exponent - 16383 - 63); split the mantissa so no bits are lost
        // to Double's 53-bit significand before scaling.
        let high = Double(mantissa >> 11) * 2048
        let low = Double(mantissa & 0x7FF)
        let magnitude = (high + low) * pow2(exponent - 16383 - 63)
        return negative ? -magnitude : magnitude
    }

    /// The 80-bit form of a finite double (exact: a double's 53 bits fit in the 64-bit mantissa).
    public init(_ value: Double) {
        precondition(value.isFinite, "Extended80 needs a finite value")
        let sign: UInt16 = value.sign == .minus ? 0x8000 : 0
        if value == 0 {
            self.init(signAndExponent: sign, mantissa: 0)
            return
        }
        let magnitude = abs(value)
        let exponent = Int(magnitude.exponent)
        // significandBitPattern is 52 bits below the implicit leading one.
        let significand = magnitude.significandBitPattern | (magnitude.isNormal ? 1 << 52 : 0)
        // `exponent` is the true exponent of the leading one bit, subnormal doubles included.
        let normalized = significand << UInt64(significand.leadingZeroBitCount)
        self.init(signAndExponent: sign | UInt16(exponent + 16383), mantissa: normalized)
    }

    /// The ten bytes, big-endian, as AIFF stores them.
    public var bytes: [UInt8] {
        var out: [UInt8] = [UInt8(signAndExponent >> 8), UInt8(signAndExponent & 0xFF)]
        for shift in stride(from: 56, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: mantissa >> UInt64(shift)))
        }
        return out
    }
}

/// 2^exponent, also where the result is subnormal or out of range.
@usableFromInline
func pow2(_ exponent: Int) -> Double {
    if exponent > 1023 { return .infinity }
    if exponent < -1074 { return 0 }
    if exponent >= -1022 { return Double(sign: .plus, exponent: exponent, significand: 1) }
    return Double(sign: .plus, exponent: -1022, significand: 1)
        * Double(sign: .plus, exponent: exponent + 1022, significand: 1)
}
