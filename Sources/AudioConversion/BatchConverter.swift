import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioEngines
import AudioFormats
import Dispatch
import FileAccess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Converts a tree of sources with a preset, mirroring it under an output folder, in parallel, and
/// incrementally: an output is rebuilt unless it records the same source content, settings and afkit
/// version, and reads back whole.
public struct BatchConverter: Sendable {
    /// One source and the output it makes.
    public struct Job: Sendable, Hashable {
        /// The source file.
        public var source: String
        /// Where its output goes.
        public var output: String
    }

    /// What became of a job: converted (with what the conversion noted), already current, or failed with
    /// the reason.
    public enum Outcome: Sendable {
        /// Written: the conversion's notes, and what the loudness normalization did where one was asked for.
        case converted(notes: [String], normalization: NormalizationOutcome?)
        case upToDate
        case failed(String)
    }

    /// Sources that would write the same output (`a.wav` and `a.aif` both make `a.caf`): every such output of the
    /// run, found before any work, and a name pattern that would keep them apart.
    public struct CollisionError: Error, CustomStringConvertible, Sendable {
        /// An output and the sources that would each write it.
        public struct Collision: Sendable, Hashable {
            /// The output they would write.
            public var output: String
            /// The sources, in the order they were found.
            public var sources: [String]
        }

        /// Every output more than one source would write, in the order found.
        public var collisions: [Collision]
        /// A `--name` pattern under which no two sources share an output, where one of those tried does.
        public var separatingPattern: OutputNamePattern?

        /// The message, a line each: every collision, then how many and the pattern that separates them (a command
        /// words each line as its errors, `batch: error: LINE`).
        public var lines: [String] {
            let each = collisions.map { collision in
                let sources = collision.sources.map { "'\($0)'" }
                let named =
                    sources.count == 2
                    ? sources.joined(separator: " and ")
                    : sources.dropLast().joined(separator: ", ") + " and " + (sources.last ?? "")
                return "\(named) would \(sources.count == 2 ? "both" : "all") be written to '\(collision.output)'"
            }
            let remedy =
                separatingPattern.map { "give --name '\($0)' to name them apart, or rename the sources" }
                ?? "rename the sources"
            return each + [
                (collisions.count == 1
                    ? "1 output would be made from more than one source: "
                    : "\(collisions.count) outputs would each be made from more than one source: ")
                    + "\(remedy) (nothing was converted)"
            ]
        }

        /// The message: every collision, and the pattern that separates them.
        public var description: String { lines.joined(separator: "\n") }
    }

    /// The preset every output is made with.
    public let preset: Preset
    /// The folder the outputs go below, each at its source's path.
    public let outputFolder: String
    /// How IMA4 is encoded (the beam search by default).
    public let imaQuality: IMAEncodingQuality
    /// Sources converted at once (default: the cores).
    public let parallelJobs: Int
    /// What every conversion is asked besides the preset, `-f` and `-d`: loudness, silence, tags, edits, and the
    /// limit `--trim` cuts a longer source to (`nil` there: sources longer than the preset allows fail).
    public var adjustments = ConversionAdjustments()
    /// The container every output is written as (`-f`), named by its usual extension; `nil`: CAF.
    public var fileType: FileType?
    /// The `-f` code ``fileType`` was given by, which names the outputs where it is one of its extensions (`-f ogg`:
    /// `.ogg`, Vorbis; `-f opus`: `.opus`, Opus); `nil`: the container's usual name.
    public var fileTypeCode: String?
    /// The data format every output is written in (`-d`), in place of the preset's.
    public var dataFormat: DataFormatSpecifier?
    /// Channels, bit rate, quality and strategy (`-c`, `-b`, `-q`, `-s`), in place of the preset's.
    public var codec = CodecRequest()
    /// Called as each job's output grows (from its converting thread): the job, and how far it has come; first
    /// with nothing written and a rate of 0 as the job starts.
    public var progress: (@Sendable (Job, ConversionProgress) -> Void)?
    /// How each output is named below ``outputFolder`` (`--name`); by default the source tree is mirrored.
    public var namePattern = OutputNamePattern.mirroring
    /// A batch making `preset`'s outputs below `outputFolder`, `parallelJobs` at a time (default: the cores).
    public init(
        preset: Preset, outputFolder: String, imaQuality: IMAEncodingQuality = .balanced, parallelJobs: Int? = nil
    ) {
        self.preset = preset
        self.outputFolder = outputFolder
        self.imaQuality = imaQuality
        self.parallelJobs = max(1, parallelJobs ?? activeProcessorCount())
    }

