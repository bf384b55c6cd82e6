import Synchronization
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
    guard renamePath(source, destination) == 0 else { throw ioError("cannot rename '\(source)' to '\(destination)'") }
}

/// Writes the file at `path` so that it appears complete or not at all: `body` writes a hidden temporary
/// file beside it (whose path it is given); when `body` returns, the temporary is flushed to the disk
/// (`fsync`), renamed over `path`, and the folder flushed too, so a machine that loses power never
/// finds a renamed, empty file. When `body` throws, the temporary is removed; while it is being
/// written, ``TemporaryFiles`` knows it, so an interrupted process can remove it too.
///
/// The temporary has a random name and is created exclusively, never through a symbolic link
/// (``createTemporaryFile(beside:permissions:)``); before the rename afkit checks the name still holds
/// the file it wrote, so a link planted in a shared folder is neither written through nor renamed over
/// the output. An existing `path` that is not a regular file (a device, a FIFO, a directory, ...) is
/// never renamed over: that is an error, before anything is written and again before the rename. A
/// caller that writes many files into one folder can pass `synchronizingFolder: false` and call
/// ``synchronize(_:)`` on the folder once, after the last; one that would rather not wait for the disk
/// passes `deferringCommit`, which is handed the finished file to commit (or abandon) later.
public func writeAtomically<Result>(
    _ path: String, synchronizingFolder: Bool = true, deferringCommit: ((AtomicOutputFile) -> Void)? = nil,
    _ body: (_ temporaryPath: String) throws -> Result
) throws -> Result {
    let output = try AtomicOutputFile(path)
    do {
        let result = try body(output.temporaryPath)
        if let deferringCommit {
            deferringCommit(output)
        } else {
            try output.commit(synchronizingFolder: synchronizingFolder)
        }
        return result
    } catch {
        output.abandon()
        throw output.namingPath(in: error)
    }
}

/// A file written whole or not at all, over calls (what
/// ``writeAtomically(_:synchronizingFolder:deferringCommit:_:)`` does within one): written at
/// ``temporaryPath``, then ``commit(synchronizingFolder:)`` puts it at its path (flushed, the permissions
/// of a file it replaces kept), or ``abandon()`` removes it.
public final class AtomicOutputFile {
    /// Where the file goes.
    public let path: String
    /// Where it is written until it is committed.
    public let temporaryPath: String
    private var settled = false

    /// Starts a file for `path` (refused where `path` is something other than a regular file).
    public init(_ path: String) throws {
        try checkReplaceable(path)
        self.path = path
        temporaryPath = try createTemporaryFile(beside: path)
    }

    /// Puts the finished file at its path (an error names the path, not the temporary).
    public func commit(synchronizingFolder: Bool = true) throws {
        do {
            try settle(synchronizingFolder: synchronizingFolder)
        } catch {
            throw namingPath(in: error)
        }
    }

    /// `error` with the temporary's path replaced by the path: a message names the file the caller asked for.
    func namingPath(in error: any Error) -> any Error {
        guard case .io(let message, let code)? = error as? AudioFileError else { return error }
        return AudioFileError.io(message.replacingAll(temporaryPath, with: path), errno: code)
    }

    private func settle(synchronizingFolder: Bool) throws {
        guard !settled else { return }
        // A file replaced keeps its permissions (and, for root, its owner), as an edit in place would.
        var existing = stat()
        if lstatPath(path, &existing) == 0, existing.st_mode & S_IFMT == S_IFREG,
            TemporaryFiles.holdsOwnFile(temporaryPath)
        {
            _ = chmodPath(temporaryPath, existing.st_mode & 0o777)
            if getuid() == 0 { _ = lchownPath(temporaryPath, existing.st_uid, existing.st_gid) }
        }
        try synchronize(temporaryPath)
        guard TemporaryFiles.holdsOwnFile(temporaryPath) else {
            throw AudioFileError.io("the temporary file for '\(path)' was replaced while it was written", errno: EEXIST)
        }
        try checkReplaceable(path)
        try renameFile(temporaryPath, to: path)
        settled = true
        TemporaryFiles.unregister(temporaryPath)
        if synchronizingFolder { try synchronize(parentFolder(of: path)) }
    }

