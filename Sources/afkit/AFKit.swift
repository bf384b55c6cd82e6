import ArgumentParser
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import AudioStreaming
import Dispatch
import FileAccess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `afkit` command: AudioToolbox's file tools for build servers.
@main
struct AFKit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "afkit",
        abstract:
            "Inspect, stream-parse, validate and convert audio files: reads "
            + ContainerRegistry.all.map(\.name).joined(separator: ", ") + "; writes "
            + ContainerRegistry.written.map(\.name).joined(separator: ", ") + ".",
        discussion: reference,
        version: AudioConverter.version,
        subcommands: [
            Info.self, Validate.self, Convert.self, Batch.self, Packets.self, Waveform.self, Clip.self, HLSCommand.self,
            Join.self, Mix.self,
        ]
    )

    /// Exit statuses of the contract: 0 success, 1 a problem was found, 2 a usage error.
    enum Status {
        static let problemFound: Int32 = 1
        static let usage: Int32 = 2
    }

    /// Parses the arguments and runs the subcommand, mapping argument-parser's usage status (64) to 2.
    static func main() {
        // A closed standard output is an error from write (handled in Output), not a SIGPIPE death; a
        // file-size limit is an error from write, not a SIGXFSZ death.
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        holdClosedStandardDescriptors()
        Interruption.install()
        // No subcommand at all, or help for one that does not exist, is a usage error (status 2).
        // Arguments as bytes: a name that is not UTF-8 keeps every byte (PathEscaping).
        let arguments = (1..<Int(CommandLine.argc)).map { index in
            CommandLine.unsafeArgv[index].map {
                PathEscaping.string(fromBytes: UnsafeRawBufferPointer(start: $0, count: strlen($0)))
            }
                ?? ""
        }
        // A password in a URL given on the command line is never printed, in any spelling.
        for argument in arguments { Redaction.noteCredentials(in: argument) }
        if arguments.isEmpty {
            Output.standardError(helpMessage() + "\n")
            terminate(Status.usage)
        }
        // The command every message names: the subcommand given, else afkit itself.
        let names = configuration.subcommands.map { $0._commandName }
        let command = names.contains(arguments[0]) ? arguments[0] : configuration.commandName ?? "afkit"
        if Set(arguments) == ["--version", "--verbose"] {
            Output.standardOutput(verboseVersion())
            terminate(0)
        }
        if arguments[0] == "help", arguments.count > 1, !names.contains(arguments[1]) {
            Output.standardError(
                commandMessage(
                    command, .error, "no subcommand '\(arguments[1])': afkit has \(names.joined(separator: ", "))"))
            terminate(Status.usage)
        }
        if arguments.first == "convert" && arguments.dropFirst().prefix(while: { $0 != "--" }).contains("-hf") {
            Output.standardOutput(Convert.fileTypesAndFormats)
            terminate(0)
        }
        let named = namingDashFiles(arguments)
        if let stray = named.stray {
            Output.standardError(
                fileMessage(
                    command, stray, .error,
                    "'\(stray)' is no option and no file here: use -- before file names that start with - (afkit "
                        + "\(names.contains(arguments[0]) ? arguments[0] : "info") -- \(stray))"))
            terminate(Status.usage)
        }
        do {
            var command = try parseAsRoot(SharedConversionOptions.supplyingOptionalValues(named.arguments))
            if let networked = command as? any NetworkCommand, networked.readsNetwork { runOverNetwork(networked) }
            try command.run()
        } catch {
            exit(for: error, in: command)
        }
    }

    /// Runs a command's network part, which awaits, as a task while the main thread
    /// serves the main queue; ends the process. (Everything else runs synchronously on the main thread,
    /// needing no worker thread: under a tight address-space limit a command then fails instead of
    /// waiting for a thread that cannot be made.)
    static func runOverNetwork(_ command: sending any NetworkCommand) -> Never {
        Task {
            do {
                try await command.runOverNetwork()
                terminate(0)
            } catch {
                exit(for: error, in: type(of: command)._commandName)
            }
        }
        dispatchMain()
    }

    /// Reports `error` of `command` (a subcommand's name, or `afkit`) and ends with the contract's status (usage:
    /// 2). argument-parser's `Error: TEXT` (an unknown option, a value missing or invalid, an argument missing, a
    /// `validate()` check) becomes `COMMAND: error: TEXT`, the shape of every message; the help and usage lines
    /// after it are kept.
    static func exit(for error: any Error, in command: String) -> Never {
        let code = exitCode(for: error)
        let message = fullMessage(for: error)
        if code == .success {
            if !message.isEmpty { Output.standardOutput(message + "\n") }
            terminate(0)
        }
        if !message.isEmpty { Output.standardError(worded(message, in: command)) }
        terminate(code == .validationFailure ? Status.usage : code.rawValue)
    }

    /// argument-parser's message (`Error: TEXT`, then any help and usage lines) as afkit words it: its first
    /// line `COMMAND: error: TEXT`; a message in another shape is kept as it is. Ends with a line feed.
    static func worded(_ message: String, in command: String) -> String {
        let prefix = "Error: "
        guard message.hasPrefix(prefix) else { return message + "\n" }
        let lines = message.dropFirst(prefix.count).split(
            separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        return commandMessage(command, .error, String(lines[0])) + (lines.count > 1 ? lines[1] + "\n" : "")
    }
}

