import AudioFormats
import StreamParsing

extension MP4 {
    /// QuickTime's chapter track, the chapters Apple's players show (Music, Podcasts, QuickTime Player,
    /// AVFoundation's chapter metadata groups; they do not read Nero's `chpl`): a disabled text track whose
    /// samples are the titles (a 16-bit big-endian length, the UTF-8 bytes, an `encd` atom naming UTF-8), each
    /// lasting until the next chapter begins, the last until the sound ends; the sound track names it in
    /// `tref/chap`. Its timescale is 1000 where every chapter starts on a whole millisecond (as chapter files and
    /// FFmpeg's tracks give them: read back as written), else the sound's sample rate (a chapter starts on a frame).
    ///
    /// Times are the sound's presentation times (its first valid frame is 0): the sound track's edit already
    /// skips the priming, so the text track needs no shift of its own; where the first chapter starts after 0,
    /// an empty edit (media time -1) holds the text track back until then (ISO/IEC 14496-12, 8.6.6). The last title's
    /// sample then lasts that much longer in the media than the edit shows of it, so the media is as long as the
    /// sound: FFmpeg ends the last chapter at the track's media duration read as a presentation time (without the
    /// empty edit), and a media cut short by the lead-in ended it early, or where it started (ffprobe read a
    /// chapter at 1 s of a 1.5 s sound, chapters from 0.5 s, as 1 to 1 s); the edit list still ends the track with
    /// the sound, as Apple's players and afkit read it.
    struct ChapterTrack {
        /// The track ID afkit gives it (the sound track is 1).
        static let trackID: UInt32 = 2
        /// The longest title written, in bytes of whole characters (mp4v2's limit for a QuickTime chapter title).
        static let maximumTitleBytes = 1023

        /// Each chapter's sample: the title's length, its bytes, and `encd`.
        let samples: [[UInt8]]
        /// Where each chapter starts, in the track's timescale.
        let starts: [Int64]
        /// Ticks per second: 1000, or the sound's sample rate.
        let timescale: UInt32

        /// The chapters written for `chapters` (in time order) on a clock of `rate` frames per second: each must
        /// start later than the one before (a chapter starting on the same frame as the one before is not
        /// written: it could not be shown); `nil` where none is left.
        init?(_ chapters: [Chapter], rate: Double) {
            let chapters = chapters.prefix(MP4.maximumChapters)
            let milliseconds = chapters.allSatisfy { chapter in
                let ticks = max(0, chapter.startTime) * 1000
                return abs(ticks - ticks.rounded()) < 1e-6
            }
            let scale = milliseconds ? 1000 : rate
            var samples: [[UInt8]] = []
            var starts: [Int64] = []
            for chapter in chapters {
                let start = Int64((max(0, chapter.startTime) * scale).rounded())
                if let last = starts.last, start <= last { continue }
                let title = MP4.wholeCharacters(of: chapter.title, upTo: Self.maximumTitleBytes)
                var sample: [UInt8] = []
                sample.appendInteger(UInt16(title.count), endianness: .big)
                sample += title
                // `encd`: the text's encoding, 0x100 naming UTF-8 (as QuickTime and FFmpeg write it).
                var encoding: [UInt8] = []
                encoding.appendInteger(UInt32(0x100), endianness: .big)
                MP4.appendBox(&sample, "encd", encoding)
                samples.append(sample)
                starts.append(start)
            }
            guard !samples.isEmpty else { return nil }
            self.samples = samples
            self.starts = starts
            timescale = UInt32(scale)
        }

        /// The bytes the samples take, one after another in `mdat`.
        var byteCount: Int { samples.reduce(0) { $0 + $1.count } }

        /// The samples' bytes, in order.
        var sampleBytes: [UInt8] { samples.flatMap { $0 } }

