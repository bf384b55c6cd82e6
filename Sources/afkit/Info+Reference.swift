/// info's reference: what `afkit help info` and its man page say beyond the options.
extension Info {
    /// The reference prose, paragraphs apart; indented lines are examples.
    static let reference = """
        Like afinfo: what a file holds, read from its bytes.

        --json prints an array, one object per file: path, container (detected from the bytes, never the name), \
        format (Apple's AudioStreamBasicDescription: id, sampleRate, channels, bitsPerChannel, framesPerPacket, \
        bytesPerPacket, bytesPerFrame, flags), packetCount, primingFrames, remainderFrames, frameCount, \
        durationSeconds, dataOffset, dataByteCount, bitRate, maximumPacketSize, and where present magicCookie (hex) \
        and metadata, pictures (the cover art a file carries, each {"type", "mimeType", "bytes"} by ID3's and FLAC's \
        picture types, with width and height where the container states them, from FLAC PICTURE blocks, Vorbis and \
        Opus METADATA_BLOCK_PICTURE, ID3v2 'APIC' in MP3, ADTS, AIFF and WAV, and MP4 'covr': described, their bytes \
        stepped over whatever their size); afkit adds truncated (the file ends early) and damaged (it was read to its \
        end, but bytes that should be audio were skipped, or a count lies: afkit info and every conversion say where \
        and how much; metadata no frame agrees with is refused by name), and, where something was left unread to keep \
        memory bounded, notRead (each {"what", "count", "unit"} with its offset where known: a metadata block or \
        chunk past the 1 MiB read limit, in bytes; an MP4 chapter track's chapters past the 1,000 read; the text \
        output says the same in a warning, and a conversion in a note). A file that cannot be parsed becomes {"path": \
        ..., "error": {"code": ..., "message": ..., "offset": ...}} (status 1); a FILE that does not exist is \
        reported the same way in its place, the others are still read, and the status is then 2 (as afinfo and ls \
        do). - reads standard input. --trace writes the parser's chunk-by-chunk notes to standard error.

        --loudness measures each file per ITU-R BS.1770-4 / EBU R128 over its valid frames as afkit decodes them, \
        with libebur128 (gated loudness, range, sample peak) and a true-peak meter of afkit's own (4x polyphase, a \
        48-tap Hann-windowed sinc as BS.1770-4 Annex 2 describes, eight frames at a time in SIMD; within 0.1 dB of \
        libebur128's, whose interpolation took most of the time: a 10-minute track is measured in 1.3 s, 2.3x \
        FFmpeg's ebur128, BENCHMARKS.md): --json adds "loudness": {"integrated": LUFS, "range": LU, "truePeak": dBTP, \
        "samplePeak": dBFS} (null for silence's -inf), text a Loudness: line. Integrated loudness and sample peak \
        agree with FFmpeg's own ebur128 filter within its 0.1 dB printing; libebur128's true peak reads a little \
        lower than FFmpeg's and nearer the truth (a tone of amplitude 0.7 sampled between its peaks: -2.97 dBTP \
        against -2.5; the tone is -3.10), LoudnessTests, which also runs EBU Tech 3341's integrated-loudness cases 1 \
        to 5 (within +/-0.1 LU) and Tech 3342's loudness-range cases 1 to 4 (within +/-1 LU) on their signals, \
        generated from their definitions, and the true-peak cases 15 to 23 (+0.2/-0.4 dB). An HLS playlist's \
        loudness is its rendition's (a master playlist's: the one its HLS: line names), the segments decoded in \
        order as one sound; a master playlist's every rendition is measured too, lowest bandwidth first (a player \
        may play any): --json adds "renditions": [{"mediaPlaylist", "loudness"}], text a "Rendition loudness:" line \
        each (HLSCommandTests measures a package against its source).

        The loudness a file states, measured when it was made (MPEG-4's 'ludt' box, ISO/IEC 14496-12, which afkit's \
        M4A writer writes where it is given one), is shown without --loudness: --json adds \
        "loudnessInfo": {"integrated", "anchor", "maximumMomentary", "maximumShortTerm", "range", "truePeak", \
        "samplePeak"} (the figures it states, as it stores them: loudness to 0.25 LU, peaks to 1/32 dB) with \
        "measurementSystem" and "reliability", text a Loudness info: line.

        The text output, for example:

          $ afkit info Assets/click.wav
          File:                   Assets/click.wav
          File type ID:           WAVE (wav)
          Data format:            1 ch, 44100 Hz, 'lpcm', (0xC) 16-bit little-endian signed integer
          Duration:               0.040000 sec
          Audio bytes:            3528
          Audio packets:          1764
          Bit rate:               705600 bits per second
          Maximum packet size:    2
          Audio data file offset: 44
          Frames:                 1764 valid + 0 priming + 0 remainder
          ----

        MP3 with a LAME (or FFmpeg Lavc/Lavf) tag reports priming = delay + 529 and remainder = padding - 529, as \
        Apple does, so frameCount is the encoder's input length exactly. A LAME header in a CRC-protected frame (lame \
        -p) is read as well. MPEG audio and ADTS streams start only where a first frame is confirmed by the two after \
        it (or the end of the input), so two chained headers in junk make no stream; an MPEG stream whose sample rate \
        changes mid-stream (streams joined end to end, conformance streams) is counted whole, as FFmpeg counts it, \
        with the first rate reported and the change a warning.

        AIFF/AIFF-C: the audio is what 'SSND' holds, as Apple reads it: the 'COMM' chunk's frame count neither cuts \
        it short nor stretches it (a disagreement is a Warning: line in text output and a note in --trace); 'SSND' \
        may come before 'COMM'; 'COMM' without 'SSND' is an empty sound. Sample words are read as stored (a 12-bit \
        sample keeps its 16-bit word's padding bits, as Apple reads it); 8-bit 'raw ' is unsigned, 23ni/42ni are \
        little-endian 32/24-bit. Any finite rate above 0 is read (0.01 Hz included); convert keeps a rate with a \
        fraction (8912.75 Hz) in CAF and AIFF, and resamples it to the nearest whole rate, with a note, for WAV, RF64 \
        and M4A, which store whole rates; it refuses to resample by a factor beyond 65536. WAV IMA ADPCM uses 'fact' \
        only where it falls inside the last block (libsndfile writes about half the real count for stereo), else the \
        blocks' frames.

        Markers, loops and annotations, where the file has them (optional fields of --json, as the contract names \
        them): markers (AIFF 'MARK', WAV 'cue ' named by LIST/adtl labels, CAF 'mark' named by 'strg'), comments \
        (AIFF 'COMT'), instrument (AIFF 'INST', WAV 'smpl' and 'inst', CAF 'inst'), loops resolved to frames whatever \
        the container (AIFF's loops between markers, WAV's 'smpl' loops whose end is their last frame, CAF's looping \
        regions; end is the frame after the loop), and channelLayout; metadata gains annotations (every AIFF 'ANNO', \
        in order) and the Broadcast Wave bext fields. libsndfile, in-process, reads the same notes and loops \
        (MarkerTests). Plain text shows them too, a line each: Marker: (id, frame, seconds, name), Loop: (play mode, \
        start and end frames, length), Instrument: (notes, velocities, gain, sustain and release loops) and Comment: \
        (its marker, its text); past 32 of a kind, a line says how many more (--json lists them all).

        A cut MP3 (the file ends before the frames its LAME or Xing tag counts) keeps the tag's priming and \
        remainder, as the contract states them (the padding is taken off the whole frames that are left, as every \
        command delivers them), and the cut is said with its byte (Warning: the file is truncated at byte N). \
        --trace says "bytes after the end of the outer chunk" only where a byte follows \
        it (a clean WAV ends exactly there).

        convert carries them into every container that has a place for them, positions scaled when the rate changes \
        and kept within a trimmed output: markers (AIFF 'MARK', WAV 'cue ' + LIST/adtl, CAF 'mark' + 'strg'), loops \
        (AIFF 'INST' between markers, adding a marker where a loop ends at none; WAV 'smpl'; CAF looping regions; the \
        first loop is the sustain loop, the second the release loop) and the instrument's note, tuning, ranges and \
        gain (AIFF 'INST', WAV 'smpl' and 'inst', CAF 'inst'). AIFF loops play forward or ping-pong only, so a \
        backward loop plays forward there; comments ('COMT') and annotations ('ANNO') have a place in AIFF only. An \
        AIFF 'INST' -> CAF -> WAV -> AIFF round trip, with a rate change on the way, keeps every marker, loop and \
        setting (MarkerTests). Into containers that hold chapters and no markers (M4A, MP3, FLAC, Ogg), markers become \
        chapters, and chapters become markers the other way (afkit help convert, --chapters).

        MPEG-4 files: container is m4a where the 'ftyp' brands say 'M4A ' or 'M4B ', else mp4; a packet is one sample \
        of the first sound track. Priming is the edit list's media time, valid frames its duration, as the contract \
        decides: an edit that runs past the media's end (a coarse movie timescale rounding up) ends where the media \
        ends, and an edit shorter than the media is taken as it is (FFmpeg's AC-3 of 10,464 frames in a table of \
        10,752 after 256 of priming reports 10,464, as ffprobe does); without an edit list, an iTunSMPB tag; without \
        either, 0. A file whose 'moov' is whole but whose 'mdat' is cut before its first sample is read: 0 packets, \
        truncated. QuickTime's PCM descriptions are read as QuickTime reads them: version 1 in24, in32, fl32 and fl64 \
        are little-endian where 'wave' holds 'enda' 1 (as FFmpeg writes little-endian sources), version 2 lpcm takes \
        its bits and format flags, and an 'stsz' of 1 (QuickTime-classic writers) means packets of one frame of the \
        description's bytes. An AudioSpecificConfig that signals SBR (HE-AAC) or SBR+PS (HE-AAC v2) gives aach/aacp \
        at the output rate and a formatList of every layer. Text output says optimized or not optimized (whether \
        'moov' comes before the audio) and lists the layers. Tags from 'ilst' (title, artist, album, year, genre, \
        comment, track, freeform ---- items by name) go into metadata; cover art ('covr') is described in pictures \
        (its bytes stay in the file, read only when a conversion carries it), and udta/chpl and a chapter text track \
        give chapters: the text track the sound track names in tref/chap (else the first text track), its times \
        placed by its edit list, preferred to chpl where both are there; chapterSource in --json (and "Chapters \
        from:" in text) says which: "chapter track" or "chpl". A chapter track whose tables lie (counts past their \
        box, a title's size or length past its sample, a title outside mdat) is not trusted and is said with the \
        byte: the sound is read whole, and the chapters come from chpl or from the titles that can be read.
        """
}
