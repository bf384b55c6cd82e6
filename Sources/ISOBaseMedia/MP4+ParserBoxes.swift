import AudioFormats
import StreamParsing

/// The boxes `MP4Parser` reads whole: the file type, the movie and track headers, the edit list, the
/// sample tables, the sample description (the codec and its configuration), `ilst` tags, and the
/// track fragments' headers and runs.
extension MP4Parser {
    // MARK: Reading the boxes

    mutating func parseBox(_ box: Box, _ body: inout ByteCursor) throws {
        switch box.type {
        case "ftyp": parseFileType(&body)
        case "mvhd":
            let version = body.readInteger(endianness: .big, as: UInt8.self) ?? 0
            _ = body.skip(3 + (version == 1 ? 16 : 8))
            movieTimescale = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
        case "tkhd":
            let version = body.readInteger(endianness: .big, as: UInt8.self) ?? 0
            _ = body.skip(3 + (version == 1 ? 16 : 8))
            track?.id = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
        case "mdhd":
            let version = body.readInteger(endianness: .big, as: UInt8.self) ?? 0
            _ = body.skip(3 + (version == 1 ? 16 : 8))
            track?.timescale = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
        case "hdlr":
            _ = body.skip(8)
            track?.handler = body.readFourCharCode()
        case "elst": try parseEditList(box, &body)
        case "stsd":
            if track?.handler == nil || track?.handler == "soun" {
                let entry = try parseSampleDescription(box, &body)
                track?.entry = entry
            }
        case "stts", "stsc", "stsz", "stz2", "stco", "co64":
            guard track?.handler == "text" else { return try parseSampleTable(box, &body) }
            // A text track's table that does not hold together costs its chapters, not the sound.
            do {
                try parseSampleTable(box, &body)
            } catch let error as AudioFileError {
                track?.tableIsDamaged = true
                context.properties.warnings.append(
                    "\(error.message) (at byte \(box.offset)): the text track's chapters are not read")
            }
        case "trex":
            _ = body.skip(4)
            let trackID = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
            _ = body.skip(4)
            let duration = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
            let size = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
            if trackID == audio?.id || audio == nil { trackDefaults = (duration, size) }
        case "chpl": parseChapterList(&body)
        case "chap":
            while track?.chapterReferences.count ?? Self.maximumChapterReferences < Self.maximumChapterReferences,
                let id = body.readInteger(endianness: .big, as: UInt32.self)
            {
                track?.chapterReferences.append(id)
            }
        case "tlou": parseLoudness(box, &body)
        case "tfhd": try parseFragmentHeader(box, &body)
        case "trun": try parseTrackRun(box, &body)
        default:
            if open.last?.type == "ilst" { parseMetadataItem(box, &body) }
        }
    }

    mutating func parseFileType(_ body: inout ByteCursor) {
        sawFileType = true
        var brands: [FourCharCode] = []
        if let major = body.readFourCharCode() { brands.append(major) }
        _ = body.skip(4)
        while let brand = body.readFourCharCode() { brands.append(brand) }
        // 3GPP and 3GPP2 files are ISO base media files whose brands say so ('3gp4' ... '3g2a').
        let isThirdGeneration = brands.first.map { $0.description.hasPrefix("3gp") || $0.description.hasPrefix("3g2") }
        context.properties.fileType =
            brands.contains("M4A ") || brands.contains("M4B ") ? .m4a : isThirdGeneration == true ? .threeGP : .mp4
        context.announce(.fileFormat)
    }

