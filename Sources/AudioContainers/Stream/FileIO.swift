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
        // Non-blocking, so a FIFO with no writer cannot hang the open; only regular files are read.
        descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw ioError("cannot open '\(path)'") }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = ioError("cannot stat '\(path)'")
            close(descriptor)
            throw error
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            let kind = switch info.st_mode & S_IFMT {
            case S_IFDIR: "a folder"
            case S_IFIFO: "a named pipe (afkit packets reads one as a stream)"
            case S_IFCHR, S_IFBLK: "a device"
            case S_IFSOCK: "a socket"
            default: "not a regular file"
            }
            throw AudioFileError.io("'\(path)' is \(kind), not a regular file", errno: EISDIR)
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
/// `chunkSize` bytes (the last may be shorter), as a network client would receive it. A named pipe is
/// a stream too: it is opened without waiting for a writer; a writer that is there (or on its way, in
/// its own `open`) is waited for, a pipe with none ends at once, as an empty stream.
public func forEachChunk(
    ofFileAt path: String?, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
) throws {
    let fileDescriptor = path.map { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) } ?? 0
    guard fileDescriptor >= 0 else { throw ioError("cannot open '\(path ?? "-")'") }
    defer { if path != nil { close(fileDescriptor) } }
    if path != nil {
        var info = stat()
        if fstat(fileDescriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            throw AudioFileError.io("'\(path ?? "-")' is a folder, not a stream", errno: EISDIR)
        }
    }
    var buffer = [UInt8](repeating: 0, count: max(chunkSize, 1))
    var filled = 0
    while true {
        let count = buffer.withUnsafeMutableBytes { raw in
            raw.baseAddress.map { read(fileDescriptor, $0 + filled, raw.count - filled) } ?? 0
        }
        if count < 0 {
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                // A pipe whose writer has not written yet: wait for bytes (or its end).
                var waiting = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&waiting, 1, -1)
                continue
            }
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

/// Whether `path` names a regular file, which can be read at any offset.
public func isSeekableFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
}

/// Reads a regular file in chunks of `chunkSize` bytes, as ``forEachChunk(ofFileAt:chunkSize:_:)``
/// does, but `body` may move the read position: the offset it returns is where the next chunk
/// starts (a stream parser's seek request), `nil` reads on.
public func forEachChunk(
    ofSeekableFileAt path: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Int64?
) throws {
    let file = try ReadableFile(path: path)
    var buffer = [UInt8](repeating: 0, count: max(chunkSize, 1))
    var position: Int64 = 0
    while position < file.size {
        let count = try buffer.withUnsafeMutableBytes { try file.read(into: $0, at: position) }
        if count == 0 { return }
        let seek = try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        position = seek ?? position + Int64(count)
    }
}

/// The ``ContentHash`` of a file's bytes, read a megabyte at a time.
public func contentHash(ofFileAt path: String) throws -> ContentHash {
    let file = try ReadableFile(path: path)
    var hash = ContentHash()
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var offset: Int64 = 0
    while true {
        let count = try buffer.withUnsafeMutableBytes { try file.read(into: $0, at: offset) }
        if count == 0 { break }
        buffer.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        offset += Int64(count)
    }
    return hash
}

/// Renames a file, replacing any file at the destination atomically.
public func renameFile(_ source: String, to destination: String) throws {
    guard rename(source, destination) == 0 else { throw ioError("cannot rename '\(source)' to '\(destination)'") }
}

/// Writes the file at `path` so that it appears complete or not at all: `body` writes a hidden temporary
/// file beside it (whose path it is given); when `body` returns, the temporary is flushed to the disk
/// (`fsync`), renamed over `path`, and the folder flushed too, so a machine that loses power never
/// finds a renamed, empty file. When `body` throws, the temporary is removed; while it is being
/// written, ``TemporaryFiles`` knows it, so an interrupted process can remove it too.
/// A caller that writes many files into one folder can pass `synchronizingFolder: false` and call
/// ``synchronize(_:)`` on the folder once, after the last.
public func writeAtomically<Result>(_ path: String, synchronizingFolder: Bool = true,
    _ body: (_ temporaryPath: String) throws -> Result) throws -> Result
{
    let temporary = temporaryPath(beside: path)
    TemporaryFiles.register(temporary)
    defer { TemporaryFiles.unregister(temporary) }
    do {
        let result = try body(temporary)
        try synchronize(temporary)
        try renameFile(temporary, to: path)
        if synchronizingFolder { try synchronize(parentFolder(of: path)) }
        return result
    } catch {
        removeFile(temporary)
        // The temporary is afkit's business: a message names the file the caller asked for.
        if case .io(let message, let code)? = error as? AudioFileError {
            throw AudioFileError.io(message.replacingAll(temporary, with: path), errno: code)
        }
        throw error
    }
}

