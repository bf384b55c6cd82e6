import ReportGraphics
import AudioContainers
import AudioFormats
import FileAccess

/// The findings for one file.
public struct FileReport: Sendable {
    /// The file checked.
    public var path: String
    /// What the rules found.
    public var violations: [Violation]
    /// What the decode pass measured, where a rule asked for decoded audio.
    public var audio: AudioStatistics?
    /// The parsed file (container, format, duration, markers, loops), where it could be read.
    public var summary: AudioFileSummary?
    /// The profile's loudness target ± tolerance, LUFS, where it has a `loudness` rule.
    public var loudnessBand: ClosedRange<Double>?
    /// What made the file, where a conversion did (`batch --report`: the loudness normalization's gain and
    /// limiting, the source's notes).
    public var conversionNotes: [String] = []
    /// The profile's rules that could not be checked, and why (no decoder for the format, no loudness meter,
    /// audio that cannot be decoded): a file passes only the rules that were checked.
    public var unchecked: [UncheckedRule] = []
    /// The command the findings' fixes name, as the validator planned it: the run's report moves its output where
    /// another file's fix writes there.
    var plannedFix: PlannedFix?

    /// Whether the file passes: no error (warnings allowed).
    public var ok: Bool { !violations.contains { $0.severity == .error } }

    /// A file's findings.
    public init(path: String, violations: [Violation]) {
        self.path = path
        self.violations = violations
    }
}

/// A rule of the profile that could not be checked on a file, and why.
public struct UncheckedRule: Hashable, Sendable {
    /// The rule's id.
    public var rule: String
    /// Why it could not be checked, for a person (and what would check it).
    public var reason: String

    /// Rule `rule`, not checked because of `reason`.
    public init(rule: String, reason: String) {
        self.rule = rule
        self.reason = reason
    }
}

/// The findings for a run, and their renderings as the command-line contract specifies.
public struct ValidationReport: Sendable {
    /// The profile's name.
    public var profile: String
    /// One report a file, in the order given.
    public var files: [FileReport]
    /// Files the folder walks left out, not named as a sound file afkit reads.
    public var skippedFiles: [String] = []

    /// A run of `profile` over `files`. No two files' fixes write one output, and no fix writes a file of the run:
    /// where a file's fix would write where an earlier file's does (`x.wav` and `x.aif` both fixed into `x.caf`), or
    /// where a file of the run is or will be (a batch's output that failed to convert), it writes to the next free
    /// name (`x-fixed.caf`, `x-fixed-2.caf`, ...), so the run's fixes can all be run.
    public init(profile: String, files: [FileReport]) {
        self.profile = profile
        self.files = files
        var taken = Set(files.map { outputIdentity($0.path) })
        for index in self.files.indices {
            guard let planned = self.files[index].plannedFix else { continue }
            if taken.contains(outputIdentity(planned.output)) {
                let moved = planned.avoiding(taken)
                self.files[index].plannedFix = moved
                for finding in self.files[index].violations.indices
                where self.files[index].violations[finding].fix == planned.command {
                    self.files[index].violations[finding].fix = moved.command
                }
            }
            taken.insert(outputIdentity(self.files[index].plannedFix?.output ?? planned.output))
        }
    }

    /// Files with no error.
    public var passed: Int { files.filter(\.ok).count }
    /// Files with an error.
    public var failed: Int { files.count - passed }
    /// Warnings over all files.
    public var warnings: Int { files.reduce(0) { $0 + $1.violations.filter { $0.severity == .warning }.count } }
    /// Whether every file passes.
    public var ok: Bool { failed == 0 }
    /// Rules not checked, over all files.
    public var uncheckedCount: Int { files.reduce(0) { $0 + $1.unchecked.count } }

    /// One line per problem (`path: severity: rule: message`), then a summary line. A control character in
    /// a name or a message (a newline in a file name) prints escaped (`\n`): one problem is one line, and no
    /// name can forge another.
    public var text: String {
        var lines: [String] = []
        for file in files {
            for violation in file.violations {
                lines.append(
                    PathEscaping.controlEscaped(
                        "\(file.path): \(violation.severity.rawValue): \(violation.rule): \(violation.described)"))
            }
            for unchecked in file.unchecked {
                lines.append(
                    PathEscaping.controlEscaped("\(file.path): not checked: \(unchecked.rule): \(unchecked.reason)"))
            }
        }
        let count = uncheckedCount
        lines.append(
            "\(files.count) file\(files.count == 1 ? "" : "s") checked with profile '\(profile)': \(passed) passed, "
                + "\(failed) failed, \(warnings) warning\(warnings == 1 ? "" : "s")"
                + (count > 0 ? ", \(count) rule\(count == 1 ? "" : "s") not checked" : ""))
        return lines.joined(separator: "\n") + "\n"
    }

