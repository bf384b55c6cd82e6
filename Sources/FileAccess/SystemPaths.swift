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

/// `opendir(3)`; `nil` with `errno`.
public func opendirPath(_ path: String) -> OpaquePointer? {
    PathEscaping.withCString(path) { opendir($0) }
}

/// The name of a directory entry, its bytes kept (`PathEscaping`).
func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
    withUnsafeBytes(of: entry.pointee.d_name) { raw in PathEscaping.string(fromBytes: raw.prefix { $0 != 0 }) }
}
