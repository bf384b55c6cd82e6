import Synchronization
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import AudioFormats

/// Writes the folder `path` as a set: `body` fills a hidden temporary folder beside it (whose path it is
/// given); when `body` returns, every file in it is flushed to the disk and it takes `path`'s place, so a
/// reader, and a process killed at any moment, finds the old set or the new one whole, never a mixture and
/// never neither. An existing folder `path` is replaced by one atomic exchange of the two names where the
/// system has one (Linux's `renameat2` with `RENAME_EXCHANGE`, Darwin's `RENAME_SWAP`), then removed; where the
/// file system has none, it is moved aside (locked, named `.NAME.afkit-RANDOM.old`) and the new one renamed in.
/// When `body` throws, the temporary folder is removed.
///
/// The caller decides whether an existing `path` may be replaced; `checkingReplaced`, where given, is asked
/// again just before the swap (the folder may have changed while `body` ran) and may refuse by throwing. First
/// of all, what killed runs left beside `path` is cleared away (``TemporaryFolders/removeStale(beside:)``).
public func writeFolderAtomically<Result>(
    _ path: String, checkingReplaced: ((_ path: String) throws -> Void)? = nil,
    _ body: (_ temporaryFolder: String) throws -> Result
) throws -> Result {
    let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    try checkFolderReplaceable(trimmed, as: path)
    // The folder it goes in is made where missing.
    let parent = parentFolder(of: trimmed)
    if !isDirectory(parent) { try makeDirectories(parent) }
    TemporaryFolders.removeStale(beside: trimmed)
    let temporary = try TemporaryFolders.create(beside: trimmed)
    do {
        let result = try body(temporary)
        let written = try walkFolder(temporary)
        for file in written.files { try synchronize(file) }
        for folder in written.folders { try synchronize(folder) }
        try TemporaryFolders.settle(temporary, at: trimmed, as: path, checkingReplaced: checkingReplaced)
        try synchronize(parent)
        return result
    } catch {
        TemporaryFolders.abandon(temporary)
        throw error
    }
}

/// Throws where `path` names something a folder written as a set may not replace: a symbolic link or a
/// non-folder (`spelled` is the path as the caller gave it, for the message).
func checkFolderReplaceable(_ path: String, as spelled: String) throws {
    var existing = stat()
    guard lstatPath(path, &existing) == 0 else { return }
    if existing.st_mode & S_IFMT == S_IFLNK {
        throw AudioFileError.io(
            "'\(spelled)' is a symbolic link: afkit replaces a folder as a whole, not through a link (name the "
                + "folder itself)", errno: EEXIST)
    }
    if existing.st_mode & S_IFMT != S_IFDIR {
        throw AudioFileError.io("'\(spelled)' exists and is not a folder: afkit does not replace it", errno: EEXIST)
    }
}

/// The hidden folders ``writeFolderAtomically(_:checkingReplaced:_:)`` fills beside the folder it writes,
/// `.NAME.afkit-RANDOM` (as ``temporaryPath(beside:)`` names a file, less `.tmp`), and the old folders it moves
/// aside where it cannot exchange two names, `.NAME.afkit-RANDOM.old`. This process holds each open and locked
/// (`flock`) while it fills or swaps it, which is how another afkit process, in any PID namespace, tells a live
/// one from one that a killed run left: the lock is the kernel's, and goes with the process.
public enum TemporaryFolders {
    private struct State {
        /// Each temporary folder being filled, and its locked descriptor (-1 where the file system locks nothing).
        var held: [String: Int32] = [:]
        /// The command is being interrupted: nothing more is made.
        var closed = false
    }
    private static let state = Mutex(State())

    /// The errors with which an exchange of two names says the system or the file system has none.
    static let exchangeMissing: Set<Int32> = [ENOSYS, EINVAL, ENOTSUP, EOPNOTSUPP]

