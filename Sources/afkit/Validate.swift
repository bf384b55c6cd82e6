import ArgumentParser
import AssetValidation
import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioConversion
import AudioEngines
import AudioFileKit
import AudioFormats
import AudioStreaming
import FileAccess
import Foundation

/// `afkit validate`: checks sound files against a rule profile, for build pipelines.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check sound files against a rule profile (default: Apple's system-sound rules).",
        discussion: """
            Directories are searched recursively for the files of every container afkit reads \
            (\(ContainerRegistry.walkedExtensions.sorted().map { "." + $0 }.joined(separator: " "))); symbolic \
            links followed, macOS's ._ files and .DS_Store left out, and a line on standard error names the \
            other files skipped. Profiles: \(Profile.builtInNames.joined(separator: ", ")), \
            or a JSON profile file. Exit status 0 when every file passes, 1 when any has an error, 2 when \
            the paths hold no sound file (unless --allow-empty).
            """ + "\n\n" + reference
    )

    enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json, junit, github, html
    }

    @Option(
        help: "A profile name (\(Profile.builtInNames.joined(separator: ", "))) or a JSON profile file.",
        completion: profileCompletion)
    var profile = Profile.standard.name

    @Option(
        help: ArgumentHelp(
            "The report: text, json, junit, github, or html (one page with each file's waveform, loudness and findings); "
                + "with -o, by default the file's extension's (.html, .json, .xml: junit), else text."))
    var format: ReportFormat?

    /// The report's format: the one given, else the one `-o`'s extension names (`report.html`), else text.
    var reportFormat: ReportFormat {
        if let format { return format }
        guard let output else { return .text }
        switch output.split(separator: "/").last?.split(separator: ".").dropFirst().last?.lowercased() {
        case "html", "htm": return .html
        case "json": return .json
        case "xml": return .junit
        default: return .text
        }
    }

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp(
            "Write the report to this file (made whole, then renamed into place) instead of standard output.",
            valueName: "file"))
    var output: String?

    @Flag(help: "Succeed when the paths hold no sound file.")
    var allowEmpty = false

    @Flag(help: allowNetworkHelp)
    var allowNetwork = false

    @Argument(help: "Sound files and directories.")
    var paths: [String]

    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("give at least one PATH") }
        _ = try loadProfile()
    }

    func loadProfile() throws -> Profile { try Self.loadProfile(profile) }

    /// What a shell completes `--profile` with (every command that takes one): the built-in profiles' names, and
    /// the JSON files and folders at the path being typed (a profile file), worked out by afkit as the shell asks
    /// (bash, zsh and fish alike).
    static let profileCompletion = CompletionKind.custom { _, _, typed in
        profileCandidates(typed, marksFolders: CompletionShell.requesting != .bash)
    }

    /// The built-in profiles' names that start with `typed`, then the JSON files and the folders whose path starts
    /// with it (hidden ones only where the name typed starts with a dot), as a shell lists files: a folder ends with
    /// a slash where `marksFolders` (bash marks folders itself: its completion is of file names).
    static func profileCandidates(_ typed: String, marksFolders: Bool) -> [String] {
        let names = Profile.builtInNames.filter { $0.hasPrefix(typed) }
        let slash = typed.lastIndex(of: "/")
        let folder = slash.map { String(typed[...$0]) } ?? ""
        let start = slash.map { String(typed[typed.index(after: $0)...]) } ?? typed
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        let paths = entries.sorted().compactMap { entry -> String? in
            guard entry.hasPrefix(start), start.hasPrefix(".") || !entry.hasPrefix(".") else { return nil }
            let path = folder + entry
            if isDirectory(path) { return marksFolders ? path + "/" : path }
            return nameExtension(of: entry) == "json" ? path : nil
        }
        return names + paths
    }

    /// A built-in profile by name, or a JSON profile file.
    static func loadProfile(_ profile: String) throws -> Profile {
        if let builtIn = Profile.builtIn[profile] { return builtIn }
        guard profile.hasSuffix(".json") || pathExists(profile) else {
            throw ValidationError(
                "no profile '\(profile)': use \(Profile.builtInNames.joined(separator: ", ")) or a JSON file")
        }
        guard let text = try? String(contentsOfFile: profile, encoding: .utf8) else {
            throw ValidationError("'\(profile)' cannot be read as a profile (a JSON file)")
        }
        do {
            return try Profile(json: text)
        } catch {
            throw ValidationError("\(profile): \(error)")
        }
    }

    func run() throws {
        // Checked here, not in validate(): argument-parser reports an unknown option first. A playlist
        // profile also reads playlists over HTTP.
        let checksPlaylists = try loadProfile().checksPlaylists
        if checksPlaylists && paths.contains("-") {
            // A playlist's URIs are relative to its own folder, which standard input has none of.
            throw usageError(
                "a playlist on standard input has no folder for its segments: give the playlist's path", in: Self.self)
        }
        try checkPathsExist(
            paths.filter { !(checksPlaylists && isStreamURL($0)) }, in: Self.self, allowStandardInput: true,
            readsFolders: true)
        // A report written into one of the inputs (`>> IN`, `-o IN`) is refused before anything is read.
        let local = paths.filter { !isStreamURL($0) }
        if let output {
            var outputs = OutputGuard(inputs: local, walkedFolders: local.filter(isDirectory))
            do { try outputs.claim(output, as: "the report") } catch {
                throw usageError(error.description, in: Self.self)
            }
        } else {
            try checkStandardOutput(against: paths, in: Self.self)
        }
        var validator = Self.validator(try loadProfile(), drawsPictures: reportFormat == .html)
        validator.allowsNetwork = allowNetwork
        var report: ValidationReport
        // `-`: standard input, kept in a temporary file and reported as `-`.
        let spool = paths.contains("-") ? try StandardStreams.spoolStandardInput() : nil
        defer { if let spool { TemporaryFiles.discard(spool) } }
        do {
            report = try validator.validate(paths: paths.map { $0 == "-" ? spool ?? $0 : $0 })
            if let spool {
                // Reported as `-`; a fix reads standard input and writes beside the working folder.
                let stem = String(spool.dropLast(".tmp".count))
                for index in report.files.indices where report.files[index].path == spool {
                    report.files[index].path = "-"
                    // Standard input has no name for the extension rule to judge.
                    report.files[index].violations.removeAll { $0.rule == "extension" }
                    for finding in report.files[index].violations.indices {
                        report.files[index].violations[finding].fix = report.files[index].violations[finding].fix?
                            .replacingAll(spool, with: "-").replacingAll(stem, with: "standard-input")
                    }
                }
            }
        } catch let error as AudioFileError {
            Output.standardError(commandMessage("validate", .error, "\(error)"))
            throw ExitCode(AFKit.Status.problemFound)
        }
        // A URL is reported without its password: every format escapes or breaks a name its own way (GitHub's
        // `%3A`, HTML's line breaks), so the one redaction is made before any of them.
        for index in report.files.indices where isStreamURL(report.files[index].path) {
            report.files[index].path = shownArgument(report.files[index].path)
        }
        // The files a folder walk found are inputs too: the report never goes into one of them.
        if let output {
            var outputs = OutputGuard(inputs: report.files.map(\.path).filter { !isStreamURL($0) })
            do { try outputs.claim(output, as: "the report") } catch {
                throw usageError(error.description, in: Self.self)
            }
        } else {
            try checkStandardOutput(against: report.files.map(\.path), in: Self.self)
        }
        if let note = ContainerRegistry.skippedNote(report.skippedFiles, command: "validate") {
            Output.standardError(note + "\n")
        }
        if report.files.isEmpty && !allowEmpty {
            let what = try loadProfile().checksPlaylists ? "playlist (.m3u8)" : "sound file"
            Output.standardError(
                commandMessage(
                    "validate", .error,
                    "no \(what) in \(paths.joined(separator: ", ")) (give --allow-empty to accept that)"))
            throw ExitCode(AFKit.Status.usage)
        }
        let rendered =
            switch reportFormat {
            case .text: report.text
            case .json: report.json.serialized(pretty: true) + "\n"
            case .junit: report.junit
            case .github: report.github
            case .html: report.html(version: AudioConverter.version)
            }
        if let output {
            do { try writeFile(output, bytes: Array(rendered.utf8)) } catch {
                Output.standardError(fileMessage("validate", output, .error, "cannot write the report: \(error)"))
                throw ExitCode(AFKit.Status.problemFound)
            }
        } else {
            Output.standardOutput(rendered)
        }
        if !report.ok { throw ExitCode(AFKit.Status.problemFound) }
    }
}

extension Validate {
    /// A validator for `profile` with every engine (``AssetValidator/init(standard:drawsPictures:)``), reading
    /// playlists and segments from the disk or over HTTP.
    static func validator(_ profile: Profile, drawsPictures: Bool = false) -> AssetValidator {
        var validator = AssetValidator(standard: profile, drawsPictures: drawsPictures)
        // Playlists and segments over HTTP: each fetched whole, with the usual retries, within one retry budget
        // for each playlist checked (from a playlist on the disk only with --allow-network).
        validator.makeNetworkFetch = {
            let budget = HTTPResource.RetryBudget()
            return { try HTTPResource.fetchWaiting($0, range: $1, budget: budget).bytes }
        }
        return validator
    }
}
