import AudioFormats

/// Vorbis comments (FLAC's `VORBIS_COMMENT`, Ogg Vorbis's comment header, `OpusTags`): a vendor string
/// and `NAME=value` fields, little-endian lengths. Fields become `metadata` under Apple's info-dictionary
/// names where one exists ("title", "artist", "track number", ...), else the field's name in lower case;
/// a field given more than once keeps every value, joined by "; ". Pictures (`METADATA_BLOCK_PICTURE`, a FLAC
/// picture block in base64; the older `COVERART`, an image in base64) are pictures, not text.
package enum VorbisComment {
    /// Apple's names for the common fields.
    package static let names: [String: String] = [
        "TITLE": "title", "ARTIST": "artist", "ALBUM": "album", "DATE": "year", "GENRE": "genre",
        "TRACKNUMBER": "track number", "COMPOSER": "composer", "COMMENT": "comments", "DESCRIPTION": "comments",
        "COPYRIGHT": "copyright", "ALBUMARTIST": "album artist", "ENCODER": "encoder", "LYRICS": "lyricist",
    ]

    /// The fields of a comment block (the vendor string included, as "encoding application" when no field
    /// names the encoder) and its pictures; `nil` where a length runs past the block.
    package static func fields(_ bytes: UnsafeRawBufferPointer) -> (fields: [String: String], pictures: [Picture])? {
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
        // Every value of a field, in order: joined once at the end (joining as they come copied the values so far
        // at each repeat, quadratic in a block of one field given 300,000 times).
        var values: [String: [String]] = [:]
        var pictures: [Picture] = []
        // Each field takes at least its 4-byte length: a count past that is a lie, read as far as it holds.
        for _ in 0..<min(Int(count), (bytes.count - position) / 4) {
            guard let fieldLength = length() else { return nil }
            let field = text(fieldLength)
            guard let equals = field.firstIndex(of: "=") else { continue }
            let name = field[..<equals].uppercased()
            let value = String(field[field.index(after: equals)...])
            if name == "METADATA_BLOCK_PICTURE" || name == "COVERART" {
                let decoded = Base64.decoded(value.utf8.filter { $0 != 0x0A && $0 != 0x0D })
                if name == "METADATA_BLOCK_PICTURE", let picture = decoded.flatMap(Picture.flacBlock) {
                    pictures.append(picture)
                } else if name == "COVERART", let decoded, !decoded.isEmpty {
                    var picture = Picture(
                        type: 0, mimeType: Picture.sniffedMIMEType(decoded) ?? "", byteCount: decoded.count)
                    picture.data = decoded
                    pictures.append(picture)
                }
                continue
            }
            let key = names[name] ?? name.lowercased()
            values[key, default: []].append(value)
        }
        var fields = values.mapValues { $0.joined(separator: "; ") }
        if !vendor.isEmpty && fields["encoder"] == nil { fields["encoding application"] = vendor }
        return (fields, pictures)
    }

    /// A comment block read into a file's properties: its pictures, its loop, its chapters, and its other fields
    /// as metadata; whether any field was left as metadata. `nil` where a length runs past the block.
    package static func read(_ bytes: UnsafeRawBufferPointer, into properties: inout StreamProperties) -> Bool? {
        guard case (var fields, let pictures)? = fields(bytes) else { return nil }
        properties.pictures += pictures
        if let loop = takeLoop(from: &fields) { properties.loops = [loop] }
        let chapters = takeChapters(from: &fields)
        if !chapters.isEmpty { properties.chapters = chapters }
        for (key, value) in fields { properties.infoDictionary[key] = value }
        return !fields.isEmpty
    }

    /// Chapters as the Vorbis comment chapter extension writes them (`CHAPTER001=00:01:30.500`,
    /// `CHAPTER001NAME=Title`), taken out of `fields`; sorted by start. A time that does not read is left as a
    /// field.
    package static func takeChapters(from fields: inout [String: String]) -> [Chapter] {
        var chapters: [Chapter] = []
        for key in fields.keys.sorted() where key.hasPrefix("chapter") {
            let number = key.dropFirst("chapter".count)
            guard !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber),
                let time = fields[key].flatMap(clockSeconds)
            else { continue }
            chapters.append(Chapter(startTime: time, title: fields[key + "name"] ?? ""))
            fields[key] = nil
            fields[key + "name"] = nil
        }
        return chapters.sorted { $0.startTime < $1.startTime }
    }

    /// The loop game engines and RPG Maker read from comments: `LOOPSTART` (a frame) with `LOOPLENGTH` (frames)
    /// or `LOOPEND` (the frame after the loop), taken out of `fields` (lower-case keys, as ``fields(_:)`` gives
    /// them); `nil` where they do not make one.
    package static func takeLoop(from fields: inout [String: String]) -> Loop? {
        func number(_ key: String) -> Int64? {
            fields[key].flatMap { Int64($0.filter { !$0.isWhitespace }) }
        }
        guard let start = number("loopstart"), start >= 0 else { return nil }
        let end: Int64? =
            if let length = number("looplength"), length > 0 { start.addingReportingOverflow(length).partialValue } else
            { number("loopend") }
        guard let end, end > start else { return nil }
        for key in ["loopstart", "looplength", "loopend"] { fields[key] = nil }
        return Loop(start: start, end: end, playMode: .forward)
    }
}

