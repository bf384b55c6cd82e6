import AudioFormats
import StreamParsing

/// Ogg (RFC 3533), the paged kind: pages (`OggS`, a header with its CRC-32 and a lacing table) carry
/// the packets of one or more logical streams, a packet cut by lacing values of 255 and continued
/// across pages. afkit reads the first audio stream (Vorbis, Opus or FLAC, by its first packet),
/// skipping the pages of every other (a video stream, a skeleton), and stops at its end (a chained
/// file's later links are noted, not read).
package enum Ogg {
    /// The codec of a logical stream, from its first packet.
    enum Codec: Equatable {
        case vorbis, opus, flac
        /// Recognised and not read: named in the refusal.
        case other(name: String, reason: String)

        init(firstPacket bytes: UnsafeRawBufferPointer) {
            func starts(_ prefix: [UInt8]) -> Bool { bytes.count >= prefix.count && bytes.starts(with: prefix) }
            if starts([1] + Array("vorbis".utf8)) {
                self = .vorbis
            } else if starts(Array("OpusHead".utf8)) {
                self = .opus
            } else if starts([0x7F] + Array("FLAC".utf8)) {
                self = .flac
            } else if starts(Array("Speex   ".utf8)) {
                self = .other(name: "an Ogg Speex file", reason: FileSignature.notDecoded("Speex"))
            } else if starts([0x80] + Array("theora".utf8)) {
                self = .other(name: "an Ogg Theora video", reason: FileSignature.extractFirst)
            } else {
                self = .other(
                    name: "an Ogg file",
                    reason: "afkit reads Ogg Vorbis, Opus and FLAC; " + FileSignature.convertFirst)
            }
        }

        var isAudio: Bool { if case .other = self { false } else { true } }
    }

    /// A page header: 27 bytes, then the lacing table.
    struct PageHeader {
        var flags: UInt8
        var granulePosition: Int64
        var serial: UInt32
        var sequence: UInt32
        var segments: Int
        var isContinued: Bool { flags & 1 != 0 }
        var isFirst: Bool { flags & 2 != 0 }
        var isLast: Bool { flags & 4 != 0 }
        static let size = 27

        /// The header at the start of `bytes` (which hold at least 27), or `nil` where it is none.
        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count >= Self.size, bytes[0] == 0x4F, bytes[1] == 0x67, bytes[2] == 0x67, bytes[3] == 0x53,
                bytes[4] == 0
            else { return nil }
            let reader = ByteCursor(bytes)
            flags = bytes[5]
            granulePosition = reader.getInteger(at: 6, endianness: .little, as: Int64.self) ?? -1
            serial = reader.getInteger(at: 14, endianness: .little, as: UInt32.self) ?? 0
            sequence = reader.getInteger(at: 18, endianness: .little, as: UInt32.self) ?? 0
            segments = Int(bytes[26])
        }
    }

    /// Ogg's CRC-32 (polynomial 0x04C11DB7, unreflected, from zero) of a page, computed as if its CRC field
    /// were zero (``FoldedCRC``: folded where the processor can, else by the tables).
    package static func pageChecksum(_ page: UnsafeRawBufferPointer) -> UInt32 {
        let zeros: UInt32 = 0
        var crc = FoldedCRC.ogg(UnsafeRawBufferPointer(rebasing: page[0..<22]), continuing: 0)
        crc = withUnsafeBytes(of: zeros) { FoldedCRC.ogg($0, continuing: crc) }
        return FoldedCRC.ogg(UnsafeRawBufferPointer(rebasing: page[26...]), continuing: crc)
    }

    /// ``pageChecksum(_:)`` by the slicing tables alone (the reference the folded CRC is held to).
    package static func tablePageChecksum(_ page: UnsafeRawBufferPointer) -> UInt32 {
        FoldedCRC.oggTables.withUnsafeBufferPointer { tables -> UInt32 in
            let table = tables.baseAddress.unsafelyUnwrapped
            var crc = CRCTables.checksum(UnsafeRawBufferPointer(rebasing: page[0..<22]), continuing: 0, tables: table)
            for _ in 0..<4 { crc = crc << 8 ^ table[Int(crc >> 24)] }  // the CRC field, as zeros
            return CRCTables.checksum(UnsafeRawBufferPointer(rebasing: page[26...]), continuing: crc, tables: table)
        }
    }

    /// The largest packet afkit's pager puts in one page (255 lacing values, the last below 255): the
    /// comment header must fit it.
    package static let largestOnePagePacket = 254 * 255

    /// What a Vorbis stream's identification and setup headers say about its packets' lengths.
    struct VorbisBlocks: Equatable {
        var short: Int
        var long: Int
        /// Each mode's block flag (long or short).
        var modeIsLong: [Bool]

        /// The mode number's width in an audio packet's first byte.
        var modeBits: Int { modeIsLong.count <= 1 ? 0 : 64 - UInt64(modeIsLong.count - 1).leadingZeroBitCount }

        /// The block size of an audio packet (bit 0 of its first byte 0, then the mode number); `nil` for a
        /// packet that is none.
        func blockSize(_ packet: UnsafeRawBufferPointer) -> Int? {
            guard let first = packet.first, first & 1 == 0 else { return nil }
            let mode = Int(first >> 1) & ((1 << modeBits) - 1)
            guard mode < modeIsLong.count else { return nil }
            return modeIsLong[mode] ? long : short
        }

        /// The modes' block flags, read from the end of the setup header: its last set bit is the framing
        /// bit, before it each mode's 41 bits (a block flag, a window type and a transform type that must be
        /// 0, a mapping), before them the count less one in 6 bits. The modes are the longest run of zero
        /// types the count before them agrees with.
        static func modes(setup: UnsafeRawBufferPointer) -> [Bool]? {
            guard let lastIndex = setup.lastIndex(where: { $0 != 0 }) else { return nil }
            // Bits are numbered from the start, each byte's least significant bit first.
            func bit(_ position: Int) -> Bool { setup[position >> 3] >> (position & 7) & 1 == 1 }
            func value(_ position: Int, _ width: Int) -> Int {
                (0..<width).reduce(0) { $0 | (bit(position + $1) ? 1 << $1 : 0) }
            }
            let framing = lastIndex * 8 + (7 - setup[lastIndex].leadingZeroBitCount)
            var candidates: [Bool] = []
            var end = framing
            var found: [Bool]?
            while end - 41 >= 6 + 8 * 7 {
                let start = end - 41
                // Window type (16 bits after the flag) and transform type (16 more) must be zero.
                guard value(start + 1, 16) == 0, value(start + 17, 16) == 0 else { break }
                candidates.insert(bit(start), at: 0)
                end = start
                if value(end - 6, 6) + 1 == candidates.count { found = candidates }
            }
            return found
        }
    }

    /// The frames an Opus packet decodes to (RFC 6716, 3.1): its TOC's frame duration times its frame count.
    static func opusFrames(_ packet: UnsafeRawBufferPointer) -> Int? {
        guard let toc = packet.first else { return nil }
        let config = Int(toc >> 3)
        let duration: Int
        switch config {
        case 0..<12: duration = [480, 960, 1920, 2880][config & 3]  // SILK: 10, 20, 40, 60 ms
        case 12..<16: duration = [480, 960][config & 1]  // hybrid: 10, 20 ms
        default: duration = [120, 240, 480, 960][config & 3]  // CELT: 2.5, 5, 10, 20 ms
        }
        let count: Int
        switch toc & 3 {
        case 0: count = 1
        case 1, 2: count = 2
        default:
            guard packet.count >= 2 else { return nil }
            count = Int(packet[1] & 0x3F)
        }
        let frames = duration * count
        // At most 120 ms in a packet.
        return frames > 0 && frames <= 5760 ? frames : nil
    }
}

