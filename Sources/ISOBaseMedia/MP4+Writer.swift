import AudioFormats
import StreamParsing

extension MP4 {
    /// The most packets an open file's provisional sample table is sized for, whatever a header's estimate
    /// says (4 Mi packets: over 24 hours of AAC at 48 kHz); a longer output's table is placed when it closes.
    static let maximumEstimatedPackets: Int64 = 1 << 22

    /// Samples per chunk in the files afkit writes (the last chunk holds the rest).
    static let samplesPerChunk = 64

    /// The bytes before and after the samples: `ftyp`, `moov` (a `free` box keeps the room reserved while
    /// the file is open and takes up what the final `moov` leaves), and the `mdat` header (64-bit size).
    /// `reservedHeaderSize` is the provisional header's size: the final one matches it when `moov` fits.
    package static func layout(
        format: StreamDescription, options: AudioFileWriterOptions, counts: WrittenCounts,
        reservedHeaderSize: Int?
    ) throws -> ContainerLayout {
        guard format.formatID == .aac || format.formatID == .alac else {
            throw AudioFileError.unsupportedDataFormat(
                "m4a: afkit writes AAC and Apple Lossless into MPEG-4 files, not '\(format.formatID)'", offset: nil)
        }
        guard format.sampleRate >= 1, format.sampleRate < 4_294_967_296,
            format.sampleRate == format.sampleRate.rounded()
        else {
            throw AudioFileError.unsupportedDataFormat(
                "m4a: the track's timescale must be a whole rate, not \(format.sampleRate)",
                offset: nil)
        }
        guard let cookie = options.magicCookie, !cookie.isEmpty else {
            throw AudioFileError.unsupportedDataFormat(
                "m4a: '\(format.formatID)' needs a magic cookie for its sample entry",
                offset: nil)
        }
        var ftyp: [UInt8] = []
        ftyp.appendFourCharCode("M4A ")
        ftyp.appendInteger(UInt32(0), endianness: .big)
        for brand: FourCharCode in ["M4A ", "mp42", "isom"] { ftyp.appendFourCharCode(brand) }

        // While the file is open the tables are sized for the estimate, so the final ones usually fit.
        let provisional = counts.isProvisional
        let sizes =
            provisional
            ? [UInt32](
                repeating: 0, count: Int(min(max(options.estimatedPacketCount ?? 0, 0), MP4.maximumEstimatedPackets)))
            : counts.packetSizes
        let packets = sizes.count
        let framesPerPacket = Int64(format.framesPerPacket)
        let table = counts.packetTableInfo
        let priming = Int64(table?.primingFrames ?? 0)
        let remainder = Int64(table?.remainderFrames ?? 0)
        // ALAC's last packet really holds fewer frames; AAC's decodes whole and the edit list trims it.
        let lastFrames = format.formatID == .alac && packets > 0 ? framesPerPacket - remainder : framesPerPacket
        let mediaFrames = packets == 0 ? 0 : Int64(packets - 1) * framesPerPacket + lastFrames
        let validFrames = table?.validFrames ?? (mediaFrames - priming - (format.formatID == .alac ? 0 : remainder))

        // Chunk offsets change the header's bytes, not its size: measure it with placeholders first.
        let chunkCount = (packets + samplesPerChunk - 1) / samplesPerChunk
        let dataBytes = provisional ? Int64(options.estimatedDataByteCount ?? 0) : counts.dataByteCount
        let wide = dataBytes + Int64(packets) * 8 + (1 << 20) > Int64(UInt32.max)
        // The chapter track's titles open `mdat`, before the packets.
        let chapterTrack = ChapterTrack(options.chapters, rate: format.sampleRate)
        let titleBytes = chapterTrack?.byteCount ?? 0
        func moovBox(_ offsets: [Int64], titlesAt titleOffset: Int64) -> [UInt8] {
            moov(
                format: format, options: options, cookie: cookie, sizes: sizes, lastFrames: lastFrames,
                mediaFrames: mediaFrames, priming: priming, validFrames: validFrames,
                remainder: mediaFrames - priming - validFrames, chunkOffsets: offsets, wideOffsets: wide,
                chapters: chapterTrack.map { ($0, titleOffset) })
        }
        let natural =
            8 + ftyp.count + moovBox([Int64](repeating: 0, count: chunkCount), titlesAt: 0).count + 16 + titleBytes
        var padding = 0
        if provisional {
            padding = 256
        } else if let reserved = reservedHeaderSize, natural + 8 <= reserved {
            padding = reserved - natural
        }
        let dataStart = Int64(natural + padding)
        var offsets: [Int64] = []
        var offset = dataStart
        for (index, size) in sizes.enumerated() {
            if index % samplesPerChunk == 0 { offsets.append(offset) }
            offset += Int64(size)
        }
        var header: [UInt8] = []
        appendBox(&header, BoxType.ftyp, ftyp)
        header += moovBox(offsets, titlesAt: dataStart - Int64(titleBytes))
        if padding > 0 { appendBox(&header, BoxType.free, [UInt8](repeating: 0, count: padding - 8)) }
        // mdat with a 64-bit size: 1, the type, then the size of the whole box.
        header.appendInteger(UInt32(1), endianness: .big)
        header.appendFourCharCode(BoxType.mdat)
        header.appendInteger(
            UInt64(16 + titleBytes + Int(provisional ? 0 : counts.dataByteCount)), endianness: .big)
        if let chapterTrack { header += chapterTrack.sampleBytes }
        return ContainerLayout(header: header, trailer: [])
    }

