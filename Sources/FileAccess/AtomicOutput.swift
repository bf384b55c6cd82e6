#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import AudioFormats

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

/// Writes `bytes` as the whole of the file at `path`, atomically (a report, a list).
public func writeFile(_ path: String, bytes: [UInt8]) throws {
    try writeAtomically(path) { temporary in
        let file = try WritableFile(path: temporary)
        try bytes.withUnsafeBytes { try file.write($0, at: 0) }
        try file.close()
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