extension FileType {
    /// Ogg (Vorbis, Opus or FLAC).
    public static let ogg = FileType(rawValue: "ogg")
}

extension Ogg {
    /// Ogg: Speex refused by its first packet; Vorbis, Opus and FLAC read, whichever stream comes first (the
    /// parser skips a video stream and refuses a file with no audio stream it reads, by name). afkit writes
    /// Ogg Vorbis (`.ogg`, `.oga`: what `oggenc`, Android and game engines mean by them) and Ogg Opus (`.opus`).
    package static let descriptor = ContainerDescriptor(
        .ogg, name: "Ogg", kind: "an Ogg file", fileTypeID: "OggS", extensions: ["ogg", "oga", "opus"],
        hintExtensions: ["ogg", "oga", "opus", "ogv"], formatCodes: ["opus", "ogg", "OggS"],
        writtenExtensions: [".opus", ".ogg", ".oga"], mediaTypes: ["audio/ogg", "audio/opus", "application/ogg"],
        recordsPriming: true,
        keeps: WrittenTimeline(loops: 1, chapters: VorbisComment.maximumChapters),
        signatures: [
            FileSignature.Entry(
                outcome: .refuse(name: "an Ogg Speex file", reason: FileSignature.notDecoded("Speex"))
            ) { bytes, atEnd in
                FileSignature.ogg(bytes, atEnd: atEnd, firstPacket: Array("Speex   ".utf8))
            },
            FileSignature.Entry(outcome: .read(.ogg)) { bytes, atEnd in
                FileSignature.ogg(bytes, atEnd: atEnd, firstPacket: [])
            },
        ],
        makeParser: { OggParser(mode: $0.mode, limits: $0.limits) },
        writer: ContainerWriter(
            policy: WriterPolicy(
                defaultDataFormat: "vorbis",
                dataFormatsByExtension: [".opus": "opus"],
                pictureRefusal: { picture, options in
                    // Its comment header, as the writer makes it, must fit one page with the cover in it.
                    Ogg.commentHeader(.vorbis, metadata: options.metadata, pictures: [picture], loops: options.loops)
                        .count > Ogg.largestOnePagePacket
                        ? "afkit writes Ogg's comment header in one page (64 KB)" : nil
                }),
            makeFramer: { format, _ in Pager(firstSequence: Ogg.headerPageCount(format), format: format) }
        ) { format, options, counts, _ in try Ogg.layout(format: format, options: options, counts: counts) })
}
