/// ITU-R BS.1770's gates, stated once for the meter's readers: the normalizer, the speech leveler, the validator's
/// rules and fixes, and its report.
public enum LoudnessGate {
    /// The absolute gate, LUFS: blocks quieter than this are not sound (left out of the integrated loudness); a
    /// sound wholly under it is silence.
    public static let absolute = -70.0
}
