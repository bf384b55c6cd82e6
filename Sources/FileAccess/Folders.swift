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

/// Visits everything below the folder `path` as it is, links not followed and nothing left out: each entry's
/// path relative to `path` and its kind (`S_IFREG`, `S_IFDIR`, `S_IFLNK`, ...), a folder before what it holds.
/// `visit` stops the walk by throwing, so a check that fails at the first entry reads no further.
public func visitEntries(below path: String, _ visit: (_ relativePath: String, _ kind: mode_t) throws -> Void) throws {
    var pending = [""]
    while let relative = pending.popLast() {
        let directory = relative.isEmpty ? path : path + "/" + relative
        guard let handle = opendirPath(directory) else { throw ioError("cannot read the directory '\(directory)'") }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = entryName(entry)
            if name == "." || name == ".." { continue }
            let child = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            guard lstatPath(path + "/" + child, &info) == 0 else { continue }
            try visit(child, info.st_mode & S_IFMT)
            if info.st_mode & S_IFMT == S_IFDIR { pending.append(child) }
        }
    }
}
