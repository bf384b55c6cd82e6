#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import AudioFormats

// The system calls afkit makes on paths, each with the path's escaped bytes restored
// (`PathEscaping`): a name that is not UTF-8 is opened as the bytes it is.

/// `stat(2)` of a path, its bytes as the name holds them (PathEscaping).
public func statPath(_ path: String, _ info: inout stat) -> Int32 {
    PathEscaping.withCString(path) { stat($0, &info) }
}

/// `lstat(2)`: the link itself, not its target.
public func lstatPath(_ path: String, _ info: inout stat) -> Int32 {
    PathEscaping.withCString(path) { lstat($0, &info) }
}

/// `open(2)`; returns the descriptor, or -1 with `errno`.
public func openPath(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    PathEscaping.withCString(path) { open($0, flags, mode) }
}

/// `chmod(2)`.
public func chmodPath(_ path: String, _ mode: mode_t) -> Int32 {
    PathEscaping.withCString(path) { chmod($0, mode) }
}

/// `lchown(2)`: the file named itself, never a link's target.
public func lchownPath(_ path: String, _ owner: uid_t, _ group: gid_t) -> Int32 {
    PathEscaping.withCString(path) { lchown($0, owner, group) }
}

/// `mkdir(2)`.
public func mkdirPath(_ path: String, _ mode: mode_t) -> Int32 {
    PathEscaping.withCString(path) { mkdir($0, mode) }
}

/// `unlink(2)`.
public func unlinkPath(_ path: String) -> Int32 {
    PathEscaping.withCString(path) { unlink($0) }
}

/// `rename(2)`: atomic within one file system.
public func renamePath(_ source: String, _ destination: String) -> Int32 {
    PathEscaping.withCString(source) { from in PathEscaping.withCString(destination) { rename(from, $0) } }
}

/// How ``renamePath(_:_:flags:)`` renames.
public enum RenameFlag: Sendable {
    /// Swap the two names, atomically: both must exist (Linux's `RENAME_EXCHANGE`, Darwin's `RENAME_SWAP`).
    case exchange
    /// Fail with `EEXIST` rather than replace what the destination names (`RENAME_NOREPLACE`, `RENAME_EXCL`).
    case noReplace
}

/// `renameat2(2)` on Linux, `renamex_np(3)` on Darwin: a rename that exchanges the two names or never replaces.
/// -1 with `ENOSYS` where the C library has no such call, `EINVAL` (or `ENOTSUP`) where the file system does not.
public func renamePath(_ source: String, _ destination: String, flags: RenameFlag) -> Int32 {
    PathEscaping.withCString(source) { from in
        PathEscaping.withCString(destination) { to in
            #if canImport(Darwin)
                renamex_np(from, to, UInt32(flags == .exchange ? RENAME_SWAP : RENAME_EXCL))
            #else
                // Glibc declares renameat2 only under _GNU_SOURCE, which Swift's Glibc module is not built with:
                // the function is looked up by name (glibc 2.28 and later have it).
                guard let address = renameAt2Address, let symbol = UnsafeRawPointer(bitPattern: address) else {
                    errno = ENOSYS
                    return -1
                }
                typealias RenameAt2 =
                    @convention(c) (
                        Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32
                    ) -> Int32
                // Linux's RENAME_NOREPLACE (1) and RENAME_EXCHANGE (2), from <linux/fs.h>.
                return unsafeBitCast(symbol, to: RenameAt2.self)(
                    AT_FDCWD, from, AT_FDCWD, to, flags == .exchange ? 2 : 1)
            #endif
        }
    }
}

#if !canImport(Darwin)
    /// Where the C library's `renameat2` is, looked up once (`nil` where it has none).
    private let renameAt2Address: UInt? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2").map {
        UInt(bitPattern: $0)
    }
#endif

/// `opendir(3)`; `nil` with `errno`.
public func opendirPath(_ path: String) -> OpaquePointer? {
    PathEscaping.withCString(path) { opendir($0) }
}

/// The name of a directory entry, its bytes kept (`PathEscaping`).
func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
    withUnsafeBytes(of: entry.pointee.d_name) { raw in PathEscaping.string(fromBytes: raw.prefix { $0 != 0 }) }
}

/// The absolute path with every symbolic link, `.` and `..` resolved (`realpath(3)`), or `nil` where a part
/// of it does not exist or cannot be read.
public func realPath(_ path: String) -> String? {
    PathEscaping.withCString(path) { name in
        guard let resolved = realpath(name, nil) else { return nil }
        defer { free(resolved) }
        return PathEscaping.string(fromBytes: UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
    }
}

/// The path an open descriptor names as the kernel resolved it (Linux: `/proc/self/fd/N`; Darwin:
/// `F_GETPATH`), or `nil` where the system cannot say.
func openedPath(_ descriptor: Int32) -> String? {
    #if os(Linux)
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self) else { return -1 }
            return readlink("/proc/self/fd/\(descriptor)", base, raw.count)
        }
        guard count > 0, count < buffer.count else { return nil }
        return PathEscaping.string(fromBytes: buffer[..<count])
    #elseif canImport(Darwin)
        var buffer = [CChar](repeating: 0, count: Int(MAXPATHLEN) + 1)
        guard fcntl(descriptor, F_GETPATH, &buffer) == 0 else { return nil }
        return buffer.withUnsafeBytes { raw in PathEscaping.string(fromBytes: raw.prefix { $0 != 0 }) }
    #else
        return nil
    #endif
}

/// Whether `path` (a real path: absolute, no links) lies below the real folder `root`, and outside the
/// kernel's own trees (`/proc`, `/sys`, `/dev`), whatever `root` is.
public func realPath(_ path: String, liesBelow root: String) -> Bool {
    func below(_ folder: String) -> Bool { path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/") }
    return below(root) && !["/proc", "/sys", "/dev"].contains(where: below)
}