        /// The `trak` of a sound lasting `validFrames` at `rate` frames per second (the movie's timescale), its
        /// samples at `offset` in the file (`wideOffsets`: a 64-bit `co64`).
        func trak(rate: UInt32, validFrames: Int64, offset: Int64, wideOffsets: Bool) -> [UInt8] {
            // The sound's end and the first chapter's start on the track's clock and on the movie's.
            let end = Int64((Double(max(0, validFrames)) * Double(timescale) / Double(rate)).rounded())
            let first = starts[0]
            let firstFrame = min(Int64((Double(first) * Double(rate) / Double(timescale)).rounded()), validFrames)
            var durations: [UInt32] = []
            for index in starts.indices {
                // (The last runs past the sound's end by the lead-in, in the media only: see above.)
                let next = index + 1 < starts.count ? starts[index + 1] : max(end, starts[index]) + first
                durations.append(UInt32(clamping: next - starts[index]))
            }
            var stbl: [UInt8] = []
            appendBox(&stbl, "stsd", Self.textSampleDescription())
            var stts = fullBoxHeader(version: 0, flags: 0)
            stts.appendInteger(UInt32(durations.count), endianness: .big)
            for duration in durations {
                stts.appendInteger(UInt32(1), endianness: .big)
                stts.appendInteger(duration, endianness: .big)
            }
            appendBox(&stbl, "stts", stts)
            // One chunk holding every title.
            var stsc = fullBoxHeader(version: 0, flags: 0)
            for value in [1, 1, UInt32(samples.count), 1] as [UInt32] { stsc.appendInteger(value, endianness: .big) }
            appendBox(&stbl, "stsc", stsc)
            appendBox(&stbl, "stsz", sampleSizes(samples.map { UInt32($0.count) }))
            appendBox(&stbl, wideOffsets ? "co64" : "stco", chunkOffsetTable([offset], wide: wideOffsets))
            var minf: [UInt8] = []
            appendBox(&minf, "gmhd", Self.baseMediaInformation())
            appendBox(&minf, "dinf", dataInformation())
            appendBox(&minf, "stbl", stbl)
            var mdia: [UInt8] = []
            appendBox(&mdia, "mdhd", mediaHeader(timescale: timescale, mediaFrames: max(end, starts[starts.count - 1])))
            appendBox(&mdia, "hdlr", handler("text", name: "ChapterHandler"))
            appendBox(&mdia, "minf", minf)
            var trak: [UInt8] = []
            // Disabled (flags 0): the titles are not played as text.
            appendBox(&trak, "tkhd", trackHeader(id: Self.trackID, flags: 0, duration: max(0, validFrames), volume: 0))
            var edits: [(duration: Int64, mediaTime: Int64)] = []
            if first > 0 { edits.append((firstFrame, -1)) }
            edits.append((max(0, validFrames - firstFrame), 0))
            appendBox(&trak, "edts", editList(edits))
            appendBox(&trak, "mdia", mdia)
            return trak
        }

        /// The `tref` of the sound track: a `chap` reference to this track.
        static var reference: [UInt8] {
            var chap: [UInt8] = []
            chap.appendInteger(trackID, endianness: .big)
            var tref: [UInt8] = []
            appendBox(&tref, "chap", chap)
            return tref
        }

        /// `stsd` with one QuickTime text sample description (QuickTime File Format, "Text Sample Description"):
        /// display flags, justification, background colour, default text box, reserved, font number and face,
        /// reserved, foreground colour, an empty font name. All zero: the titles are read, not drawn.
        private static func textSampleDescription() -> [UInt8] {
            var entry = [UInt8](repeating: 0, count: 6)
            entry.appendInteger(UInt16(1), endianness: .big)  // data reference index
            entry += [UInt8](repeating: 0, count: 4 + 4 + 6 + 8 + 8 + 2 + 2 + 1 + 2 + 6)
            entry.append(0)  // font name: an empty Pascal string
            var stsd = fullBoxHeader(version: 0, flags: 0)
            stsd.appendInteger(UInt32(1), endianness: .big)
            appendBox(&stsd, "text", entry)
            return stsd
        }

        /// `gmhd`: QuickTime's base media information for a text track, `gmin` (graphics mode copy, grey op colour)
        /// and the text media information atom QuickTime wants beside a chapter track (its matrix, as QuickTime and
        /// FFmpeg write it).
        private static func baseMediaInformation() -> [UInt8] {
            var gmin = fullBoxHeader(version: 0, flags: 0)
            for value in [0x40, 0x8000, 0x8000, 0x8000, 0, 0] as [UInt16] {
                gmin.appendInteger(value, endianness: .big)
            }
            var text: [UInt8] = []
            text.appendInteger(UInt16(1), endianness: .big)
            for value in [0, 0, 0, 1, 0, 0, 0, 0x4000] as [UInt32] { text.appendInteger(value, endianness: .big) }
            text.appendInteger(UInt16(0), endianness: .big)
            var gmhd: [UInt8] = []
            appendBox(&gmhd, "gmin", gmin)
            appendBox(&gmhd, "text", text)
            return gmhd
        }
    }

    /// The longest prefix of `text` of whole characters that fits in `limit` UTF-8 bytes.
    static func wholeCharacters(of text: String, upTo limit: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for character in text {
            let encoded = Array(String(character).utf8)
            if bytes.count + encoded.count > limit { break }
            bytes += encoded
        }
        return bytes
    }
}