/// A command that reads the network when it is given a URL. Its network part awaits (HTTP over
/// libcurl); the command runs it only when ``readsNetwork``.
protocol NetworkCommand: ParsableCommand {
    /// Whether the arguments name a stream URL.
    var readsNetwork: Bool { get }
    /// The run when ``readsNetwork``.
    func runOverNetwork() async throws
}

/// `afkit --version --verbose`: afkit's version, then each engine's as this process loads it (those
/// loaded on use are loaded now), or "not installed".
func verboseVersion() -> String {
    let engines =
        EngineVersions.conversion + [("libcurl", HTTPAudioStream.engineVersion.map { "\($0) (loaded on use)" })]
    let width = engines.map(\.engine.count).max() ?? 0
    var text = "afkit \(AudioConverter.version)\n"
    for (engine, version) in engines {
        text += engine + String(repeating: " ", count: width - engine.count + 2) + (version ?? "not installed") + "\n"
    }
    return text
}

/// File names that start with a dash (`afkit info -dash.wav`), which argument-parser would take for
/// short options (`-h` among them: help, status 0): one that names an existing file is read as that file
/// (`./-dash.wav`); one that looks like a file name (a dot or a slash in it) but names nothing is
/// returned as `stray`, a usage error. Arguments after `--` are left as they are.
func namingDashFiles(_ arguments: [String]) -> (arguments: [String], stray: String?) {
    var result: [String] = []
    var afterTerminator = false
    for argument in arguments {
        defer { if argument == "--" { afterTerminator = true } }
        // Negative numbers are values (`--loudness -16.5`), not names.
        guard !afterTerminator, argument.count > 2, argument.hasPrefix("-"), !argument.hasPrefix("--"),
            Double(argument) == nil
        else {
            result.append(argument)
            continue
        }
        if pathExists(argument) {
            result.append("./" + argument)
        } else if argument.contains(".") || argument.contains("/") {
            return (arguments, argument)
        } else {
            result.append(argument)
        }
    }
    return (result, nil)
}

/// A standard descriptor the caller closed (`afkit packets --json a.caf >&-`) is held by `/dev/null`
/// opened read-only: no file afkit opens takes its number (a listing would go into a spool that got
/// descriptor 1), and a write to it fails with EBADF as one to the closed descriptor does, so the
/// report that cannot be written is an error (status 1), never silently lost.
func holdClosedStandardDescriptors() {
    for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
        let held = open("/dev/null", O_RDONLY)
        if held >= 0 && held != descriptor {
            dup2(held, descriptor)
            close(held)
        }
    }
}

/// Ends the process with a status, once any HTTP transfer still running has closed its connection.
func terminate(_ status: Int32) -> Never {
    HTTPAudioStream.endAllTransfers()
    exit(status)
}

/// SIGINT, SIGTERM and SIGHUP: the temporaries being written are removed, a progress line cleared and the
/// interruption said, then the process exits as a
/// shell expects (128 + the signal: 130, 143, 129). The signals are blocked in every thread and taken
/// by one small thread of their own with `sigwait`, outside signal-handler context, so the removal may
/// lock and allocate (and no thread pool is needed: it works under tight resource limits too).
enum Interruption {
    static func install() {
        var signals = interruptions()
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 256 << 10)
        var thread = pthread_t()
        let started = pthread_create(
            &thread, &attributes,
            { _ in
                var signals = Interruption.interruptions()
                var number: Int32 = 0
                while sigwait(&signals, &number) != 0 {}
                TemporaryFiles.removeAll()
                // A progress line drawn is cleared, so the shell's prompt does not land on it, and the end said.
                if ProgressLine.isDrawn.load(ordering: .relaxed) { Output.clearTerminalLine() }
                Output.standardError("afkit: interrupted: the files it was writing were removed\n")
                _exit(128 + number)
            }, nil)
        // Without the thread, the signals keep their default action (no cleanup, but no hang either).
        if started != 0 { pthread_sigmask(SIG_UNBLOCK, &signals, nil) }
    }

    static func interruptions() -> sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals, number) }
        return signals
    }
}

