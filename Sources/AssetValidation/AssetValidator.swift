import AudioCodecs
import AudioContainers
import AudioFormats
import Dispatch
import FileAccess

/// Checks sound files against a profile's rules: the library behind `afkit validate`.
///
/// ```swift
/// let validator = AssetValidator(profile: .systemSound)
/// let report = try validator.validate(paths: ["Assets"])
/// print(report.text)
/// ```
public struct AssetValidator: Sendable {
    /// Makes a decoder for a format (and its magic cookie), for the rules that need decoded audio;
    /// `nil` where there is none (those rules then pass over the file).
    public typealias DecoderProvider = @Sendable (StreamDescription, [UInt8]?) -> (any AudioDecoder)?

    public var profile: Profile
    /// The rules by id: the built-in ones, and any a project adds.
    public var rules: [String: ValidationRule] = ValidationRule.builtIn
    public var decoderProvider: DecoderProvider = { format, cookie in
        try? AudioCodecRegistry.builtIn.decoder(for: format, magicCookie: cookie)
    }
    /// Measures a file's loudness, for the rules that need it (`loudness`, `true-peak`); without one
    /// those rules pass over the file. The command sets libebur128's, from AudioConversion.
    public var loudnessMeter: (@Sendable (String) -> LoudnessFacts?)?
    /// Files with these extensions are checked when a directory is searched.
    public static let soundExtensions: Set<String> = ["caf", "aif", "aiff", "aifc", "wav", "mp3", "aac", "adts"]

    public init(profile: Profile = .systemSound) {
        self.profile = profile
    }

    /// Checks one file.
    public func validate(path: String) -> FileReport {
        var facts = AssetFacts(path: path)
        var file: AudioFile?
        do {
            let opened = try AudioFile(path: path)
            file = opened
            facts.properties = opened.properties
            facts.summary = try AudioFileSummary(opened.properties)
        } catch let error as AudioFileError {
            facts.error = error
        } catch {
            facts.error = .illegalOperation("\(error)")
        }
        return check(facts, measure: { file.flatMap { measureAudio(of: $0) } })
    }

    /// Checks bytes held in memory (the name decides the extension rule and the overrides).
    public func validate(bytes: [UInt8], name: String) -> FileReport {
        var stream = AudioFileStream(fileTypeHint: FileType(fileExtension: AssetFacts(path: name).fileExtension))
        let result = Result { () throws -> StreamProperties in
            try stream.parse(bytes) { _ in }
            try stream.finish()
            return stream.properties
        }
        return check(facts(name, result), measure: { nil })
    }

    /// What is known of a file from the outcome of parsing it.
    func facts(_ name: String, _ outcome: Result<StreamProperties, any Error>) -> AssetFacts {
        var facts = AssetFacts(path: name)
        do {
            let properties = try outcome.get()
            facts.properties = properties
            facts.summary = try AudioFileSummary(properties)
        } catch let error as AudioFileError {
            facts.error = error
        } catch {
            facts.error = .io("\(name): \(error)", errno: 0)
        }
        return facts
    }

    /// Checks files and, recursively, the sound files in directories, in parallel on every core.
    public func validate(paths: [String]) throws -> ValidationReport {
        var files: [String] = []
        for path in paths {
            if isDirectory(path) {
                files += try filesBelow(path).filter { AssetValidator.soundExtensions.contains(AssetFacts(path: $0).fileExtension) }
            } else {
                files.append(path)
            }
        }
        let targets = files
        let results = ResultSlots(count: targets.count)
        DispatchQueue.concurrentPerform(iterations: targets.count) { index in
            results.store(validate(path: targets[index]), at: index)
        }
        return ValidationReport(profile: profile.name, files: results.values)
    }

    /// Runs the profile's rules over what is known.
    func check(_ facts: AssetFacts, measure: () -> AudioStatistics?) -> FileReport {
        let active = profile.resolved(for: facts.path).entries.filter { $0.enabled }
        var facts = facts
        if facts.error == nil, active.contains(where: { rules[$0.rule]?.needsDecodedAudio == true }) {
            facts.audio = measure()
        }
        if facts.error == nil, let meter = loudnessMeter, active.contains(where: { rules[$0.rule]?.needsLoudness == true }) {
            facts.loudness = meter(facts.path)
        }
        var violations: [Violation] = []
        for entry in active {
            guard let rule = rules[entry.rule] else { continue }
            // A file that cannot be parsed is reported by `malformed` alone.
            if facts.error != nil && rule.id != ValidationRule.malformed.id { continue }
            for finding in rule.check(facts, entry.settings) {
                let severity = finding.severity.map { min($0, entry.settings.severity) } ?? entry.settings.severity
                violations.append(Violation(rule: rule.id, severity: severity, message: finding.message))
            }
        }
        return FileReport(path: facts.path, violations: violations)
    }