    mutating func parseEditList(_ box: Box, _ body: inout ByteCursor) throws {
        let version = body.readInteger(endianness: .big, as: UInt8.self) ?? 0
        _ = body.skip(3)
        let count = Int(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
        let entrySize = version == 1 ? 20 : 12
        guard count <= body.remaining / entrySize else {
            throw AudioFileError.invalidChunk(
                "mp4: 'elst' counts \(count) edits; its \(body.remaining) bytes hold \(body.remaining / entrySize)",
                offset: box.offset)
        }
        for _ in 0..<count {
            let duration: Int64
            let mediaTime: Int64
            if version == 1 {
                duration = Int64(clamping: body.readInteger(endianness: .big, as: UInt64.self) ?? 0)
                mediaTime = body.readInteger(endianness: .big, as: Int64.self) ?? 0
            } else {
                duration = Int64(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
                mediaTime = Int64(body.readInteger(endianness: .big, as: Int32.self) ?? 0)
            }
            _ = body.skip(4)
            track?.edits.append((duration, mediaTime))
        }
    }

    mutating func parseSampleTable(_ box: Box, _ body: inout ByteCursor) throws {
        guard track != nil else { return }
        _ = body.skip(4)
        func entries(_ size: Int, _ countOffset: Int = 0) throws -> Int {
            _ = body.skip(countOffset)
            let count = Int(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
            guard count <= body.remaining / size else {
                throw AudioFileError.invalidChunk(
                    "mp4: '\(box.type)' counts \(count) entries; its \(body.remaining) bytes hold \(body.remaining / size)",
                    offset: box.offset)
            }
            return count
        }
        switch box.type {
        case "stts":
            let count = try entries(8)
            track?.timeToSample.reserveCapacity(count)
            for _ in 0..<count {
                let samples = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
                let delta = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
                track?.timeToSample.append((samples, delta))
            }
        case "stsc":
            let count = try entries(12)
            var previous: UInt32 = 0
            for index in 0..<count {
                let first = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
                let samples = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
                _ = body.skip(4)
                guard first > previous else {
                    throw AudioFileError.malformed(
                        "mp4: 'stsc' entry \(index) starts at chunk \(first), not after chunk \(previous)",
                        offset: box.bodyOffset + 8 + Int64(index) * 12)
                }
                previous = first
                track?.samplesPerChunk.append((first, samples))
            }
        case "stsz":
            let constant = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
            track?.constantSize = constant
            if constant > 0 {
                track?.sampleCount = Int64(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
            } else {
                let count = try entries(4)
                track?.sampleCount = Int64(count)
                track?.sizes.reserveCapacity(count)
                for _ in 0..<count { track?.sizes.append(body.readInteger(endianness: .big, as: UInt32.self) ?? 0) }
            }
            track?.tableOffset = box.offset
        case "stz2":
            _ = body.skip(3)
            let width = Int(body.readInteger(endianness: .big, as: UInt8.self) ?? 0)
            guard [4, 8, 16].contains(width) else {
                throw AudioFileError.malformed(
                    "mp4: 'stz2' sizes of \(width) bits cannot be", offset: box.bodyOffset + 7)
            }
            let count = Int(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
            guard count <= body.remaining * 8 / width else {
                throw AudioFileError.invalidChunk(
                    "mp4: 'stz2' counts \(count) samples; its \(body.remaining) bytes hold \(body.remaining * 8 / width)",
                    offset: box.offset)
            }
            track?.sampleCount = Int64(count)
            var index = 0
            while index < count {
                switch width {
                case 4:
                    let byte = body.readInteger(endianness: .big, as: UInt8.self) ?? 0
                    track?.sizes.append(UInt32(byte >> 4))
                    if index + 1 < count { track?.sizes.append(UInt32(byte & 0xF)) }
                    index += 2
                case 8:
                    track?.sizes.append(UInt32(body.readInteger(endianness: .big, as: UInt8.self) ?? 0))
                    index += 1
                default:
                    track?.sizes.append(UInt32(body.readInteger(endianness: .big, as: UInt16.self) ?? 0))
                    index += 1
                }
            }
            track?.tableOffset = box.offset
        case "stco", "co64":
            let wide = box.type == "co64"
            let count = try entries(wide ? 8 : 4)
            track?.chunkOffsets.reserveCapacity(count)
            for _ in 0..<count {
                let offset =
                    wide
                    ? Int64(clamping: body.readInteger(endianness: .big, as: UInt64.self) ?? 0)
                    : Int64(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
                track?.chunkOffsets.append(offset)
            }
        default:
            break
        }
    }

    mutating func parseMetadataItem(_ box: Box, _ body: inout ByteCursor) {
        var name: String?
        var values: [(type: UInt32, bytes: [UInt8])] = []
        while body.remaining >= 8 {
            let size = Int(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
            let type = body.readFourCharCode() ?? FourCharCode(rawValue: 0)
            guard size >= 8, size - 8 <= body.remaining, let child = body.readBytes(size - 8) else { break }
            switch type {
            case "name" where child.count >= 4: name = String(decoding: child[4...], as: UTF8.self)
            case "data" where child.count >= 8:
                values.append((UInt32(child[1]) << 16 | UInt32(child[2]) << 8 | UInt32(child[3]), Array(child[8...])))
            default: break
            }
        }
        guard let value = values.first else { return }
        let text = value.type == 1 ? String(decoding: value.bytes, as: UTF8.self) : nil
        let key: String?
        switch box.type.rawValue {
        case 0xA96E_616D: key = "title"
        case 0xA941_5254: key = "artist"
        case 0xA961_6C62: key = "album"
        case 0xA964_6179: key = "year"
        case 0xA967_656E: key = "genre"
        case 0xA963_6D74: key = "comments"
        case 0xA977_7274: key = "composer"
        case 0xA974_6F6F: key = "encoding application"
        case FourCharCode("cprt").rawValue: key = "copyright"
        case FourCharCode("aART").rawValue: key = "album artist"
        case FourCharCode("trkn").rawValue:
            guard value.bytes.count >= 6 else { return }
            let number = Int(value.bytes[2]) << 8 | Int(value.bytes[3])
            let total = Int(value.bytes[4]) << 8 | Int(value.bytes[5])
            context.properties.infoDictionary["track number"] = total > 0 ? "\(number)/\(total)" : "\(number)"
            return
        case FourCharCode("----").rawValue:
            guard let name, let text else { return }
            if name == "iTunSMPB" {
                let fields = text.split(separator: " ").compactMap { Int64($0, radix: 16) }
                if fields.count >= 4 { itunesGapless = (fields[1], fields[2], fields[3]) }
            }
            key = name.lowercased()
        default: key = nil
        }
        if let key, let text { context.properties.infoDictionary[key] = text }
    }

    /// Nero's chapter list (`udta/chpl`, which FFmpeg and mutagen write beside or instead of a chapter track):
    /// version and flags, 4 reserved bytes in version 1, a count, then each chapter's start in 100 ns units and
    /// its title (a length byte, UTF-8). A list cut short keeps the chapters it holds. A chapter track's titles,
    /// where read, replace these.
    mutating func parseChapterList(_ body: inout ByteCursor) {
        guard !readsChapterTrack else { return }
        let version = body.readInteger(endianness: .big, as: UInt8.self) ?? 0
        _ = body.skip(3 + (version == 1 ? 4 : 0))
        let count = Int(body.readInteger(endianness: .big, as: UInt8.self) ?? 0)
        var chapters: [Chapter] = []
        for _ in 0..<count {
            guard let start = body.readInteger(endianness: .big, as: UInt64.self),
                let length = body.readInteger(endianness: .big, as: UInt8.self),
                let title = body.readBytes(Int(length))
            else { break }
            chapters.append(
                Chapter(startTime: Double(start) / 10_000_000, title: String(decoding: title, as: UTF8.self)))
        }
        context.properties.chapters = chapters.sorted { $0.startTime < $1.startTime }
        context.properties.chapterSource = chapters.isEmpty ? nil : "chpl"
    }

    /// A `ludt`'s `tlou`: the loudness of the track it is in, else of the movie (the first stated is kept). What of
    /// the box could not be read (it ends early, a count runs past it, a version afkit does not read) is said.
    mutating func parseLoudness(_ box: Box, _ body: inout ByteCursor) {
        let (info, problem) = MP4.loudnessInfo(in: &body)
        if let problem {
            let size = box.bodySize ?? 0
            context.noteNotRead(
                "mp4: the loudness box 'tlou' at byte \(box.offset) \(problem): the rest of it is not read",
                NotRead(
                    what: "'tlou' box", count: size, unit: "bytes", offset: box.offset,
                    reason: problem.hasPrefix("is of version") ? "afkit does not read its version" : "it is broken"))
        }
        guard let info else { return }
        if track != nil {
            if track?.loudness == nil { track?.loudness = info }
        } else if movieLoudness == nil {
            movieLoudness = info
        }
    }

    // MARK: The sample description

    /// The sound track's first sample entry, described (`nil` where `stsd` holds none).
    func parseSampleDescription(_ box: Box, _ body: inout ByteCursor) throws -> SampleEntry? {
        _ = body.skip(4)
        guard (body.readInteger(endianness: .big, as: UInt32.self) ?? 0) > 0, body.remaining >= 8 else { return nil }
        let entryOffset = body.absoluteOffset
        let size = Int(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
        let type = body.readFourCharCode() ?? FourCharCode(rawValue: 0)
        guard size >= 36, size - 8 <= body.remaining, let bytes = body.readSlice(size - 8) else {
            throw AudioFileError.invalidChunk(
                "mp4: sample entry '\(type)' of \(size) bytes does not fit its 'stsd' or an audio sample entry",
                offset: entryOffset)
        }
        var entry = ByteCursor(bytes, baseOffset: entryOffset + 8)
        let fields = readAudioSampleEntry(type: type, offset: entryOffset, &entry)
        return try Self.sampleEntry(describing: fields)
    }

    /// An audio sample entry as its fields and boxes give it, before its codec is looked at.
    struct AudioSampleEntryFields {
        /// The entry's type: the codec's code.
        var type: FourCharCode
        /// Where the entry begins (errors name it).
        var offset: Int64
        /// QuickTime's sound description version (0, 1 or 2).
        var version: UInt16
        /// The channels, the sample size and the rate the entry states (the rate, where it states none, the
        /// track's timescale); a codec's configuration may say otherwise.
        var channels: UInt32, sampleSize: UInt32, rate: Double
        /// Version 2's own fields: the bits and CoreAudio format flags of its `lpcm`.
        var lpcm: (bits: UInt32, flags: UInt32)?
        /// The codec's configuration boxes, one level down (QuickTime puts them inside `wave`).
        var children: [FourCharCode: [UInt8]]

        /// The entry described by its rate and channels alone, as `id` with `frames` a packet (0: unknown).
        func plain(_ id: FourCharCode, frames: UInt32) -> SampleEntry {
            let format = StreamDescription(
                sampleRate: rate, formatID: id, bytesPerPacket: 0, framesPerPacket: frames,
                bytesPerFrame: 0, channelsPerFrame: channels, bitsPerChannel: 0)
            return SampleEntry(format: format, formatList: [format], cookie: nil, knowsFramesPerPacket: frames > 0)
        }
    }

    /// Reads an audio sample entry's fields (QuickTime's version 1 and 2 included) and collects its codec's
    /// configuration boxes; the rate falls back on the track's timescale.
    func readAudioSampleEntry(type: FourCharCode, offset: Int64, _ entry: inout ByteCursor) -> AudioSampleEntryFields {
        _ = entry.skip(8)  // reserved, data reference index
        let version = entry.readInteger(endianness: .big, as: UInt16.self) ?? 0
        _ = entry.skip(6)
        var channels = UInt32(entry.readInteger(endianness: .big, as: UInt16.self) ?? 0)
        let sampleSize = UInt32(entry.readInteger(endianness: .big, as: UInt16.self) ?? 0)
        _ = entry.skip(4)
        var rate = Double((entry.readInteger(endianness: .big, as: UInt32.self) ?? 0) >> 16)
        var lpcm: (bits: UInt32, flags: UInt32)?
        switch version {
        case 1:
            // QuickTime's version 1 adds four fields (samples and bytes a packet, bytes a frame and a sample); ISO's
            // AudioSampleEntryV1 adds none, its boxes ('chnl', 'srat', the codec's) follow at once.
            if !Self.beginsWithBox(entry) { _ = entry.skip(16) }
        case 2:
            _ = entry.skip(4)
            rate = Double(bitPattern: entry.readInteger(endianness: .big, as: UInt64.self) ?? 0)
            channels = entry.readInteger(endianness: .big, as: UInt32.self) ?? 0
            _ = entry.skip(4)  // always 0x7F000000
            let bits = entry.readInteger(endianness: .big, as: UInt32.self) ?? 0
            let flags = entry.readInteger(endianness: .big, as: UInt32.self) ?? 0
            _ = entry.skip(8)  // constant bytes and frames a packet
            lpcm = (bits, flags)
        default: break
        }
        if rate == 0, let timescale = track?.timescale { rate = Double(timescale) }
        var children: [FourCharCode: [UInt8]] = [:]
        Self.collectConfigurationBoxes(&entry, into: &children)
        return AudioSampleEntryFields(
            type: type, offset: offset, version: version, channels: channels, sampleSize: sampleSize, rate: rate,
            lpcm: lpcm, children: children)
    }

    /// Collects the boxes at the cursor by type, the first of each, looking inside `wave`.
    static func collectConfigurationBoxes(_ cursor: inout ByteCursor, into children: inout [FourCharCode: [UInt8]]) {
        while cursor.remaining >= 8 {
            let size = Int(cursor.readInteger(endianness: .big, as: UInt32.self) ?? 0)
            let type = cursor.readFourCharCode() ?? FourCharCode(rawValue: 0)
            guard size >= 8, size - 8 <= cursor.remaining, let child = cursor.readSlice(size - 8) else { return }
            if type == "wave" {
                var inner = ByteCursor(child)
                collectConfigurationBoxes(&inner, into: &children)
            } else if children[type] == nil {
                children[type] = Array(child)
            }
        }
    }

    /// The sample entry's codec, format and cookie, by its type and configuration boxes.
    static func sampleEntry(describing fields: AudioSampleEntryFields) throws -> SampleEntry {
        var fields = fields
        let type = fields.type
        switch type {
        case "mp4a": return try mpeg4AudioEntry(fields)
        case ".mp3": return fields.plain(.mpegLayer3, frames: fields.rate >= 32000 ? 1152 : 576)
        case "ipcm", "fpcm": return try isoPCMEntry(fields)
        case "alac": return try appleLosslessEntry(fields)
        case "Opus":
            var result = fields.plain(.opus, frames: 0)
            result.format.sampleRate = 48000
            if let options = fields.children["dOps"], options.count >= 11 {
                result.format.channelsPerFrame = UInt32(options[1])
                // The decoders take Ogg's `OpusHead` (RFC 7845): the same fields, little-endian, behind a magic.
                result.cookie = Self.opusHead(fromOpusSpecificBox: options)
            }
            result.formatList = [result.format]
            return result
        case "fLaC": return try flacEntry(fields)
        case "ac-3":
            // dac3: fscod(2) bsid(5) bsmod(3) acmod(3) lfeon(1); acmod names the main channels.
            if let config = fields.children["dac3"], config.count >= 2 {
                let mode = Int(config[1] >> 3 & 7)
                fields.channels = UInt32(AC3FrameHeader.modeChannels[mode]) + UInt32(config[1] >> 2 & 1)
            }
            return fields.plain(.ac3, frames: 1536)
        case "ec-3":
            // dec3: data_rate(13) num_ind_sub(3), then the first independent substream's fscod(2) bsid(5)
            // reserved(1) asvc(1) bsmod(3) acmod(3) lfeon(1): its channels, as the raw stream's frames give them
            // (the sample entry's count is a placeholder: 2 for 5.1 with Atmos' joint object coding).
            if let config = fields.children["dec3"], config.count >= 5 {
                let mode = Int(config[3] >> 1 & 7)
                fields.channels = UInt32(AC3FrameHeader.modeChannels[mode]) + UInt32(config[3] & 1)
            }
            return fields.plain(.enhancedAC3, frames: 1536)
        case "mlpa":
            // Dolby TrueHD: `dmlp` opens with the major sync's format_info, whose 8-channel (else 6-channel)
            // presentation assignment names the channel groups (the entry's count is a template's 2).
            if let config = fields.children["dmlp"], config.count >= 4,
                let count = Self.trueHDChannels(formatInfo: config.prefix(4).reduce(0) { $0 << 8 | UInt32($1) })
            {
                fields.channels = count
            }
            return fields.plain(type, frames: 0)
        // AMR in 3GPP files: a 20 ms frame a sample, mono at 8 or 16 kHz whatever the entry says.
        case "samr", "sawb":
            var result = fields.plain(type, frames: type == "samr" ? 160 : 320)
            result.format.sampleRate = type == "samr" ? 8000 : 16000
            result.format.channelsPerFrame = 1
            result.formatList = [result.format]
            return result
        case "lpcm" where fields.version == 2 && fields.lpcm != nil: return versionTwoLPCMEntry(fields)
        case "sowt", "twos", "raw ", "in24", "in32", "fl32", "fl64", "lpcm", "ulaw", "alaw", "ima4", "MAC3", "MAC6",
            "agsm":
            return quickTimeSoundEntry(fields)
        default:
            return fields.plain(type, frames: 0)
        }
    }

    /// An `mp4a` entry: the codec its `esds` names (AAC and its AudioSpecificConfig, MPEG audio, AC-3, Opus,
    /// Vorbis, or a codec afkit does not decode).
    static func mpeg4AudioEntry(_ fields: AudioSampleEntryFields) throws -> SampleEntry {
        let rate = fields.rate
        guard let descriptor = fields.children["esds"], descriptor.count > 4,
            let config = AudioSpecificConfig.decoderConfig(inElementaryStreamDescriptor: Array(descriptor[4...]))
        else { return fields.plain(fields.type, frames: 0) }
        switch config.objectType {
        case 0x40, 0x66, 0x67, 0x68:
            guard let asc = AudioSpecificConfig(config.specificInfo) else {
                throw AudioFileError.malformed(
                    "mp4: the AudioSpecificConfig in 'esds' cannot be read",
                    offset: fields.offset)
            }
            switch asc.objectType {
            case 32: return fields.plain(.mpegLayer1, frames: 384)
            case 33: return fields.plain(.mpegLayer2, frames: 1152)
            case 34: return fields.plain(.mpegLayer3, frames: rate >= 32000 ? 1152 : 576)
            default: break
            }
            var layers = asc.formatList
            for index in layers.indices where layers[index].channelsPerFrame == 0 {
                layers[index].channelsPerFrame = fields.channels
            }
            return SampleEntry(
                format: layers[0], formatList: layers, cookie: config.specificInfo,
                knowsFramesPerPacket: true)
        // MPEG-2 (0x69) and MPEG-1 (0x6B) audio, any layer: the first frame's header says which, and its
        // channels (the entry's count is a template's).
        case 0x69, 0x6B:
            return fields.plain(.mpegLayer3, frames: config.objectType == 0x6B || rate >= 32000 ? 1152 : 576)
        case 0xA5: return fields.plain(.ac3, frames: 1536)
        case 0xA6: return fields.plain(.enhancedAC3, frames: 1536)
        case 0xAD: return fields.plain(.opus, frames: 0)
        case 0xDD:
            // Vorbis (FFmpeg's private indication): the three headers, Xiph-laced, are the cookie as
            // libavcodec takes it, and the identification header gives the channels and rate.
            guard let header = Self.vorbisIdentification(laced: config.specificInfo) else {
                throw AudioFileError.malformed(
                    "mp4: Vorbis in 'esds' without its three headers", offset: fields.offset)
            }
            var result = fields.plain(.vorbis, frames: 0)
            result.format.channelsPerFrame = header.channels
            result.format.sampleRate = header.rate
            result.formatList = [result.format]
            result.cookie = config.specificInfo
            return result
        default:
            // A codec afkit does not decode keeps its own name where MP4's registry gives it one.
            return fields.plain(Self.objectTypeFormats[Int(config.objectType)] ?? fields.type, frames: 0)
        }
    }

    /// An `ipcm` or `fpcm` entry (ISO/IEC 23003-5): integers or floats of the size and byte order its `pcmC`
    /// gives.
    static func isoPCMEntry(_ fields: AudioSampleEntryFields) throws -> SampleEntry {
        let type = fields.type
        // 'pcmC' (a full box) holds format_flags (bit 0: little-endian) and the sample size; 'ipcm' is integers,
        // 'fpcm' floats.
        guard let config = fields.children["pcmC"], config.count >= 6 else {
            throw AudioFileError.malformed(
                "mp4: an '\(type)' sample entry without its 'pcmC' box", offset: fields.offset)
        }
        let bits = UInt32(config[5])
        let isFloat = type == "fpcm"
        guard isFloat ? bits == 32 || bits == 64 : bits == 16 || bits == 24 || bits == 32 else {
            throw AudioFileError.unsupportedDataFormat(
                "mp4: ISO/IEC 23003-5 PCM ('\(type)') of \(bits)-bit samples cannot be", offset: fields.offset)
        }
        let format = StreamDescription.linearPCM(
            sampleRate: fields.rate, channels: fields.channels, bitsPerChannel: bits, isFloat: isFloat,
            isBigEndian: config[4] & 1 == 0, signed8: true)
        return SampleEntry(format: format, formatList: [format], cookie: nil, knowsFramesPerPacket: true)
    }

    /// An `alac` entry: the format its ALACSpecificConfig gives, which is the cookie.
    static func appleLosslessEntry(_ fields: AudioSampleEntryFields) throws -> SampleEntry {
        guard let atom = fields.children["alac"], atom.count >= 28 else {
            throw AudioFileError.malformed(
                "mp4: an 'alac' sample entry without its ALACSpecificConfig", offset: fields.offset)
        }
        let config = Array(atom[4..<28])
        func integer(_ at: Int) -> UInt32 {
            UInt32(config[at]) << 24 | UInt32(config[at + 1]) << 16 | UInt32(config[at + 2]) << 8
                | UInt32(config[at + 3])
        }
        let format = StreamDescription.appleLossless(
            sampleRate: Double(integer(20)), channels: UInt32(config[9]),
            bitDepth: Int(config[5]), framesPerPacket: integer(0))
        return SampleEntry(format: format, formatList: [format], cookie: config, knowsFramesPerPacket: true)
    }

    /// An `fLaC` entry: the format its `dfLa` STREAMINFO gives; the cookie is the whole box, as in CAF.
    static func flacEntry(_ fields: AudioSampleEntryFields) throws -> SampleEntry {
        // FLAC in ISO base media: `dfLa` holds the metadata blocks, STREAMINFO first.
        guard let blocks = fields.children["dfLa"], let info = FLACStreamInfo(cookie: blocks) else {
            throw AudioFileError.malformed(
                "mp4: an 'fLaC' sample entry without a 'dfLa' box holding STREAMINFO", offset: fields.offset)
        }
        var format = info.streamDescription
        format.framesPerPacket = 0
        var box: [UInt8] = []
        box.appendInteger(UInt32(8 + blocks.count), endianness: .big)
        box += Array("dfLa".utf8) + blocks
        return SampleEntry(format: format, formatList: [format], cookie: box, knowsFramesPerPacket: false)
    }

    /// A version 2 `lpcm` entry: linear PCM as its bits and flags say (kAudioFormatFlagIsFloat 1, IsBigEndian 2),
    /// undescribed where they name no sample word.
    static func versionTwoLPCMEntry(_ fields: AudioSampleEntryFields) -> SampleEntry {
        let (bits, flags) = fields.lpcm ?? (0, 0)
        let isFloat = flags & 1 != 0
        guard (isFloat && (bits == 32 || bits == 64)) || (!isFloat && (8...32).contains(bits) && bits % 8 == 0)
        else {
            return fields.plain(fields.type, frames: 0)
        }
        let format = StreamDescription.linearPCM(
            sampleRate: fields.rate, channels: fields.channels, bitsPerChannel: bits,
            isFloat: isFloat, isBigEndian: flags & 2 != 0, signed8: flags & 4 != 0)
        return SampleEntry(format: format, formatList: [format], cookie: nil, knowsFramesPerPacket: true)
    }

    /// One of QuickTime's uncompressed or constant-packet entries: the sample word (or codec) AIFF-C's
    /// compression type of the same name gives, little-endian where `wave` holds `enda` with 1.
    static func quickTimeSoundEntry(_ fields: AudioSampleEntryFields) -> SampleEntry {
        let type = fields.type
        // QuickTime's uncompressed entries name the same sample words as AIFF-C's compression types
        // ('lpcm' as 'twos'), and its constant-packet codecs the same codecs (IMA4, MACE, GSM); a sample size
        // no word has leaves the entry undescribed. The 24- and
        // 32-bit words and the floats are little-endian where `wave` holds `enda` with 1, as FFmpeg
        // writes them from little-endian sources.
        let littleEndian =
            fields.children["enda"].map { $0.count >= 2 && ($0[$0.startIndex] != 0 || $0[$0.startIndex + 1] != 0) }
            ?? false
        var word = type == "lpcm" ? "twos" : type
        if littleEndian {
            switch type {
            case "in24": word = "42ni"
            case "in32": word = "23ni"
            case "twos": word = "sowt"
            default: break
            }
        }
        guard
            var format = try? AIFFCompressionType.streamDescription(
                compression: word,
                channels: fields.channels, sampleSize: Int(fields.sampleSize), sampleRate: fields.rate,
                offset: fields.offset)
        else { return fields.plain(type, frames: 0) }
        if littleEndian && (type == "fl32" || type == "fl64") { format.formatFlags.remove(.isBigEndian) }
        return SampleEntry(format: format, formatList: [format], cookie: nil, knowsFramesPerPacket: true)
    }

    /// Whether a box header (a size that fits, a type of printable characters) stands at the cursor.
    static func beginsWithBox(_ cursor: ByteCursor) -> Bool {
        guard let size = cursor.getInteger(at: cursor.position, endianness: .big, as: UInt32.self),
            size >= 8, Int(size) <= cursor.remaining, cursor.remaining >= 8
        else { return false }
        return (4..<8).allSatisfy { (0x20...0x7E).contains(cursor.bytes[cursor.position + $0]) }
    }

    /// The channels a TrueHD format_info presents: its 8-channel presentation's assignment (13 bits, its low
    /// end) where it names any group, else its 6-channel one (5 bits); each bit a group of one or two channels.
    static func trueHDChannels(formatInfo: UInt32) -> UInt32? {
        let groupSizes: [UInt32] = [2, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 1, 1]
        func count(_ assignment: UInt32, bits: Int) -> UInt32 {
            (0..<bits).reduce(0) { $0 + (assignment >> UInt32($1) & 1 == 1 ? groupSizes[$1] : 0) }
        }
        let eight = formatInfo & 0x1FFF
        let six = formatInfo >> 15 & 0x1F
        let channels = eight != 0 ? count(eight, bits: 13) : count(six, bits: 5)
        return channels > 0 ? channels : nil
    }

    /// The codecs MP4's registry of objectTypeIndications names that afkit does not decode (mp4ra.org), by
    /// Apple's or the sample entry's code: refused by their names, not as 'mp4a'.
    static let objectTypeFormats: [Int: FourCharCode] = [
        0xA9: "dtsc", 0xAA: "dtsh", 0xAB: "dtsl", 0xAC: "dtse", 0xAE: "ac-4", 0xD1: "sevc", 0xE1: "Qclp",
    ]

    /// The channels and rate of a Vorbis identification header, the first of three Xiph-laced headers (a count
    /// byte, 2, then the first two lengths as runs of 255 and a last byte); `nil` where they do not hold.
    static func vorbisIdentification(laced: [UInt8]) -> (channels: UInt32, rate: Double)? {
        guard laced.first == 2 else { return nil }
        var at = 1
        var lengths: [Int] = []
        while lengths.count < 2, at < laced.count {
            var length = 0
            while at < laced.count, laced[at] == 255 {
                length += 255
                at += 1
            }
            guard at < laced.count else { return nil }
            length += Int(laced[at])
            at += 1
            lengths.append(length)
        }
        // The identification header: type 1, "vorbis", version (4), channels (1), rate (4, little-endian).
        guard lengths.count == 2, lengths[0] >= 30, laced.count - at >= lengths[0] + lengths[1],
            laced[at] == 1, Array(laced[(at + 1)..<(at + 7)]) == Array("vorbis".utf8)
        else { return nil }
        let channels = UInt32(laced[at + 11])
        let rate = (0..<4).reduce(0) { $0 | UInt32(laced[at + 12 + $1]) << (8 * $1) }
        guard channels > 0, rate > 0 else { return nil }
        return (channels, Double(rate))
    }

    /// `OpusHead` (RFC 7845) from an MP4 `dOps` box's body: version 1, the channel count, pre-skip, input rate
    /// and output gain turned little-endian, the channel mapping as it is.
    static func opusHead(fromOpusSpecificBox box: [UInt8]) -> [UInt8] {
        var head = Array("OpusHead".utf8) + [1, box[1]]
        head += [box[3], box[2]]  // pre-skip
        head += [box[7], box[6], box[5], box[4]]  // input sample rate
        head += [box[9], box[8]]  // output gain
        head += box[10...]  // mapping family, and its table where the family is not 0
        return head
    }

    // MARK: Fragments

    mutating func parseFragmentHeader(_ box: Box, _ body: inout ByteCursor) throws {
        let flags = (body.readInteger(endianness: .big, as: UInt32.self) ?? 0) & 0xFF_FFFF
        let trackID = body.readInteger(endianness: .big, as: UInt32.self) ?? 0
        var base = flags & 0x02_0000 != 0 ? fragmentOffset : previousFragmentDataEnd ?? fragmentOffset
        if flags & 0x1 != 0 { base = Int64(clamping: body.readInteger(endianness: .big, as: UInt64.self) ?? 0) }
        if flags & 0x2 != 0 { _ = body.skip(4) }
        var duration = trackDefaults?.duration ?? 0
        var size = trackDefaults?.size ?? 0
        if flags & 0x8 != 0 { duration = body.readInteger(endianness: .big, as: UInt32.self) ?? 0 }
        if flags & 0x10 != 0 { size = body.readInteger(endianness: .big, as: UInt32.self) ?? 0 }
        fragment = (trackID, flags, base, duration, size, nil)
    }

    mutating func parseTrackRun(_ box: Box, _ body: inout ByteCursor) throws {
        guard let header = fragment else {
            throw AudioFileError.malformed("mp4: 'trun' before the 'tfhd' of its track fragment", offset: box.offset)
        }
        let flags = (body.readInteger(endianness: .big, as: UInt32.self) ?? 0) & 0xFF_FFFF
        let count = Int64(body.readInteger(endianness: .big, as: UInt32.self) ?? 0)
        var start = header.dataEnd ?? header.base
        if flags & 0x1 != 0 {
            let (sum, overflow) = header.base.addingReportingOverflow(
                Int64(body.readInteger(endianness: .big, as: Int32.self) ?? 0))
            guard !overflow, sum >= 0 else {
                throw AudioFileError.malformed(
                    "mp4: 'trun' places its samples before the start of any file",
                    offset: box.offset)
            }
            start = sum
        }
        if flags & 0x4 != 0 { _ = body.skip(4) }
        let hasDuration = flags & 0x100 != 0
        let hasSize = flags & 0x200 != 0
        let entrySize = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count * 4
        if entrySize > 0 {
            guard count <= Int64(body.remaining / entrySize) else {
                throw AudioFileError.invalidChunk(
                    "mp4: 'trun' counts \(count) samples; its \(body.remaining) bytes hold \(body.remaining / entrySize)",
                    offset: box.offset)
            }
        }
        guard header.trackID == audio?.id else { return }
        guard hasSize || header.defaultSize > 0 || count == 0 else {
            throw AudioFileError.malformed("mp4: 'trun' gives its samples no size", offset: box.offset)
        }
        var sizes: [UInt32] = []
        if hasSize { sizes.reserveCapacity(Int(count)) }
        if entrySize > 0 {
            for _ in 0..<count {
                var duration = header.defaultDuration
                var size = header.defaultSize
                if hasDuration { duration = body.readInteger(endianness: .big, as: UInt32.self) ?? 0 }
                if hasSize { size = body.readInteger(endianness: .big, as: UInt32.self) ?? 0 }
                _ = body.skip(entrySize - (hasDuration ? 4 : 0) - (hasSize ? 4 : 0))
                if hasSize { sizes.append(size) }
                if hasDuration { table.appendDurations(count: 1, delta: duration) }
            }
        }
        if !hasDuration { table.appendDurations(count: count, delta: header.defaultDuration) }
        let before = table.byteCount
        try table.append(
            offset: start, count: count, constantSize: hasSize ? 0 : header.defaultSize,
            sampleSizes: sizes[...], tableOffset: box.offset)
        let end = start.saturatingAdd(table.byteCount - before)
        fragment?.dataEnd = end
        previousFragmentDataEnd = end
    }
}