    /// The note an output carries to say which preset (and IMA quality, file type, data format and codec options)
    /// made it.
    public var note: String {
        "afkit preset \(preset.rawValue)" + (imaQuality == .fast ? " (fast)" : imaQuality == .best ? " (best)" : "")
            + (fileType.map { " -f \(fileTypeCode ?? $0.afconvertCode)" } ?? "")
            + (dataFormat.map { " -d \($0.description)" } ?? "")
            + (codec.description.isEmpty ? "" : " " + codec.description)
    }

    /// The container outputs are written as: `-f`'s, or CAF.
    public var outputFileType: FileType { fileType ?? .caf }

    /// The name outputs take: `-f`'s code's, or the container's usual one.
    var outputExtension: String { outputFileType.fileNameExtension(forCode: fileTypeCode) }

    /// What an output made from `source` now records: afkit's version, the settings and the source's
    /// content hash. Moving, touching or restoring a source with an old time changes nothing; changing
    /// one byte of it does.
    public func provenance(of source: String) throws -> String {
        provenance(hash: try contentHash(ofFileAt: source))
    }

    /// The provenance for a source whose content hash is known.
    func provenance(hash: ContentHash) -> String {
        "afkit \(AudioConverter.version); \(note)"
            + (adjustments.trimLimit.map { " trim \(shortDecimal($0.seconds))" } ?? "")
            + (adjustments.trimLimit != nil && adjustments.trimFade != .seconds(AudioConverter.trimFadeSeconds)
                ? " trim-fade \(adjustments.trimFade)" : "")
            + (adjustments.sampleRate.map { " rate \(shortDecimal($0))" } ?? "")
            + (adjustments.loudness.map { "; loudness \($0.description)" } ?? "")
            + (adjustments.peak.map { "; peak \($0.description)" } ?? "")
            + (adjustments.loopCrossfade.map { "; loop-crossfade \($0)" } ?? "")
            + (adjustments.silenceThreshold.map { "; trim-silence \(shortDecimal($0)) dBFS" } ?? "")
            + (adjustments.edits.isEmpty ? "" : "; " + adjustments.edits.description)
            + (adjustments.keepsMetadata ? "" : "; no-metadata")
            + (namePattern == .mirroring ? "" : "; name \(namePattern)")
            + "; source xxh64 \(hash.hexDigits)"
    }

    /// The jobs for files and folders: a folder's files keep their path below it, and where several folders
    /// are given, below the folder's own name (`a/x.wav` and `b/x.wav` make `OUT/a/x.caf` and `OUT/b/x.caf`,
    /// as `cp -r a b OUT` would place them); the output folder is never read as a source. Two sources that
    /// would write one output are a ``CollisionError``; an output the `OutputGuard` refuses (a source of
    /// the run, a FIFO or a device where the output would go), an `OutputGuard.Refusal`. `alsoWriting`
    /// names the run's other outputs (a report), checked by the same guard.
    public func jobs(for sources: [String], alsoWriting others: [(path: String, what: String)] = []) throws -> [Job] {
        try plan(for: sources, alsoWriting: others).jobs
    }

