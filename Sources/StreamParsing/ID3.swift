import AudioFormats

/// ID3 tags: version 2 (2.2, 2.3, 2.4) before or within an MPEG or ADTS stream, and version 1 at
/// the end. afkit skips them and reports their text frames as metadata.
///
/// ID3v2 header (10 bytes): `ID3`, major and revision version, flags (0x80 unsynchronisation,
/// 0x40 extended header, 0x10 footer present), and the tag size as a 28-bit syncsafe integer
/// (excluding the header and footer).
public enum ID3 {
    package static let headerSize = 10
    package static let version1Size = 128
    /// The most chapters a tag's table of contents (`CTOC`, its entry count a byte) names.
    package static let maximumChapters = 255

    /// A parsed ID3v2 header: the bytes the whole tag occupies from its first byte.
    package struct Header {
        package var majorVersion: UInt8
        package var flags: UInt8
        package var bodySize: Int
        package var totalSize: Int { ID3.headerSize + bodySize + (flags & 0x10 != 0 ? ID3.headerSize : 0) }
    }

    /// Reads an ID3v2 header from the 10 bytes at the cursor, or `nil` if they are not one.
    package static func header(_ bytes: UnsafeRawBufferPointer) -> Header? {
        guard bytes.count >= headerSize, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33,
            bytes[3] != 0xFF, bytes[4] != 0xFF
        else { return nil }
        var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: bytes[6..<10]))
        guard let size = cursor.readSyncsafeUInt32() else { return nil }
        return Header(majorVersion: bytes[3], flags: bytes[5], bodySize: Int(size))
    }

    /// What a tag holds that afkit reports: text by afkit's metadata names, pictures, chapters.
    package struct Contents {
        package var text: [String: String] = [:]
        package var pictures: [Picture] = []
        package var chapters: [Chapter] = []
        /// A packed-audio segment's `PRIV` timestamp (``ID3/transportStreamTimestampOwner``), 90 kHz.
        package var transportStreamTimestamp: UInt64?

        package init(
            text: [String: String] = [:], pictures: [Picture] = [], chapters: [Chapter] = [],
            transportStreamTimestamp: UInt64? = nil
        ) {
            self.text = text
            self.pictures = pictures
            self.chapters = chapters
            self.transportStreamTimestamp = transportStreamTimestamp
        }

        /// Into a file's properties: text under names not set yet (the first tag wins), pictures and chapters
        /// after those found before; whether there was text.
        @discardableResult
        package func merge(into properties: inout StreamProperties) -> Bool {
            for (key, value) in text where properties.infoDictionary[key] == nil {
                properties.infoDictionary[key] = value
            }
            properties.pictures += pictures
            properties.chapters += chapters
            return !text.isEmpty
        }
    }

    /// The text frames of a whole ID3v2 tag (header included), by afkit's metadata names, its pictures
    /// (`APIC`, version 2.2's `PIC`) and chapters (`CHAP`, titled by their `TIT2`); `tagOffset` is where the tag
    /// starts in the file, for the pictures' offsets.
    package static func frames(_ tag: UnsafeRawBufferPointer, at tagOffset: Int64? = nil) -> Contents {
        guard let header = header(tag), (2...4).contains(header.majorVersion) else { return Contents() }
        var body = Array(tag[headerSize..<min(tag.count, headerSize + header.bodySize)])
        // Version 2.2 and 2.3 unsynchronise the whole tag: 0xFF 0x00 stands for 0xFF.
        let wholeTagUnsynchronised = header.flags & 0x80 != 0 && header.majorVersion < 4
        if wholeTagUnsynchronised { body = resynchronized(body) }
        var position = 0
        if header.flags & 0x40 != 0 && header.majorVersion >= 3 && body.count >= 4 {
            // Extended header: 2.3 gives its size without itself; 2.4 a syncsafe size with itself.
            let raw = Int(body[0]) << 24 | Int(body[1]) << 16 | Int(body[2]) << 8 | Int(body[3])
            let syncsafe = Int(body[0]) << 21 | Int(body[1]) << 14 | Int(body[2]) << 7 | Int(body[3])
            position = header.majorVersion == 3 ? raw + 4 : syncsafe
        }
        let idLength = header.majorVersion == 2 ? 3 : 4
        let frameHeaderLength = header.majorVersion == 2 ? 6 : 10
        var found = Contents()
        while position >= 0, position + frameHeaderLength <= body.count, body[position] != 0 {
            let id = String(decoding: body[position..<position + idLength], as: UTF8.self)
            let sizeStart = position + idLength
            let size = frameSize(
                body[sizeStart..<sizeStart + (header.majorVersion == 2 ? 3 : 4)], version: header.majorVersion)
            let flags = header.majorVersion >= 3 ? Int(body[position + 8]) << 8 | Int(body[position + 9]) : 0
            let start = position + frameHeaderLength
            guard size >= 0, start + size <= body.count else { break }
            var content = Array(body[start..<start + size])
            let frameUnsynchronised = header.majorVersion == 4 && flags & 0x0002 != 0
            if frameUnsynchronised { content = resynchronized(content) }
            if header.majorVersion == 4 && flags & 0x0001 != 0 && content.count >= 4 { content.removeFirst(4) }
            let compressedOrEncrypted = header.majorVersion == 3 ? flags & 0x00C0 != 0 : flags & 0x000C != 0
            if !compressedOrEncrypted, id == "APIC" || id == "PIC", var picture = self.picture(content, id: id) {
                // The picture's bytes stand in the file as they are only without unsynchronisation.
                // Otherwise they are held, restored, where the tag was read whole (not by the walker, which
                // passes no offset and holds only a frame's first bytes).
                if let tagOffset, !wholeTagUnsynchronised, !frameUnsynchronised, flags & 0x0001 == 0 {
                    picture.dataOffset = tagOffset + Int64(headerSize + start + content.count - picture.byteCount)
                } else if tagOffset != nil {
                    picture.data = Array(content.suffix(picture.byteCount))
                }
                found.pictures.append(picture)
            } else if !compressedOrEncrypted, id == "CHAP", let chapter = chapter(content, version: header.majorVersion)
            {
                found.chapters.append(chapter)
            } else if !compressedOrEncrypted, id == "PRIV", let timestamp = transportStreamTimestamp(content) {
                found.transportStreamTimestamp = timestamp
            } else if !compressedOrEncrypted, id.hasPrefix("COM"), let (name, text) = comment(content), !text.isEmpty {
                found.text[name] = text
            } else if !compressedOrEncrypted, let key = frameNames[id] {
                if var text = self.text(content), !text.isEmpty {
                    if key == "genre" { text = genre(text) }
                    found.text[key] = text
                }
            } else if !compressedOrEncrypted, id == "TXXX" || id == "TXX", let encoding = content.first {
                // A user-defined text frame: its description names it, in lower case as every container's
                // free-form names are (REPLAYGAIN_TRACK_GAIN is `replaygain_track_gain` from ID3, Vorbis and MP4).
                let strings = decode(Array(content.dropFirst()), encoding: encoding)
                if strings.count > 1, !strings[0].isEmpty, !strings[1].isEmpty {
                    found.text[userFrameNames[strings[0].lowercased()] ?? strings[0].lowercased()] = strings[1]
                }
            }
            position = start + size
        }
        found.chapters.sort { $0.startTime < $1.startTime }
        return found
    }

    /// A `CHAP` frame (ID3v2 chapter addendum): an element ID, start and end in milliseconds, two byte offsets,
    /// then frames of the tag's version (its title in `TIT2`); `nil` where it is cut short.
    package static func chapter(_ content: [UInt8], version: UInt8) -> Chapter? {
        guard let idEnd = content.firstIndex(of: 0), content.count >= idEnd + 17 else { return nil }
        func milliseconds(_ at: Int) -> UInt32 {
            content[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let start = milliseconds(idEnd + 1)
        let end = milliseconds(idEnd + 5)
        // The embedded frames read as a tag of their own.
        let embedded = Array(content[(idEnd + 17)...])
        let tag = Array("ID3".utf8) + [version, 0, 0] + syncsafe(embedded.count) + embedded
        let title = tag.withUnsafeBytes { frames($0).text["title"] } ?? ""
        return Chapter(
            startTime: Double(start) / 1000, endTime: end > start ? Double(end) / 1000 : nil, title: title)
    }

    /// An `APIC` frame (encoding, MIME type, picture type, description, data) or version 2.2's `PIC` (a
    /// three-letter image format in place of the MIME type), or `nil` where it is cut short.
    package static func picture(_ content: [UInt8], id: String) -> Picture? {
        guard let encoding = content.first else { return nil }
        var position = 1
        var mime: String
        if id == "PIC" {
            guard content.count >= 5 else { return nil }
            let format = String(decoding: content[1..<4], as: UTF8.self).uppercased()
            mime = ["JPG": "image/jpeg", "PNG": "image/png", "GIF": "image/gif", "BMP": "image/bmp"][format] ?? ""
            position = 4
        } else {
            guard let end = content[1...].firstIndex(of: 0) else { return nil }
            mime = String(decoding: content[1..<end], as: UTF8.self)
            position = end + 1
        }
        guard position < content.count else { return nil }
        let type = Int(content[position])
        position += 1
        // The description ends at a NUL of its encoding's width (two bytes, aligned, in UTF-16).
        let wide = encoding == 1 || encoding == 2
        var end = position
        while end + (wide ? 1 : 0) < content.count, !(content[end] == 0 && (!wide || content[end + 1] == 0)) {
            end += wide ? 2 : 1
        }
        guard end + (wide ? 1 : 0) < content.count else { return nil }
        let description = decode(Array(content[position..<end]), encoding: encoding).first ?? ""
        let data = content[(end + (wide ? 2 : 1))...]
        // "image/jpg", "jpeg" and the like: what the bytes are, where the frame names it loosely.
        if !mime.hasPrefix("image/") || mime == "image/jpg" { mime = Picture.sniffedMIMEType(data) ?? mime }
        var picture = Picture(type: type, mimeType: mime, byteCount: data.count)
        picture.description = description
        return picture
    }

    /// An ID3v2.4 tag holding `metadata` as UTF-8 text frames: the keys ID3 names by their frames (title,
    /// artist, album, year, genre, comments, copyright, the encoder), every other key as a user-defined
    /// `TXXX` frame that the reader gives back under the same key; empty for no metadata. Keys in sorted order,
    /// so the bytes depend on the metadata only.
    package static func tag(metadata: [String: String], pictures: [Picture] = [], chapters: [Chapter] = []) -> [UInt8] {
        let written: [String: String] = [
            "title": "TIT2", "artist": "TPE1", "album": "TALB", "year": "TDRC", "genre": "TCON",
            "track number": "TRCK", "composer": "TCOM", "album artist": "TPE2", "copyright": "TCOP",
            "encoding application": "TSSE", "encoder": "TSSE", "language": "TLAN",
        ]
        var frames: [UInt8] = []
        func frame(_ id: String, _ content: [UInt8]) {
            frames += Array(id.utf8) + syncsafe(content.count) + [0, 0] + content
        }
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) where !value.isEmpty {
            if key == "comments" || key == "comment" {
                frame("COMM", [3] + Array("eng".utf8) + [0] + Array(value.utf8))
            } else if let id = written[key] {
                frame(id, [3] + Array(value.utf8))
            } else {
                frame("TXXX", [3] + Array(key.utf8) + [0] + Array(value.utf8))
            }
        }
        // Pictures: UTF-8, MIME type, role, description, the bytes.
        for picture in pictures {
            frame(
                "APIC",
                [3] + Array(picture.mimeType.utf8) + [0, UInt8(clamping: picture.type)]
                    + Array(picture.description.utf8)
                    + [0] + (picture.data ?? []))
        }
        // Chapters: a table of contents naming them in order, then each with its times and title.
        if !chapters.isEmpty {
            let ids = chapters.indices.map { Array("ch\($0)".utf8) + [0] }
            let count = min(chapters.count, maximumChapters)
            frame("CTOC", Array("toc".utf8) + [0, 0x03, UInt8(count)] + ids.prefix(count).joined())
            for (id, chapter) in zip(ids, chapters).prefix(count) {
                func milliseconds(_ seconds: Double) -> [UInt8] {
                    let value = UInt32(clamping: Int64((seconds * 1000).rounded()))
                    return (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
                }
                var title: [UInt8] = []
                if !chapter.title.isEmpty {
                    let text = [3] + Array(chapter.title.utf8)
                    title = Array("TIT2".utf8) + syncsafe(text.count) + [0, 0] + text
                }
                frame(
                    "CHAP",
                    id + milliseconds(chapter.startTime) + milliseconds(chapter.endTime ?? chapter.startTime)
                        + [UInt8](repeating: 0xFF, count: 8) + title)
            }
        }
        guard !frames.isEmpty else { return [] }
        return Array("ID3".utf8) + [4, 0, 0] + syncsafe(frames.count) + frames
    }

    /// The owner of the `PRIV` frame that starts every HTTP Live Streaming packed-audio segment.
    public static let transportStreamTimestampOwner = "com.apple.streaming.transportStreamTimestamp"

    /// A `PRIV` frame's timestamp where its owner is ``transportStreamTimestampOwner``: eight bytes, big-endian,
    /// of which the low 33 bits are an MPEG-2 presentation time (90 kHz).
    package static func transportStreamTimestamp(_ content: [UInt8]) -> UInt64? {
        let owner = Array(transportStreamTimestampOwner.utf8) + [0]
        guard content.count == owner.count + 8, content.starts(with: owner) else { return nil }
        return content.suffix(8).reduce(0) { $0 << 8 | UInt64($1) } & 0x1_FFFF_FFFF
    }

    /// The ID3v2.4 tag that starts a packed-audio segment: first a `PRIV` frame holding `timestamp` (90 kHz,
    /// taken modulo 2^33 as the MPEG-2 clock wraps), then `metadata` as ``tag(metadata:pictures:chapters:)``
    /// writes it (the first segment's title and artist).
    public static func transportStreamTimestampTag(_ timestamp: UInt64, metadata: [String: String] = [:]) -> [UInt8] {
        var content = Array(transportStreamTimestampOwner.utf8) + [0]
        content.appendInteger(timestamp & 0x1_FFFF_FFFF, endianness: .big)
        var frames = Array("PRIV".utf8) + syncsafe(content.count) + [0, 0] + content
        let text = tag(metadata: metadata)
        if text.count > headerSize { frames += text[headerSize...] }
        return Array("ID3".utf8) + [4, 0, 0] + syncsafe(frames.count) + frames
    }

    /// The `PRIV` timestamp of the ID3v2 tag at the start of `segment` (a packed-audio segment), or `nil`
    /// where it has no tag or the tag no timestamp; and the tag's size in bytes (0 without one).
    public static func transportStreamTimestamp(atStartOf segment: [UInt8]) -> (timestamp: UInt64?, tagSize: Int) {
        segment.withUnsafeBytes { bytes in
            guard let header = header(bytes), header.totalSize <= bytes.count else { return (nil, 0) }
            let tag = UnsafeRawBufferPointer(rebasing: bytes[0..<header.totalSize])
            return (frames(tag).transportStreamTimestamp, header.totalSize)
        }
    }

    /// A frame's size from its size field: seven bits a byte in version 2.4, eight in 2.2 and 2.3.
    package static func frameSize(_ field: some Collection<UInt8>, version: UInt8) -> Int {
        field.reduce(0) { version == 4 ? $0 << 7 | Int($1 & 0x7F) : $0 << 8 | Int($1) }
    }

    /// A frame's four-byte size field of `size` as `version` (2.3 or 2.4) writes it.
    package static func frameSizeField(_ size: Int, version: UInt8) -> [UInt8] {
        version == 4 ? syncsafe(size) : (0..<4).map { UInt8(truncatingIfNeeded: size >> (24 - 8 * $0)) }
    }

    /// A size as ID3v2.4 writes it: four bytes of seven bits.
    package static func syncsafe(_ value: Int) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: (value >> (21 - 7 * $0)) & 0x7F) }
    }

    /// User-defined frames some taggers write for what has a name of its own (FFmpeg's `TXXX:comment`): afkit's
    /// names for them.
    package static let userFrameNames: [String: String] = [
        "comment": "comments", "description": "comments", "date": "year", "track": "track number",
        "tracknumber": "track number", "albumartist": "album artist", "album_artist": "album artist",
    ]

    /// ID3v2 frame IDs (2.3/2.4 and 2.2) and afkit's names for them.
    package static let frameNames: [String: String] = [
        "TIT2": "title", "TT2": "title", "TPE1": "artist", "TP1": "artist", "TALB": "album", "TAL": "album",
        "TYER": "year", "TYE": "year", "TDRC": "year", "TCON": "genre", "TCO": "genre", "TRCK": "track number",
        "TRK": "track number", "TCOM": "composer", "TCM": "composer", "TPE2": "album artist", "TSSE": "encoder",
        "TSS": "encoder", "TCOP": "copyright", "TCR": "copyright", "TLAN": "language", "TLA": "language",
    ]

    /// Removes the zero byte that unsynchronisation puts after every 0xFF.
    package static func resynchronized(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var previous: UInt8 = 0
        for byte in bytes {
            if !(previous == 0xFF && byte == 0x00) { out.append(byte) }
            previous = byte
        }
        return out
    }

    /// A text frame: an encoding byte, then the text (several values separated by NUL in version 2.4).
    package static func text(_ content: [UInt8]) -> String? {
        guard let encoding = content.first else { return nil }
        // Version 2.4 keeps several values in one frame, NUL between them: every one, joined as Vorbis
        // comments' repeated fields are ("A1; A2").
        let values = decode(Array(content.dropFirst()), encoding: encoding).filter { !$0.isEmpty }
        return values.isEmpty ? nil : values.joined(separator: "; ")
    }

    /// A comment frame (encoding, language in 3 bytes, a short description, the text) under the name its
    /// description gives: "comments" for none, else the description in lower case (iTunes keeps `iTunNORM`
    /// and `iTunSMPB` in comments: `itunnorm`, `itunsmpb`, as MP4's free-form items read).
    package static func comment(_ content: [UInt8]) -> (name: String, text: String)? {
        guard content.count > 4, let encoding = content.first else { return nil }
        let strings = decode(Array(content.dropFirst(4)), encoding: encoding)
        guard strings.count > 1 else { return strings.first.map { ("comments", $0) } }
        let description = strings[0].lowercased()
        return (description.isEmpty ? "comments" : userFrameNames[description] ?? description, strings[1])
    }

    /// Decodes NUL-separated strings in an ID3 encoding: 0 Latin-1, 1 UTF-16 with BOM, 2 UTF-16BE, 3 UTF-8.
    package static func decode(_ bytes: [UInt8], encoding: UInt8) -> [String] {
        switch encoding {
        case 1, 2:
            var units: [UInt16] = []
            var bigEndian = encoding == 2
            var index = 0
            var strings: [String] = []
            var expectBOM = encoding == 1
            while index + 1 < bytes.count {
                let unit =
                    bigEndian
                    ? UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
                    : UInt16(bytes[index + 1]) << 8 | UInt16(bytes[index])
                index += 2
                if expectBOM && (unit == 0xFEFF || unit == 0xFFFE) {
                    if unit == 0xFFFE { bigEndian.toggle() }
                    expectBOM = false
                    continue
                }
                expectBOM = false
                if unit == 0 {
                    strings.append(String(decoding: units, as: UTF16.self))
                    units = []
                    expectBOM = encoding == 1
                } else {
                    units.append(unit)
                }
            }
            strings.append(String(decoding: units, as: UTF16.self))
            return strings.map { $0.trimmingTrailingSpaces() }
        default:
            return bytes.split(separator: 0, omittingEmptySubsequences: false).map { part in
                encoding == 3
                    ? String(decoding: part, as: UTF8.self)
                    : String(String.UnicodeScalarView(part.map { Unicode.Scalar($0) }))
            }.map { $0.trimmingTrailingSpaces() }
        }
    }

    /// ID3v1 (`TAG` and 125 bytes): title, artist, album (30 bytes each), year (4), comment (30, the last
    /// two bytes a track number in v1.1), genre.
    package static func version1Fields(_ tag: UnsafeRawBufferPointer) -> [String: String] {
        guard tag.count >= version1Size, tag[0] == 0x54, tag[1] == 0x41, tag[2] == 0x47 else { return [:] }
        func field(_ start: Int, _ length: Int) -> String {
            decodeText(UnsafeRawBufferPointer(rebasing: tag[start..<start + length]))
        }
        var fields: [String: String] = [:]
        for (key, start, length) in [
            ("title", 3, 30), ("artist", 33, 30), ("album", 63, 30), ("year", 93, 4),
            ("comments", 97, 30),
        ] {
            let value = field(start, length)
            if !value.isEmpty { fields[key] = value }
        }
        if tag[125] == 0 && tag[126] != 0 { fields["track number"] = String(tag[126]) }
        if Int(tag[127]) < genres.count { fields["genre"] = genres[Int(tag[127])] }
        return fields
    }

    /// ID3v1's genres by number (0-79 as ID3v1 defines them, 80-147 as Winamp added them), which version 2's
    /// `TCON` refers to as "(17)" or "17".
    package static let genres = [
        "Blues", "Classic Rock", "Country", "Dance", "Disco", "Funk", "Grunge", "Hip-Hop", "Jazz", "Metal", "New Age",
        "Oldies", "Other", "Pop", "R&B", "Rap", "Reggae", "Rock", "Techno", "Industrial", "Alternative", "Ska",
        "Death Metal", "Pranks", "Soundtrack", "Euro-Techno", "Ambient", "Trip-Hop", "Vocal", "Jazz+Funk", "Fusion",
        "Trance", "Classical", "Instrumental", "Acid", "House", "Game", "Sound Clip", "Gospel", "Noise", "AlternRock",
        "Bass", "Soul", "Punk", "Space", "Meditative", "Instrumental Pop", "Instrumental Rock", "Ethnic", "Gothic",
        "Darkwave", "Techno-Industrial", "Electronic", "Pop-Folk", "Eurodance", "Dream", "Southern Rock", "Comedy",
        "Cult", "Gangsta", "Top 40", "Christian Rap", "Pop/Funk", "Jungle", "Native American", "Cabaret", "New Wave",
        "Psychadelic", "Rave", "Showtunes", "Trailer", "Lo-Fi", "Tribal", "Acid Punk", "Acid Jazz", "Polka", "Retro",
        "Musical", "Rock & Roll", "Hard Rock", "Folk", "Folk-Rock", "National Folk", "Swing", "Fast Fusion", "Bebob",
        "Latin", "Revival", "Celtic", "Bluegrass", "Avantgarde", "Gothic Rock", "Progressive Rock", "Psychedelic Rock",
        "Symphonic Rock", "Slow Rock", "Big Band", "Chorus", "Easy Listening", "Acoustic", "Humour", "Speech",
        "Chanson", "Opera", "Chamber Music", "Sonata", "Symphony", "Booty Bass", "Primus", "Porn Groove", "Satire",
        "Slow Jam", "Club", "Tango", "Samba", "Folklore", "Ballad", "Power Ballad", "Rhythmic Soul", "Freestyle",
        "Duet",
        "Punk Rock", "Drum Solo", "A capella", "Euro-House", "Dance Hall", "Goa", "Drum & Bass", "Club-House",
        "Hardcore", "Terror", "Indie", "BritPop", "Afro-Punk", "Polsk Punk", "Beat", "Christian Gangsta", "Heavy Metal",
        "Black Metal", "Crossover", "Contemporary Christian", "Christian Rock", "Merengue", "Salsa", "Thrash Metal",
        "Anime", "JPop", "Synthpop",
    ]

    /// A `TCON` value with its genre numbers resolved: "(17)" and "17" are "Rock"; "(17)Rock Ballad" keeps the
    /// words after the number (the refinement); "(RX)" is a remix and "(CR)" a cover, as ID3 defines them.
    package static func genre(_ value: String) -> String {
        var text = Substring(value)
        var named: [String] = []
        while text.hasPrefix("("), let close = text.firstIndex(of: ")") {
            let inner = text[text.index(after: text.startIndex)..<close]
            if let number = Int(inner), genres.indices.contains(number) {
                named.append(genres[number])
            } else if inner == "RX" {
                named.append("Remix")
            } else if inner == "CR" {
                named.append("Cover")
            } else {
                break
            }
            text = text[text.index(after: close)...]
        }
        if let number = Int(text), genres.indices.contains(number) { return genres[number] }
        if !text.isEmpty { return String(text) }
        return named.isEmpty ? value : named.joined(separator: ", ")
    }
}

extension ContainerLayout {
    /// The layout of a bare stream afkit writes behind a tag (MP3, ADTS): an ID3v2 tag with the text tags,
    /// pictures and chapters, then the frames back to back, nothing after them. Refuses a format other than
    /// `formatID` with `refusal`.
    package static func taggedStream(
        _ format: StreamDescription, holding formatID: FourCharCode, options: AudioFileWriterOptions,
        refusal: @autoclosure () -> String
    ) throws -> ContainerLayout {
        guard format.formatID == formatID else {
            throw AudioFileError.unsupportedDataFormat(refusal(), offset: nil)
        }
        return ContainerLayout(
            header: ID3.tag(metadata: options.metadata, pictures: options.pictures, chapters: options.chapters),
            trailer: [])
    }
}
