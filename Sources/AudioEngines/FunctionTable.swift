import AudioFormats

/// Runs a shim's loader of a C library loaded on first use (CLibraryLoader's `TABLE_load`): the table of the
/// library's functions, or why the library cannot be used, its message after `library`'s name
/// (`libfaad2: libfaad.so.2 cannot be loaded (...)`).
func loadFunctionTable<Table>(
    of library: String, with load: (UnsafeMutablePointer<CChar>, Int) -> UnsafePointer<Table>?
) -> Result<Table, AudioFileError> {
    var message = [CChar](repeating: 0, count: 256)
    guard let functions = load(&message, message.count) else {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .failure(.unsupportedDataFormat("\(library): \(text)", offset: nil))
    }
    return .success(functions.pointee)
}