    /// ``jobs(for:alsoWriting:)``, and the files the folder walks skipped (not named as a sound file afkit
    /// reads), for a line that names them.
    public func plan(for sources: [String], alsoWriting others: [(path: String, what: String)] = []) throws -> (
        jobs: [Job], skipped: [String]
    ) {
        // Each source and its path below the batch's root, as mirrored.
        var found: [(source: String, relative: String)] = []
        var walked: [String] = []
        var skipped: [String] = []
        let namesFolders = sources.filter(isDirectory).count > 1
        for source in sources {
            if isDirectory(source) {
                let root = source.hasSuffix("/") ? source : source + "/"
                let name = source.split(separator: "/").last.map(String.init)
                let prefix = namesFolders ? (name.flatMap { $0 == "." || $0 == ".." ? nil : $0 + "/" } ?? "") : ""
                let walk = try ContainerRegistry.soundFiles(below: source, excluding: [outputFolder])
                skipped += walk.skipped
                walked += walk.folders
                for file in walk.files { found.append((file, prefix + String(file.dropFirst(root.count)))) }
            } else {
                found.append((source, source.split(separator: "/").last.map(String.init) ?? source))
            }
        }
        let (jobs, collisions) = Self.jobs(found, named: { outputPath(for: $0, pattern: namePattern) })
        if !collisions.isEmpty {
            // Every collision at once, with the first pattern tried that leaves none.
            let separating = namePattern.separatingCandidates.first { pattern in
                pattern != namePattern && Self.jobs(found, named: { outputPath(for: $0, pattern: pattern) }).1.isEmpty
            }
            throw CollisionError(collisions: collisions, separatingPattern: separating)
        }
        // Every output through the one guard, before anything is written: never a source of the run (an
        // output already in place of its source, `batch --out . y.caf`), never a FIFO or a device.
        var outputs = OutputGuard(
            inputs: jobs.map(\.source), walkedFolders: walked, skippedFolders: [outputFolder])
        // The output folder and the folders below it that the outputs go into are the run's to make.
        outputs.claimFolder(outputFolder)
        let root = outputFolder.hasSuffix("/") ? String(outputFolder.dropLast()) : outputFolder
        for job in jobs {
            var folder = parentFolder(of: job.output)
            while folder.hasPrefix(root + "/") {
                outputs.claimFolder(folder)
                folder = parentFolder(of: folder)
            }
        }
        for job in jobs { try outputs.claim(job.output, as: "the output of '\(job.source)'") }
        for other in others { try outputs.claim(other.path, as: other.what) }
        return (jobs, skipped)
    }

    /// The jobs for sources and their paths below the root, each output named by `named`: the same file named
    /// twice, however spelled (`a.wav ./a.wav`, a folder and a file in it), is one job; two files that would
    /// write one output are a collision.
    private static func jobs(_ found: [(source: String, relative: String)], named: (String) -> String) -> (
        [Job], [CollisionError.Collision]
    ) {
        var jobs: [Job] = []
        var writers: [String: [String]] = [:]
        var order: [String] = []
        for (source, relative) in found {
            let output = named(relative)
            if let others = writers[output] {
                let same = others.contains { $0 == source || FileIdentity(path: $0) == FileIdentity(path: source) }
                if !same { writers[output]?.append(source) }
                continue
            }
            writers[output] = [source]
            order.append(output)
            jobs.append(Job(source: source, output: output))
        }
        let collisions = order.compactMap { output in
            writers[output].flatMap { $0.count > 1 ? CollisionError.Collision(output: output, sources: $0) : nil }
        }
        return (jobs, collisions)
    }

    /// Where the output of the source at `relative` (below the batch's root) goes, named by `pattern`.
    private func outputPath(for relative: String, pattern: OutputNamePattern) -> String {
        (outputFolder.hasSuffix("/") ? outputFolder : outputFolder + "/")
            + pattern.name(forSourceAt: relative, preset: preset) + outputExtension
    }

    /// Whether an output is current: it records the provenance the source has now, and it reads back
    /// whole, to the frames it records.
    public func isUpToDate(_ job: Job) -> Bool {
        guard let expected = try? provenance(of: job.source) else { return false }
        return isUpToDate(job, provenance: expected)
    }

    /// ``isUpToDate(_:)`` for a provenance already computed (the source read once per job).
    private func isUpToDate(_ job: Job, provenance expected: String) -> Bool {
        guard pathExists(job.output), let file = try? AudioFile(path: job.output) else { return false }
        let info = file.properties.infoDictionary
        guard info[MetadataKeys.source] == expected, !file.properties.isTruncated,
            let recorded = info[MetadataKeys.frames].flatMap(Int64.init),
            let frames = try? AudioFileSummary(file.properties).frameCount
        else { return false }
        // A compressed output in a container that records no priming (ADTS) holds the encoder's priming and
        // its last packet whole: up to three packets more than the frames made, never fewer.
        let format = file.dataFormat
        if file.properties.fileType?.descriptor.recordsPriming == false, !format.isLinearPCM, format.framesPerPacket > 0
        {
            return frames >= recorded && frames - recorded <= 3 * Int64(format.framesPerPacket)
        }
        return frames == recorded
    }

