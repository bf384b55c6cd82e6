#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import AudioFormats

/// Reads a file, or standard input when `path` is `nil`, front to back in pieces of exactly
/// `chunkSize` bytes (the last may be shorter), as a network client would receive it. A named pipe is
/// a stream too: it is opened without waiting for a writer; a writer that is there (or on its way, in
/// its own `open`) is waited for, a pipe with none ends at once, as an empty stream.
public func forEachChunk(
    ofFileAt path: String?, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
) throws {
    let fileDescriptor = path.map { openPath($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) } ?? 0
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
    return statPath(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
}

/// The `ContentHash` (AudioFormats) of a file's bytes, read a megabyte at a time.
public func contentHash(ofFileAt path: String) throws -> ContentHash {
    try ReadableFile(path: path).contentHash()
}

extension ReadableFile {
    /// The ``ContentHash`` of the file's bytes, all of them, read a megabyte at a time.
    package func contentHash() throws -> ContentHash {
        var hash = ContentHash()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while true {
            let count = try buffer.withUnsafeMutableBytes { try read(into: $0, at: offset) }
            if count == 0 { break }
            buffer.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            offset += Int64(count)
        }
        return hash
    }
}
