import AudioContainers
import CZlib
import AudioFormats
import Foundation
import LoopbackServers
import Testing

/// One truth for every container: a test generated from the registry. For each container afkit reads, a
/// fixture of it (found by parsing, not by name) goes into one folder; every command's folder walk takes every
/// one, `info`, `convert`, `validate` and `waveform` count the same frames for each, a second batch run finds
/// every output up to date, and the README's container table names the same set.
@Suite(.serialized) struct RegistryTests {
    /// For each registered container, the first fixture (in path order) that parses as that container.
    static let fixtures: [(FileType, String)] = {
        let root = Command.fixtures
        let paths = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).sorted()
        var found: [(FileType, String)] = []
        for descriptor in ContainerRegistry.all {
            let match = paths.first { path in
                let known = descriptor.extensions + descriptor.otherExtensions
                guard known.contains(URL(fileURLWithPath: path).pathExtension.lowercased()),
                    !path.hasPrefix("hostile/"), !path.hasPrefix("fuzz-regressions/"), !path.hasPrefix("refused/"),
                    let file = try? AudioFile(path: root + "/" + path), file.properties.fileType == descriptor.fileType,
                    !file.properties.isTruncated, (try? AudioFileSummary(file.properties).frameCount) ?? 0 > 0
                else { return false }
                return true
            }
            if let match { found.append((descriptor.fileType, match)) }
        }
        return found
    }()

    @Test func everyRegisteredContainerHasAFixture() {
        let covered = Set(Self.fixtures.map(\.0))
        let missing = ContainerRegistry.all.map(\.fileType).filter { !covered.contains($0) }
        #expect(missing.isEmpty, "no fixture parses as \(missing)")
    }

    /// A folder holding one file of every readable container, each named with its container's first
    /// extension: `validate` checks all of them, `batch` converts all of them (a second run finds each up to
    /// date), and for each the frames of `info`, the converted output, `validate`'s decode and `waveform`
    /// agree.
    @Test func everyCommandTakesAndCountsEveryContainer() throws {
        let folder = try Loopback.temporaryFolder("registry")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sources = folder + "/sources"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        var names: [String: FileType] = [:]
        for (type, path) in Self.fixtures {
            let name = "\(type.rawValue)-file.\(type.descriptor.extensions[0])"
            try FileManager.default.copyItem(atPath: Command.fixtures + "/" + path, toPath: sources + "/" + name)
            names[name] = type
        }
        try Data("notes".utf8).write(to: URL(fileURLWithPath: sources + "/notes.txt"))

        let validate = try Command.run(["validate", "--profile", "music", "--format", "json", sources])
        let report = try #require(validate.json as? [String: Any], "\(validate.stderr)")
        let checked = (report["files"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        #expect(Set(checked.map { URL(fileURLWithPath: $0).lastPathComponent }) == Set(names.keys))
        #expect(
            validate.stderr.contains("skipped 1 file") && validate.stderr.contains("notes.txt"), "\(validate.stderr)")

        let outputs = folder + "/outputs"
        let batch = try Command.run(["batch", "--preset", "pcm", "--out", outputs, sources])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(batch.stdout.contains("\(names.count) files: \(names.count) converted, 0 up to date, 0 failed"))
        let again = try Command.run(["batch", "--preset", "pcm", "--out", outputs, sources])
        #expect(
            again.stdout.contains("\(names.count) files: 0 converted, \(names.count) up to date"), "\(again.stdout)")

        let audio = Dictionary(
            (report["files"] as? [[String: Any]] ?? []).compactMap { file -> (String, [String: Any])? in
                guard let path = file["path"] as? String, let audio = file["audio"] as? [String: Any] else {
                    return nil
                }
                return (URL(fileURLWithPath: path).lastPathComponent, audio)
            }, uniquingKeysWith: { first, _ in first })
        for (name, type) in names.sorted(by: { $0.key < $1.key }) {
            let info = try Command.run(["info", "--json", sources + "/" + name])
            let frames = try #require((info.json as? [[String: Any]])?.first?["frameCount"] as? Int, "\(name)")
            #expect((info.json as? [[String: Any]])?.first?["damaged"] as? Bool == false, "\(name) is whole")
            let output = outputs + "/" + URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent + ".caf"
            let converted = try Command.run(["info", "--json", output])
            let written = (converted.json as? [[String: Any]])?.first?["frameCount"] as? Int
            #expect(written == frames, "\(type): info \(frames), convert \(String(describing: written))")
            #expect(
                audio[name]?["frames"] as? Int == frames,
                "\(type) (\(name)): validate \(String(describing: audio[name]))")
            let dat = folder + "/" + name + ".dat"
            let waveform = try Command.run(["waveform", sources + "/" + name, "-o", dat, "--zoom", "1"])
            #expect(waveform.status == 0, "\(type): \(waveform.stderr)")
            let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dat)).prefix(24))
            let length = Int(header[16]) | Int(header[17]) << 8 | Int(header[18]) << 16 | Int(header[19]) << 24
            #expect(length == frames, "\(type): waveform \(length), info \(frames)")
        }
    }

    /// The README's container table lists every registered container, by its `container` name, with the `-f`
    /// code of each one afkit writes.
    @Test func theReadmeTableNamesTheRegistry() throws {
        let readme = try String(contentsOfFile: Command.packageRoot.path + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- containers -->"))
        let end = try #require(readme.range(of: "<!-- /containers -->"))
        let rows = readme[start.upperBound..<end.lowerBound].split(separator: "\n").filter {
            $0.hasPrefix("| `")
        }
        var listed: [String: String] = [:]
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[0] != "`container`" else { continue }
            listed[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[3]
        }
        #expect(Set(listed.keys) == Set(ContainerRegistry.all.map(\.fileType.rawValue)), "\(listed.keys.sorted())")
        for descriptor in ContainerRegistry.all {
            let writes = listed[descriptor.fileType.rawValue] ?? ""
            if descriptor.isWritten {
                #expect(writes.contains("`\(descriptor.formatCodes[0])`"), "\(descriptor.fileType): \(writes)")
            } else {
                #expect(writes == "—", "\(descriptor.fileType) is not written: \(writes)")
            }
        }
    }

    /// FLAC and Opus in MP4 (`fLaC` with `dfLa`, `Opus` with `dOps`), which `info` read and `convert` refused,
    /// decode to FFmpeg's very samples: the CRC-32 of FFmpeg's 32-bit float output over the valid frames,
    /// recorded beside each fixture, is the CRC-32 of what afkit writes.
    @Test(arguments: ["mp4/flac.mp4", "mp4/opus.mp4"])
    func codecsInMP4DecodeToFFmpegsSamples(_ fixture: String) throws {
        let side = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: Command.fixtures + "/" + fixture + ".json")))
                as? [String: Any])
        let decoded = try #require(side["ffmpegDecoded"] as? [String: Any])
        let folder = try Loopback.temporaryFolder("codecs-in-mp4")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = folder + "/decoded.wav"
        let result = try Command.run(["convert", "-d", "LEF32", fixture, output])
        #expect(result.status == 0, "\(result.stderr)")
        let file = try AudioFile(path: output)
        var bytes: [UInt8] = []
        _ = try file.readPacketData(from: 0, count: Int(file.packetCount), into: &bytes)
        let frames = try AudioFileSummary(file.properties).frameCount
        #expect(frames == Int64(decoded["framesHashed"] as? Int ?? -1))
        let crc = bytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) }
        #expect(Int(crc) == decoded["crc32OfFirstFrames"] as? Int, "\(fixture)")
    }
}