extension VorbisComment {
    /// The most chapters a comment block holds: `CHAPTER001` to `CHAPTER999`.
    package static let maximumChapters = 999

    /// A comment block of `metadata` (Apple's names back to the fields they came from, any other key in
    /// upper case), sorted by field, with afkit as the vendor: FLAC's `VORBIS_COMMENT` body and, after
    /// `OpusTags`, Ogg Opus's comment header.
    package static func block(
        metadata: [String: String], pictures: [Picture] = [], loops: [Loop] = [], chapters: [Chapter] = []
    ) -> [UInt8] {
        let fields: [String: String] = [
            "title": "TITLE", "artist": "ARTIST", "album": "ALBUM", "year": "DATE", "genre": "GENRE",
            "track number": "TRACKNUMBER", "composer": "COMPOSER", "comments": "COMMENT", "copyright": "COPYRIGHT",
            "album artist": "ALBUMARTIST", "encoder": "ENCODER", "lyricist": "LYRICS",
            "encoding application": "ENCODER",
        ]
        // Built a kind at a time: one expression of all four took seconds to type-check.
        var entries: [String] = metadata.map { key, value in
            // A field name is printable ASCII without '='.
            let name = (fields[key] ?? key.uppercased()).unicodeScalars.filter {
                $0.value >= 0x20 && $0.value <= 0x7D && $0 != "="
            }
            return String(String.UnicodeScalarView(name)) + "=" + value
        }
        entries.sort()
        for picture in pictures {
            entries.append("METADATA_BLOCK_PICTURE=" + Base64.encoded(picture.flacBlockBody()))
        }
        if let loop = loops.first {
            entries.append("LOOPSTART=\(loop.start)")
            entries.append("LOOPLENGTH=\(loop.end - loop.start)")
        }
        for (index, chapter) in chapters.prefix(maximumChapters).enumerated() {
            let number = String(index + 1)
            let name = "CHAPTER" + String(repeating: "0", count: 3 - number.count) + number
            entries.append(name + "=" + clockTime(chapter.startTime))
            if !chapter.title.isEmpty { entries.append(name + "NAME=" + chapter.title) }
        }
        var body: [UInt8] = []
        let vendor = Array("afkit".utf8)
        body.appendInteger(UInt32(vendor.count), endianness: .little)
        body += vendor
        body.appendInteger(UInt32(entries.count), endianness: .little)
        for entry in entries {
            let bytes = Array(entry.utf8)
            body.appendInteger(UInt32(bytes.count), endianness: .little)
            body += bytes
        }
        return body
    }
}
