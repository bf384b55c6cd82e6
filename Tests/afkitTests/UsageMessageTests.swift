import Foundation
import Testing

/// Usage errors in the shape of every message (issue 71, the contract's "every message of every command names the
/// file it is about" and its usage status 2): each check a command's `validate()` makes, and each kind of error
/// argument-parser finds (an unknown option, a value missing or invalid, an argument missing or unexpected), prints
/// `COMMAND: error: TEXT`, or `COMMAND: FILE: error: TEXT` where it is about one file, then the command's usage
/// lines, writes nothing to standard output and exits 2.
@Suite struct UsageMessageTests {
    /// One usage error: the arguments (`{out}` is a scratch folder, so a check that failed to fire writes nothing
    /// into the fixtures), the file the message is about (`nil`: none), and words of the message.
    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var about: String?
        var says: String
        var testDescription: String { arguments.joined(separator: " ") }

        init(_ arguments: [String], about: String? = nil, _ says: String) {
            self.arguments = arguments
            self.about = about
            self.says = says
        }
    }

    static let source = "wav/pcm-s16-stereo.wav"

    /// Every `validate()` check of every command (the option groups' included), with a message to match.
    static let validateChecks: [Case] = {
        let s = source
        let convert = { (options: [String], says: String) in Case(["convert"] + options + [s, "{out}/x.caf"], says) }
        let packets = { (options: [String], says: String) in Case(["packets"] + options + [s], says) }
        let wave = { (options: [String], says: String) in Case(["waveform"] + options + [s, "-o", "{out}/w.png"], says)
        }
        let hls = { (options: [String], says: String) in Case(["hls"] + options + [s, "--out", "{out}/h"], says) }
        return [
            Case(
                ["info", "--loudness", "http://127.0.0.1:9/a.mp3"], about: "http://127.0.0.1:9/a.mp3",
                "files, not streams"),
            Case(["convert", s, "{out}/x.caf", "-o", "{out}/y.caf"], "give the output once"),
            Case(["convert", "-"], "standard input needs an OUTPUT"),
            Case(["convert", "caf/float32-stereo.caf"], about: "caf/float32-stereo.caf", "the input itself"),
            Case(["convert", "wav", "{out}/x.caf"], about: "wav", "is a folder, not a file (afkit batch"),
            Case(["convert", s, "{out}"], "is a folder: give the output's file name"),
            Case(["convert", "-d", "aac", s, "{out}/x.wav"], about: "{out}/x.wav", "WAVE files cannot hold -d aac"),
            convert(["--profile", "sfx"], "--profile goes with --trim"),
            convert(["--trim", "--profile", "music"], "--trim cuts to the duration limit"),
            convert(["-v", "--quiet"], "-v and --quiet: give one"),
            convert(["--quiet", "--progress"], "--quiet and --progress: give one"),
            convert(["-ar", "1x"], "-ar takes a sample rate"),
            convert(["-ar", "44100", "-d", "LEI16@22050"], "give the rate once"),
            convert(["--trim-fade", "0.1"], "--trim-fade goes with --trim"),
            convert(["--trim", "--trim-fade", "x"], "--trim-fade takes seconds"),
            convert(["--loop-crossfade", "0"], "--loop-crossfade takes a length above 0"),
            convert(["--normalize-peak", "-1", "--normalize-true-peak", "-1"], "give one"),
            convert(["--normalize-peak=3"], "--normalize-peak takes -120 to 0 dBFS"),
            convert(["--normalize-peak=-1", "--loudness", "-16"], "each set the gain"),
            convert(["--normalize-true-peak=-1", "--gain", "2"], "sets the gain itself"),
            convert(["--loudness", "5"], "--loudness takes -70 to 0 LUFS"),
            convert(["--loudness", "-16", "--true-peak", "3"], "--true-peak takes -30 to 0 dBTP"),
            convert(["--true-peak", "-2"], "go with --loudness"),
            convert(["--loudness", "-16", "--max-limiting", "50"], "--max-limiting takes 0 to 40 dB"),
            convert(["--loudness", "-16", "--max-limiting", "5", "--no-limiter"], "cannot go together"),
            convert(["--trim-silence=5"], "--trim-silence takes -120 to 0 dBFS"),
            convert(["--start", "x"], "--start takes seconds"),
            convert(["--end", "1", "--duration", "1"], "--end and --duration: give one"),
            convert(["--fade-shape", "q"], "--fade-shape shapes --fade-in and --fade-out"),
            convert(["--fade-in", "1", "--fade-shape", "z"], "--fade-shape takes q, h, t, l or p"),
            convert(["--pad", "1,2,3"], "--pad takes START[,END]"),
            convert(["--gain", "100"], "--gain takes -120 to 60 dB"),
            convert(["-c", "0"], "-c takes 1 to 64 channels"),
            convert(["--mix", "1,1", "-m", "1"], "give --mix or -m, not both"),
            convert(["-c", "1", "--mix", "1,0;0,1"], "a mix for 2 output channels"),
            convert(["-l", "NoSuchLayout"], "no such layout tag"),
            convert(["-r", "200"], "-r (--src-quality) takes 0 to 127"),
            convert(["--src-complexity", "x"], "--src-complexity takes line, norm or bats"),
            convert(["-q", "200"], "-q takes 0 to 127"),
            convert(["-s", "7"], "-s takes 0, 1, 2 or 3"),
            convert(["--mix", "x"], "--mix x: give rows of numbers"),
            convert(["-m", "x"], "-m x: give each output channel's source channel"),
            Case(["batch", "--preset", "sfx", "--out", "{out}/b", "--jobs", "0", s], "--jobs takes 1 to 256"),
            Case(["batch", "--preset", "sfx", "--out", "{out}/b", "-ar", "x", s], "-ar takes a sample rate"),
            Case(
                ["batch", "--preset", "sfx", "--out", "{out}/b", "--name", "{nothing}", s], "no placeholder {nothing}"),
            packets(["--chunk-size", "0"], "--chunk-size must be at least 1"),
            packets(["--icy-metaint", "0"], "--icy-metaint must be at least 1"),
            packets(["--json", "--json-lines"], "--json and --json-lines are alternatives"),
            packets(["--duration=-1"], "--duration must be a positive number"),
            Case(
                ["packets", "--icy-metaint", "5", "http://127.0.0.1:9/a"], about: "http://127.0.0.1:9/a",
                "--icy-metaint is read"),
            Case(["packets", "--json-lines", s], about: s, "follow a stream over HTTP"),
            packets(["--type-hint", "zzz"], "--type-hint 'zzz' names no container"),
            packets(["--variant", "qq"], "--variant takes best, worst or a bit rate"),
            packets(["--read-timeout", "0"], "--read-timeout must be a positive number"),
            packets(["--reconnect-attempts=-1"], "--reconnect-attempts must be 0 or more"),
            packets(["--max-time", "0"], "--max-time must be a positive number"),
            packets(["--speed-limit", "0"], "--speed-limit must be a positive number"),
            packets(["--speed-limit", "5", "--speed-time", "0"], "--speed-time must be a positive number"),
            packets(["--speed-time", "5"], "--speed-time goes with --speed-limit"),
            packets(["--ca-file", "{out}/none.pem"], "--ca-file"),
            Case(["validate", "--profile", "bogus", s], "no profile 'bogus'"),
            Case(["validate", "--profile", "{out}/none.json", s], "'{out}/none.json' cannot be read as a profile"),
            wave(["--zoom", "4", "--pixels-per-second", "3"], "give --zoom or --pixels-per-second, not both"),
            wave(["--zoom", "0"], "--zoom 0 is out of range"),
            wave(["--pixels-per-second", "0"], "--pixels-per-second 0 is out of range"),
            wave(["--bits", "7"], "--bits 7 is out of range"),
            Case(["waveform", s, "-o", "{out}/w.xyz"], about: "{out}/w.xyz", "name it .json or .dat"),
            wave(["--width", "5"], "--width 5 is out of range"),
            wave(["--background-color", "zz"], "--background-color zz: give six hex digits"),
            wave(["--amplitude-scale", "0"], "--amplitude-scale 0 is out of range"),
            hls(["--renditions", "stereo:64k", "--bitrates", "64k"], "leave out --bitrates and -c"),
            hls(["--bitrates", "64k,,128k"], "a rendition is missing between commas"),
            hls(["--renditions", "loud:64k"], "is no LAYOUT:RATE"),
            hls(["--bitrates", "fast"], "'fast' is no bit rate"),
            hls(["--bitrates", "2k"], "outside AAC-LC's 8k to 320k"),
            hls(["--bitrates", "64k,64k"], "64k is given twice"),
            hls(["-d", "ima4"], "afkit hls writes AAC-LC renditions"),
            hls(["-c", "7"], "-c takes 1 to 6 or 8 channels"),
            hls(["--language", "12"], "is no BCP 47 language tag"),
            hls(["--name", "a\"b"], "--name: give a NAME with no quote"),
            hls(["--segment-duration", "0"], "a segment duration of 0 s"),
            Case(["join", s, "-o", "{out}/j.caf"], "give two or more inputs"),
            Case(["join", "-m", "1", s, s, "-o", "{out}/j.caf"], "join and mix take -c"),
            Case(["join", "-d", "0", s, s, "-o", "{out}/j.caf"], "-d 0 copies one source's format"),
            Case(["mix", s, s, "--levels", "x", "-o", "{out}/m.caf"], "1 value for 2 inputs"),
            Case(["mix", s, s, "--levels", "200,0", "-o", "{out}/m.caf"], "--levels takes dB from -120 to 60"),
            Case(["mix", s, s, "--at", "x,0", "-o", "{out}/m.caf"], "--at takes seconds"),
        ]
    }()

    /// argument-parser's own errors: a value invalid or missing, for options of each kind.
    static let parseErrors: [Case] = [
        Case(["convert", "-c", "x", source, "{out}/x.caf"], "The value 'x' is invalid for '-c"),
        Case(["convert", "-d", "bogus", source, "{out}/x.caf"], "The value 'bogus' is invalid for '-d"),
        Case(["convert", "-f", "bogus", source, "{out}/x.caf"], "The value 'bogus' is invalid for '-f"),
        Case(["convert", "--preset", "bogus", source, "{out}/x.caf"], "The value 'bogus' is invalid for '--preset"),
        Case(["convert", "-b", "1x", source, "{out}/x.caf"], "The value '1x' is invalid for '-b"),
        Case(["convert", source, "{out}/x.caf", "-c"], "Missing value for '-c"),
        Case(["batch", "--preset", "sfx", "--out", "{out}/b", "--jobs", "x", source], "invalid for '--jobs"),
        Case(["packets", "--chunk-size", "x", source], "The value 'x' is invalid for '--chunk-size"),
        Case(["packets", source, "--chunk-size"], "Missing value for '--chunk-size"),
        Case(["validate", "--format", "yaml", source], "The value 'yaml' is invalid for '--format"),
        Case(["waveform", "--zoom", "x", source, "-o", "{out}/w.png"], "The value 'x' is invalid for '--zoom"),
        Case(["hls", "--segment-duration", "x", source, "--out", "{out}/h"], "invalid for '--segment-duration"),
        Case(["join", "-c", "x", source, source, "-o", "{out}/j.caf"], "The value 'x' is invalid for '-c"),
        Case(["mix", source, source, "-o"], "Missing value for '-o"),
        Case(["info", source, "--json=yes"], "--json"),
    ]

    /// Runs `arguments` and checks the message: its first line in the shape, the usage after it, status 2.
    static func check(_ usage: Case, in folder: String) throws {
        let arguments = usage.arguments.map { $0.replacingOccurrences(of: "{out}", with: folder) }
        let command = arguments[0]
        let result = try Command.run(arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let file = usage.about.map { $0.replacingOccurrences(of: "{out}", with: folder) }
        let shape = "\(command): " + (file.map { "\($0): " } ?? "") + "error: "
        #expect(lines[0].hasPrefix(shape), "\(arguments): \(result.stderr)")
        let says = usage.says.replacingOccurrences(of: "{out}", with: folder)
        #expect(lines[0].contains(says), "\(arguments): \(result.stderr)")
        // The command's usage follows, and no line in argument-parser's own shape is left.
        #expect(lines.contains { $0.hasPrefix("Usage: afkit \(command) ") }, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("See 'afkit \(command) --help'"), "\(arguments): \(result.stderr)")
        #expect(!lines.contains { $0.hasPrefix("Error: ") }, "\(arguments): \(result.stderr)")
    }

    @Test(arguments: validateChecks) func everyValidateCheckNamesItsCommand(_ usage: Case) throws {
        let folder = try ScratchFolder()
        try Self.check(usage, in: folder.path)
    }

    @Test(arguments: parseErrors) func everyParseErrorNamesItsCommand(_ usage: Case) throws {
        let folder = try ScratchFolder()
        try Self.check(usage, in: folder.path)
    }

    /// The subcommands `afkit help` lists.
    static func subcommands() throws -> [String] {
        let help = try Command.run(["help"]).stdout
        let listed = try #require(help.range(of: "SUBCOMMANDS:")).upperBound
        return help[listed...].split(separator: "\n").compactMap { line in
            // A command's line is indented by two spaces; its abstract's wrapped lines by more.
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first,
                name.allSatisfy({ $0.isLowercase })
            else { return nil }
            return String(name)
        }
    }

    /// Each subcommand with all it needs (an unknown option is reported once nothing is missing).
    static let complete: [String: [String]] = [
        "info": [source], "validate": [source], "convert": [source, "{out}/x.caf"],
        "batch": ["--preset", "sfx", "--out", "{out}/b", source], "packets": [source],
        "waveform": [source, "-o", "{out}/w.png"], "clip": [source], "hls": [source, "--out", "{out}/h"],
        "join": [source, source, "-o", "{out}/j.caf"], "mix": [source, source, "-o", "{out}/m.caf"],
    ]

    /// In every subcommand `afkit help` lists: an unknown option, and the command with no argument at all (each
    /// needs one: a missing argument or option).
    @Test func everyCommandWordsUnknownOptionsAndMissingArguments() throws {
        let folder = try ScratchFolder()
        let commands = try Self.subcommands()
        #expect(commands.count >= 10, "\(commands)")
        for command in commands {
            let arguments = try #require(Self.complete[command], "\(command): no complete arguments in the table")
            try Self.check(
                Case([command, "--no-such-option"] + arguments, "Unknown option '--no-such-option'"), in: folder.path)
            try Self.check(Case([command], "Missing expected argument"), in: folder.path)
        }
    }

    /// afkit itself: an unknown option, an unexpected argument, help for no such command, a name with a dash that
    /// names no file.
    @Test func afkitItselfNamesItself() throws {
        for (arguments, first) in [
            (["--no-such-option"], "afkit: error: Unknown option '--no-such-option'"),
            (["bogus"], "afkit: error: Unexpected argument 'bogus'"),
            (["help", "bogus"], "afkit: error: no subcommand 'bogus': afkit has info, "),
            (["info", "-none.wav"], "info: error: '-none.wav' is no option and no file here"),
            (["clip", "-none.wav"], "clip: error: '-none.wav' is no option and no file here"),
        ] {
            let result = try Command.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix(first), "\(arguments): \(result.stderr)")
        }
    }

    /// `--profile <TAB>` offers the built-in profiles and the JSON profile files (and the folders on the way to
    /// them) in bash, zsh and fish, in every command that takes one (validate, convert, batch): afkit works them out
    /// as the shell asks (`---completion`), where the scripts offered the names alone (and, before, nothing).
    @Test func profileCompletionOffersTheBuiltInProfilesAndProfileFiles() throws {
        let names = [
            "system-sound", "simultaneous-sfx", "music", "game-sfx", "music-streaming", "dialogue", "hls-audio",
        ]
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/profiles", withIntermediateDirectories: true)
        for file in ["my.json", "notes.txt", "profiles/loud.json", ".hidden.json"] {
            try Data("{}".utf8).write(to: URL(fileURLWithPath: folder.path + "/" + file))
        }
        for shell in ["bash", "zsh", "fish"] {
            let script = try Command.run(["--generate-completion-script", shell])
            #expect(script.status == 0, "\(shell): \(script.stderr)")
            for command in ["validate", "convert", "batch"] {
                #expect(
                    script.stdout.contains("---completion \(command) -- --profile "), "\(shell) \(command): no call")
            }
            // The call each script makes, for a word typed: the tokens after the word's index and cursor.
            func offered(_ typed: String) throws -> [String] {
                let result = try Command.run(
                    [
                        "---completion", "validate", "--", "--profile", "3", "\(typed.count)", "afkit", "validate",
                        "--profile", typed,
                    ],
                    environment: ["SAP_SHELL": shell])
                #expect(result.status == 0, "\(shell) \(typed): \(result.stderr)")
                // (zsh's script drops a last line, which afkit's answer for zsh adds.)
                return result.stdout.split(separator: "\n").map(String.init).filter { $0 != " " }
            }
            let folderMark = shell == "bash" ? "" : "/"  // bash marks folders itself
            #expect(Array(try offered("").prefix(names.count)) == names, "\(shell)")
            #expect(try offered("mu") == ["music", "music-streaming"], "\(shell)")
            #expect(
                try offered(folder.path + "/")
                    == [folder.path + "/my.json", folder.path + "/profiles" + folderMark], "\(shell)")
            #expect(try offered(folder.path + "/pro") == [folder.path + "/profiles" + folderMark], "\(shell)")
            #expect(try offered(folder.path + "/profiles/") == [folder.path + "/profiles/loud.json"], "\(shell)")
            #expect(try offered(folder.path + "/.h") == [folder.path + "/.hidden.json"], "\(shell)")
        }
    }

    /// `-f <TAB>` offers the file type codes afkit writes (`FileTypeArgument.allValueStrings`, from the container
    /// registry) in bash, zsh and fish, for every command that takes `-f` (convert, batch, join, mix): it offered
    /// nothing.
    @Test func fileTypeCompletionOffersTheCodesAfkitWrites() throws {
        let codes = ["caff", "AIFF", "AIFC", "WAVE", "RF64", "m4af", "adts", "MPG3", "flac", "opus", "ogg", "NeXT"]
        let offered: [String: String] = [
            "bash": "'-f')\n        __afkit_add_completions -W " + codes.map { "'\($0)'" }.joined(separator: "$'\\n'"),
            "zsh": "__f=(" + codes.map { "'\($0)'" }.joined(separator: " ") + ")",
            "fish": "-s 'f' ",
        ]
        for (shell, list) in offered {
            let script = try Command.run(["--generate-completion-script", shell])
            #expect(script.status == 0, "\(shell): \(script.stderr)")
            if shell == "fish" {
                let lines = script.stdout.split(separator: "\n").filter { $0.contains(list) }
                #expect(lines.count == 4, "\(lines)")
                #expect(lines.allSatisfy { $0.hasSuffix("-rfka '" + codes.joined(separator: " ") + "'") }, "\(lines)")
            } else {
                #expect(script.stdout.components(separatedBy: list).count == 5, "\(shell): \(script.stdout)")
            }
        }
        // The list is the one `convert -hf` gives, the file types afkit writes.
        let listed = try Command.run(["convert", "-hf"]).stdout.split(separator: "\n").compactMap { line in
            line.hasPrefix("'") ? line.split(separator: "'").first.map(String.init) : nil
        }
        #expect(listed == codes, "\(listed)")
    }
}
