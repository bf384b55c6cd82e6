#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import AudioFormats

/// The modification time of a file in nanoseconds since 1970, or `nil` if it does not exist.
public func modificationTime(_ path: String) -> Int64? {
    var info = stat()
    guard statPath(path, &info) == 0 else { return nil }
    return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
}

/// Creates a directory and its parents.
public func makeDirectories(_ path: String) throws {
    var current = path.hasPrefix("/") ? "/" : ""
    for component in path.split(separator: "/") {
        current += component + "/"
        if !isDirectory(current) && mkdirPath(current, 0o755) != 0 && errno != EEXIST {
            throw ioError("cannot create the directory '\(current)'")
        }
    }
}

/// Whether standard error is a terminal (for progress bars).
public var standardErrorIsTerminal: Bool { isatty(2) != 0 }

/// Removes a file, ignoring a file that is not there.
public func removeFile(_ path: String) {
    _ = unlinkPath(path)
}

/// Whether a path names a directory.
public func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return statPath(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
}

/// Whether a path names anything at all.
public func pathExists(_ path: String) -> Bool {
    var info = stat()
    return statPath(path, &info) == 0
}

/// The regular files below a directory, recursively, with paths formed from `path`, sorted. Symbolic
/// links are followed, to files and to folders, but a folder already visited (a link loop) is not
/// entered twice. macOS's AppleDouble files (`._name`) and `.DS_Store` are no sound files and are
/// left out; so is every folder in `excluding` (an output tree inside the sources), compared by
/// identity, not by spelling.
public func filesBelow(_ path: String, excluding: [String] = []) throws -> [String] {
    try walkFolder(path, excluding: excluding).files
}

/// ``filesBelow(_:excluding:)``'s files, and every folder the walk entered (through links too), in the order
/// entered: the folders an output must not be written into.
public func walkFolder(_ path: String, excluding: [String] = []) throws -> (files: [String], folders: [String]) {
    struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }
    func identity(_ path: String) -> Identity? {
        var info = stat()
        guard statPath(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
    let excluded = Set(excluding.compactMap(identity))
    var visited: Set<Identity> = []
    var found: [String] = []
    var folders: [String] = []
    var pending = [path]
    while let directory = pending.popLast() {
        guard let id = identity(directory), !excluded.contains(id), visited.insert(id).inserted else { continue }
        guard let handle = opendirPath(directory) else { throw ioError("cannot read the directory '\(directory)'") }
        folders.append(directory)
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = entryName(entry)
            if name == "." || name == ".." || name == ".DS_Store" || name.hasPrefix("._") { continue }
            let child = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var info = stat()
            // stat, not lstat: a link counts as what it points to; a dangling link is skipped.
            guard statPath(child, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: pending.append(child)
            case S_IFREG: found.append(child)
            default: break
            }
        }
    }
    return (found.sorted(), folders)
}

/// Removes a folder and everything below it (links removed, never followed); a path that is not there is
/// no error.
public func removeTree(_ path: String) {
    var info = stat()
    guard lstatPath(path, &info) == 0 else { return }
    guard info.st_mode & S_IFMT == S_IFDIR else {
        removeFile(path)
        return
    }
    if let handle = opendirPath(path) {
        var children: [String] = []
        while let entry = readdir(handle) {
            let name = entryName(entry)
            if name != "." && name != ".." { children.append(path + "/" + name) }
        }
        closedir(handle)
        children.forEach(removeTree)
    }
    _ = rmdir(path)
}

/// Writes the folder `path` as a set: `body` fills a hidden temporary folder beside it (whose path it is
/// given); when `body` returns, every file in it is flushed to the disk and the folder is renamed into
/// place, replacing an existing folder `path` (moved aside first, then removed), so a reader sees the
/// old set or the new one, never a mixture. When `body` throws, the temporary folder is removed. The
/// caller decides whether an existing `path` may be replaced.
public func writeFolderAtomically<Result>(_ path: String, _ body: (_ temporaryFolder: String) throws -> Result)
    throws -> Result
{
    let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    var existing = stat()
    let exists = lstatPath(trimmed, &existing) == 0
    if exists, existing.st_mode & S_IFMT == S_IFLNK {
        throw AudioFileError.io(
            "'\(path)' is a symbolic link: afkit replaces a folder as a whole, not through a link (name the folder "
                + "itself)", errno: EEXIST)
    }
    if exists, existing.st_mode & S_IFMT != S_IFDIR {
        throw AudioFileError.io("'\(path)' exists and is not a folder: afkit does not replace it", errno: EEXIST)
    }
    // The folder it goes in is made where missing.
    let parent = parentFolder(of: trimmed)
    if !isDirectory(parent) { try makeDirectories(parent) }
    var temporary = ""
    for _ in 0..<16 {
        let candidate = String(temporaryPath(beside: trimmed).dropLast(".tmp".count))
        if mkdirPath(candidate, 0o755) == 0 {
            temporary = candidate
            break
        }
        guard errno == EEXIST else { throw ioError("cannot create a folder beside '\(path)'") }
    }
    guard !temporary.isEmpty else { throw ioError("cannot create a folder beside '\(path)'") }
    // An interrupted command removes it (TemporaryFiles.removeAll).
    TemporaryFiles.folders.withLock { _ = $0.insert(temporary) }
    defer { TemporaryFiles.folders.withLock { _ = $0.remove(temporary) } }
    do {
        let result = try body(temporary)
        let written = try walkFolder(temporary)
        for file in written.files { try synchronize(file) }
        for folder in written.folders { try synchronize(folder) }
        if exists {
            let aside = String(temporaryPath(beside: trimmed).dropLast(".tmp".count)) + ".old"
            guard renamePath(trimmed, aside) == 0 else { throw ioError("cannot move '\(path)' aside to replace it") }
            guard renamePath(temporary, trimmed) == 0 else {
                let failure = ioError("cannot rename the new '\(path)' into place")
                _ = renamePath(aside, trimmed)
                throw failure
            }
            removeTree(aside)
        } else {
            guard renamePath(temporary, trimmed) == 0 else { throw ioError("cannot rename '\(path)' into place") }
        }
        try synchronize(parentFolder(of: trimmed))
        return result
    } catch {
        removeTree(temporary)
        throw error
    }
}
