import ArgumentParser

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
        abstract: "Inspect, stream-parse, validate and convert audio files (CAF, AIFF, WAV, MP3, ADTS).",
        version: "0.1.0",
        subcommands: [Info.self, Validate.self, Convert.self, Batch.self, Packets.self]
    )

    /// Exit statuses of the contract: 0 success, 1 a problem was found, 2 a usage error.
    enum Status {
        static let problemFound: Int32 = 1
        static let usage: Int32 = 2
    }

    /// Parses the arguments and runs the subcommand, mapping argument-parser's usage status (64) to 2.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { Output.standardOutput(message + "\n") }
                terminate(0)
            }
            if !message.isEmpty { Output.standardError(message + "\n") }
            terminate(code == .validationFailure ? Status.usage : code.rawValue)
        }
    }
}

/// Ends the process with a status.
func terminate(_ status: Int32) -> Never { exit(status) }

/// Writes straight to the standard streams (no buffering to flush before exiting).
enum Output {
    static func standardOutput(_ text: String) { writeAll(text, to: 1) }
    static func standardError(_ text: String) { writeAll(text, to: 2) }

    private static func writeAll(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let count = write(descriptor, base + offset, bytes.count - offset)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return }
                offset += count
            }
        }
    }
}

/// Fails with a usage error (status 2) for a path that does not exist.
func checkPathsExist(_ paths: [String], allowStandardInput: Bool = false) throws {
    for path in paths where !(allowStandardInput && path == "-") {
        var info = stat()
        if stat(path, &info) != 0 {
            throw ValidationError("no such file: '\(path)'")
        }
    }
}
