import AudioFormats

/// Vorbis comments (FLAC's `VORBIS_COMMENT`, Ogg Vorbis's comment header, `OpusTags`): a vendor string
/// and `NAME=value` fields, little-endian lengths. Fields become `metadata` under Apple's info-dictionary
/// names where one exists ("title", "artist", "track number", ...), else the field's name in lower case;
/// a field given more than once keeps every value, joined by "; ".
enum VorbisComment {
    /// Apple's names for the common fields.
    static let names: [String: String] = [
        "TITLE": "title", "ARTIST": "artist", "ALBUM": "album", "DATE": "year", "GENRE": "genre",
        "TRACKNUMBER": "track number", "COMPOSER": "composer", "COMMENT": "comments", "DESCRIPTION": "comments",
        "COPYRIGHT": "copyright", "ALBUMARTIST": "album artist", "ENCODER": "encoder", "LYRICS": "lyricist",
    ]

    /// The fields of a comment block (the vendor string included, as "encoding application" when no field
    /// names the encoder); `nil` where a length runs past the block.
    static func fields(_ bytes: UnsafeRawBufferPointer) -> [String: String]? {
        let reader = ByteCursor(bytes)
        var position = 0
        func length() -> Int? {
            guard let value = reader.getInteger(at: position, endianness: .little, as: UInt32.self) else { return nil }
            position += 4
            return Int(value) <= bytes.count - position ? Int(value) : nil
        }
        func text(_ count: Int) -> String {
            defer { position += count }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[position..<position + count]), as: UTF8.self)
        }
        guard let vendorLength = length() else { return nil }
        let vendor = text(vendorLength)
        guard let count = reader.getInteger(at: position, endianness: .little, as: UInt32.self) else { return nil }
        position += 4
        var fields: [String: String] = [:]
        // Each field takes at least its 4-byte length: a count past that is a lie, read as far as it holds.
        for _ in 0..<min(Int(count), (bytes.count - position) / 4) {
            guard let fieldLength = length() else { return nil }
            let field = text(fieldLength)
            guard let equals = field.firstIndex(of: "=") else { continue }
            let name = field[..<equals].uppercased()
            let value = String(field[field.index(after: equals)...])
            let key = names[name] ?? name.lowercased()
            if let earlier = fields[key] { fields[key] = earlier + "; " + value } else { fields[key] = value }
        }
        if !vendor.isEmpty && fields["encoder"] == nil { fields["encoding application"] = vendor }
        return fields
    }
}
