/// BS.1770's gates, stated once for the meter's readers: the converter, the leveler, the validator and its reports.
public enum LoudnessGate {
    /// The absolute gate, LUFS: a 400 ms block quieter than this is not counted as sound, and a programme whose
    /// every block is quieter has no integrated loudness.
    public static let absolute = -70.0
}