    /// Decodes the valid frames and measures peak, clipping and silence at the ends.
    func measureAudio(of file: AudioFile) -> AudioStatistics? {
        let format = file.dataFormat
        guard var decoder = decoderProvider(format, file.properties.magicCookie),
            let summary = try? AudioFileSummary(file.properties)
        else { return nil }
        let channels = Int(format.channelsPerFrame)
        let threshold: Float = 0.001  // -60 dBFS
        let fullScale: Float = 32767 / 32768
        var peak: Float = 0
        var clippedRuns = 0
        var run = 0
        var firstLoud: Int64?
        var lastLoud: Int64 = -1
        var frame: Int64 = 0
        let skip = summary.primingFrames
        let end = summary.primingFrames + summary.frameCount
        var samples: [Float] = []
        var start: Int64 = 0
        var sums = [Double](repeating: 0, count: channels)
        var squares = [Double](repeating: 0, count: channels)
        var crossProducts = 0.0
        var counted = 0.0
        let packetsAtOnce = decoder.packetsPerRun(atMost: 256)
        while start < file.packetCount {
            guard let (bytes, descriptions) = try? file.readPackets(from: start, count: packetsAtOnce) else { return nil }
            samples.removeAll(keepingCapacity: true)
            let decoded = bytes.withUnsafeBytes { raw in
                descriptions.withUnsafeBufferPointer { descriptions in
                    try? decoder.decode(raw, packetCount: descriptions.count,
                        descriptions: format.hasConstantPackets ? nil : descriptions, appendingTo: &samples)
                }
            }
            guard let frames = decoded else { return nil }
            for index in 0..<frames {
                defer { frame += 1 }
                guard frame >= skip && frame < end else { continue }
                var loud = false
                counted += 1
                if channels == 2 { crossProducts += Double(samples[index * 2]) * Double(samples[index * 2 + 1]) }
                for channel in 0..<channels {
                    let sample = Double(samples[index * channels + channel])
                    sums[channel] += sample
                    squares[channel] += sample * sample
                    let value = abs(samples[index * channels + channel])
                    peak = max(peak, value)
                    if value > threshold { loud = true }
                    if value >= fullScale {
                        run += 1
                        if run == 3 { clippedRuns += 1 }
                    } else {
                        run = 0
                    }
                }
                if loud {
                    if firstLoud == nil { firstLoud = frame - skip }
                    lastLoud = frame - skip
                }
            }
            start += Int64(descriptions.count)
        }
        let rate = format.sampleRate
        let valid = summary.frameCount
        var statistics = AudioStatistics(
            peak: peak, clippedRuns: clippedRuns,
            leadingSilence: Double(firstLoud ?? valid) / rate,
            trailingSilence: Double(valid - 1 - lastLoud) / rate,
            isSilent: firstLoud == nil && valid > 0)
        if counted > 0 {
            statistics.dcOffset = sums.map { abs($0 / counted) }.max() ?? 0
            if channels == 2, squares[0] > 0, squares[1] > 0 {
                statistics.channelBalance = 10 * log10(squares[0] / squares[1])
                statistics.correlation = crossProducts / (squares[0] * squares[1]).squareRoot()
            }
        }
        return statistics
    }
}

/// Slots that parallel workers fill, each its own.
private final class ResultSlots: @unchecked Sendable {
    private var slots: [FileReport?]
    private let lock = SlotLock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func store(_ report: FileReport, at index: Int) {
        lock.withLock { slots[index] = report }
    }

    var values: [FileReport] { slots.compactMap { $0 } }
}

/// A mutex from Dispatch (no Foundation here).
private final class SlotLock: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 1)
    func withLock<T>(_ body: () -> T) -> T {
        semaphore.wait()
        defer { semaphore.signal() }
        return body()
    }
}

extension AssetFacts {
    init(path: String) {
        self.path = path
    }
}

extension AssetValidator {
    /// Checks a stream of byte chunks (a download, a pipe) as it arrives; `name` decides the
    /// extension rule and the overrides. Rules that need decoded audio pass over streams.
    public func validate<Chunks: AsyncSequence>(chunks: Chunks, name: String) async -> FileReport
    where Chunks.Element == [UInt8] {
        var stream = AudioFileStream(fileTypeHint: FileType(fileExtension: AssetFacts(path: name).fileExtension))
        let outcome: Result<StreamProperties, any Error>
        do {
            for try await chunk in chunks { try stream.parse(chunk) { _ in } }
            try stream.finish()
            outcome = .success(stream.properties)
        } catch {
            outcome = .failure(error)
        }
        return check(facts(name, outcome), measure: { nil })
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
