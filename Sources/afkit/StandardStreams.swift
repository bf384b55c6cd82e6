import AudioContainers
import AudioFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `-` as a FILE: standard input is copied to a hidden temporary file (random access is what the
/// file commands need; `packets -` streams instead), removed when the command ends or is interrupted.
enum StandardStreams {
    /// Copies standard input to a temporary file; returns its path. The caller removes it with
    /// ``discard(_:)``.
    static func spoolStandardInput() throws -> String {
        let folder = environmentValue("TMPDIR") ?? "/tmp"
        let path = temporaryPath(beside: folder + "/stdin")
        TemporaryFiles.register(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            TemporaryFiles.unregister(path)
            throw AudioFileError.io("cannot create a temporary file in '\(folder)' for standard input", errno: errno)
        }
        defer { close(descriptor) }
        do {
            try forEachChunk(ofFileAt: nil, chunkSize: 1 << 20) { chunk in
                var offset = 0
                while offset < chunk.count, let base = chunk.baseAddress {
                    let written = write(descriptor, base + offset, chunk.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else {
                        throw AudioFileError.io("cannot keep standard input in '\(folder)': no space", errno: errno)
                    }
                    offset += written
                }
            }
        } catch {
            discard(path)
            throw error
        }
        return path
    }

    /// Removes a temporary file made here.
    static func discard(_ path: String) {
        removeFile(path)
        TemporaryFiles.unregister(path)
    }

    /// Copies a file to standard output (through ``Output``, so a failed write ends the command as
    /// the contract says).
    static func copyToStandardOutput(_ path: String) throws {
        try forEachChunk(ofFileAt: path, chunkSize: 1 << 20) { chunk in
            Output.standardOutput(bytes: chunk)
        }
    }

    private static func environmentValue(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}
