import AudioFormats

/// Text from a chunk: UTF-8 where it is valid, else Latin-1 (classic Mac files), up to the first NUL.
package func decodeText(_ bytes: UnsafeRawBufferPointer) -> String {
    let end = bytes.firstIndex(of: 0) ?? bytes.count
    let slice = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
    if let text = String(validating: slice, as: UTF8.self) {
        return text.trimmingTrailingSpaces()
    }
    return String(String.UnicodeScalarView(slice.map { Unicode.Scalar($0) })).trimmingTrailingSpaces()
}

extension String {
    package func trimmingTrailingSpaces() -> String {
        var text = self
        while let last = text.last, last == " " || last == "\n" || last == "\r" { text.removeLast() }
        return text
    }
}
