import AudioContainers
import AudioEngines
import AudioFormats

extension BatchConverter {
    /// The batch's loudness report (`afkit batch --report`): each job's source and output measured (in
    /// parallel), in the jobs' order:
    /// `{"files": [{"source", "output", "status", "error"?, "sourceLoudness"?, "outputLoudness"?,
    /// "sourceTruncated"?, "notes"?}]}`.
    public static func loudnessReport(_ jobs: [Job], _ outcomes: [Outcome]) -> JSONValue {
        let entries = jobs.indices.parallelMap { index in
            let job = jobs[index]
            var fields: [(String, JSONValue)] = [("source", .string(job.source)), ("output", .string(job.output))]
            func measured(_ path: String) -> JSONValue {
                do {
                    return try LoudnessMeasurement.measure(path: path).reportJSON
                } catch {
                    return .object([("error", .string("\(error)"))])
                }
            }
            switch outcomes[index] {
            case .failed(let message):
                fields += [("status", .string("failed")), ("error", .string(message))]
            case .converted, .upToDate:
                let status = if case .converted = outcomes[index] { "converted" } else { "up to date" }
                fields += [
                    ("status", .string(status)), ("sourceLoudness", measured(job.source)),
                    ("outputLoudness", measured(job.output)),
                ]
                // A source cut short converts what it holds; the report says so whether or not it ran now.
                let truncated = (try? AudioFile(path: job.source))?.properties.isTruncated ?? false
                if truncated { fields.append(("sourceTruncated", .bool(true))) }
                if case .converted(let notes, let normalization) = outcomes[index] {
                    if let normalization { fields.append(("normalization", normalization.reportJSON)) }
                    if !notes.isEmpty { fields.append(("notes", .array(notes.map(JSONValue.string)))) }
                }
            }
            return JSONValue.object(fields)
        }
        return .object([("files", .array(entries))])
    }
}
