import AudioFormats

/// A picture a file carries (cover art): FLAC's `PICTURE` block, Vorbis and Opus comments'
/// `METADATA_BLOCK_PICTURE`, ID3v2's `APIC`/`PIC` frame, MP4's `covr`. Described, not held: the bytes stay in
/// the file, at ``dataOffset`` where they stand there as they are.
public struct Picture: Hashable, Sendable {
    /// The picture's role by ID3's and FLAC's numbers (3: the front cover; 0: other).
    public var type: Int
    /// The MIME type the file gives (or, where it gives none, the one the picture's first bytes show).
    public var mimeType: String
    /// The description the file gives ("" for none).
    public var description: String = ""
    /// The picture's size in bytes.
    public var byteCount: Int
    /// Width and height in pixels, where the container states them.
    public var width: Int?
    /// Height in pixels, where the container states it.
    public var height: Int?
    /// Where the picture's bytes start in the file, where they are stored as they are (not in base64 or
    /// unsynchronised).
    public var dataOffset: Int64?
    /// The picture's bytes, where they are held: a picture a comment carries in base64, or one given to a
    /// writer.
    public var data: [UInt8]?

    /// A picture of `type` (ID3's and FLAC's numbers), `mimeType`, `byteCount` bytes.
    public init(type: Int, mimeType: String, byteCount: Int) {
        self.type = type
        self.mimeType = mimeType
        self.byteCount = byteCount
    }

    /// The role's name as ID3 and FLAC number them ("front cover" for 3), or "picture type N" past them.
    public var roleName: String {
        let names = [
            "other", "file icon", "other file icon", "front cover", "back cover", "leaflet page", "media",
            "lead artist", "artist", "conductor", "band", "composer", "lyricist", "recording location",
            "during recording", "during performance", "screen capture", "bright coloured fish", "illustration",
            "band logotype", "publisher logotype",
        ]
        return names.indices.contains(type) ? names[type] : "picture type \(type)"
    }

    /// The MIME type a picture's first bytes show (JPEG, PNG, GIF, BMP, WebP), or `nil`.
    package static func sniffedMIMEType(_ bytes: some Collection<UInt8>) -> String? {
        let head = Array(bytes.prefix(12))
        func starts(_ prefix: [UInt8]) -> Bool { head.starts(with: prefix) }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if starts(Array("GIF8".utf8)) { return "image/gif" }
        if starts(Array("BM".utf8)) { return "image/bmp" }
        if starts(Array("RIFF".utf8)), head.count == 12, Array(head[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        return nil
    }
}

// MARK: - FLAC's picture block

extension Picture {
    /// What the start of a FLAC `PICTURE` block (the body, `blockLength` bytes) gives.
    package enum FLACBlockStart {
        /// More of the block is needed: this many bytes from its start.
        case needs(Int)
        /// The picture, and the bytes before its data (its header).
        case picture(Picture, headerLength: Int)
        /// The block cannot be one (a length runs past it).
        case malformed(String)
    }

    /// Reads a FLAC `PICTURE` block's header (type, MIME type, description, width, height, depth, colours,
    /// data length) from its first bytes, without needing the picture's data.
    package static func flacBlockStart(_ bytes: UnsafeRawBufferPointer, blockLength: Int) -> FLACBlockStart {
        let cursor = ByteCursor(bytes)
        func integer(at offset: Int) -> Int? {
            cursor.getInteger(at: offset, endianness: .big, as: UInt32.self).map(Int.init)
        }
        guard blockLength >= 32 else { return .malformed("a picture block of \(blockLength) bytes") }
        guard let type = integer(at: 0), let mimeLength = integer(at: 4) else { return .needs(8) }
        guard mimeLength <= blockLength - 32 else { return .malformed("its MIME type runs past the block") }
        guard let descriptionLength = integer(at: 8 + mimeLength) else { return .needs(12 + mimeLength) }
        let headerLength = 32 + mimeLength + descriptionLength
        guard descriptionLength <= blockLength - 32 - mimeLength else {
            return .malformed("its description runs past the block")
        }
        guard bytes.count >= headerLength, let dataLength = integer(at: headerLength - 4) else {
            return .needs(headerLength)
        }
        guard dataLength <= blockLength - headerLength else { return .malformed("its data runs past the block") }
        let mime = String(decoding: bytes[8..<8 + mimeLength], as: UTF8.self)
        var picture = Picture(type: type, mimeType: mime, byteCount: dataLength)
        picture.description = String(
            decoding: bytes[12 + mimeLength..<12 + mimeLength + descriptionLength], as: UTF8.self)
        let width = integer(at: headerLength - 20) ?? 0
        let height = integer(at: headerLength - 16) ?? 0
        if width > 0 && height > 0 {
            picture.width = width
            picture.height = height
        }
        return .picture(picture, headerLength: headerLength)
    }

    /// The picture as a FLAC `PICTURE` block's body (what `METADATA_BLOCK_PICTURE` holds in base64), its
    /// ``data`` included.
    package func flacBlockBody() -> [UInt8] {
        let mime = Array(mimeType.utf8)
        let text = Array(description.utf8)
        let bytes = data ?? []
        var body: [UInt8] = []
        body.appendInteger(UInt32(clamping: type), endianness: .big)
        body.appendInteger(UInt32(mime.count), endianness: .big)
        body += mime
        body.appendInteger(UInt32(text.count), endianness: .big)
        body += text
        for value in [width ?? 0, height ?? 0, 0, 0, bytes.count] {
            body.appendInteger(UInt32(clamping: value), endianness: .big)
        }
        return body + bytes
    }

    /// A whole FLAC `PICTURE` block (as `METADATA_BLOCK_PICTURE` holds it, in base64), or `nil`.
    package static func flacBlock(_ bytes: [UInt8]) -> Picture? {
        bytes.withUnsafeBytes { raw in
            guard case .picture(var picture, let headerLength) = flacBlockStart(raw, blockLength: raw.count) else {
                return nil
            }
            if picture.mimeType.isEmpty {
                picture.mimeType = sniffedMIMEType(raw[headerLength...]) ?? picture.mimeType
            }
            picture.data = Array(raw[headerLength..<headerLength + picture.byteCount])
            return picture
        }
    }
}