extension String {
    /// The string with every occurrence of `target` replaced. Written with `hasPrefix` alone: the pure
    /// modules use neither Foundation nor string-processing API that older macOS releases lack.
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(target) {
                result += replacement
                index = self.index(index, offsetBy: target.count)
            } else {
                result.append(self[index])
                index = self.index(after: index)
            }
        }
        return result
    }
}

/// The folder a path lies in (`.` for a bare name).
public func parentFolder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// Flushes a file's data (or a folder's entries) to the disk.
public func synchronize(_ path: String) throws {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw ioError("cannot open '\(path)' to flush it") }
    defer { close(descriptor) }
    // Some filesystems cannot flush a folder (EINVAL); the file itself is what must not be lost.
    guard fdatasync(descriptor) == 0 || errno == EINVAL else { throw ioError("cannot flush '\(path)' to the disk") }
}

/// The temporary files this process is writing, so that an interrupted command (SIGINT, SIGTERM) can
/// remove them before it exits.
public enum TemporaryFiles {
    private static let paths = LockedSet()

    /// Notes a temporary file being written.
    public static func register(_ path: String) { paths.insert(path) }

    /// Forgets a temporary file (renamed into place, or removed).
    public static func unregister(_ path: String) { paths.remove(path) }

    /// Removes every temporary file being written; returns how many.
    @discardableResult
    public static func removeAll() -> Int {
        let all = paths.drain()
        for path in all { removeFile(path) }
        return all.count
    }

    /// Removes afkit's temporaries in `folder` left by processes that no longer run (a kill -9, a
    /// power cut): hidden files named `.NAME.afkit-PID-N.tmp` whose PID is gone. Returns their names.
    @discardableResult
    public static func removeStale(in folder: String) -> [String] {
        guard let handle = opendir(folder) else { return [] }
        defer { closedir(handle) }
        var removed: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            // `.NAME.afkit-PID-N.tmp`: the last two dash-separated fields are the PID and a counter.
            guard name.hasPrefix("."), name.hasSuffix(".tmp") else { continue }
            let pieces = name.dropLast(4).split(separator: "-", omittingEmptySubsequences: false)
            guard pieces.count >= 3, pieces[pieces.count - 3].hasSuffix(".afkit"), let pid = Int32(pieces[pieces.count - 2]),
                !pieces[pieces.count - 1].isEmpty, pieces[pieces.count - 1].allSatisfy(\.isNumber), pid > 0, pid != getpid()
            else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                removeFile(folder + "/" + name)
                removed.append(name)
            }
        }
        return removed
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

/// A set of strings that threads may share.
private final class LockedSet: @unchecked Sendable {
    private var values: Set<String> = []
    private var mutex = pthread_mutex_t()

    init() { pthread_mutex_init(&mutex, nil) }

    func insert(_ value: String) {
        pthread_mutex_lock(&mutex)
        values.insert(value)
        pthread_mutex_unlock(&mutex)
    }

    func remove(_ value: String) {
        pthread_mutex_lock(&mutex)
        values.remove(value)
        pthread_mutex_unlock(&mutex)
    }

    /// Empties the set, returning what it held.
    func drain() -> Set<String> {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        let all = values
        values = []
        return all
    }
}

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

/// The regular files below a directory, recursively, with paths formed from `path`, sorted. Symbolic
/// links are followed, to files and to folders, but a folder already visited (a link loop) is not
/// entered twice. macOS's AppleDouble files (`._name`) and `.DS_Store` are no sound files and are
/// left out; so is every folder in `excluding` (an output tree inside the sources), compared by
/// identity, not by spelling.
public func filesBelow(_ path: String, excluding: [String] = []) throws -> [String] {
    struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }
    func identity(_ path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
    let excluded = Set(excluding.compactMap(identity))
    var visited: Set<Identity> = []
    var found: [String] = []
    var pending = [path]
    while let directory = pending.popLast() {
        guard let id = identity(directory), !excluded.contains(id), visited.insert(id).inserted else { continue }
        guard let handle = opendir(directory) else { throw ioError("cannot read the directory '\(directory)'") }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." || name == ".DS_Store" || name.hasPrefix("._") { continue }
            let child = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var info = stat()
            // stat, not lstat: a link counts as what it points to; a dangling link is skipped.
            guard stat(child, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: pending.append(child)
            case S_IFREG: found.append(child)
            default: break
            }
        }
    }
    return found.sorted()
}
