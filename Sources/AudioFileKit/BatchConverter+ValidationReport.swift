import AssetValidation
import AudioConversion

extension BatchConverter {
    /// The batch's outputs checked by `validator` (in parallel), in the jobs' order, as the report of
    /// `profile` (what `afkit batch --report FILE.html` draws): a job that failed is its source, with its
    /// error as the finding (rule `conversion`), and the `duration` rule's fix where the source is longer than the
    /// profile allows (``AssetValidator/refusedConversion(source:output:message:)``); an output converted now
    /// carries the conversion's notes, the loudness normalization's first.
    public static func validationReport(
        _ jobs: [Job], _ outcomes: [Outcome], validator: AssetValidator, profile: String
    ) -> ValidationReport {
        let files = jobs.indices.parallelMap { index in
            if case .failed(let message) = outcomes[index] {
                return validator.refusedConversion(
                    source: jobs[index].source, output: jobs[index].output, message: message)
            }
            var report = validator.validate(path: jobs[index].output)
            if case .converted(let notes, let normalization) = outcomes[index] {
                report.conversionNotes = (normalization.map { [$0.summary] } ?? []) + notes
            }
            return report
        }
        return ValidationReport(profile: profile, files: files)
    }
}
