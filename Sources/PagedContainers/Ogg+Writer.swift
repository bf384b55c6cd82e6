import AudioFormats
import StreamParsing

extension Ogg {
    /// Pages before the audio in a written Ogg file: Opus's `OpusHead` and `OpusTags`; Vorbis's identification,
    /// comment and setup headers, a page each.
    package static func headerPageCount(_ format: StreamDescription) -> UInt32 {
        format.formatID == .vorbis ? 3 : 2
    }
    /// The logical stream's serial number ("afkt"): fixed, so the same input makes the same file.
    static let writtenSerial: UInt32 = 0x6166_6B74
    /// Frames (at 48 kHz) a page gathers before it is written: one second, as `opusenc` pages.
    static let pageFrames = 48000

    /// The comment header of the metadata, pictures and loops (Opus's `OpusTags`; Vorbis's type 3 header, its
    /// framing bit after): what must fit in one page (``largestOnePagePacket``), which the converter asks before
    /// it carries a cover.
    package static func commentHeader(
        _ formatID: FourCharCode, metadata: [String: String], pictures: [Picture], loops: [Loop],
        chapters: [Chapter] = []
    ) -> [UInt8] {
        let block = VorbisComment.block(metadata: metadata, pictures: pictures, loops: loops, chapters: chapters)
        return formatID == .vorbis ? [3] + Array("vorbis".utf8) + block + [1] : Array("OpusTags".utf8) + block
    }

    /// Header of an Ogg Opus or Ogg Vorbis file: the codec's first header (the cookie's `OpusHead`, Vorbis's
    /// identification header) alone on the stream's first page, the comment header (the metadata as Vorbis
    /// comments) on the next, and Vorbis's setup header on a third. The audio pages are made as packets arrive.
    package static func layout(format: StreamDescription, options: AudioFileWriterOptions, counts: WrittenCounts) throws
        -> ContainerLayout
    {
        let cookie = counts.cookie(options) ?? []
        let headers: [[UInt8]]
        switch format.formatID {
        case .opus:
            guard cookie.count >= 19, cookie.starts(with: Array("OpusHead".utf8)) else {
                throw AudioFileError.unsupportedDataFormat(
                    "ogg: an Ogg Opus file needs the stream's OpusHead", offset: nil)
            }
            headers = [cookie]
        case .vorbis:
            // The three headers, Xiph-laced (a dry run's are empty): the engine's comment header is replaced.
            guard let laced = XiphLacing.packets(cookie), laced.count == 3,
                laced[0].isEmpty || laced[0].starts(with: [1] + Array("vorbis".utf8)),
                laced[2].isEmpty || laced[2].starts(with: [5] + Array("vorbis".utf8))
            else {
                throw AudioFileError.unsupportedDataFormat(
                    "ogg: an Ogg Vorbis file needs the stream's three headers", offset: nil)
            }
            headers = [laced[0], laced[2]]
        default:
            throw AudioFileError.unsupportedDataFormat(
                "ogg: afkit writes Ogg Vorbis and Ogg Opus; use -d vorbis or -d opus, not '\(format.formatID)'",
                offset: nil)
        }
        // The tags stay within one page (255 segments): pictures too large for it are left out (the converter
        // says so), then metadata.
        let id = format.formatID
        var tags = commentHeader(
            id, metadata: options.metadata, pictures: options.pictures, loops: options.loops,
            chapters: options.chapters)
        if tags.count > largestOnePagePacket {
            tags = commentHeader(
                id, metadata: options.metadata, pictures: [], loops: options.loops, chapters: options.chapters)
        }
        if tags.count > largestOnePagePacket { tags = commentHeader(id, metadata: [:], pictures: [], loops: []) }
        var header: [UInt8] = []
        let pages = [headers[0], tags] + headers.dropFirst()
        for (index, body) in pages.enumerated() {
            appendPage(
                &header, flags: index == 0 ? 2 : 0, granule: 0, sequence: UInt32(index),
                lacing: lacing(for: body.count), body: body)
        }
        return ContainerLayout(header: header, trailer: [])
    }

    /// The lacing values of one packet of `count` bytes.
    static func lacing(for count: Int) -> [UInt8] {
        [UInt8](repeating: 255, count: count / 255) + [UInt8(count % 255)]
    }