    /// The settings every output is made with: the preset's, with `-f`, `-d` and the batch's options.
    public var settings: ConversionSettings {
        var settings = preset.settings
        settings.apply(fileType: fileType, code: fileTypeCode, dataFormat: dataFormat)
        settings.apply(codec)
        settings.encodingNote = note
        settings.imaQuality = imaQuality
        settings.apply(adjustments)
        settings.synchronizesFolder = false
        // A folder holds sounds with loops and sounds without: each without one a crossfade can mend is converted,
        // with a note.
        settings.loopCrossfadeSkipsUnmendable = true
        return settings
    }

    /// Throws the usage error a conversion would, where the preset, `-f`, `-d` and `-c`/`-b`/`-q`/`-s` cannot be
    /// written together (before anything is converted).
    public func checkSettings() throws {
        _ = try ConversionPlan.Destination(
            output: "output" + outputExtension, settings: settings)
    }

    /// Runs the jobs, `parallelJobs` at a time; `progress` is called (from any thread) after each.
    ///
    /// Each output's flush to the disk and rename are left to one thread of their own (a wait on the disk,
    /// not work for a core), so the workers go on to the next source meanwhile; a job is done, and said,
    /// when its output is in place.
    public func run(_ jobs: [Job], progress: @escaping @Sendable (Job, Outcome, Int) -> Void) -> [Outcome] {
        let results = ResultSlots<Outcome>(count: jobs.count)
        let base = settings
        // Temporaries that killed runs left in the folders this run writes.
        let folders = Set(jobs.map { parentFolder(of: $0.output) })
        for folder in folders { TemporaryFiles.removeStale(in: folder) }
        let committer = DispatchQueue(label: "afkit.batch.commit")
        // Outputs waiting for the committer at most (each holds its temporary open): a slow disk holds the
        // workers back rather than letting them fill it with open files.
        let waiting = DispatchSemaphore(value: 2 * parallelJobs)
        @Sendable func finish(_ index: Int, _ outcome: Outcome) {
            let done = results.store(outcome, at: index)
            progress(jobs[index], outcome, done)
        }
        jobs.indices.parallelMap(width: parallelJobs) { index in
            let job = jobs[index]
            let finished = FinishedOutput()
            let outcome: Outcome
            do {
                var conversion = base
                // The source is read once: its hash makes the provenance and seeds any dither.
                let hash = try contentHash(ofFileAt: job.source)
                let provenance = provenance(hash: hash)
                conversion.provenance = provenance
                if let growth = self.progress {
                    growth(job, ConversionProgress(framesWritten: 0, expectedFrames: nil, sampleRate: 0))
                    conversion.progress = { growth(job, $0) }
                }
                conversion.sourceContentHash = hash
                conversion.deferredCommit = { finished.file = $0 }
                if isUpToDate(job, provenance: provenance) {
                    outcome = .upToDate
                } else {
                    try makeDirectories(parentFolder(of: job.output))
                    let result = try AudioConverter.convert(
                        input: job.source, output: job.output, settings: conversion)
                    outcome = .converted(notes: result.notes, normalization: result.normalization)
                }
            } catch {
                outcome = .failed("\(error)")
            }
            guard case .converted = outcome, finished.file != nil else {
                // (A conversion that failed after handing its output over leaves nothing behind.)
                finished.file?.abandon()
                finish(index, outcome)
                return
            }
            waiting.wait()
            committer.async {
                defer { waiting.signal() }
                do {
                    try finished.file?.commit(synchronizingFolder: false)
                    finish(index, outcome)
                } catch {
                    finished.file?.abandon()
                    finish(index, .failed("\(error)"))
                }
            }
        }
        // Every output in place; each was flushed before its rename, and the folders' new entries are flushed
        // once each here.
        committer.sync {}
        for folder in folders { try? synchronize(folder) }
        return results.values
    }
}

/// A conversion's finished output, not yet in place (see ``ConversionSettings/deferredCommit``).
private final class FinishedOutput: @unchecked Sendable {
    /// Set by the conversion, on the worker's thread, before the worker reads it.
    var file: AtomicOutputFile?
}