/// Writes straight to the standard streams (no buffering to flush before exiting). Every text afkit prints
/// passes here, so every URL in it passes the one redaction (``Redaction/credentialsRemoved(from:)``: no
/// password of the command line, a playlist or a redirect is printed) and every name its escaping
/// (``PathEscaping/displayed(_:)``) and no raw control character but line feeds and tabs
/// (``PathEscaping/withoutRawControls(_:)``: a playlist's URI cannot reach the terminal as an escape sequence), in
/// every report format. A report that cannot
/// reach standard output (a full disk, a closed file) ends the command with status 1 and a message; a
/// reader that closed the pipe (`afkit info *.caf | head -1`) ends it quietly with status 0.
enum Output {
    static func standardOutput(_ text: String) {
        var text = PathEscaping.withoutRawControls(PathEscaping.displayed(Redaction.credentialsRemoved(from: text)))
        text.withUTF8 { standardOutput(bytes: UnsafeRawBufferPointer($0)) }
    }

    static func standardOutput(bytes: UnsafeRawBufferPointer) {
        guard let failure = writeAll(bytes, to: 1) else { return }
        // The command ends here: its temporaries (a spooled input, a packet list) go first.
        TemporaryFiles.removeAll()
        if failure == EPIPE { _exit(0) }
        let reason = strerror(failure).map { String(cString: $0) } ?? "error \(failure)"
        standardError("afkit: cannot write the report to standard output: \(reason)\n")
        _exit(AFKit.Status.problemFound)
    }

    static func standardError(_ text: String) {
        var text = PathEscaping.withoutRawControls(PathEscaping.displayed(Redaction.credentialsRemoved(from: text)))
        _ = text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: 2) }
    }

    /// Clears the terminal line on standard error (a progress line's `\r` and erase-line sequence): the one
    /// control sequence afkit writes; every other control character it prints is spelled out.
    static func clearTerminalLine() {
        _ = "\r\u{1B}[K".utf8CString.withUnsafeBytes {
            writeAll(UnsafeRawBufferPointer(rebasing: $0.dropLast()), to: 2)
        }
    }

    /// Writes every byte to a descriptor; returns the errno of a failed write, or `nil`.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let count = write(descriptor, base + offset, bytes.count - offset)
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return errno }
            if count == 0 { return EIO }
            offset += count
        }
        return nil
    }
}

/// A usage error: the message (`COMMAND: error: TEXT`, or `COMMAND: FILE: error: TEXT` where it is about one file)
/// and the subcommand's usage on standard error, status 2. Thrown from `run()`, after argument-parser's own checks
/// (so an unknown option is reported before a path), or from `validate()` for a message about one file (the
/// `ExitCode` it returns passes argument-parser unchanged; a `ValidationError` is worded by ``AFKit/exit(for:in:)``,
/// which knows no file).
func usageError(_ message: String, about file: String? = nil, in command: ParsableCommand.Type) -> ExitCode {
    // A message about one file is worded as every message about a file is (`convert: a.wav: error: ...`).
    let first =
        file.map { fileMessage(command._commandName, $0, .error, message) }
        ?? commandMessage(command._commandName, .error, message)
    Output.standardError(
        first + "Usage: \(AFKit.usageString(for: command))\n"
            + "  See 'afkit \(command._commandName) --help' for more information.\n")
    return ExitCode(AFKit.Status.usage)
}

/// Fails with a usage error (status 2) where standard output is a regular file that is one of `inputs`
/// (`afkit info a.caf >> a.caf`): a report never goes into a file the command reads.
func checkStandardOutput(against inputs: [String], in command: ParsableCommand.Type) throws {
    do { try OutputGuard(inputs: inputs).checkStandardOutput() } catch {
        throw usageError(error.description, in: command)
    }
}

/// Fails with a usage error (status 2, `COMMAND: PATH: error: TEXT` and the usage) for a path that does not exist,
/// or that names a folder where the command reads files (``inputPathProblem(_:readsFolders:sounds:)``).
func checkPathsExist(
    _ paths: [String], in command: ParsableCommand.Type, allowStandardInput: Bool = false, readsFolders: Bool = false,
    sounds: Bool = true
) throws {
    for path in paths where !(allowStandardInput && path == "-") {
        if let problem = inputPathProblem(path, readsFolders: readsFolders, sounds: sounds) {
            throw usageError(problem, about: path, in: command)
        }
    }
}

/// Why `path`, given on the command line as an input, is a usage error, or `nil`: it does not exist, or it is a
/// folder and the command reads files (every command but `validate` and `batch`, which search folders). The one
/// place that decides this for every command (`info` reports the problem in the file's place and the others read
/// on, as it does any file that cannot be read; the status is 2 all the same). A folder given for sounds (not, say,
/// a chapter file) is pointed to the commands that search folders.
func inputPathProblem(_ path: String, readsFolders: Bool = false, sounds: Bool = true) -> String? {
    var info = stat()
    if statPath(path, &info) != 0 { return "no such file" }
    guard !readsFolders && (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
    guard sounds else { return "is a folder, not a file" }
    return "is a folder, not a file (afkit batch --preset NAME --out FOLDER '\(path)' converts the sounds in a "
        + "folder, afkit validate '\(path)' checks them)"
}