    /// `{"profile", "files": [{"path", "ok", "violations": [{"rule", "severity", "message", "fix"?, "fixNote"?}]}],
    /// "summary": {"files", "passed", "failed"}}`,
    /// and for each file whose audio was decoded, `"audio"`: its measurements.
    public var json: JSONValue {
        .object([
            ("profile", .string(profile)),
            (
                "files",
                .array(
                    files.map { file in
                        var members: [(String, JSONValue)] = [
                            ("path", .string(file.path)),
                            ("ok", .bool(file.ok)),
                            (
                                "violations",
                                .array(
                                    file.violations.map { violation in
                                        .object(
                                            [
                                                ("rule", .string(violation.rule)),
                                                ("severity", .string(violation.severity.rawValue)),
                                                ("message", .string(violation.message)),
                                            ] + (violation.fix.map { [("fix", .string($0))] } ?? [])
                                                + (violation.fixNote.map { [("fixNote", .string($0))] } ?? []))
                                    })
                            ),
                        ]
                        if !file.unchecked.isEmpty {
                            members.append(
                                (
                                    "unchecked",
                                    .array(
                                        file.unchecked.map {
                                            .object([("rule", .string($0.rule)), ("reason", .string($0.reason))])
                                        })
                                ))
                        }
                        if let audio = file.audio { members.append(("audio", audio.json)) }
                        return .object(members)
                    })
            ),
            (
                "summary",
                .object(
                    [
                        ("files", .integer(Int64(files.count))), ("passed", .integer(Int64(passed))),
                        ("failed", .integer(Int64(failed))), ("warnings", .integer(Int64(warnings))),
                    ] + (uncheckedCount > 0 ? [("unchecked", .integer(Int64(uncheckedCount)))] : []))
            ),
        ])
    }

    /// JUnit XML: one test case per file; errors are failures, warnings go to the case's output.
    public var junit: String {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"afkit validate\" tests=\"\(files.count)\" failures=\"\(failed)\" errors=\"0\">\n"
        xml +=
            "  <testsuite name=\"\(markupEscaped(profile))\" tests=\"\(files.count)\" failures=\"\(failed)\" errors=\"0\" skipped=\"0\">\n"
        for file in files {
            xml +=
                "    <testcase classname=\"afkit.validate.\(markupEscaped(profile))\" "
                + "name=\"\(markupEscaped(PathEscaping.controlEscaped(file.path)))\""
            let errors = file.violations.filter { $0.severity == .error }
            let warnings =
                file.violations.filter { $0.severity == .warning }
                .map { PathEscaping.controlEscaped("warning: \($0.rule): \($0.described)") }
                + file.unchecked.map { PathEscaping.controlEscaped("not checked: \($0.rule): \($0.reason)") }
            if errors.isEmpty && warnings.isEmpty {
                xml += "/>\n"
                continue
            }
            xml += ">\n"
            if let first = errors.first {
                let details = errors.map { PathEscaping.controlEscaped("\($0.rule): \($0.described)") }
                    .joined(separator: "\n")
                xml +=
                    "      <failure type=\"\(markupEscaped(first.rule))\" "
                    + "message=\"\(markupEscaped(PathEscaping.controlEscaped(first.message)))\">"
                    + "\(markupEscaped(details))</failure>\n"
            }
            if !warnings.isEmpty {
                xml += "      <system-out>\(markupEscaped(warnings.joined(separator: "\n")))</system-out>\n"
            }
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// GitHub Actions workflow commands: an annotation per problem, then the summary line.
    public var github: String {
        var lines: [String] = []
        for file in files {
            for violation in file.violations {
                let command = violation.severity == .error ? "error" : "warning"
                lines.append(
                    "::\(command) file=\(property(file.path)),title=\(property("afkit \(violation.rule)"))::\(data(violation.described))"
                )
            }
            for unchecked in file.unchecked {
                lines.append(
                    "::notice file=\(property(file.path)),title=\(property("afkit \(unchecked.rule) not checked"))::\(data(unchecked.reason))"
                )
            }
        }
        lines.append(text.split(separator: "\n").last.map(String.init) ?? "")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Escaping of a workflow command's message.
    private func data(_ text: String) -> String {
        text.replacingAll("%", with: "%25").replacingAll("\r", with: "%0D").replacingAll("\n", with: "%0A")
    }

    /// Escaping of a workflow command's property value.
    private func property(_ text: String) -> String {
        data(text).replacingAll(":", with: "%3A").replacingAll(",", with: "%2C")
    }
}
