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

public func statPath(_ path: String, _ info: inout stat) -> Int32 {
    PathEscaping.withCString(path) { stat($0, &info) }
}

public func lstatPath(_ path: String, _ info: inout stat) -> Int32 {
    PathEscaping.withCString(path) { lstat($0, &info) }
}

public func openPath(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    PathEscaping.withCString(path) { open($0, flags, mode) }
}

public func mkdirPath(_ path: String, _ mode: mode_t) -> Int32 {
    PathEscaping.withCString(path) { mkdir($0, mode) }
}

public func unlinkPath(_ path: String) -> Int32 {
    PathEscaping.withCString(path) { unlink($0) }
}

public func renamePath(_ source: String, _ destination: String) -> Int32 {
    PathEscaping.withCString(source) { from in PathEscaping.withCString(destination) { rename(from, $0) } }
}

public func opendirPath(_ path: String) -> OpaquePointer? {
    PathEscaping.withCString(path) { opendir($0) }
}

/// The name of a directory entry, its bytes kept (`PathEscaping`).
func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
    withUnsafeBytes(of: entry.pointee.d_name) { raw in PathEscaping.string(fromBytes: raw.prefix { $0 != 0 }) }
}