    /// Makes a temporary folder beside `path`, locked, and returns its path.
    static func create(beside path: String) throws -> String {
        for _ in 0..<16 {
            let candidate = String(temporaryPath(beside: path).dropLast(".tmp".count))
            let outcome: Int32 = state.withLock { state in
                guard !state.closed else { return EINTR }
                guard mkdirPath(candidate, 0o755) == 0 else { return errno }
                let descriptor = openPath(candidate, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard descriptor >= 0 else { return EEXIST }
                // Locked, then checked: another process's sweep may have taken the folder between the two (it
                // removes it; another name is tried). A file system that locks nothing (EBADF, ENOLCK: some
                // network ones) leaves it unlocked, and a sweep there cannot lock it either, so never removes it.
                if flock(descriptor, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
                    || FileIdentity(descriptor: descriptor) != folderIdentity(candidate)
                {
                    close(descriptor)
                    return EEXIST
                }
                state.held[candidate] = descriptor
                return 0
            }
            if outcome == 0 { return candidate }
            guard outcome == EEXIST else {
                throw AudioFileError.io(
                    "cannot create a folder beside '\(path)' (\(String(cString: strerror(outcome))))", errno: outcome)
            }
        }
        throw AudioFileError.io("cannot create a folder beside '\(path)': every name tried was taken", errno: EEXIST)
    }

    /// Puts the filled folder `temporary` at `path` (`spelled` as the caller gave it), replacing a folder there
    /// (`exchanging: false` takes the way of a file system that cannot exchange two names).
    static func settle(
        _ temporary: String, at path: String, as spelled: String, checkingReplaced: ((String) throws -> Void)?,
        exchanging: Bool = true
    ) throws {
        try checkFolderReplaceable(path, as: spelled)
        guard folderIdentity(path) != nil else {
            // Nothing to replace: a rename that never replaces a folder made meanwhile (an empty one would go).
            var failure = swap { renamePath(temporary, path, flags: .noReplace) }
            if exchangeMissing.contains(failure) { failure = swap { renamePath(temporary, path) } }
            guard failure == 0 else { throw failed(failure, "cannot rename '\(spelled)' into place") }
            release(temporary)
            return
        }
        try checkingReplaced?(spelled)
        // One atomic exchange: `path` names the new folder, the temporary's name the old one, removed next.
        let exchanged = exchanging ? swap { renamePath(temporary, path, flags: .exchange) } : ENOSYS
        if exchanged == 0 {
            removeTree(temporary)
            release(temporary)
            return
        }
        guard exchangeMissing.contains(exchanged) else {
            throw failed(exchanged, "cannot exchange the new '\(spelled)' for the old one")
        }
        try replaceByRenames(temporary, at: path, as: spelled)
    }

    /// Where the file system cannot exchange two names: the old folder, locked, is renamed aside and the new one
    /// renamed in. A kill between the two renames leaves no `path` and the old folder whole aside, which the next
    /// run's ``removeStale(beside:)`` renames back; so at no moment are both lost.
    private static func replaceByRenames(_ temporary: String, at path: String, as spelled: String) throws {
        let old = openPath(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard old >= 0 else { throw ioError("cannot open '\(spelled)' to replace it") }
        defer { close(old) }
        if flock(old, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK {
            throw AudioFileError.io("'\(spelled)' is being replaced by another process", errno: EWOULDBLOCK)
        }
        let aside = temporary + ".old"
        let failure = swap {
            guard renamePath(path, aside) == 0 else { return -1 }
            guard renamePath(temporary, path) == 0 else {
                let code = errno
                _ = renamePath(aside, path)
                errno = code
                return -1
            }
            return 0
        }
        guard failure == 0 else { throw failed(failure, "cannot rename the new '\(spelled)' into place") }
        removeTree(aside)
        release(temporary)
    }

    /// Runs `rename` while no interruption can remove the temporaries (``removeAll()`` waits for it); returns 0,
    /// or the error it left in `errno` (`EINTR` once the command is being interrupted).
    private static func swap(_ rename: () -> Int32) -> Int32 {
        state.withLock { state in
            guard !state.closed else { return EINTR }
            return rename() == 0 ? 0 : errno
        }
    }

    private static func failed(_ code: Int32, _ message: String) -> AudioFileError {
        .io("\(message) (\(String(cString: strerror(code))))", errno: code)
    }

    /// Forgets a temporary folder (in place, or removed), releasing its lock.
    private static func release(_ temporary: String) {
        state.withLock { state in
            if let descriptor = state.held.removeValue(forKey: temporary), descriptor >= 0 { close(descriptor) }
        }
    }

    /// Removes a temporary folder whose filling failed.
    static func abandon(_ temporary: String) {
        state.withLock { state in
            guard let descriptor = state.held.removeValue(forKey: temporary) else { return }
            removeTree(temporary)
            if descriptor >= 0 { close(descriptor) }
        }
    }

    /// Removes every temporary folder being filled (the command is being interrupted) and refuses to make more.
    static func removeAll() {
        state.withLock { state in
            state.closed = true
            for (temporary, descriptor) in state.held {
                removeTree(temporary)
                if descriptor >= 0 { close(descriptor) }
            }
            state.held = [:]
        }
    }

    /// Clears away what killed runs left beside the folder `path` (in its parent folder): each temporary folder
    /// no process holds locked is removed; an old folder moved aside is renamed back to `path` where `path` is
    /// missing (a run killed between its two renames), and removed where the folder it was moved from is there
    /// again. Only names of the shapes above are touched, only unlocked, and only if the name still holds the
    /// folder checked. A folder another process is filling or swapping (locked) is left alone. Returns the
    /// names cleared.
    @discardableResult
    public static func removeStale(beside path: String) -> [String] {
        let parent = parentFolder(of: path)
        let own = temporaryStem(of: String(path.split(separator: "/").last ?? Substring(path)))
        guard let handle = opendirPath(parent) else { return [] }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = entryName(entry)
            if shape(of: name) != nil { names.append(name) }
        }
        closedir(handle)
        var cleared: [String] = []
        for name in names {
            guard let (stem, aside) = shape(of: name) else { continue }
            let candidate = parent == "/" ? "/" + name : parent + "/" + name
            if state.withLock({ $0.held[candidate] != nil }) { continue }
            let descriptor = openPath(candidate, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0,
                FileIdentity(descriptor: descriptor) == folderIdentity(candidate)
            else { continue }
            if aside {
                // The folder it was moved from: `path` itself, or a sibling whose whole name the stem is.
                let origin = stem == own ? path : stem.utf8.count < temporaryStemLimit ? parent + "/" + stem : nil
                guard let origin else { continue }
                if folderIdentity(origin) == nil {
                    guard origin == path else { continue }
                    var moved = renamePath(candidate, origin, flags: .noReplace)
                    if moved != 0 && exchangeMissing.contains(errno) { moved = renamePath(candidate, origin) }
                    if moved == 0 { cleared.append(name) }
                    continue
                }
            }
            removeTree(candidate)
            cleared.append(name)
        }
        return cleared
    }

    /// Whether `name` has the shape of a temporary folder's name, which a later run may remove.
    public static func isTemporaryName(_ name: String) -> Bool { shape(of: name) != nil }

    /// The stem and kind of a name of a temporary folder's shape (`.NAME.afkit-RANDOM`, or an old folder moved
    /// aside, `.NAME.afkit-RANDOM.old`); `nil` for any other name.
    static func shape(of name: String) -> (stem: String, aside: Bool)? {
        var bytes = Array(name.utf8)
        let aside = bytes.count > 4 && bytes.suffix(4).elementsEqual(".old".utf8)
        if aside { bytes.removeLast(4) }
        let marker = Array(".afkit-".utf8)
        let random = temporaryNameAlphabet
        guard bytes.count > 1 + marker.count + 12, bytes.first == UInt8(ascii: "."),
            bytes.suffix(12).allSatisfy(random.contains),
            bytes.dropLast(12).suffix(marker.count).elementsEqual(marker)
        else { return nil }
        return (String(decoding: bytes.dropFirst().dropLast(12 + marker.count), as: UTF8.self), aside)
    }
}

/// The identity of the folder `path` names itself (`nil` where it names no folder, or a link).
private func folderIdentity(_ path: String) -> FileIdentity? {
    var info = stat()
    guard lstatPath(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
    return FileIdentity(info)
}