    /// The `moov` box of an M4A file: the movie, its sound track with its edit and sample tables, the chapter
    /// track where `chapters` (its samples at `offset`), the fragments' defaults where `fragmented`, and the
    /// user data.
    static func moov(
        format: StreamDescription, options: AudioFileWriterOptions, cookie: [UInt8], sizes: [UInt32],
        lastFrames: Int64, mediaFrames: Int64, priming: Int64, validFrames: Int64, remainder: Int64,
        chunkOffsets: [Int64], wideOffsets: Bool, chapters: (track: ChapterTrack, offset: Int64)? = nil,
        fragmented: Bool = false
    ) -> [UInt8] {
        let timescale = UInt32(format.sampleRate)
        var stbl: [UInt8] = []
        appendBox(&stbl, "stsd", sampleDescription(format: format, cookie: cookie, timescale: timescale))
        appendBox(
            &stbl, "stts",
            timeToSample(packets: sizes.count, framesPerPacket: UInt32(format.framesPerPacket), lastFrames: lastFrames))
        appendBox(&stbl, "stsc", sampleToChunk(packets: sizes.count))
        appendBox(&stbl, "stsz", sampleSizes(sizes))
        appendBox(&stbl, wideOffsets ? "co64" : "stco", chunkOffsetTable(chunkOffsets, wide: wideOffsets))
        var minf: [UInt8] = []
        var smhd = fullBoxHeader(version: 0, flags: 0)
        smhd.appendInteger(UInt32(0), endianness: .big)  // balance, reserved
        appendBox(&minf, "smhd", smhd)
        appendBox(&minf, "dinf", dataInformation())
        appendBox(&minf, "stbl", stbl)
        var mdia: [UInt8] = []
        appendBox(&mdia, "mdhd", mediaHeader(timescale: timescale, mediaFrames: mediaFrames))
        appendBox(&mdia, "hdlr", handler("soun", name: "SoundHandler"))
        appendBox(&mdia, "minf", minf)
        var trak: [UInt8] = []
        // A fragmented movie's headers last zero (RFC 8216, 3.3): its samples and length come with its fragments.
        appendBox(
            &trak, "tkhd", trackHeader(id: 1, flags: 7, duration: fragmented ? 0 : validFrames, volume: 0x0100))
        appendBox(&trak, "edts", editList([(validFrames, priming)]))
        if chapters != nil { appendBox(&trak, "tref", ChapterTrack.reference) }
        appendBox(&trak, "mdia", mdia)
        if let ludt = options.loudnessInfo.flatMap(loudnessBox) {
            var udta: [UInt8] = []
            appendBox(&udta, "ludt", ludt)
            appendBox(&trak, "udta", udta)
        }

        var moov: [UInt8] = []
        appendBox(
            &moov, "mvhd",
            movieHeader(
                timescale: timescale, validFrames: fragmented ? 0 : validFrames,
                nextTrackID: chapters == nil ? 2 : ChapterTrack.trackID + 1))
        appendBox(&moov, "trak", trak)
        if let chapters {
            appendBox(
                &moov, "trak",
                chapters.track.trak(
                    rate: timescale, validFrames: validFrames, offset: chapters.offset, wideOffsets: wideOffsets))
        }
        if fragmented {
            // The samples come in movie fragments: their defaults, one packet's frames each, sync samples.
            var trex = fullBoxHeader(version: 0, flags: 0)
            for value in [1, 1, format.framesPerPacket, 0, 0x0200_0000] as [UInt32] {
                trex.appendInteger(value, endianness: .big)
            }
            var mvex: [UInt8] = []
            appendBox(&mvex, "trex", trex)
            appendBox(&moov, "mvex", mvex)
        }
        let udta = userData(
            options.metadata, pictures: options.pictures, chapters: options.chapters, priming: priming,
            remainder: remainder, validFrames: validFrames, gapless: format.formatID == .aac && !fragmented)
        if !udta.isEmpty { appendBox(&moov, "udta", udta) }
        var box: [UInt8] = []
        appendBox(&box, BoxType.moov, moov)
        return box
    }

