#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import AudioFormats

// All of afkit's operating-system I/O lives in this file: plain POSIX calls, no Foundation.

/// A file opened for reading at any offset.
final class ReadableFile {
    let path: String
    private let descriptor: Int32
    /// Bytes in the file when it was opened.
    let size: Int64

    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw ioError("cannot open '\(path)'") }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = ioError("cannot stat '\(path)'")
            close(descriptor)
            throw error
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw AudioFileError.io("'\(path)' is not a regular file", errno: EISDIR)
        }
        size = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (0 at the end).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        return try transferAll(buffer.count, failure: "cannot read '\(path)'") { done in
            pread(descriptor, base + done, buffer.count - done, off_t(offset) + off_t(done))
        }
    }
}

/// A file written front to back, with in-place patches of headers written earlier.
final class WritableFile {
    let path: String
    private var descriptor: Int32

    /// Creates (or truncates) a file.
    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw ioError("cannot create '\(path)'") }
    }

    /// Moves `count` bytes at `source` to `destination` (later in the file), last piece first so the
    /// ranges may overlap.
    func move(from source: Int64, count: Int64, to destination: Int64) throws {
        precondition(destination >= source, "moves bytes toward the end only")
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var end = count
        while end > 0 {
            let size = Int(min(Int64(buffer.count), end))
            let start = end - Int64(size)
            try buffer.withUnsafeMutableBytes { raw in
                let piece = UnsafeMutableRawBufferPointer(rebasing: raw[0..<size])
                let read = try transferAll(size, failure: "cannot read '\(path)'") { done in
                    pread(descriptor, piece.baseAddress! + done, size - done, off_t(source + start) + off_t(done))
                }
                guard read == size else { throw AudioFileError.io("cannot read back '\(path)'", errno: EIO) }
                try write(UnsafeRawBufferPointer(piece), at: destination + start)
            }
            end = start
        }
    }

    deinit { if descriptor >= 0 { _ = closeDescriptor(descriptor) } }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        guard let base = bytes.baseAddress else { return }
        let written = try transferAll(bytes.count, failure: "cannot write '\(path)'") { done in
            pwrite(descriptor, base + done, bytes.count - done, off_t(offset) + off_t(done))
        }
        guard written == bytes.count else { throw AudioFileError.io("cannot write '\(path)': no space", errno: ENOSPC) }
    }

    func close() throws {
        guard descriptor >= 0 else { return }
        let result = closeDescriptor(descriptor)
        descriptor = -1
        if result != 0 { throw ioError("cannot close '\(path)'") }
    }
}

private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }

/// Reads a file, or standard input when `path` is `nil`, front to back in pieces of exactly
/// `chunkSize` bytes (the last may be shorter), as a network client would receive it.
public func forEachChunk(
    ofFileAt path: String?, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
) throws {
    let fileDescriptor = path.map { open($0, O_RDONLY) } ?? 0
    guard fileDescriptor >= 0 else { throw ioError("cannot open '\(path ?? "-")'") }
    defer { if path != nil { close(fileDescriptor) } }
    var buffer = [UInt8](repeating: 0, count: max(chunkSize, 1))
    var filled = 0
    while true {
        let count = buffer.withUnsafeMutableBytes { raw in
            raw.baseAddress.map { read(fileDescriptor, $0 + filled, raw.count - filled) } ?? 0
        }
        if count < 0 {
            if errno == EINTR { continue }
            throw ioError("cannot read '\(path ?? "-")'")
        }
        filled += count
        if count == 0 || filled == buffer.count {
            if filled > 0 { try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<filled])) } }
            filled = 0
            if count == 0 { return }
        }
    }
}

/// Renames a file, replacing any file at the destination atomically.
public func renameFile(_ source: String, to destination: String) throws {
    guard rename(source, destination) == 0 else { throw ioError("cannot rename '\(source)' to '\(destination)'") }
}

/// Writes the file at `path` so that it appears complete or not at all: `body` writes a hidden temporary
/// file beside it (whose path it is given), which replaces `path` only when `body` returns; when `body`
/// throws, the temporary is removed.
public func writeAtomically<Result>(_ path: String, _ body: (_ temporaryPath: String) throws -> Result) throws -> Result {
    let temporary = temporaryPath(beside: path)
    do {
        let result = try body(temporary)
        try renameFile(temporary, to: path)
        return result
    } catch {
        removeFile(temporary)
        throw error
    }
}

/// A hidden path in the same folder as `path`, unique to this process and call, for writing a file
/// that is renamed into place when complete.
public func temporaryPath(beside path: String) -> String {
    let slash = path.lastIndex(of: "/")
    let folder = slash.map { String(path[...$0]) } ?? ""
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    return "\(folder).\(name).afkit-\(getpid())-\(temporaryCounter.next()).tmp"
}

/// The modification time of a file in nanoseconds since 1970, or `nil` if it does not exist.
public func modificationTime(_ path: String) -> Int64? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
}

/// Creates a directory and its parents.
public func makeDirectories(_ path: String) throws {
    var current = path.hasPrefix("/") ? "/" : ""
    for component in path.split(separator: "/") {
        current += component + "/"
        if !isDirectory(current) && mkdir(current, 0o755) != 0 && errno != EEXIST {
            throw ioError("cannot create the directory '\(current)'")
        }
    }
}

/// Whether standard error is a terminal (for progress bars).
public var standardErrorIsTerminal: Bool { isatty(2) != 0 }

private let temporaryCounter = LockedCounter()

/// A counter that threads may share.
private final class LockedCounter: @unchecked Sendable {
    private var value = 0
    private var mutex = pthread_mutex_t()

    init() { pthread_mutex_init(&mutex, nil) }

    /// Increments and returns the new value, atomically.
    func next() -> Int {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        value += 1
        return value
    }
}

/// Removes a file, ignoring a file that is not there.
public func removeFile(_ path: String) {
    _ = unlink(path)
}

/// Repeats a partial `read`/`write`-style call until `count` bytes moved or it moves none (the end of
/// a file), retrying interrupted calls; returns the bytes moved.
private func transferAll(_ count: Int, failure: @autoclosure () -> String, _ step: (Int) -> Int) throws -> Int {
    var done = 0
    while done < count {
        let moved = step(done)
        if moved < 0 {
            if errno == EINTR { continue }
            throw ioError(failure())
        }
        if moved == 0 { break }
        done += moved
    }
    return done
}

private func ioError(_ message: String) -> AudioFileError {
    let code = errno
    let reason = strerror(code).map { String(cString: $0) } ?? "error \(code)"
    return .io("\(message): \(reason)", errno: code)
}

/// Whether a path names a directory.
public func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
}

/// Whether a path names anything at all.
public func pathExists(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0
}

/// The regular files below a directory, recursively (links to directories are not followed), with
/// paths formed from `path`, sorted.
public func filesBelow(_ path: String) throws -> [String] {
    var found: [String] = []
    var pending = [path]
    while let directory = pending.popLast() {
        guard let handle = opendir(directory) else { throw ioError("cannot read the directory '\(directory)'") }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let child = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var info = stat()
            guard lstat(child, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: pending.append(child)
            case S_IFREG: found.append(child)
            default: break
            }
        }
    }
    return found.sorted()
}
