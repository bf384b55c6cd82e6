import AudioFormats
import Testing

struct NumbersTests {
    @Test func saturatingConversionNeverTraps() {
        #expect(Int64(saturating: 2.5) == 3)
        #expect(Int64(saturating: -2.5) == -3)
        #expect(Int64(saturating: 1e300) == .max)
        #expect(Int64(saturating: -.infinity) == .min)
        #expect(Int64(saturating: .nan) == 0)
        #expect(Int64(saturating: 9.3e18) == .max)
    }

    @Test func fixedPointDecimals() {
        #expect(fixedPoint(1.5, places: 3) == "1.500")
        #expect(fixedPoint(0.0004, places: 3) == "0.000")
        #expect(fixedPoint(30.0005, places: 3) == "30.001")
        #expect(fixedPoint(12.25, places: 6) == "12.250000")
        #expect(fixedPoint(-0.25, places: 2) == "-0.25")
        #expect(fixedPoint(7, places: 0) == "7")
        // A duration from a lying header: no trap, plain floating point.
        #expect(fixedPoint(1e200, places: 3) == "1e+200")
        #expect(fixedPoint(.infinity, places: 6) == "inf")
    }
}

struct SaturatingAddTests {
    @Test func holdsAtTheEnds() {
        #expect(Int64(5).saturatingAdd(3) == 8)
        #expect(Int64.max.saturatingAdd(1) == .max)
        #expect(Int64.min.saturatingAdd(-1) == .min)
        #expect(Int64.max.saturatingAdd(-1) == .max - 1)
    }
}
