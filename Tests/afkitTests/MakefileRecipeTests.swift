import Foundation
import LoopbackServers
import Testing

/// What a newcomer runs from the documentation (issue 71): Documentation/Makefile.md's recipes as written there,
/// over a folder that holds a name with a space (the per-file recipe fails on it as the page says, the batch one
/// converts it), and `make install`'s script (a stripped binary that runs, the completions, the man pages, and a
/// word when the folder is not on PATH).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct MakefileRecipeTests {
    /// The ```make blocks of Documentation/Makefile.md, in order.
    static func recipes() throws -> [String] {
        let page = try String(
            contentsOf: Command.packageRoot.appendingPathComponent("Documentation/Makefile.md"), encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```make") {
                current = []
            } else if line.hasPrefix("```"), let lines = current {
                blocks.append(lines.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Runs `executable` with `arguments` (and `environment`, else this process's); its exit status and its output
    /// and errors together.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// Runs `make` with `makefile` in `folder`, afkit the test's own binary; its exit status and output.
    static func make(_ makefile: String, in folder: String) throws -> (status: Int32, output: String) {
        try makefile.write(toFile: folder + "/Makefile", atomically: true, encoding: .utf8)
        return try run(Loopback.executable("make"), ["-C", folder, "AFKIT=" + Command.executable])
    }

    @Test func theBatchRecipeTakesNamesWithSpaces() throws {
        let recipes = try Self.recipes()
        try #require(recipes.count == 2, "Documentation/Makefile.md's make blocks: \(recipes.count)")
        for (index, recipe) in recipes.enumerated() {
            let folder = try Loopback.temporaryFolder("makefile-\(index)")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try FileManager.default.createDirectory(atPath: folder + "/Assets", withIntermediateDirectories: true)
            for name in ["Boss Theme.wav", "click.wav"] {
                try FileManager.default.copyItem(
                    atPath: Command.fixtures + "/signals/speech.wav", toPath: folder + "/Assets/" + name)
            }
            let (status, output) = try Self.make(recipe, in: folder)
            if index == 0 {
                // The per-file recipe: Make's lists split 'Boss Theme.wav' in two, as the page warns.
                #expect(status != 0 && output.contains("No rule to make target"), "\(output)")
            } else {
                #expect(status == 0, "\(output)")
                for name in ["Boss Theme.caf", "click.caf"] {
                    #expect(FileManager.default.fileExists(atPath: folder + "/build/assets/" + name), "\(output)")
                }
                // Run again: nothing to convert, the outputs kept.
                let again = try Self.make(recipe, in: folder)
                #expect(again.status == 0, "\(again.output)")
            }
        }
    }

    /// The README's quick start (before its first section) names `make install`, and the README says each thing once:
    /// no paragraph of 20 words or more has nine in ten of its words in another (the container registry's paragraph
    /// stood twice, once with dashes for parentheses and a sentence fewer; other pairs share at most two thirds).
    @Test func theReadmeSaysInstallAndEachThingOnce() throws {
        let readme = try String(
            contentsOf: Command.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let quickStart = try #require(readme.components(separatedBy: "\n## ").first)
        #expect(quickStart.contains("`make install`"))
        let paragraphs = readme.components(separatedBy: "\n\n").map { paragraph in
            Set(paragraph.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init))
        }
        for (index, words) in paragraphs.enumerated() where words.count >= 20 {
            for (other, others) in paragraphs.enumerated().dropFirst(index + 1) where others.count >= 20 {
                let shared = Double(words.intersection(others).count) / Double(min(words.count, others.count))
                #expect(
                    shared < 0.9, "README paragraphs \(index) and \(other) say the same: \(words.sorted().prefix(12))")
            }
        }
    }

    /// `make install` builds afkit once, in release, and makes the man pages from that binary (swift-argument-parser's
    /// generate-manual, built with the same flags beside it) before installing them: no second build of the package
    /// (the generate-manual plugin built all of it again in debug, 8 minutes on a 2-core machine). Read from
    /// `make -n`, which prints each recipe line without running it.
    @Test func installBuildsOnceInRelease() throws {
        let (status, output) = try Self.run(
            Loopback.executable("make"),
            ["-n", "-C", Command.packageRoot.path, "install", "PREFIX=/nonexistent/prefix"])
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let builds = lines.filter { $0.contains("swift build") || $0.contains("swift package") }
        // One build of afkit and one of the small tool, with the same flags (the release build's).
        #expect(builds.count == 2, "\(builds)")
        #expect(builds.filter { $0.hasSuffix("--product afkit") }.count == 1, "\(builds)")
        let flags = builds.map { $0.replacingOccurrences(of: "--product afkit", with: "--product generate-manual") }
        #expect(Set(flags).count == 1 && flags.first?.contains("-c release") == true, "\(builds)")
        #expect(!output.contains("plugin") && !output.contains("debug"), "\(output)")
        // The pages come from the release binary, then the install script takes the same binary and those pages.
        let pages = try #require(
            lines.firstIndex { $0.hasPrefix(".build/release/generate-manual .build/release/afkit") })
        let install = try #require(lines.firstIndex { $0.hasPrefix("bash Packaging/install.sh .build/release/afkit") })
        #expect(pages < install && lines[install].hasSuffix("build/man"), "\(lines)")
        #expect(lines.firstIndex { $0.hasSuffix("--product afkit") }.map { $0 < pages } == true)
    }

    @Test func installPutsTheCommandItsPagesAndCompletionsInPlace() throws {
        let prefix = try Loopback.temporaryFolder("install")
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let pages = prefix + "/pages"
        try FileManager.default.createDirectory(atPath: pages, withIntermediateDirectories: true)
        try ".Dd\n.Dt AFKIT 1\n".write(toFile: pages + "/afkit.1", atomically: true, encoding: .utf8)
        let (status, output) = try Self.run(
            "/bin/bash",
            [
                Command.packageRoot.appendingPathComponent("Packaging/install.sh").path, Command.executable,
                prefix + "/usr", pages,
            ], environment: ["PATH": "/usr/bin:/bin"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("is not on PATH"), "\(output)")
        let installed = prefix + "/usr/bin/afkit"
        #expect(FileManager.default.isExecutableFile(atPath: installed))
        for file in [
            "share/bash-completion/completions/afkit", "share/zsh/site-functions/_afkit",
            "share/fish/vendor_completions.d/afkit.fish", "share/man/man1/afkit.1",
        ] {
            let size = (try? FileManager.default.attributesOfItem(atPath: prefix + "/usr/" + file)[.size] as? Int) ?? 0
            #expect(size > 0, "\(file)")
        }
        // Stripped of its debugging information, and it runs.
        let original = try FileManager.default.attributesOfItem(atPath: Command.executable)[.size] as? Int ?? 0
        let stripped = try FileManager.default.attributesOfItem(atPath: installed)[.size] as? Int ?? 0
        #expect(stripped < original)
        let version = Process()
        version.executableURL = URL(fileURLWithPath: installed)
        version.arguments = ["--version"]
        let versionPipe = Pipe()
        version.standardOutput = versionPipe
        try version.run()
        let printed = String(decoding: versionPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        version.waitUntilExit()
        #expect(version.terminationStatus == 0 && !printed.isEmpty)
    }
}
