// Conversions of numbers that come from headers, where any value may arrive.

extension Int64 {
    /// The nearest Int64 to a rounded Double: the extreme values for numbers beyond them, 0 for NaN.
    /// For figures derived from header fields (durations, rescaled positions) that may be absurd.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 9.223_372_036_854_775e18 {
            self = .max
        } else if value <= -9.223_372_036_854_775e18 {
            self = .min
        } else {
            self = Int64(value.rounded())
        }
    }
}

extension Int64 {
    /// The sum, held at the largest Int64 where sizes from headers would overflow it.
    public func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}

/// A decimal with exactly `places` digits after the point (`1.500` for 1.5 with 3 places), exact for
/// what a duration can be; values too large for that print as Swift prints a Double.
public func fixedPoint(_ value: Double, places: Int) -> String {
    var scale: Int64 = 1
    for _ in 0..<places { scale *= 10 }
    guard value.isFinite, abs(value) * Double(scale) < 9e18 else { return "\(value)" }
    let scaled = Int64(saturating: value * Double(scale))
    let sign = scaled < 0 ? "-" : ""
    let magnitude = scaled.magnitude
    let fraction = String(magnitude % UInt64(scale))
    return places == 0
        ? "\(sign)\(magnitude)"
        : "\(sign)\(magnitude / UInt64(scale)).\(String(repeating: "0", count: places - fraction.count))\(fraction)"
}

/// `-16`, `-0.5`, `2.25`: at most two decimals, no trailing zeros (levels in messages); `-inf` and `inf` for
/// infinities.
public func shortDecimal(_ value: Double) -> String { shortDecimal(value, places: 2) }

/// The same with at most `places` decimals (`0.015` s for a fade).
public func shortDecimal(_ value: Double, places: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf") }
    let scale = (0..<places).reduce(1.0) { value, _ in value * 10 }
    var text = fixedPoint((value * scale).rounded() / scale, places: places)
    guard text.contains(".") else { return text }
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text == "-0" ? "0" : text
}

/// Items as a sentence lists them: `a`, `a or b`, `a, b or c` (`conjunction` "and" for `a, b and c`).
public func spokenList(_ items: [String], conjunction: String = "or") -> String {
    guard let last = items.last, items.count > 1 else { return items.joined() }
    return items.dropLast().joined(separator: ", ") + " \(conjunction) " + last
}

/// Seconds as `HH:MM:SS.fff` (as the Vorbis chapter extension writes times), with `fractionDigits` digits after
/// the point (1 to 3; a progress line shows `00:02:13.4`).
public func clockTime(_ seconds: Double, fractionDigits: Int = 3) -> String {
    let digitsAfter = min(3, max(1, fractionDigits))
    let unit = [10, 100, 1000][digitsAfter - 1]
    let ticks = Int64((max(0, seconds.isFinite ? seconds : 0) * Double(unit)).rounded())
    func digits(_ value: Int64, _ count: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, count - text.count)) + text
    }
    let whole = ticks / Int64(unit)
    return digits(whole / 3600, 2) + ":" + digits(whole / 60 % 60, 2) + ":" + digits(whole % 60, 2) + "."
        + digits(ticks % Int64(unit), digitsAfter)
}

/// `[[HH:]MM:]SS[.fff]` as seconds (whitespace ignored), or `nil`: the clock time of chapters and edits.
public func clockSeconds(_ text: String) -> Double? {
    let parts = text.filter { !$0.isWhitespace }.split(separator: ":", omittingEmptySubsequences: false)
    // Plain decimals only (no `1e3`, `0x1`, `inf`); seconds under 60 where minutes are given.
    let decimal = parts.last.map { part in
        !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
            && part.filter { $0 == "." }.count <= 1
            && part != "."
    }
    guard (1...3).contains(parts.count), decimal == true, let last = Double(parts[parts.count - 1]), last >= 0,
        last.isFinite, parts.count == 1 || last < 60
    else { return nil }
    var total = last
    for (index, part) in parts.dropLast().reversed().enumerated() {
        guard let value = Int(part), value >= 0, index == 1 || parts.count == 2 || value < 60 else { return nil }
        total += Double(value) * (index == 0 ? 60 : 3600)
    }
    return total
}