    /// The identity matrix of the movie and track headers (16.16 and 2.30 fixed point).
    private static let unityMatrix: [UInt32] = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000]

    /// `mvhd`: the movie's timescale (the sample rate) and duration (the valid frames), with no times, so
    /// outputs are reproducible.
    private static func movieHeader(timescale: UInt32, validFrames: Int64, nextTrackID: UInt32) -> [UInt8] {
        var mvhd = fullBoxHeader(version: 1, flags: 0)
        mvhd.appendInteger(UInt64(0), endianness: .big)  // creation time: none, so outputs are reproducible
        mvhd.appendInteger(UInt64(0), endianness: .big)  // modification time
        mvhd.appendInteger(timescale, endianness: .big)
        mvhd.appendInteger(UInt64(validFrames), endianness: .big)
        mvhd.appendInteger(UInt32(0x0001_0000), endianness: .big)  // rate 1.0
        mvhd.appendInteger(UInt16(0x0100), endianness: .big)  // volume 1.0
        mvhd += [UInt8](repeating: 0, count: 10)
        for value in unityMatrix { mvhd.appendInteger(value, endianness: .big) }
        mvhd += [UInt8](repeating: 0, count: 24)
        mvhd.appendInteger(nextTrackID, endianness: .big)
        return mvhd
    }

    /// `tkhd`: track `id` with `flags` (7: enabled, in movie, in preview), lasting `duration` in the movie's
    /// timescale, at `volume` (8.8 fixed point).
    static func trackHeader(id: UInt32, flags: UInt32, duration: Int64, volume: UInt16) -> [UInt8] {
        var tkhd = fullBoxHeader(version: 1, flags: flags)
        tkhd.appendInteger(UInt64(0), endianness: .big)
        tkhd.appendInteger(UInt64(0), endianness: .big)
        tkhd.appendInteger(id, endianness: .big)
        tkhd.appendInteger(UInt32(0), endianness: .big)
        tkhd.appendInteger(UInt64(duration), endianness: .big)
        tkhd += [UInt8](repeating: 0, count: 8)
        tkhd.appendInteger(UInt16(0), endianness: .big)  // layer
        tkhd.appendInteger(UInt16(0), endianness: .big)  // alternate group
        tkhd.appendInteger(volume, endianness: .big)
        tkhd.appendInteger(UInt16(0), endianness: .big)
        for value in unityMatrix { tkhd.appendInteger(value, endianness: .big) }
        tkhd.appendInteger(UInt32(0), endianness: .big)  // width
        tkhd.appendInteger(UInt32(0), endianness: .big)  // height
        return tkhd
    }

    /// `edts`: the edits in order, each lasting `duration` (the movie's timescale) from `mediaTime` (the track's;
    /// -1: an empty edit), at rate 1. The sound track's one edit starts at its first valid frame (after the
    /// priming) and lasts the valid frames.
    static func editList(_ edits: [(duration: Int64, mediaTime: Int64)]) -> [UInt8] {
        var elst = fullBoxHeader(version: 1, flags: 0)
        elst.appendInteger(UInt32(edits.count), endianness: .big)
        for edit in edits {
            elst.appendInteger(UInt64(max(0, edit.duration)), endianness: .big)
            elst.appendInteger(edit.mediaTime, endianness: .big)
            elst.appendInteger(UInt32(0x0001_0000), endianness: .big)  // rate 1.0
        }
        var edts: [UInt8] = []
        appendBox(&edts, "elst", elst)
        return edts
    }

    /// `mdhd`: the media's timescale and duration (every frame the packets hold), language undetermined.
    static func mediaHeader(timescale: UInt32, mediaFrames: Int64) -> [UInt8] {
        var mdhd = fullBoxHeader(version: 1, flags: 0)
        mdhd.appendInteger(UInt64(0), endianness: .big)
        mdhd.appendInteger(UInt64(0), endianness: .big)
        mdhd.appendInteger(timescale, endianness: .big)
        mdhd.appendInteger(UInt64(mediaFrames), endianness: .big)
        mdhd.appendInteger(UInt16(0x55C4), endianness: .big)  // language 'und'
        mdhd.appendInteger(UInt16(0), endianness: .big)
        return mdhd
    }

    /// `hdlr`: a track of media `type` (`soun`, `text`) named `name`.
    static func handler(_ type: FourCharCode, name: String) -> [UInt8] {
        var hdlr = fullBoxHeader(version: 0, flags: 0)
        hdlr.appendInteger(UInt32(0), endianness: .big)
        hdlr.appendFourCharCode(type)
        hdlr += [UInt8](repeating: 0, count: 12)
        hdlr += Array(name.utf8) + [0]
        return hdlr
    }

    /// `dinf`: one data reference, to this file.
    static func dataInformation() -> [UInt8] {
        var url = [UInt8]()
        appendBox(&url, "url ", fullBoxHeader(version: 0, flags: 1))  // the data is in this file
        var dref = fullBoxHeader(version: 0, flags: 0)
        dref.appendInteger(UInt32(1), endianness: .big)
        dref += url
        var dinf: [UInt8] = []
        appendBox(&dinf, "dref", dref)
        return dinf
    }

    /// `stsd`: one sample entry, an AudioSampleEntry (`mp4a` or `alac`), then the codec's configuration box
    /// (`esds` or `alac`) made from the cookie.
    private static func sampleDescription(format: StreamDescription, cookie: [UInt8], timescale: UInt32) -> [UInt8] {
        var entry = [UInt8](repeating: 0, count: 6)
        entry.appendInteger(UInt16(1), endianness: .big)  // data reference index
        entry += [UInt8](repeating: 0, count: 8)
        entry.appendInteger(UInt16(clamping: format.channelsPerFrame), endianness: .big)
        // Sample size: 16 for AAC; for ALAC the bit depth its config names, as Apple writes it.
        let sampleSize = format.formatID == .alac && cookie.count >= 6 ? UInt16(cookie[5]) : 16
        entry.appendInteger(sampleSize, endianness: .big)
        entry += [UInt8](repeating: 0, count: 4)
        entry.appendInteger(timescale <= 0xFFFF ? timescale << 16 : 0, endianness: .big)
        var sampleEntry: [UInt8] = []
        if format.formatID == .aac {
            var esds = fullBoxHeader(version: 0, flags: 0)
            esds += AudioSpecificConfig.elementaryStreamDescriptor(inCookie: cookie)
            appendBox(&entry, BoxType.esds, esds)
            appendBox(&sampleEntry, BoxType.mp4a, entry)
        } else {
            appendBox(&entry, BoxType.alac, fullBoxHeader(version: 0, flags: 0) + cookie)
            appendBox(&sampleEntry, BoxType.alac, entry)
        }
        var stsd = fullBoxHeader(version: 0, flags: 0)
        stsd.appendInteger(UInt32(1), endianness: .big)
        stsd += sampleEntry
        return stsd
    }

    /// `stts`: every packet `framesPerPacket` long, but the last, `lastFrames` long (a run of its own where it
    /// is shorter).
    private static func timeToSample(packets: Int, framesPerPacket: UInt32, lastFrames: Int64) -> [UInt8] {
        var stts = fullBoxHeader(version: 0, flags: 0)
        var runs: [(count: UInt32, delta: UInt32)] = []
        if packets > 0 {
            if UInt32(lastFrames) == framesPerPacket {
                runs = [(UInt32(packets), framesPerPacket)]
            } else {
                if packets > 1 { runs.append((UInt32(packets - 1), framesPerPacket)) }
                runs.append((1, UInt32(lastFrames)))
            }
        }
        stts.appendInteger(UInt32(runs.count), endianness: .big)
        for run in runs {
            stts.appendInteger(run.count, endianness: .big)
            stts.appendInteger(run.delta, endianness: .big)
        }
        return stts
    }

    /// `stsc`: chunks of `samplesPerChunk` packets, the last holding the rest.
    private static func sampleToChunk(packets: Int) -> [UInt8] {
        var stsc = fullBoxHeader(version: 0, flags: 0)
        let fullChunks = packets / samplesPerChunk
        let lastChunk = packets % samplesPerChunk
        var chunkRuns: [(first: UInt32, samples: UInt32)] = []
        if fullChunks > 0 { chunkRuns.append((1, UInt32(samplesPerChunk))) }
        if lastChunk > 0 { chunkRuns.append((UInt32(fullChunks + 1), UInt32(lastChunk))) }
        stsc.appendInteger(UInt32(chunkRuns.count), endianness: .big)
        for run in chunkRuns {
            stsc.appendInteger(run.first, endianness: .big)
            stsc.appendInteger(run.samples, endianness: .big)
            stsc.appendInteger(UInt32(1), endianness: .big)  // sample description index
        }
        return stsc
    }

    /// `stsz`: every packet's size, one entry each.
    static func sampleSizes(_ sizes: [UInt32]) -> [UInt8] {
        var stsz = fullBoxHeader(version: 0, flags: 0)
        stsz.appendInteger(UInt32(0), endianness: .big)  // sizes vary: one entry each
        stsz.appendInteger(UInt32(sizes.count), endianness: .big)
        for size in sizes { stsz.appendInteger(size, endianness: .big) }
        return stsz
    }

    /// `stco` (or, `wide`, `co64`): where each chunk begins.
    static func chunkOffsetTable(_ chunkOffsets: [Int64], wide: Bool) -> [UInt8] {
        var stco = fullBoxHeader(version: 0, flags: 0)
        stco.appendInteger(UInt32(chunkOffsets.count), endianness: .big)
        for offset in chunkOffsets {
            if wide {
                stco.appendInteger(UInt64(offset), endianness: .big)
            } else {
                stco.appendInteger(UInt32(truncatingIfNeeded: offset), endianness: .big)
            }
        }
        return stco
    }

    /// `udta`/`meta`/`ilst`: the text tags as iTunes items, and `iTunSMPB` for AAC; `udta/chpl`: the chapters. Empty
    /// where there is none of them (no empty `meta` or `ilst` is written).
    private static func userData(
        _ metadata: [String: String], pictures: [Picture], chapters: [Chapter], priming: Int64, remainder: Int64,
        validFrames: Int64, gapless: Bool
    ) -> [UInt8] {
        var ilst: [UInt8] = []
        let items: [(String, FourCharCode)] = [
            ("title", FourCharCode(rawValue: 0xA96E_616D)), ("artist", FourCharCode(rawValue: 0xA941_5254)),
            ("album", FourCharCode(rawValue: 0xA961_6C62)), ("comments", FourCharCode(rawValue: 0xA963_6D74)),
            ("year", FourCharCode(rawValue: 0xA964_6179)), ("genre", FourCharCode(rawValue: 0xA967_656E)),
            ("copyright", "cprt"), ("encoding application", FourCharCode(rawValue: 0xA974_6F6F)),
            ("composer", FourCharCode(rawValue: 0xA977_7274)), ("album artist", "aART"),
        ]
        for (key, type) in items {
            if let value = metadata[key] { appendBox(&ilst, type, textData(value)) }
        }
        var named = Set(items.map(\.0))
        if let track = metadata["track number"], let data = trackNumberData(track) {
            appendBox(&ilst, "trkn", data)
            named.insert("track number")
        }
        let covers = coverData(pictures)
        if !covers.isEmpty { appendBox(&ilst, "covr", covers) }
        // Every other text tag (afkit's provenance among them) as a freeform item, named by its key.
        // (The gapless tag is the writer's own: one a source carried is not written again.)
        named.insert("itunsmpb")
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) where !named.contains(key) {
            appendBox(&ilst, "----", freeformItem(key, value))
        }
        if gapless {
            appendBox(
                &ilst, "----",
                freeformItem("iTunSMPB", gaplessInfo(priming: priming, remainder: remainder, validFrames: validFrames)))
        }
        var udta: [UInt8] = []
        if !ilst.isEmpty {
            var handler = fullBoxHeader(version: 0, flags: 0)
            handler.appendInteger(UInt32(0), endianness: .big)
            handler.appendFourCharCode("mdir")
            handler.appendFourCharCode("appl")
            handler += [UInt8](repeating: 0, count: 9)
            var meta = fullBoxHeader(version: 0, flags: 0)
            appendBox(&meta, "hdlr", handler)
            appendBox(&meta, "ilst", ilst)
            appendBox(&udta, "meta", meta)
        }
        if !chapters.isEmpty { appendBox(&udta, "chpl", chapterList(chapters)) }
        return udta
    }

    /// An item's `data` box holding `text` (well-known type 1: UTF-8).
    private static func textData(_ text: String) -> [UInt8] {
        var body: [UInt8] = []
        body.appendInteger(UInt32(1), endianness: .big)  // well-known type 1: UTF-8
        body.appendInteger(UInt32(0), endianness: .big)  // locale
        body += Array(text.utf8)
        var box: [UInt8] = []
        appendBox(&box, "data", body)
        return box
    }

    /// The track as iTunes stores it in `trkn`: a binary `data` box (0, number, total, 0), where `track` is "N"
    /// or "N/M"; `nil` otherwise.
    private static func trackNumberData(_ track: String) -> [UInt8]? {
        let parts = track.split(separator: "/", maxSplits: 1).map { UInt16(String($0.filter { $0 != " " })) }
        guard let number = parts.first ?? nil, parts.count == 1 || parts[1] != nil else { return nil }
        var body: [UInt8] = []
        body.appendInteger(UInt32(0), endianness: .big)  // type 0: binary
        body.appendInteger(UInt32(0), endianness: .big)  // locale
        body.appendInteger(UInt16(0), endianness: .big)
        body.appendInteger(number, endianness: .big)
        body.appendInteger(parts.count == 2 ? parts[1] ?? 0 : 0, endianness: .big)
        body.appendInteger(UInt16(0), endianness: .big)
        var data: [UInt8] = []
        appendBox(&data, "data", body)
        return data
    }

    /// The `data` boxes of `covr`: the pictures iTunes holds (JPEG, PNG, BMP); empty where there are none.
    private static func coverData(_ pictures: [Picture]) -> [UInt8] {
        let kinds: [String: UInt32] = ["image/jpeg": 13, "image/png": 14, "image/bmp": 27]
        var covers: [UInt8] = []
        for picture in pictures {
            guard let kind = kinds[picture.mimeType], let bytes = picture.data else { continue }
            var body: [UInt8] = []
            body.appendInteger(kind, endianness: .big)
            body.appendInteger(UInt32(0), endianness: .big)  // locale
            appendBox(&covers, "data", body + bytes)
        }
        return covers
    }

    /// A freeform (`----`) item's body: `value` named `key` in iTunes' `com.apple.iTunes` space.
    private static func freeformItem(_ key: String, _ value: String) -> [UInt8] {
        var mean = fullBoxHeader(version: 0, flags: 0)
        mean += Array("com.apple.iTunes".utf8)
        var name = fullBoxHeader(version: 0, flags: 0)
        name += Array(key.utf8)
        var item: [UInt8] = []
        appendBox(&item, "mean", mean)
        appendBox(&item, "name", name)
        item += textData(value)
        return item
    }

    /// iTunes' gapless tag: 0, priming, remainder, valid frames (16 digits), then eight zero fields.
    private static func gaplessInfo(priming: Int64, remainder: Int64, validFrames: Int64) -> String {
        func hex(_ value: Int64, _ digits: Int) -> String {
            let text = String(UInt64(max(0, value)), radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        return " 00000000 \(hex(priming, 8)) \(hex(remainder, 8)) \(hex(validFrames, 16))"
            + String(repeating: " 00000000", count: 8)
    }

    /// `chpl`: Nero's chapter list, version 1 (as FFmpeg writes it): starts in 100 ns units, titles of whole
    /// characters up to 255 bytes, at most `maximumChapters`.
    private static func chapterList(_ chapters: [Chapter]) -> [UInt8] {
        let count = min(chapters.count, maximumChapters)
        var list = fullBoxHeader(version: 1, flags: 0) + [0, 0, 0, 0, UInt8(count)]
        for chapter in chapters.prefix(count) {
            list.appendInteger(
                UInt64(clamping: Int64((chapter.startTime * 10_000_000).rounded())), endianness: .big)
            let title = wholeCharacters(of: chapter.title, upTo: 255)
            list.append(UInt8(title.count))
            list += title
        }
        return list
    }

    static func fullBoxHeader(version: UInt8, flags: UInt32) -> [UInt8] {
        [version, UInt8(flags >> 16 & 0xFF), UInt8(flags >> 8 & 0xFF), UInt8(flags & 0xFF)]
    }

    static func appendBox(_ bytes: inout [UInt8], _ type: FourCharCode, _ body: [UInt8]) {
        bytes.appendInteger(UInt32(8 + body.count), endianness: .big)
        bytes.appendFourCharCode(type)
        bytes += body
    }
}