    /// Appends a page of the written stream, its CRC computed.
    static func appendPage(
        _ out: inout [UInt8], flags: UInt8, granule: Int64, sequence: UInt32, lacing: [UInt8], body: [UInt8]
    ) {
        let start = out.count
        out += Array("OggS".utf8) + [0, flags]
        out.appendInteger(UInt64(bitPattern: granule), endianness: .little)
        out.appendInteger(writtenSerial, endianness: .little)
        out.appendInteger(sequence, endianness: .little)
        out.appendInteger(UInt32(0), endianness: .little)
        out.append(UInt8(lacing.count))
        out += lacing
        out += body
        let crc = out.withUnsafeBytes { pageChecksum(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        for index in 0..<4 { out[start + 22 + index] = UInt8(truncatingIfNeeded: crc >> (8 * index)) }
    }

    /// Gathers a written stream's packets into pages: a page is written when the next packet would take it
    /// past 255 lacing values or it holds a second of audio; a packet too large for one page continues on
    /// the next. Each page's granule position is the frames decoded by the end of its last whole packet
    /// (the pre-skip included); the last page, written by ``finish(packetTableInfo:into:)``, states where
    /// the valid frames end. A Vorbis stream's first audio packet (it decodes to nothing) is a page of its own:
    /// FFmpeg reads the end trim of a last page only when an earlier audio page set where it starts, and took a
    /// sound whose audio was one page (under a second) as 128 frames short.
    package struct Pager: PacketFramer {
        private var sequence: UInt32
        private let framesPerPacket: Int
        /// Whether the first audio packet is still to end a page of its own (Vorbis).
        private var endsFirstPage: Bool
        private var lacing: [UInt8] = []
        private var body: [UInt8] = []
        private var granule: Int64 = 0
        private var pageFrames = 0
        private var endsPacket = false
        private var continues = false

        /// A pager whose first page has number `firstSequence`, for packets of `format`.
        package init(firstSequence: UInt32, format: StreamDescription) {
            sequence = firstSequence
            framesPerPacket = Int(format.framesPerPacket)
            endsFirstPage = format.formatID == .vorbis
        }

        /// Adds a packet of `frames` (0: the format's constant count), appending any page it completes.
        package mutating func append(packet: UnsafeRawBufferPointer, frames: Int, into out: inout [UInt8]) {
            let segments = packet.count / 255 + 1
            if !lacing.isEmpty && (lacing.count + segments > 255 || pageFrames >= Ogg.pageFrames || endsFirstPage) {
                writePage(last: false, finalGranule: nil, into: &out)
                endsFirstPage = false
            }
            var position = 0
            while true {
                if lacing.count == 255 {
                    // The packet goes on in the next page.
                    writePage(last: false, finalGranule: nil, into: &out)
                    continues = true
                }
                let value = min(255, packet.count - position)
                lacing.append(UInt8(value))
                body += UnsafeRawBufferPointer(rebasing: packet[position..<position + value])
                position += value
                if value < 255 { break }
            }
            let count = frames > 0 ? frames : framesPerPacket
            granule += Int64(count)
            pageFrames += count
            endsPacket = true
        }

        /// Writes the last page (end of stream), its granule ending the valid frames where `packetTableInfo`
        /// states them.
        package mutating func finish(packetTableInfo: PacketTableInfo?, into out: inout [UInt8]) {
            let final = packetTableInfo.map { Int64($0.primingFrames) + $0.validFrames }
            writePage(last: true, finalGranule: final, into: &out)
        }

        private mutating func writePage(last: Bool, finalGranule: Int64?, into out: inout [UInt8]) {
            let flags: UInt8 = (continues ? 1 : 0) | (last ? 4 : 0)
            let position = finalGranule ?? (endsPacket ? granule : -1)
            Ogg.appendPage(&out, flags: flags, granule: position, sequence: sequence, lacing: lacing, body: body)
            sequence &+= 1
            lacing.removeAll(keepingCapacity: true)
            body.removeAll(keepingCapacity: true)
            pageFrames = 0
            endsPacket = false
            continues = false
        }
    }
}