/// The README's module table shows each pure module's dependencies as Package.swift declares them.
@Suite struct ModuleTableTests {
    @Test func theReadmeShowsTheArrowsAsTheyAre() throws {
        let root = Command.packageRoot.path
        let manifest = try String(contentsOfFile: root + "/Package.swift", encoding: .utf8)
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        let table = try #require(readme.range(of: "| module | holds | uses |"))
        let rows = readme[table.upperBound...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("| `") }
        #expect(rows.count >= 6)
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let module = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let shown = Set(
                cells[cells.count - 1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            )
            .subtracting(["—"])
            // The target's declaration: from its name to the next target.
            let declaration = try #require(
                manifest.range(of: #"\.target\(\s*name: ""# + module + "\"", options: .regularExpression),
                "\(module) is not a target")
            let rest = manifest[declaration.upperBound...]
            let end = rest.range(of: ".target(")?.lowerBound ?? rest.endIndex
            var declared: Set<String> = []
            if let list = rest[..<end].range(of: "dependencies: [") {
                let names = rest[list.upperBound...].prefix { $0 != "]" }
                declared = Set(
                    names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                        .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }.filter { !$0.isEmpty })
            }
            #expect(
                shown == declared, "\(module): the README shows \(shown.sorted()), Package.swift \(declared.sorted())")
        }
    }
}

/// No two Swift files under Sources share a name: a file is found by its name alone, in a search, a stack trace
/// or a build's diagnostics, so each name says what its one file holds.
@Suite struct SourceFileNameTests {
    @Test func noTwoSourceFilesShareAName() throws {
        let sources = Command.packageRoot.appendingPathComponent("Sources").path
        let paths = try FileManager.default.subpathsOfDirectory(atPath: sources).filter { $0.hasSuffix(".swift") }
        #expect(paths.count > 100, "Sources holds \(paths.count) Swift files")
        let byName = Dictionary(grouping: paths) { URL(fileURLWithPath: $0).lastPathComponent }
        let shared = byName.filter { $0.value.count > 1 }.map { "\($0.key): \($0.value.sorted())" }.sorted()
        #expect(shared.isEmpty, "files under Sources sharing a name: \(shared)")
    }
}