    /// Removes the temporary; the path is left as it was.
    public func abandon() {
        guard !settled else { return }
        settled = true
        if TemporaryFiles.holdsOwnFile(temporaryPath) { removeFile(temporaryPath) }
        TemporaryFiles.unregister(temporaryPath)
    }

    deinit { abandon() }
}

/// Throws where `path` names something other than a regular file (following links): a finished file
/// is never renamed over a device, a FIFO, a socket or a directory.
func checkReplaceable(_ path: String) throws {
    var info = stat()
    guard statPath(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG else { return }
    throw AudioFileError.io("'\(path)' exists and is not a regular file: afkit does not replace it", errno: EEXIST)
}

/// Creates an empty temporary file beside `path` (a hidden, random name in the same folder) and returns
/// its path. It is created with `O_CREAT|O_EXCL|O_NOFOLLOW`: never an existing file, never through a
/// link. ``TemporaryFiles`` keeps it open and locked (`flock`) until ``TemporaryFiles/unregister(_:)``,
/// which is how another afkit process, in any PID namespace, tells a live temporary from a stale one.
public func createTemporaryFile(beside path: String, permissions: mode_t = 0o644) throws -> String {
    for _ in 0..<16 {
        let candidate = temporaryPath(beside: path)
        switch TemporaryFiles.create(candidate, permissions: permissions) {
        case .created: return candidate
        case .retry: continue
        case .failed(let code):
            throw AudioFileError.io(
                "cannot create a temporary file beside '\(path)' (\(String(cString: strerror(code))))",
                errno: code)
        }
    }
    throw AudioFileError.io(
        "cannot create a temporary file beside '\(path)': every name tried was taken", errno: EEXIST)
}

/// A file's identity: its device and inode, whatever it is called.
public struct FileIdentity: Hashable, Sendable {
    /// The file system's device number.
    public var device: UInt64
    /// The file's number on that device.
    public var inode: UInt64

    /// The identity of a file described by `stat`.
    public init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The identity of the file at `path` (following links), or `nil` where there is none.
    public init?(path: String) {
        var info = stat()
        guard statPath(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The identity of an open file.
    public init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
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

/// The folder a path lies in (`.` for a bare name).
public func parentFolder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// A path's parts: its folder with the trailing slash (`""` for a bare name), its name without the extension,
/// and the extension with its dot (`""` for none; a name's leading dot starts no extension).
public func pathParts(_ path: String) -> (folder: String, base: String, extension: String) {
    let slash = path.lastIndex(of: "/")
    let folder = slash.map { String(path[...$0]) } ?? ""
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (folder, name, "") }
    return (folder, String(name[..<dot]), String(name[dot...]))
}

/// A path's extension, lower case, without its dot (`""` for none; a name's leading dot starts none).
public func nameExtension(of path: String) -> String { String(pathParts(path).extension.dropFirst()).lowercased() }

/// Flushes a file's data (or a folder's entries) to the disk.
public func synchronize(_ path: String) throws {
    let descriptor = openPath(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw ioError("cannot open '\(path)' to flush it") }
    defer { close(descriptor) }
    // Some filesystems cannot flush a folder (EINVAL); the file itself is what must not be lost.
    guard fdatasync(descriptor) == 0 || errno == EINVAL else { throw ioError("cannot flush '\(path)' to the disk") }
}

/// The temporary files this process is writing, so that an interrupted command (SIGINT, SIGTERM) can
/// remove them before it exits, and another process can tell them from stale ones.
public enum TemporaryFiles {
    /// How a creation went.
    enum Creation {
        case created
        /// The name was taken (or the file was taken away before it was locked): try another.
        case retry
        case failed(Int32)
    }

    private static let files = LockedFiles()

    /// Creates the file at `path` exclusively, without following a link, opens it locked, and keeps it.
    /// Once ``removeAll()`` has run (the command is being interrupted), nothing more is created.
    static func create(_ path: String, permissions: mode_t) -> Creation { files.create(path, permissions: permissions) }

    /// Opens `path` with `flags` (which may create it), unless ``removeAll()`` has run: then nothing more is
    /// created, and the result is -1 with `EINTR`. Returns the descriptor, or -1 and the error.
    static func openCreating(_ path: String, flags: Int32, permissions: mode_t) -> (descriptor: Int32, error: Int32) {
        files.openCreating(path, flags: flags, permissions: permissions)
    }

    /// Notes a path the command will write (a destination in `$TMPDIR`) so an interruption removes it.
    public static func register(_ path: String) { files.note(path) }

    /// Forgets a temporary file (renamed into place, or removed), releasing its lock.
    public static func unregister(_ path: String) { files.forget(path) }

    /// Whether `path` still names the file this process created there (not a link or file put in its place).
    public static func holdsOwnFile(_ path: String) -> Bool { files.holdsOwnFile(path) }

    /// Opens a temporary this process created, with `flags` (`O_NOFOLLOW` and `O_CLOEXEC` added), only as
    /// that same file: a link or another file put under its name is an error, never opened.
    public static func openOwnFile(_ path: String, flags: Int32) throws -> Int32 {
        guard let identity = identity(of: path) else {
            throw AudioFileError.io("'\(path)' is not a temporary file afkit made", errno: ENOENT)
        }
        let descriptor = openPath(path, flags | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw ioError("cannot open the temporary file '\(path)'") }
        guard FileIdentity(descriptor: descriptor) == identity else {
            close(descriptor)
            throw AudioFileError.io("the temporary file '\(path)' was replaced while it was written", errno: EEXIST)
        }
        return descriptor
    }

    /// The identity of a temporary this process created, where `path` is one.
    public static func identity(of path: String) -> FileIdentity? { files.identity(of: path) }

    /// Removes every temporary file being written (and every temporary folder,
    /// ``writeFolderAtomically(_:checkingReplaced:_:)``'s), and refuses to create more; returns how many files.
    @discardableResult
    public static func removeAll() -> Int {
        TemporaryFolders.removeAll()
        return files.removeAll()
    }

    /// Removes afkit's temporaries in `folder` that no process is writing (left by a kill -9 or a power
    /// cut): hidden files named `.NAME.afkit-....tmp` that nobody holds locked. The lock is the kernel's,
    /// so a live conversion in another PID namespace (a container sharing the folder) keeps its file.
    /// Returns their names.
    @discardableResult
    public static func removeStale(in folder: String) -> [String] {
        guard let handle = opendirPath(folder) else { return [] }
        defer { closedir(handle) }
        var removed: [String] = []
        while let entry = readdir(handle) {
            let name = entryName(entry)
            guard name.hasPrefix("."), name.hasSuffix(".tmp"), name.contains(".afkit-") else { continue }
            let path = folder + "/" + name
            guard identity(of: path) == nil else { continue }
            let descriptor = openPath(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                flock(descriptor, LOCK_EX | LOCK_NB) == 0
            else { continue }
            // Unlocked: nobody writes it. Remove it only if the name still holds the file checked.
            if FileIdentity(linkAt: path) == FileIdentity(info) {
                removeFile(path)
                removed.append(name)
            }
        }
        return removed
    }
}

/// A hidden path in the same folder as `path`, for writing a file that is renamed into place when
/// complete: `.NAME.afkit-RANDOM.tmp`, with 60 random bits (no PID: names do not repeat across PID
/// namespaces, and nobody can guess the next). NAME is shortened so the name fits in NAME_MAX bytes
/// (`temporaryStem(of:)`).
public func temporaryPath(beside path: String) -> String {
    let slash = path.lastIndex(of: "/")
    let folder = slash.map { String(path[...$0]) } ?? ""
    let name = temporaryStem(of: slash.map { String(path[path.index(after: $0)...]) } ?? path)
    var generator = SystemRandomNumberGenerator()
    var random: UInt64 = generator.next()
    var tag: [UInt8] = []
    for _ in 0..<12 {
        tag.append(temporaryNameAlphabet[Int(random & 31)])
        random >>= 5
    }
    return folder + "." + name + ".afkit-" + String(decoding: tag, as: UTF8.self) + ".tmp"
}

/// The letters of a temporary's random part.
let temporaryNameAlphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

/// The bytes a NAME in a temporary's name keeps at most: NAME_MAX less `.`, `.afkit-`, 12 letters and `.tmp`
/// (a folder's old copy, `.old` for `.tmp`, fits the same).
let temporaryStemLimit = 255 - (".afkit-".utf8.count + 12 + ".tmp".utf8.count + 1)

/// `name` as a temporary's name holds it: shortened, whole characters at a time, to ``temporaryStemLimit`` bytes.
func temporaryStem(of name: String) -> String {
    var name = name
    while name.utf8.count > temporaryStemLimit { name.removeLast() }
    return name
}

/// The temporaries of this process: their open, locked descriptors and identities, behind one lock, so
/// that a file is either created before an interruption removes everything or not created at all.
private final class LockedFiles: Sendable {
    private struct Held {
        var descriptor: Int32
        var identity: FileIdentity?
    }
    private struct State {
        var held: [String: Held] = [:]
        var closed = false
    }
    private let state = Mutex(State())

    func create(_ path: String, permissions: mode_t) -> TemporaryFiles.Creation {
        state.withLock { state in
            guard !state.closed else { return .failed(EINTR) }
            let descriptor = openPath(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions)
            guard descriptor >= 0 else { return errno == EEXIST || errno == ELOOP ? .retry : .failed(errno) }
            // Locked, then checked: a stale-file sweep may have taken the name away between the two.
            guard flock(descriptor, LOCK_EX) == 0, let identity = FileIdentity(descriptor: descriptor),
                FileIdentity(linkAt: path) == identity
            else {
                close(descriptor)
                return .retry
            }
            state.held[path] = Held(descriptor: descriptor, identity: identity)
            return .created
        }
    }

    func openCreating(_ path: String, flags: Int32, permissions: mode_t) -> (descriptor: Int32, error: Int32) {
        state.withLock { state in
            guard !state.closed else { return (-1, EINTR) }
            let descriptor = openPath(path, flags, permissions)
            return (descriptor, descriptor >= 0 ? 0 : errno)
        }
    }

    func note(_ path: String) {
        state.withLock { state in
            if state.held[path] == nil { state.held[path] = Held(descriptor: -1, identity: nil) }
        }
    }

    func forget(_ path: String) {
        state.withLock { state in
            if let file = state.held.removeValue(forKey: path), file.descriptor >= 0 { close(file.descriptor) }
        }
    }

    func identity(of path: String) -> FileIdentity? {
        state.withLock { $0.held[path]?.identity }
    }

    func holdsOwnFile(_ path: String) -> Bool {
        guard let identity = identity(of: path) else { return false }
        return FileIdentity(linkAt: path) == identity
    }

    func removeAll() -> Int {
        state.withLock { state in
            state.closed = true
            let all = state.held
            state.held = [:]
            for (path, file) in all {
                // Only what is still ours: a name another user took over is left alone.
                if file.identity == nil || FileIdentity(linkAt: path) == file.identity { removeFile(path) }
                if file.descriptor >= 0 { close(file.descriptor) }
            }
            return all.count
        }
    }
}

extension FileIdentity {
    /// The identity of what `path` names itself (a link's own, not its target's).
    init?(linkAt path: String) {
        var info = stat()
        guard lstatPath(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        self.init(info)
    }
}

extension TemporaryFiles {
    /// The folder temporary files go in: `$TMPDIR`, or /tmp where it is unset or empty.
    public static var folder: String {
        getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// A hidden path in ``folder`` for a file a command writes and then removes (`name` in it, with 60 random
    /// bits: nobody can guess it), known here until ``discard(_:)``, so an interrupted command removes it.
    public static func path(named name: String) -> String {
        let path = temporaryPath(beside: folder + "/" + name)
        register(path)
        return path
    }

    /// Removes a temporary file made by this process (only while the name still holds the file made, or nothing)
    /// and forgets it.
    public static func discard(_ path: String) {
        if identity(of: path) == nil || holdsOwnFile(path) { removeFile(path) }
        unregister(path)
    }
}
