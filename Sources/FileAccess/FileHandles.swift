#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import AudioFormats

// afkit's operating-system I/O lives in this module: plain POSIX calls, no Foundation.

/// A file opened for reading at any offset.
package final class ReadableFile: Sendable {
    package let path: String
    private let descriptor: Int32
    /// Bytes in the file when it was opened.
    package let size: Int64

    /// Opens `path` for reading. With `root` (a real path: ``realPath(_:)``), the file must lie below that
    /// folder after every link is followed, outside `/proc`, `/sys` and `/dev`: checked before the open and on
    /// what is opened (``openBelow(_:_:as:)``: a device a link leads to, or one swapped in, is never opened);
    /// otherwise ``FileAccessRefusal/outsideFolder`` is thrown.
    package init(path: String, below root: String? = nil) throws {
        self.path = path
        var name = path
        if let root {
            guard let real = realPath(path) else { throw ioError("cannot open '\(path)'") }
            guard realPath(real, liesBelow: root) else { throw FileAccessRefusal.outsideFolder(path) }
            // Only a regular file is opened at all (opening a device can act on it).
            var info = stat()
            guard statPath(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                throw AudioFileError.io("'\(path)' is not a regular file", errno: EISDIR)
            }
            name = real
        }
        // Non-blocking, so a FIFO with no writer cannot hang the open; only regular files are read.
        descriptor =
            try root.map { try Self.openBelow($0, name, as: path) }
            ?? openPath(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw ioError("cannot open '\(path)'") }
        if let root, !(openedPath(descriptor).map { realPath($0, liesBelow: root) } ?? false) {
            close(descriptor)
            throw FileAccessRefusal.outsideFolder(path)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = ioError("cannot stat '\(path)'")
            close(descriptor)
            throw error
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            let kind =
                switch info.st_mode & S_IFMT {
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

    /// Opens `name` (a real path) for reading where it is a regular file below `root`. On Linux its place is
    /// taken first without opening the file (`O_PATH`: no device acts on it), checked (a regular file, really
    /// below `root`), and the file opened through that very place, so a link swapped in meanwhile changes
    /// nothing; elsewhere it is opened without following a last link and checked after.
    private static func openBelow(_ root: String, _ name: String, as path: String) throws -> Int32 {
        #if os(Linux)
            // O_PATH (Glibc declares it only under _GNU_SOURCE): 010000000 on x86_64 and arm64 Linux.
            let pathOnly: Int32 = 0o10000000
            let place = openPath(name, pathOnly | O_NOFOLLOW | O_CLOEXEC)
            guard place >= 0 else { throw ioError("cannot open '\(path)'") }
            defer { close(place) }
            var info = stat()
            guard fstat(place, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                throw AudioFileError.io("'\(path)' is not a regular file", errno: EISDIR)
            }
            guard openedPath(place).map({ realPath($0, liesBelow: root) }) ?? false else {
                throw FileAccessRefusal.outsideFolder(path)
            }
            return openPath("/proc/self/fd/\(place)", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        #else
            return openPath(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        #endif
    }

    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (0 at the end).
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        return try transferAll(buffer.count, failure: "cannot read '\(path)'") { done in
            pread(descriptor, base + done, buffer.count - done, off_t(offset) + off_t(done))
        }
    }
}

/// Why a file was not opened where a folder confines what may be read.
package enum FileAccessRefusal: Error {
    /// The path leads outside the folder (through `..` or a symbolic link), or into `/proc`, `/sys` or `/dev`.
    case outsideFolder(String)
}

/// A file written front to back, with in-place patches of headers written earlier.
package final class WritableFile {
    package let path: String
    private var descriptor: Int32
    /// The end of the bytes written front to back from the start, and how far writeback was started.
    private var appendedThrough: Int64 = 0
    private var writebackStarted: Int64 = 0
    /// Writeback is started for each run of this many bytes written front to back.
    private static let writebackRun: Int64 = 4 << 20

    /// Creates (or truncates) a file. A temporary made by ``createTemporaryFile(beside:permissions:)`` is
    /// opened only as the file created there: never through a link, never another file put in its place.
    package init(path: String) throws {
        self.path = path
        if TemporaryFiles.identity(of: path) != nil {
            descriptor = try TemporaryFiles.openOwnFile(path, flags: O_RDWR | O_TRUNC)
        } else {
            // Under the temporaries' lock: once an interruption has removed them, a temporary whose name
            // was taken away between the check above and this open is not made again, under no one's watch.
            let (opened, error) = TemporaryFiles.openCreating(
                path, flags: O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, permissions: 0o644)
            guard opened >= 0 else {
                errno = error
                throw ioError("cannot create '\(path)'")
            }
            descriptor = opened
        }
    }

    /// Moves `count` bytes at `source` to `destination` (later in the file), last piece first so the
    /// ranges may overlap.
    package func move(from source: Int64, count: Int64, to destination: Int64) throws {
        precondition(destination >= source, "moves bytes toward the end only")
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var end = count
        while end > 0 {
            let size = Int(min(Int64(buffer.count), end))
            let start = end - Int64(size)
            try buffer.withUnsafeMutableBytes { raw in
                let piece = UnsafeMutableRawBufferPointer(rebasing: raw[0..<size])
                let read = try transferAll(size, failure: "cannot read '\(path)'") { done in
                    pread(
                        descriptor, piece.baseAddress.map { $0 + done }, size - done,
                        off_t(source + start) + off_t(done))
                }
                guard read == size else { throw AudioFileError.io("cannot read back '\(path)'", errno: EIO) }
                try write(UnsafeRawBufferPointer(piece), at: destination + start)
            }
            end = start
        }
    }

    deinit { if descriptor >= 0 { _ = closeDescriptor(descriptor) } }

    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        guard let base = bytes.baseAddress else { return }
        let written = try transferAll(bytes.count, failure: "cannot write '\(path)'") { done in
            pwrite(descriptor, base + done, bytes.count - done, off_t(offset) + off_t(done))
        }
        guard written == bytes.count else { throw AudioFileError.io("cannot write '\(path)': no space", errno: ENOSPC) }
        startWriteback(after: offset, count: bytes.count)
    }

    /// Asks the kernel to start writing out each 4 MiB written front to back as soon as it is written,
    /// so the `fdatasync` that ends an atomic output waits for the last few megabytes only, and the disk
    /// works while the audio is decoded (10-minute decodes to WAV: 30–40 ms less, BENCHMARKS.md
    /// 2026-11-25). On Linux, `POSIX_FADV_DONTNEED` starts asynchronous writeback of a range's dirty
    /// pages and drops only clean ones, and these were all written just now; writes elsewhere in the
    /// file (a header patched, bytes moved) are left to the final flush. Elsewhere nothing is done.
    private func startWriteback(after offset: Int64, count: Int) {
        #if os(Linux)
            guard offset == appendedThrough else { return }
            appendedThrough += Int64(count)
            guard appendedThrough - writebackStarted >= Self.writebackRun else { return }
            _ = posix_fadvise(
                descriptor, off_t(writebackStarted), off_t(appendedThrough - writebackStarted), POSIX_FADV_DONTNEED)
            writebackStarted = appendedThrough
        #endif
    }

    package func close() throws {
        guard descriptor >= 0 else { return }
        let result = closeDescriptor(descriptor)
        descriptor = -1
        if result != 0 { throw ioError("cannot close '\(path)'") }
    }
}

private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }

/// Repeats a partial `read`/`write`-style call until `count` bytes moved or it moves none (the end of
/// a file), retrying interrupted calls; returns the bytes moved.
func transferAll(_ count: Int, failure: @autoclosure () -> String, _ step: (Int) -> Int) throws -> Int {
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

func ioError(_ message: String) -> AudioFileError {
    let code = errno
    let reason = strerror(code).map { String(cString: $0) } ?? "error \(code)"
    return .io("\(message): \(reason)", errno: code)
}
