/// hls's reference: what `afkit help hls` and its man page say beyond the options.
extension HLSCommand {
    /// The reference prose, paragraphs apart; indented lines are examples.
    static let reference = """
        HTTP Live Streaming audio as Apple's HLS Authoring Specification asks, on Linux (FFmpeg's hls muxer writes \
        MPEG-TS or fMP4, not packed audio; Apple's mediafilesegmenter runs on macOS only). Each bit rate is one \
        AAC-LC rendition (at most stereo unless -c says otherwise: Apple requires a stereo AAC rendition; 44.1 or \
        48 kHz, other rates resampled with a note, 44.1 kHz's family to it; -d aac@RATE chooses). --renditions gives \
        each rendition its channels instead, so one package holds stereo beside surround as Apple asks:

          afkit hls --renditions stereo:64k,stereo:128k,5.1:320k --language en film-mix.wav --out pkg

        (mono, stereo, 5.1, 7.1 or a count, 1 to 6 or 8; mixed down from the source, never up: a rendition of more \
        channels than the source has is a usage error). A rate outside Apple's table (stereo AAC-LC 32 to 160 \
        kbit/s, 5.1 AAC 320) is written with a note. Each rendition is encoded once \
        through convert's pipeline (so the edits and --loudness apply) and cut into segments on packet boundaries, \
        each the most whole packets that fit in --segment-duration (default 6 s, Apple's recommendation, and the \
        target duration), so no segment lasts longer:

        - fmp4 (the default): init.mp4 ('ftyp' iso6, a 'moov' whose movie and track headers last zero as RFC \
        8216 requires, an empty sample table, 'mvex', and an edit list that skips the encoder's priming and ends at \
        the last source frame), then segmentN.m4s ('styp', 'moof' with \
        'tfdt' = the frames before it, exact, and 'trun', then 'mdat'). The EXTINF durations are the frames each \
        segment presents; they add up to the source's duration.

        - packed: segmentN.aac, ADTS frames after an ID3v2.4 tag whose 'PRIV' frame \
        com.apple.streaming.transportStreamTimestamp holds the first frame's time on the MPEG-2 90 kHz clock (8 \
        bytes, big-endian, 33 bits), rounded to the tick; every decoded frame plays, priming included.

        Each rendition gets a folder (aac-128k/; a rate that is no whole number of kbit/s, by its bits per second: \
        aac-16050/, so no two rates share one; with --renditions, its channels too: aac-6ch-320k/) with prog_index.m3u8 (VOD, EXT-X-ENDLIST, EXT-X-INDEPENDENT-SEGMENTS, \
        version 7 for fMP4 and 3 for packed audio); master.m3u8 lists them: an EXT-X-MEDIA audio rendition each, in \
        a GROUP-ID of its own tied to its variant, all with one NAME (--name, else the source's title tag, else its \
        file name) and LANGUAGE (--language, a BCP 47 tag; else the source's language tag where it is one, else und \
        with a note), DEFAULT and AUTOSELECT, and CHANNELS, as Apple's examples lay out audio, so a player's menu \
        lists one audio track however many rates and layouts there are; and an EXT-X-STREAM-INF with BANDWIDTH (RFC 8216's peak segment bit rate: the densest run of \
        segments lasting half to one and a half target durations), AVERAGE-BANDWIDTH, CODECS (mp4a.40.2, from the \
        stream's AudioSpecificConfig) and AUDIO. The target duration is the segment duration asked for. The source's \
        tags (title, artist, ...; none with --no-metadata) go into init.mp4's 'udta', or into the first packed \
        segment's ID3 tag after its 'PRIV' frame. Each init.mp4 also states its rendition's loudness as decoded, in \
        ISO/IEC 14496-12's loudness box ('udta'/'ludt'/'tlou': integrated loudness, range, loudest short-term \
        window, true and sample peak, measured on the encoded rendition), which afkit info shows; packed audio has \
        no standard place for it and states none.

        Chapters, as Apple's players read them in HLS ("Providing JavaScript Object Notation (JSON) chapters"): \
        --chapters FILE (convert's forms; one source only), else the source's own chapters (an M4A's chapter track \
        or chpl, ID3 CHAP, Vorbis comments; moved with any edit, as convert moves them; kept with --no-metadata, as \
        convert keeps them), else its markers (WAV cue points, AIFF MARK, CAF mark: as convert makes them chapters), \
        go into chapters.json beside master.m3u8, which names it (with --loudness too: the normalized signal hands \
        them to the renditions):

          #EXT-X-SESSION-DATA:DATA-ID="com.apple.hls.chapters",URI="chapters.json"

        The file is a JSON array with an entry per chapter: "chapter" (its number, from 1), "start-time" and \
        "duration" (seconds, to the microsecond, on the presentation's clock) and "titles" ([{"language": the \
        renditions' LANGUAGE, "title"}]); no "images". fMP4's edit list skips the encoder's priming, so its \
        chapters start where they were written; packed audio plays the priming (1024 frames), so its chapters start \
        that much later, where the sound is. At most 255 chapters (they pass through the renditions' M4A). \
        validate --profile hls-audio checks the file (hls-chapters).

        --loudness normalizes the source once for each layout the renditions take (the normalizer's measuring \
        passes and one render into a float file in the package's temporary folder, no encoder in its loop), encodes \
        every rendition from that signal and measures it as decoded: within 0.1 LU of the target and under the \
        true-peak ceiling, as convert promises. A rendition its encoder moves (a low bit rate adds true peak or takes \
        loudness) gets a signal of its own aimed by what it measured, tried first on the prediction of that \
        encode's error (the new signal plus what the encode decoded to less what it was given, measured: no encode), \
        and is encoded again once the prediction meets the target with a margin, three encodes at most. Its first \
        encode, for a sound longer than a minute whose signal peaks within 3 dB of the ceiling, is tried first as \
        convert tries one: the signal in parts encoded at once, one a core, decoded and measured. The lowest \
        bit rate is made first (the master playlist keeps the order asked), and the renditions after it start from \
        the limiter's ceiling it met the target with; a target it cannot meet is refused before any other rendition \
        is encoded, naming a target half a unit under the loudest its signal allows, at which the rendition was \
        encoded once more, aimed by what its encodes learned, and met it (where that encode misses, up to two lower \
        targets are tried afresh, as a run there tries them, and the one met is named; none met, the last is said \
        with what it measured). A package at a target costs the plain \
        package's encodes, the normalizer's passes over the source, and for a rendition its encoder moves a trial \
        (an encode's work on every core at once), a few signals and, where the encode aimed by them misses, one \
        encode more; a refusal, about as much (the third trial's 20-minute episode at 64k and 128k, leveled to -17 \
        LUFS: 2.0x the plain package on 2 cores, where it took 4.1x; refused at -16: 1.1x; BENCHMARKS.md, "HLS \
        loudness" and issue 71's sections). A source with no audio is refused. The bytes depend on the source \
        and the options only. The output folder is written as a set: a hidden temporary folder (.NAME.afkit-RANDOM, \
        held locked while it is filled), flushed, then exchanged for an earlier package in one step (renameat2 with \
        RENAME_EXCHANGE; RENAME_SWAP on macOS) and the old one removed, so a run killed at any moment leaves the old \
        package or the new one whole. On a file system that cannot exchange two names the old package is moved aside \
        (.NAME.afkit-RANDOM.old, locked) and the new one renamed in; a kill between the two leaves no --out but the \
        old package whole aside, and the next run puts it back. Each run first removes the temporaries that killed \
        runs left beside --out (only names of afkit's shape that no process holds locked, as batch does with its \
        files). Only a package afkit wrote is replaced: it holds a hidden .afkit-package naming afkit's version and \
        every file it wrote (a package an earlier afkit wrote without one is known by its master playlist and afkit's \
        layout); a folder holding anything else, even one file named like a segment, is refused (exit 2, naming --out \
        and the file), and so is a source inside it. Several sources: a folder each, named after it (names that \
        clash, and a name that would be . or .., are usage errors). Limits, usage errors beyond them: \
        --segment-duration 1 to 60 s, at most 32 renditions, a --pad of at most 600 s each side. HE-AAC (-d aach) is \
        refused by name: Debian has no HE-AAC encoder. Checked by HLSTests (the renditions read back to the source's \
        frames exactly, 'tfdt' and 'PRIV' times exact, the same bytes twice), by HLSAuthoringTests (validate's \
        checks of RFC 8216's init sections and Apple's MUSTs, each failing a package broken on purpose) and by two \
        players over HTTP, HLSPlayerTests: FFmpeg and GStreamer's hlsdemux2 decode every rendition of fMP4 and packed \
        packages with mono, stereo and 5.1 to the programme's frames (within three packets of priming) without a warning, \
        and FFmpeg selects the 5.1 stream from the master. (GStreamer decodes packed audio one AAC frame short at \
        each segment boundary, 20 frames over 20 segments, where FFmpeg decodes every frame and the PRIV times are \
        exact: its own.)
        """
}
