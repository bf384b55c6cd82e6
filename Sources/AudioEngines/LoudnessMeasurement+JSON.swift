import AudioFormats

extension LoudnessMeasurement {
    /// The contract's `loudness` object; `-inf` values are `null`. A sound shorter than one 400 ms block adds
    /// `shortSound`, its one-block loudness (what `--loudness` and `validate` use).
    public var json: JSONValue { .object(contractMembers) }

    /// The contract's members and the short-term maximum (`batch --report`).
    public var reportJSON: JSONValue {
        .object(contractMembers + [("shortTermMaximum", Self.value(shortTermMaximum))])
    }

    private var contractMembers: [(String, JSONValue)] {
        [
            ("integrated", Self.value(integrated)), ("range", Self.value(range)), ("truePeak", Self.value(truePeak)),
            ("samplePeak", Self.value(samplePeak)),
        ] + (shortSoundLoudness.map { [("shortSound", Self.value($0))] } ?? [])
    }

    /// A level to two decimals; `-inf` is `null`.
    private static func value(_ number: Double) -> JSONValue {
        number.isFinite ? .number((number * 100).rounded() / 100) : .null
    }
}
