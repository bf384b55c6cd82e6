import AudioContainers
import AudioFormats
import FileAccess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `-` as a FILE: standard input is copied to a hidden temporary file (random access is what the
/// file commands need; `packets -` streams instead), removed when the command ends or is interrupted.
enum StandardStreams {
    /// Copies standard input to a temporary file; returns its path. The caller removes it with
    /// `TemporaryFiles.discard(_:)`.
    static func spoolStandardInput() throws -> String {
        try spool(named: "stdin", what: "standard input") { write in
            try forEachChunk(ofFileAt: nil, chunkSize: 1 << 20, write)
        }
    }

    /// Keeps the bytes `body` gives its `write` (`what` names them in an error) in a private temporary file
    /// (``createSpool(named:)``); returns its path, which the caller removes with `TemporaryFiles.discard(_:)`. Where `body`
    /// fails, nothing is left behind.
    static func spool(
        named name: String, what: String, _ body: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> String {
        let path = try createSpool(named: name)
        let descriptor: Int32
        do {
            descriptor = try TemporaryFiles.openOwnFile(path, flags: O_WRONLY)
        } catch {
            TemporaryFiles.discard(path)
            throw error
        }
        defer { close(descriptor) }
        do {
            try body { chunk in
                if let failure = Output.writeAll(chunk, to: descriptor) {
                    throw AudioFileError.io("cannot keep \(what) in '\(path)'", errno: failure)
                }
            }
        } catch {
            TemporaryFiles.discard(path)
            throw error
        }
        return path
    }

    /// Creates a private temporary file (mode 0600) in `TemporaryFiles.folder`: a random name, created
    /// exclusively and never through a link; known to ``TemporaryFiles`` until it discards it.
    static func createSpool(named name: String) throws -> String {
        try createTemporaryFile(beside: TemporaryFiles.folder + "/" + name, permissions: 0o600)
    }

    /// Copies a file to standard output (through ``Output``, so a failed write ends the command as
    /// the contract says).
    static func copyToStandardOutput(_ path: String) throws {
        try forEachChunk(ofFileAt: path, chunkSize: 1 << 20) { chunk in
            Output.standardOutput(bytes: chunk)
        }
    }
}
