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
    /// A hidden path in `$TMPDIR` (or /tmp) for a temporary file, known to ``TemporaryFiles`` until
    /// ``discard(_:)``, so an interrupted command removes it.
    static func temporaryFile(named name: String) -> String {
        let path = temporaryPath(beside: (environmentValue("TMPDIR") ?? "/tmp") + "/" + name)
        TemporaryFiles.register(path)
        return path
    }

    /// Copies standard input to a temporary file; returns its path. The caller removes it with
    /// ``discard(_:)``.
    static func spoolStandardInput() throws -> String {
        let path = try createSpool(named: "stdin")
        let descriptor: Int32
        do {
            descriptor = try TemporaryFiles.openOwnFile(path, flags: O_WRONLY)
        } catch {
            discard(path)
            throw error
        }
        defer { close(descriptor) }
        do {
            try forEachChunk(ofFileAt: nil, chunkSize: 1 << 20) { chunk in
                if let failure = Output.writeAll(chunk, to: descriptor) {
                    throw AudioFileError.io("cannot keep standard input in '\(path)'", errno: failure)
                }
            }
        } catch {
            discard(path)
            throw error
        }
        return path
    }

    /// Creates a private temporary file (mode 0600) in `$TMPDIR` (or /tmp): a random name, created
    /// exclusively and never through a link; known to ``TemporaryFiles`` until ``discard(_:)``.
    static func createSpool(named name: String) throws -> String {
        try createTemporaryFile(beside: (environmentValue("TMPDIR") ?? "/tmp") + "/" + name, permissions: 0o600)
    }

    /// Removes a temporary file made here (only while the name still holds the file made).
    static func discard(_ path: String) {
        if TemporaryFiles.identity(of: path) == nil || TemporaryFiles.holdsOwnFile(path) { removeFile(path) }
        TemporaryFiles.unregister(path)
    }

    /// Copies a file to standard output (through ``Output``, so a failed write ends the command as
    /// the contract says).
    static func copyToStandardOutput(_ path: String) throws {
        try forEachChunk(ofFileAt: path, chunkSize: 1 << 20) { chunk in
            Output.standardOutput(bytes: chunk)
        }
    }

    /// Copies a finished file into an output that is a device or a FIFO.
    static func copy(_ path: String, to descriptor: Int32, named name: String) throws {
        try forEachChunk(ofFileAt: path, chunkSize: 1 << 20) { chunk in
            if let failure = Output.writeAll(chunk, to: descriptor) {
                throw AudioFileError.io(
                    "cannot write '\(name)' (\(String(cString: strerror(failure))))", errno: failure)
            }
        }
    }

    private static func environmentValue(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// What an existing output path names.
struct OutputTarget {
    enum Kind {
        case regularFile
        /// A character device or a FIFO: written into, front to back.
        case stream
        /// Anything else (a directory, a socket, a block device), named for the message.
        case other(String)
    }

    var identity: FileIdentity
    var kind: Kind

    /// The output at `path` (following links), or `nil` where nothing is there.
    init?(path: String) {
        var info = stat()
        guard statPath(path, &info) == 0 else { return nil }
        identity = FileIdentity(info)
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regularFile
        case S_IFCHR, S_IFIFO: kind = .stream
        case S_IFDIR: kind = .other("a directory")
        case S_IFSOCK: kind = .other("a socket")
        case S_IFBLK: kind = .other("a block device")
        default: kind = .other("not a regular file")
        }
    }

    /// Opens a device or FIFO for writing without waiting (a FIFO with no reader is an error, not a hang).
    func openForWriting(_ path: String) throws -> Int32 {
        let descriptor = openPath(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            let reason = code == ENXIO ? "a FIFO with no reader" : String(cString: strerror(code))
            throw AudioFileError.io("cannot write '\(path)': \(reason)", errno: code)
        }
        // Writes then wait for the reader, as they would on standard output.
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK)
        return descriptor
    }
}
