import AudioCodecs
import AudioContainers
import AudioFormats
import Dispatch

/// Converts a tree of sources with a preset, mirroring it under an output folder, in parallel on all
/// cores, skipping outputs already made from the same source with the same preset.
public struct BatchConverter: Sendable {
    public struct Job: Sendable, Hashable {
        public var source: String
        public var output: String
    }

    public enum Outcome: Sendable {
        case converted
        case upToDate
        case failed(String)
    }

    public let preset: Preset
    public let outputFolder: String
    /// How IMA4 is encoded (the beam search by default).
    public let imaQuality: IMAEncodingQuality
    /// Source extensions looked for in folders.
    public static let sourceExtensions: Set<String> = ["wav", "aif", "aiff", "aifc", "caf", "mp3", "mp2", "aac", "adts", "flac",
        "ogg"]

    public init(preset: Preset, outputFolder: String, imaQuality: IMAEncodingQuality = .best) {
        self.preset = preset
        self.outputFolder = outputFolder
        self.imaQuality = imaQuality
    }

    /// The note an output carries to say which preset (and IMA quality) made it.
    public var note: String { "afkit preset \(preset.rawValue)" + (imaQuality == .fast ? " (fast)" : "") }

    /// The jobs for files and folders: a folder's files keep their path below it.
    public func jobs(for sources: [String]) throws -> [Job] {
        var jobs: [Job] = []
        for source in sources {
            if isDirectory(source) {
                let root = source.hasSuffix("/") ? source : source + "/"
                for file in try filesBelow(source) where BatchConverter.sourceExtensions.contains(fileExtension(file)) {
                    jobs.append(Job(source: file, output: outputPath(for: String(file.dropFirst(root.count)))))
                }
            } else {
                jobs.append(Job(source: source, output: outputPath(for: source.split(separator: "/").last.map(String.init) ?? source)))
            }
        }
        return jobs
    }

    private func outputPath(for relative: String) -> String {
        let base = relative.lastIndex(of: ".").map { String(relative[..<$0]) } ?? relative
        return (outputFolder.hasSuffix("/") ? outputFolder : outputFolder + "/") + base + ".caf"
    }

    /// Whether an output was made from its source as it is now, with this preset.
    public func isUpToDate(_ job: Job) -> Bool {
        guard let made = modificationTime(job.output), let changed = modificationTime(job.source), made >= changed,
            let properties = try? AudioFile(path: job.output).properties
        else { return false }
        return properties.infoDictionary["encoding application"] == note
    }

    /// Runs the jobs; `progress` is called (from any thread, one call at a time) after each.
    public func run(_ jobs: [Job], progress: @escaping @Sendable (Job, Outcome, Int) -> Void) -> [Outcome] {
        var settings = preset.settings
        settings.encodingNote = note
        settings.synchronizesFolder = false
        settings.imaQuality = imaQuality
        let results = Outcomes(count: jobs.count)
        let conversion = settings
        // Temporaries that killed runs left in the folders this run writes.
        for folder in Set(jobs.map { parentFolder(of: $0.output) }) { TemporaryFiles.removeStale(in: folder) }
        DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
            let job = jobs[index]
            let outcome: Outcome
            if isUpToDate(job) {
                outcome = .upToDate
            } else {
                do {
                    let folder = job.output.lastIndex(of: "/").map { String(job.output[..<$0]) } ?? "."
                    try makeDirectories(folder)
                    try AudioConverter.convert(input: job.source, output: job.output, settings: conversion)
                    outcome = .converted
                } catch {
                    outcome = .failed("\(error)")
                }
            }
            let done = results.store(outcome, at: index)
            progress(job, outcome, done)
        }
        // Each output was flushed before its rename; the folders' new entries are flushed once each here.
        for folder in Set(jobs.map { parentFolder(of: $0.output) }) { try? synchronize(folder) }
        return results.values
    }

    private func fileExtension(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.lastIndex(of: ".").map { name[name.index(after: $0)...].lowercased() } ?? ""
    }
}

/// Results that parallel workers fill, each its own slot, under a lock.
private final class Outcomes: @unchecked Sendable {
    private var slots: [BatchConverter.Outcome?]
    private var finished = 0
    private let lock = DispatchSemaphore(value: 1)

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    /// Stores an outcome; returns how many are done.
    func store(_ outcome: BatchConverter.Outcome, at index: Int) -> Int {
        lock.wait()
        defer { lock.signal() }
        slots[index] = outcome
        finished += 1
        return finished
    }

    var values: [BatchConverter.Outcome] { slots.compactMap { $0 } }
}
