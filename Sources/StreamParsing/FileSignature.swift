import AudioFormats

/// The signature table: every audio, video, archive, image and text format afkit knows by its first
/// bytes, whether it reads it or not. Detection asks it before any frame scan, so a file with a
/// signature is decided by it: read by its parser, or refused by name. Only bytes that match no
/// signature are left to the MPEG audio and ADTS frame scanner, which then needs strong evidence
/// (``ElementaryStreamParser``).
package enum FileSignature {
    /// A format afkit recognises and does not read: what to call it and what to do instead.
    package struct Refusal: Sendable, Equatable {
        /// The format, with its article ("an Ogg Vorbis file").
        package var name: String
        /// Why afkit does not read it and what to do, after the name.
        package var reason: String

        package init(name: String, reason: String) {
            self.name = name
            self.reason = reason
        }

        /// The message of the `typ?` error that refuses it.
        package var message: String { "\(name): \(reason)" }

        package func error(at offset: Int64) -> AudioFileError { .unsupportedFileType(message, offset: offset) }
    }

    /// What the first bytes of a stream say.
    package enum Identification: Equatable {
        /// Bytes from the start needed before the table can decide.
        case needMore(Int)
        /// A container afkit reads: its family's first type, whose descriptor makes the parser.
        case container(FileType)
        case refused(Refusal)
        /// No signature matches: perhaps bare MPEG audio or ADTS, perhaps nothing.
        case unknown
    }

    /// One signature's answer for the bytes seen so far.
    package enum Verdict {
        case no
        /// It matches; a refused format may name itself more precisely (an Ogg file's codec).
        case yes(name: String? = nil)
        /// The bytes so far agree; this many from the start decide.
        case undecided(Int)
    }

    package enum Outcome: Sendable {
        case read(FileType)
        /// Refused: the name and the reason (a matched name replaces the default one).
        case refuse(name: String, reason: String)
    }

    package struct Entry: Sendable {
        package var outcome: Outcome
        package var check: @Sendable (UnsafeRawBufferPointer, _ atEnd: Bool) -> Verdict

        package init(
            outcome: Outcome, check: @escaping @Sendable (UnsafeRawBufferPointer, _ atEnd: Bool) -> Verdict
        ) {
            self.outcome = outcome
            self.check = check
        }
    }

    // MARK: What to do instead

    package static let convertFirst = AudioFileError.convertFirstAdvice
    package static func notDecoded(_ codec: String) -> String { "afkit does not decode \(codec); " + convertFirst }
    package static func notRead(_ container: String) -> String {
        "afkit does not read \(container) files; " + convertFirst
    }
    package static let extractFirst =
        "afkit does not read it; extract its audio first (for example `ffmpeg -i FILE -vn out.wav`)"
    package static let notAudio = "not audio"
    package static let trackerModule =
        "a tracker module (MOD, S3M, XM, IT) holds patterns and instruments, not a sound; render it to WAV first"

    /// The formats afkit recognises and does not read, by what to do instead.
    package static let refusals: [Entry] = [
        Entry(outcome: .refuse(name: "a DTS stream", reason: notDecoded("DTS"))) { bytes, _ in
            magic(bytes, [0x7F, 0xFE, 0x80, 0x01])
        },
        Entry(outcome: .refuse(name: "a Matroska file", reason: extractFirst)) { bytes, atEnd in
            ebml(bytes, atEnd: atEnd)
        },
        Entry(outcome: .refuse(name: "an ASF file (WMA or WMV)", reason: extractFirst)) { bytes, _ in
            magic(bytes, asfHeader)
        },
        Entry(outcome: .refuse(name: "a WavPack file", reason: notDecoded("WavPack"))) { bytes, _ in
            magic(bytes, "wvpk")
        },
        Entry(outcome: .refuse(name: "a TTA file", reason: notDecoded("TTA"))) { bytes, _ in
            any(magic(bytes, "TTA1"), magic(bytes, "TTA2"))
        },
        Entry(outcome: .refuse(name: "a Monkey's Audio file", reason: notDecoded("Monkey's Audio"))) { bytes, _ in
            magic(bytes, "MAC ")
        },
        Entry(outcome: .refuse(name: "a Musepack file", reason: notDecoded("Musepack"))) { bytes, _ in
            any(magic(bytes, "MPCK"), magic(bytes, "MP+"))
        },
        Entry(outcome: .refuse(name: "a Shorten file", reason: notDecoded("Shorten"))) { bytes, _ in
            magic(bytes, "ajkg")
        },
        Entry(outcome: .refuse(name: "an OptimFROG file", reason: notDecoded("OptimFROG"))) { bytes, _ in
            magic(bytes, "OFR ")
        },
        Entry(outcome: .refuse(name: "a Creative VOC file", reason: notRead("VOC"))) { bytes, _ in
            magic(bytes, "Creative Voice File\u{1A}")
        },
        Entry(outcome: .refuse(name: "a NIST SPHERE file", reason: notRead("SPHERE"))) { bytes, _ in
            magic(bytes, "NIST_1A\n")
        },
        Entry(outcome: .refuse(name: "an IRCAM file", reason: notRead("IRCAM"))) { bytes, _ in
            any(ircamMagics.map { magic(bytes, $0) })
        },
        Entry(outcome: .refuse(name: "an Ensoniq PARIS (PAF) file", reason: notRead("PAF"))) { bytes, _ in
            any(magic(bytes, " paf"), magic(bytes, "fap "))
        },
        Entry(outcome: .refuse(name: "a FastTracker 2 instrument (XI)", reason: notRead("XI"))) { bytes, _ in
            magic(bytes, "Extended Instrument: ")
        },
        Entry(outcome: .refuse(name: "an Audio Visual Research (AVR) file", reason: notRead("AVR"))) { bytes, _ in
            magic(bytes, "2BIT")
        },
        Entry(outcome: .refuse(name: "a MATLAB file", reason: notRead("MATLAB"))) { bytes, _ in
            magic(bytes, "MATLAB 5.0 MAT-file")
        },
        Entry(outcome: .refuse(name: "an HTK file", reason: notRead("HTK"))) { bytes, _ in htk(bytes) },
        Entry(outcome: .refuse(name: "a DSD stream file (DSF)", reason: notDecoded("DSD"))) { bytes, _ in
            magic(bytes, "DSD ")
        },
        Entry(outcome: .refuse(name: "a DSDIFF file", reason: notDecoded("DSD"))) { bytes, _ in magic(bytes, "FRM8") },
        Entry(outcome: .refuse(name: "a RealAudio file", reason: extractFirst)) { bytes, _ in
            any(magic(bytes, ".ra\u{FD}"), magic(bytes, ".RMF"))
        },
        Entry(outcome: .refuse(name: "a TAK file", reason: notDecoded("TAK"))) { bytes, _ in magic(bytes, "tBaK") },
        Entry(outcome: .refuse(name: "an ADIF AAC file", reason: notRead("ADIF"))) { bytes, _ in magic(bytes, "ADIF") },
        // (Signatures deep in the file decide only on the bytes there: never a wait that holds back the others.)
        Entry(outcome: .refuse(name: "a tracker module", reason: trackerModule)) { bytes, _ in
            any(
                magic(bytes, "Extended Module: "), magic(bytes, "IMPM"),
                bytes.count < 48 ? .no : magic(bytes, "SCRM", at: 44),
                bytes.count < 1084
                    ? .no
                    : any(
                        magic(bytes, "M.K.", at: 1080), magic(bytes, "M!K!", at: 1080), magic(bytes, "FLT4", at: 1080))
            )
        },
        Entry(outcome: .refuse(name: "a Flash Video (FLV) file", reason: extractFirst)) { bytes, _ in
            magic(bytes, [0x46, 0x4C, 0x56, 0x01])
        },
        Entry(outcome: .refuse(name: "an IFF file", reason: notRead("IFF"))) { bytes, _ in iff(bytes) },
        Entry(outcome: .refuse(name: "an AVI file", reason: extractFirst)) { bytes, _ in
            all(magic(bytes, "RIFF"), magic(bytes, "AVI ", at: 8))
        },
        Entry(outcome: .refuse(name: "a RIFF file", reason: notRead("RIFF"))) { bytes, _ in riff(bytes) },
        Entry(
            outcome: .refuse(name: "a MIDI file", reason: "a MIDI file holds notes, not audio; render it to WAV first")
        ) { bytes, _ in
            magic(bytes, "MThd")
        },
        // Video and multiplexed streams.
        Entry(outcome: .refuse(name: "an MPEG transport stream", reason: extractFirst)) { bytes, atEnd in
            transportStream(bytes, atEnd: atEnd)
        },
        Entry(outcome: .refuse(name: "an MPEG program stream", reason: extractFirst)) { bytes, _ in
            any(magic(bytes, [0, 0, 1, 0xBA]), magic(bytes, [0, 0, 1, 0xB3]))
        },
        // Not audio at all.
        Entry(outcome: .refuse(name: "a zip archive", reason: "not audio; unpack it first")) { bytes, _ in
            any(magic(bytes, [0x50, 0x4B, 3, 4]), magic(bytes, [0x50, 0x4B, 5, 6]))
        },
        Entry(outcome: .refuse(name: "a gzip file", reason: "not audio; unpack it first")) { bytes, _ in
            magic(bytes, [0x1F, 0x8B, 8])
        },
        Entry(outcome: .refuse(name: "a bzip2 file", reason: "not audio; unpack it first")) { bytes, _ in
            magic(bytes, "BZh")
        },
        Entry(outcome: .refuse(name: "an xz file", reason: "not audio; unpack it first")) { bytes, _ in
            magic(bytes, [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0])
        },
        Entry(outcome: .refuse(name: "a Zstandard file", reason: "not audio; unpack it first")) { bytes, _ in
            magic(bytes, [0x28, 0xB5, 0x2F, 0xFD])
        },
        Entry(outcome: .refuse(name: "a 7-Zip archive", reason: "not audio; unpack it first")) { bytes, _ in
            magic(bytes, [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C])
        },
        Entry(outcome: .refuse(name: "a RAR archive", reason: "not audio; unpack it first")) { bytes, _ in
            magic(bytes, "Rar!\u{1A}\u{07}")
        },
        Entry(outcome: .refuse(name: "a PNG image", reason: notAudio)) { bytes, _ in
            magic(bytes, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        },
        Entry(outcome: .refuse(name: "a JPEG image", reason: notAudio)) { bytes, _ in magic(bytes, [0xFF, 0xD8, 0xFF])
        },
        Entry(outcome: .refuse(name: "a GIF image", reason: notAudio)) { bytes, _ in
            any(magic(bytes, "GIF87a"), magic(bytes, "GIF89a"))
        },
        Entry(outcome: .refuse(name: "a TIFF image", reason: notAudio)) { bytes, _ in
            any(magic(bytes, [0x49, 0x49, 0x2A, 0]), magic(bytes, [0x4D, 0x4D, 0, 0x2A]))
        },
        Entry(outcome: .refuse(name: "a PDF document", reason: notAudio)) { bytes, _ in magic(bytes, "%PDF-") },
        Entry(outcome: .refuse(name: "an ELF executable", reason: notAudio)) { bytes, _ in
            magic(bytes, [0x7F, 0x45, 0x4C, 0x46])
        },
        Entry(
            outcome: .refuse(
                name: "an HTTP Live Streaming playlist",
                reason:
                    "a list of segments, not audio: 'afkit packets' and 'afkit info' read its segments, "
                    + "'afkit validate --profile hls-audio' checks it")
        ) { bytes, _ in magic(bytes, "#EXTM3U") },
        Entry(outcome: .refuse(name: "a text file", reason: notAudio)) { bytes, atEnd in text(bytes, atEnd: atEnd) },
    ]

    // MARK: Checks

    /// Whether `signature` sits at `offset`, as far as the bytes go.
    package static func magic(_ bytes: UnsafeRawBufferPointer, _ signature: [UInt8], at offset: Int = 0) -> Verdict {
        for (index, byte) in signature.enumerated() {
            guard offset + index < bytes.count else { return .undecided(offset + signature.count) }
            if bytes[offset + index] != byte { return .no }
        }
        return .yes()
    }

    package static func magic(_ bytes: UnsafeRawBufferPointer, _ signature: String, at offset: Int = 0) -> Verdict {
        magic(bytes, Array(signature.utf8), at: offset)
    }

    /// Every verdict matches (the first named wins); undecided while none is `no` and one is undecided.
    package static func all(_ verdicts: Verdict...) -> Verdict { all(verdicts) }

    package static func all(_ verdicts: [Verdict]) -> Verdict {
        var needed = 0
        var name: String?
        for verdict in verdicts {
            switch verdict {
            case .no: return .no
            case .undecided(let count): needed = max(needed, count)
            case .yes(let named): name = name ?? named
            }
        }
        return needed > 0 ? .undecided(needed) : .yes(name: name)
    }

    /// One verdict matches; undecided while none does and one may.
    package static func any(_ verdicts: Verdict...) -> Verdict { any(verdicts) }

    package static func any(_ verdicts: [Verdict]) -> Verdict {
        var needed = 0
        for verdict in verdicts {
            switch verdict {
            case .no: continue
            case .undecided(let count): needed = max(needed, count)
            case .yes: return verdict
            }
        }
        return needed > 0 ? .undecided(needed) : .no
    }

    package static let asfHeader: [UInt8] = [
        0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62,
        0xCE, 0x6C,
    ]
    /// IRCAM's magic numbers (VAX, Sun, MIPS and NeXT byte orders).
    package static let ircamMagics: [[UInt8]] = (1...4).flatMap { (kind: UInt8) in
        [[0x64, 0xA3, kind, 0], [0, kind, 0xA3, 0x64]]
    }

    /// Ogg: `OggS`, stream structure version 0, and the first packet starting with the codec's
    /// identification (any packet where `firstPacket` is empty).
    package static func ogg(_ bytes: UnsafeRawBufferPointer, atEnd: Bool, firstPacket: [UInt8]) -> Verdict {
        let header = all(magic(bytes, "OggS"), magic(bytes, [0], at: 4))
        guard case .yes = header, !firstPacket.isEmpty else { return header }
        guard bytes.count > 26 else { return .undecided(27) }
        return magic(bytes, firstPacket, at: 27 + Int(bytes[26]))
    }

    /// EBML (Matroska, WebM): the header's DocType names which.
    package static func ebml(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) -> Verdict {
        let header = magic(bytes, [0x1A, 0x45, 0xDF, 0xA3])
        guard case .yes = header else { return header }
        let window = 64
        if bytes.count < window && !atEnd { return .undecided(window) }
        let end = min(bytes.count, window)
        var index = 4
        while index + 3 < end {
            if bytes[index] == 0x42 && bytes[index + 1] == 0x82 && bytes[index + 2] & 0x80 != 0 {
                let length = Int(bytes[index + 2] & 0x7F)
                let start = index + 3
                if start + length <= bytes.count {
                    let docType = String(
                        decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<start + length]), as: UTF8.self)
                    if docType == "webm" { return .yes(name: "a WebM file") }
                }
                break
            }
            index += 1
        }
        return .yes()
    }

    /// LOAS (AudioSyncStream): an 11-bit sync and a 13-bit length, confirmed by the next sync.
    package static func loas(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) -> Verdict {
        guard bytes.count >= 3 else {
            if bytes.count >= 1 && bytes[0] != 0x56 || bytes.count >= 2 && bytes[1] & 0xE0 != 0xE0 { return .no }
            return atEnd ? .no : .undecided(3)
        }
        guard bytes[0] == 0x56, bytes[1] & 0xE0 == 0xE0 else { return .no }
        let next = 3 + (Int(bytes[1] & 0x1F) << 8 | Int(bytes[2]))
        guard bytes.count >= next + 2 else {
            return atEnd && bytes.count == next ? .yes() : atEnd ? .no : .undecided(next + 2)
        }
        return bytes[next] == 0x56 && bytes[next + 1] & 0xE0 == 0xE0 ? .yes() : .no
    }

    /// HTK has no magic: a waveform header (parameter kind 0, 2-byte samples, the sample period of a
    /// common rate in 100 ns units) is taken as one.
    package static func htk(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        guard bytes.count >= 12 else { return .undecided(12) }
        let cursor = ByteCursor(bytes)
        guard let samples = cursor.getInteger(at: 0, endianness: .big, as: UInt32.self),
            let period = cursor.getInteger(at: 4, endianness: .big, as: UInt32.self),
            let size = cursor.getInteger(at: 8, endianness: .big, as: UInt16.self),
            let kind = cursor.getInteger(at: 10, endianness: .big, as: UInt16.self)
        else { return .no }
        let periods: Set<UInt32> = [1250, 625, 1000, 454, 227, 208, 313, 907, 500, 2500]
        return samples > 0 && samples < 1 << 31 && size == 2 && kind == 0 && periods.contains(period) ? .yes() : .no
    }

    /// IFF forms other than AIFF/AIFC (8SVX, 16SV, MAUD, ...): named by their form type.
    package static func iff(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        let form = magic(bytes, "FORM")
        guard case .yes = form else { return form }
        guard bytes.count >= 12 else { return .undecided(12) }
        let type = formType(bytes)
        let names = ["8SVX": "an IFF 8SVX file", "16SV": "an IFF 16SV file", "MAUD": "an IFF MAUD file"]
        return .yes(name: names[type] ?? "an IFF file of form '\(type)'")
    }

    /// RIFF forms other than WAVE (AVI, WebP, MIDI, SoundFont, ...): named by their form type.
    package static func riff(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        let header = any(magic(bytes, "RIFF"), magic(bytes, "RIFX"), magic(bytes, "RF64"), magic(bytes, "BW64"))
        guard case .yes = header else { return header }
        guard bytes.count >= 12 else { return .undecided(12) }
        let type = formType(bytes)
        if magic(bytes, "RIFX").isYes { return .yes(name: "a big-endian RIFF (RIFX) file") }
        let names = ["WEBP": "a WebP image", "RMID": "a RIFF MIDI file", "sfbk": "a SoundFont"]
        return .yes(name: names[type] ?? "a RIFF file of form '\(type)'")
    }

    /// The four-character form type at bytes 8-11 of an IFF or RIFF file.
    package static func formType(_ bytes: UnsafeRawBufferPointer) -> String {
        let code: UInt32 = ByteCursor(bytes).getInteger(at: 8, endianness: .big) ?? 0
        return "\(FourCharCode(rawValue: code))"
    }

    /// An MPEG transport stream: 0x47 every 188 bytes (192 in a Blu-ray M2TS, after a 4-byte time code).
    package static func transportStream(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) -> Verdict {
        func packets(size: Int, start: Int) -> Verdict {
            var verdicts: [Verdict] = []
            for packet in 0..<3 {
                let verdict = magic(bytes, [0x47], at: start + packet * size)
                // A stream shorter than three packets: the packets it holds decide.
                if case .undecided = verdict, atEnd, packet >= 2 { break }
                verdicts.append(verdict)
            }
            return all(verdicts)
        }
        return any(packets(size: 188, start: 0), packets(size: 192, start: 4))
    }

    /// Text: the first bytes (up to 512) are UTF-8 with no control character but tab, line feed, form
    /// feed and carriage return.
    package static func text(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) -> Verdict {
        let window = 512
        let end = min(bytes.count, window)
        var index = 0
        while index < end {
            let byte = bytes[index]
            if byte < 0x80 {
                if byte < 0x20 && ![0x09, 0x0A, 0x0C, 0x0D].contains(byte) || byte == 0x7F { return .no }
                index += 1
                continue
            }
            let length = byte >= 0xF0 && byte < 0xF5 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC2 && byte < 0xE0 ? 2 : 0
            guard length > 0 else { return .no }
            for next in 1..<length {
                // A character cut by the window's end is given the benefit of the doubt.
                guard index + next < bytes.count else { break }
                if bytes[index + next] & 0xC0 != 0x80 { return .no }
            }
            index += length
        }
        if bytes.count < window && !atEnd { return .undecided(window) }
        return bytes.isEmpty ? .no : .yes()
    }
}

extension FileSignature.Verdict {
    package var isYes: Bool { if case .yes = self { true } else { false } }
}

extension AudioFileError {
    /// What to do with audio afkit does not read, the end of every refusal that names a format or codec.
    public static let convertFirstAdvice = "convert it to WAV, AIFF or CAF first (for example `ffmpeg -i FILE out.wav`)"
}
