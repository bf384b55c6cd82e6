import AudioContainers
import AudioConversion
import AudioFormats

/// convert's reference: what `afkit help convert` and its man page say beyond the options.
extension Convert {
    /// The reference prose, paragraphs apart; indented lines are examples.
    static let reference = """
        afconvert's job and spelling. -f \(FileTypeArgument.allValueStrings.joined(separator: "|")) (default: OUTPUT's \
        extension: \(ContainerRegistry.writtenExtensions.joined(separator: " "))); -d \(DataFormatSpecifier.names.joined(separator: " ")), each \
        with an optional @RATE (-hf lists the data formats each file type holds), in any case where that is \
        unambiguous (lei16). With no -d, a linear PCM source keeps its sample format in the container's byte order \
        (24-bit stays 24-bit, float stays float, as SoX does); other sources become 16-bit PCM (AAC for .m4a/.aac, \
        MP3 for .mp3, FLAC for .flac, Vorbis for .ogg/.oga and -f ogg, Opus for .opus and -f opus). AAC moved to another container (x.m4a to x.aac, AAC in \
        CAF to .m4a, or -d aac) is copied packet for packet, priming and remainder kept, unless a change is asked for \
        (a rate, channels, a duration limit, loudness, silence trimming, or -b/-q/-s); Apple Lossless always is. -d 0 \
        (afconvert's "the source's format") asks for that explicitly: AAC and Apple Lossless packets copied, linear \
        PCM kept sample for sample in the container's byte order, IMA4, IMA ADPCM, mu-law and A-law written again in \
        their own format where a change is asked (a cut, a rate, channels: what a validator fix uses to cut a file \
        without changing its format; with nothing to change, a usage error), and anything it cannot copy (another \
        codec, or a copy asked to change the rate, channels, length or loudness) a usage error, exit 2. A lossy \
        source encoded again with a lossy codec (MP3 to AAC, AAC at a new bit rate) gets a note: a second generation \
        of loss. A source cut short (a truncated file) converts what it holds, with a note that it was cut. - as \
        INPUT reads standard input; - as OUTPUT writes the finished file to standard output (give -f or --preset: \
        there is no name to tell the type from; a terminal there is refused with a hint, exit 2).

        -c N down- or upmixes with gains that cannot exceed full scale, as FFmpeg's -ac and SoX's channels mix: any \
        channels to mono are their mean (5.1: ITU-R BS.775's weights, LFE dropped, normalised), 5.1 to stereo takes \
        BS.775's coefficients normalised so each side sums to 1; a master peaking at -0.5 dBFS never clips in a \
        downmix.

        A mix of your own: --mix '0.5,0.5' (a row of gains per output channel, one gain per source channel, rows \
        split by ;) or -m 1,0 (each output's source channel from 0, -1 silence); a note says how many samples a \
        matrix took past full scale.

        --chapters FILE writes chapters of your own in place of the source's, on the output's clock (after any \
        cut or padding): FFmpeg's metadata file (;FFMETADATA1 first; each [CHAPTER] with TIMEBASE, default \
        1/1000000000 as FFmpeg's, START, END and title, FFmpeg's backslash escapes; global tags and [STREAM] \
        sections are said not applied), or show notes' lines of a clock time and a title (0:00 Intro, \
        00:12:30.5 - Interview). Chapters must be in playing order and not overlap; each ends at its END, else where \
        the next starts, else at the output's end. A chapter that starts at or past the output's end is refused \
        (exit 1, nothing written: a chapter list for another cut is a mistake); one that ends past it ends there, \
        with a note. A line that is neither form, text that is not UTF-8, or a file over 1 MiB is refused naming the \
        line and byte. Written into M4A twice: a QuickTime chapter track (what Apple's Music, Podcasts, QuickTime \
        Player and AVFoundation show: a disabled text track the sound track names in tref/chap, each title a sample \
        lasting until the next chapter, its titles at the start of mdat, moov still first) and Nero's chpl (which \
        mutagen reads); MP3 (ID3 CHAP with a CTOC), Ogg Opus and FLAC (CHAPTERnnn comments); WAV, AIFF and CAF get \
        markers, with a note. The other way too: a source's markers (WAV cue points named by LIST/adtl labels, AIFF \
        MARK, CAF mark) become chapters in an output that holds chapters and no markers (M4A, MP3, ADTS, FLAC, Ogg), \
        where the source has no chapters and no --chapters FILE is given (else a note says the markers are not \
        carried and which chapters are written instead): in time order, each starting at its marker's frame at the \
        output's rate (moved with any cut) and ending where the next starts, the last at the end; titled by the \
        marker's name, or 'Marker' and its id where it has none (Marker 2). A marker at the output's end, or at the \
        frame of one before it, starts no chapter, said in a note (MarkerChapterTests: ffprobe and mutagen read \
        them back). The chapter track's times are the sound's presentation times: the sound track's edit \
        list skips the encoder's priming, the text track starts at 0 (an empty edit first where the first chapter \
        starts later), so a chapter at 0.5 s starts where the sound at 0.5 s plays (ffprobe and FFmpeg's decode agree, \
        ChapterTrackTests). Its timescale is 1000 where every chapter starts on a whole millisecond, else the sample \
        rate; at most 255 chapters (chpl counts them in a byte), titles up to 1023 bytes. Chapters carried from a \
        source (M4A to M4A or MP3, ...) are written the same way.

        -l TAG records a layout by Apple's tag name (MPEG_5_1_A, AAC_5_1, Stereo, ... any case, \
        kAudioChannelLayoutTag_ optional) in CAF, or in WAV where its speakers are in WAV's order; a source that \
        names the same speakers in another order is reordered to it (WAV 5.1 to MPEG_5_1_D), one that names others is \
        relabelled with a note, and a codec that fixes its own order (AAC, ALAC, FLAC, Opus, MP3) or a container \
        without layouts (AIFF, M4A) is a usage error.

        Resampling uses libsoxr at very high quality (28-bit) by default; afconvert's -r 0..127 (--src-quality) picks \
        libsoxr's recipe (below 32 low, below 64 medium, below 96 high, 96 and above very high) and --src-complexity \
        line|norm|bats the kind (line: libsamplerate's linear interpolation; norm: the default; bats: libsoxr's \
        32-bit recipe); with --resampler libsamplerate, -r picks its sinc converter (below 32 fastest, below 64 \
        medium, else best).

        -v tells what the conversion did: the source and output formats and frames, and the route (packets copied, \
        samples rewritten exactly, or decoded to float and mixed, resampled by which engine, gained and limited). -hf \
        lists each file type with the data formats it holds, from the checks the writers answer.

        -b is bits per second for AAC, MP3, Vorbis and Opus alike (128000, or 128k); a bare number under 1000 (kbit/s written \
        as bit/s) is refused with the spelling that fits, and a rate the codec cannot hold at the output's rate and \
        channels is a usage error naming the range (AAC-LC: 8 kbit/s a channel up to 6144 bits a channel per packet; \
        MP3: MPEG-1 32k-320k, MPEG-2 8k-160k, MPEG-2.5 8k-64k; Vorbis 16k-250k a channel, as libvorbisenc has modes for the rate; Opus 6k-256k a channel).

        -d aach/aacp (HE-AAC) is refused with the reason: libavcodec encodes AAC-LC only, and the HE-AAC encoders \
        (libfdk-aac, Apple's) are not in Debian. --quality balanced|best|fast chooses the IMA encoder (IMA4 and WAV \
        IMA ADPCM):

        The IMA encoder's searches (--quality), with the SNR they reach on speech, music and noise (overall / \
        segmental, dB) and the time 200 effects take:

        balanced (the default; --preset sfx, system-sound): search: beam: the 6 cheapest decoder states and the \
        cheapest of every step index; from each, of the levels next to the sample, each step index's nearest on \
        either side; speech 30.19 / 30.51; music: 27.20 / 35.54; noise: 24.37 / 24.00; 200 effects (batch --preset \
        sfx): 301 ms, 0.73x SoX's

        best: search: beam: the 32 cheapest and every step index's; every level next to the sample; speech 30.39 / \
        30.71; music: 27.30 / 35.79; noise: 24.57 / 24.20; 200 effects (batch --preset sfx): 1298 ms, 3.13x SoX's

        fast: search: the nearest code per sample; speech 27.89 / 28.30; music: 25.15 / 34.01; noise: 22.41 / 22.08; \
        200 effects (batch --preset sfx): 112 ms, 0.27x SoX's

        best peer: search: FFmpeg adpcm_ima_qt (-trellis 8), SoX, libsndfile, each decoded by FFmpeg; speech 28.66 / \
        28.28; music: 25.59 / 33.88; noise: 24.05 / 23.68; 200 effects (batch --preset sfx): SoX two at a time: 415 ms

        The default is the cheapest search whose six figures each beat the best peer's by at least 0.3 dB (width 5 \
        misses noise by 0.01 dB; BENCHMARKS.md gives every width measured), best keeps the widest search and the \
        floors recorded for it, and fast is FFmpeg's default quality at 3x its speed. dB on the committed test \
        signals (Tests/Fixtures/signals, 22.05 kHz mono); the effects are the benchmark's 200 stereo 0.4 s clips made \
        22.05 kHz mono IMA4, on two cores (100 studio effects, 48 kHz 24-bit stereo, 165 s: 455 ms, 0.94x SoX's 485 \
        ms; one 45 s file: 213 ms, 0.97x SoX's 219 ms; BENCHMARKS.md 2026-11-28).

        Reducing bit depth from float or a wider integer adds TPDF dither; lossless paths (another byte order or \
        container, wider samples) rewrite the stored samples directly and stay bit-exact, 32-bit integers and doubles \
        included; mixing, resampling and encoding work in 32-bit float.

        Float sources may hold anything: values beyond full scale clip, NaN becomes silence. Any input afkit info \
        reads is accepted, and nothing else (one parser for every command: afkit recognises a file by its bytes, \
        never its name); MP3, AAC and ALAC are decoded packet by packet with priming and remainder trimmed, so the \
        output has exactly the source's valid frames. The output is written to a hidden file beside it and renamed \
        into place: it appears complete or not at all.

        Loudness and silence. --loudness LUFS normalizes the output to an integrated loudness (ITU-R BS.1770-4, \
        libebur128) under a true-peak ceiling (--true-peak DBTP, default -1), both measured on the output as decoded, \
        not on the float signal: the output is within 0.1 LU of the target (0.05 usually) and its true peak at or \
        under the ceiling, as 16-bit PCM, IMA4 or AAC. The source is measured once through the pipeline (after mixing \
        and resampling) and the gain is what the target needs by that measure, as FFmpeg's loudnorm sets it in linear \
        mode: the whole sound moves by it, so a decaying tail rises only as much as the target asks (the old rounds \
        chased the gated level, and a 2.5 s impact that needed +2.2 dB got 22 dB). Where that gain would pass the \
        ceiling, a look-ahead true-peak limiter holds the ceiling (4x-oversampled need, 5 ms attack that completes \
        before each peak, 100 ms release, frames in = frames out) and at most 1 dB of make-up gain restores what it \
        takes, found over measuring passes. A target that needs more than --max-limiting DB of limiting (default 6, \
        PCM included) or more make-up is refused, naming the loudest target that can be met, found from measuring \
        passes of the source (not by converting) and checked by the same search a conversion at it makes (an \
        explosion at -9 LUFS: "the loudest target that can is -10.7 LUFS"). The written output is then decoded and \
        measured, and an encoder's overshoot (IMA4's and AAC's noise) lowers the limiter's ceiling under the float \
        signal's own peak and its loudness offset moves the gain, for a few rounds at most, the limiting still within \
        --max-limiting (the encoder's overshoot held within the same bound as the signal's peaks, as hls holds a \
        rendition's). Each next round's level is first tried on \
        a prediction: the new signal plus the last encode's error (what it decoded to less what it was given, kept \
        in a temporary float file while the conversion runs), measured in a pass with no encoder, and aimed again \
        until the prediction meets the target with a margin, so the next encode is the one likeliest to be kept. \
        A lossy output longer than a minute whose first round's signal peaks within 3 dB of the ceiling, with \
        nothing learned of its encoder before (an encode all but never kept: AAC overshoots a limited signal's \
        ceiling by 0.5 to 2.5 dB), is tried first on a trial encode: the signal cut into parts encoded at once, one \
        a core (at most 8, each at least 20 s, each with 2 s more on either side, decoded and dropped), decoded back \
        onto the signal's frames. It measures as a whole encode does (its first part is the whole encode's, frame \
        for frame) in a part's time, and the next round is aimed by it; a level it shows meets is encoded whole. \
        A lossy output's suggested target keeps \
        0.5 LU of margin for the encoder and is a promise: before it is named, a conversion is made at it (a hidden \
        file beside the output, removed) starting from what the refused one's encodes learned (the ceiling the \
        overshoot asked, the loudness offset: one encode, where a run learning them afresh takes two), and lowered \
        by that try's own refusal until one meets it (up to four tries; \
        the message then says "a conversion there was made and met it", and names no target where none did). An \
        encoder that will not settle (a lossy output: in three encodes, six for a sound of a minute or less, whose \
        encodes cost little and whose loudness a low bit rate moves by tenths of a LU from one gain to the next) is \
        refused the same way. Every normalized conversion says what it \
        did, one line a file (convert and batch notes, batch --report's JSON normalization and its HTML page): \
        loudness and true peak before and after, gain, limiting. With --no-limiter such a target is refused, saying \
        what target would fit. A sound shorter than one 400 ms gating block (a click) has no integrated loudness: it \
        is measured as one block, ungated, and info --loudness reports that measure (shortSound in JSON, "over one \
        block" in text). A silent source is refused. --trim-silence [DBFS] (default -60) cuts the silence before the \
        first and after the last sample above the level, keeping 5 ms of it to fade in and out across (the sound \
        itself is untouched, sample for sample); markers and loops move with the cut, and the cut never goes into a loop \
        or a marker the source declares in the silence: it stops there (no fade at that end), said in a note.

        Speech leveling. --dynamic (with --loudness; the voice preset's way, --linear to refuse it) rides a gain \
        before the normalization, so a quiet speaker and a loud one, or a voice drifting from the microphone, come out \
        alike: each tenth of a second's level is the mean of the speech within 1.5 s either side (100 ms blocks whose \
        loudness is within 20 LU of the programme's; pauses and room tone do not count), and the gain brings it \
        to the programme's integrated loudness, within +10 and -10 dB. Where under half a second of speech is near, \
        the gain holds the straight line between its neighbours', so a pause keeps the level around it and room tone \
        is never raised for being quiet. The curve is smoothed forward and backward (0.5 s each way: it neither lags \
        nor leads) and never moves faster than 6 dB a second, so it does not pump. The normalization then works on \
        the leveled signal as above (target within 0.1 LU, true peak held), with up to 3 dB of make-up for what the \
        limiter takes (the linear way allows 1 dB: there it would raise the quiet parts; here the leveler has). The \
        note says the loudness range before and after and the leveler's gains (loudness range 9.2 -> 2 LU (leveler \
        -3.3 to +6.2 dB), ...). Two espeak-ng speakers 8 dB apart come out within 1 dB (SpeechLevelerTests). For \
        effects and music keep the linear way: it never rides, so it never pumps.

        Peak normalization. --normalize-peak DBFS brings the highest sample to DBFS by one linear gain, as sox gain \
        -n DBFS does (-1: sox gain -n -1); --normalize-true-peak DBTP brings the highest true peak (4x oversampled, \
        BS.1770-4) there instead. The peak is measured once through the pipeline (after any cut, fade, mix and \
        resampling) and the gain is the level less it; nothing is limited. A lossy output (IMA4 and IMA ADPCM \
        included) is decoded and measured, and where its encoder moved the peak more than 0.05 dB off the level, it \
        is written again with the gain aimed again until the decoded peak is within 0.1 dB of the level (at most 12 \
        encodes). Where no gain does (an ADPCM encoder's peak can jump past the level: IMA4 put a click's at -1.78 or \
        -0.72 dBTP, nothing between), the nearest peak under the level is kept and the note says so; where every \
        encode landed over it, the level is refused, naming the peaks measured. Either refuses --loudness (each sets the gain) and --gain. \
        The note says what was done (sample peak -10.73 -> -1 dBFS: gain +9.73 dB). PeakNormalizationTests holds \
        16-bit outputs to SoX's own gain -n outputs (within one LSB, nearly all exactly; 24-bit within one LSB: \
        afkit's float pipeline rounds the product to 24 significant bits first).

        Loop seams. --loop-crossfade T mends each forward loop's seam (what validate's loop-seam rule finds), as a \
        sampler editor's loop crossfade or sox splice: the T before the loop's end is crossfaded, at equal power \
        (cos and sin of a quarter turn, each frame at its middle), into the T before the loop's start, so the loop's \
        last frame runs into its first as the sound itself does there. Where the loop starts less than T into the \
        file, its first T is crossfaded from the audio after its end instead. The loop points and the frame count \
        stay; every frame outside the fade is untouched (bit for bit where 8- to 24-bit or float PCM keeps its \
        format). A ping-pong or backward loop turns around and has no seam: it is left alone. A source with no \
        forward loop, a loop shorter than T, or too little audio around it is a usage error naming the file (in \
        batch, such a file is converted without the crossfade, said in a note: a folder holds sounds without loops \
        too, and a loop over the whole sound has no audio beside it to fade from).

        A sound that loops whole (a forward loop from its first frame to its last, as game music declares it) keeps \
        its seam in AAC (M4A or CAF): the encoder is given the loop's last 2048 frames before its first and its first \
        2048 after its last, recorded as priming and remainder (the edit list, pakt), so it codes the wrap as the \
        loop plays it rather than out of silence and into it, and the valid frames are the loop's own, with a note. \
        A chord of whole periods wrapped with a bend of 13 to 18 dB at 64 to 128 kbit/s (a click to validate's \
        loop-seam rule) and wraps at 10, 2.6 and 5.8 dB so at 64, 96 and 128 kbit/s (LoopWrapTests). Not where the output is padded, faded, levelled \
        by --dynamic or crossfaded (the wrap is rendered apart), nor in hls's renditions (a stream plays once).

        Edits. --start T, --end T and --duration T (FFmpeg's -ss, -to, -t) take a part of the source, T in seconds \
        (1.5), [[HH:]MM:]SS[.mmm] or frames (44100f), exact to the frame (a compressed source is decoded and cut; \
        packets are never copied when an edit is asked); --fade-in T and --fade-out T fade in SoX's shapes \
        (--fade-shape: q quarter sine, the default, h half sine, t linear, l logarithmic, p inverted parabola), each \
        frame at its middle (a fade longer than the sound keeps its slope, with a note saying where the level ends, \
        and a fade-in and a fade-out that overlap are refused, as SoX does); --pad START[,END] adds silence before \
        and after; --gain DB changes the level before any limiter, with a note and the count where it takes samples \
        past full scale in an integer or lossy output (a float output keeps them); --remove-dc takes out a DC \
        offset, a first-order high-pass at 5 Hz before any gain, each channel starting on its first sample (no \
        step; validate's dc-offset fix, and part of any fix whose gain would raise an offset to within 10 dB of \
        that rule's limit). Times are plain decimals, clock \
        times with minutes and seconds under 60, or frames, from 0 up to a week; a cut asked past the end goes to the \
        end with a note. All are applied in the one render pass, markers, loops and chapters moved with them (judged \
        in the part kept, then moved past the padding: a marker the cut removed stays removed), and recorded in a \
        batch's provenance (batch takes them too). EditTests checks cuts sample for sample against the source, each \
        fade shape within 0.1 dB of its formula, padding and gain within 0.01 dB, and markers moved. convert INPUT \
        with no OUTPUT writes beside the input with the extension of -f or of the preset (CAF by default), as \
        afconvert does, and never over the input (a usage error); -o OUTPUT is the same as the OUTPUT argument.

        --trim is never ignored: it cuts a longer source to the duration limit of the profile in force (the padding \
        counted in it, a --fade-out given kept at the new end), with a note (convert: long.wav: note: --trim: cut from 45 s to 30 s, \
        the limit of the system-sound profile, its last 10 ms faded out). The profile in force is --profile NAME \
        (a built-in name or a profile file), else the preset's own (the one its outputs pass: system-sound for \
        system-sound, simultaneous-sfx for sfx, music for music and lossless, dialogue for voice), else validate's \
        default, system-sound (so convert -d ima4 --trim cuts to 30 s and stays IMA4). Of the built-in profiles only \
        system-sound sets a limit: --preset sfx --trim or --trim --profile music is a usage error saying there is no \
        limit to cut to. The cut ends with a fade-out of 10 ms, half a sine: a cut at full level is a step, heard as \
        a click, and 10 ms is far shorter than a fade the ear follows, so the sound seems to stop, not to fade \
        (TrimFadeAndSmallOptionsTests: the last 10 ms fall to silence with no step larger than the signal's own, \
        every sample before them as the source's). --trim-fade TIME sets its length (seconds, or frames as 441f); \
        --trim-fade 0 keeps the hard cut.

        -d 0@RATE keeps the source's data format at another rate (an IMA4 or FLAC source stays IMA4 or FLAC at \
        RATE; AAC and ALAC, whose packets -d 0 copies, are refused with the -d name that encodes them again, and \
        copied where RATE is the source's own). A lossy codec afkit does not copy (MP3, Opus, Vorbis) is not \
        kept by -d 0: its -d name encodes it again, a second generation of loss, with the bit rate given. -ar RATE, FFmpeg's \
        spelling, sets the output's rate alone, in convert and batch, with the data format -d, the preset or the \
        source decides (-d 0 -ar 44100 is -d 0@44100); a rate that is no number from 1 to 1536000 is a usage error \
        naming -ar, and -ar with a -d FORMAT@RATE is refused (give the rate once).

        Every message names the file it is about, in every command, as COMMAND: FILE: KIND: TEXT (convert: a.mp3: \
        note: ..., batch: src/x.wav: error: ..., info: x.bin: error: ...), so a line under make -j says which asset \
        it is about. On a terminal, a long conversion redraws one progress line on standard error, as ffmpeg -stats \
        does (convert: long.wav 00:02:13.4 of 00:10:00.0 - 41.2x: the time written, the whole, the speed), at most \
        four times a second from a quarter of a second in, cleared at the end. A loudness run names each stretch \
        (measuring loudness, pass 2; a trial encode in 2 parts at once; encoding, round 2), and its speed is the \
        stretch's own; --progress draws it when standard \
        error is not a terminal too. --quiet says errors only: no notes, no progress, nothing at all on success (with \
        -v or --progress, a usage error).

        Tags and the front cover travel: title, artist, album, album artist, track number, date, genre, comments, \
        composer and copyright, read from whatever the source carries them in (Vorbis comments, ID3v2, iTunes items, \
        RIFF INFO, AIFF's text chunks, CAF 'info'), go into the output as it carries them (M4A 'ilst' and 'covr', \
        FLAC VORBIS_COMMENT and PICTURE, MP3 and ADTS ID3v2.4 with 'APIC', Ogg Opus OpusTags and Ogg Vorbis's \
        comment header with METADATA_BLOCK_PICTURE, WAV LIST/INFO and an 'id3 ' chunk, AIFF 'NAME'/'AUTH'/'ANNO' and an 'ID3 ' chunk, CAF \
        'info'). The front cover (the first picture where none is marked front) goes byte for byte; where the output \
        cannot hold it (CAF, a GIF in M4A, a cover past Ogg Opus's one-page comment header) a note says so, and so it \
        does for the source's other pictures. --no-metadata leaves tags and pictures out. mutagen (PyPI) reads them \
        back in the tests.

        The output's name, -f and the preset must agree: -f caff out.wav, --preset sfx out.wav or -d aac out.aif is a \
        usage error (exit 2) that says which names or formats fit; nothing is written. So is a layout the container \
        cannot hold, with the spelling it can (-d LEF32 out.aif: "AIFF-C holds big-endian floats: use -d BEF32"; -d \
        BEI16 out.wav: "use -d LEI16"), and an output folder that does not exist. A folder as OUTPUT is refused with \
        the file name to give (/tmp/x.caf), a folder as INPUT points to batch. Options are checked before paths, so a \
        mistyped option is named (with argument-parser's "did you mean"), never taken for a missing file; an invalid \
        -f, --preset or --quality value is answered with the valid ones, and so is an unknown -d (every format \
        listed) or a rate after @ that is not above 0; a negative -c, -b or --jobs is a value out of range, not a \
        missing one. -b, -q or -s given for a format that has no use for them (PCM, IMA4) are noted on standard \
        error, never silently ignored. afkit with no arguments prints its help and exits 2.

        Which container holds what: CAF holds every format afkit encodes but Vorbis; Ogg vorbis and opus; AIFF-C linear PCM, ima4, ulaw, alaw (a .aif \
        name whose data plain AIFF cannot hold becomes AIFF-C); WAV linear PCM, ima-adpcm, ulaw, alaw; M4A aac and \
        alac; ADTS aac; MP3 only MP3.

        Compressed output, gapless. Every AAC, ALAC, MP3, Vorbis and Opus output records exactly which decoded \
        frames are the source's: CAF in 'pakt' (priming and remainder frames, valid frames), M4A in an edit list that \
        starts after the priming and lasts the valid frames, plus an iTunSMPB tag with the same numbers, MP3 in \
        LAME's tag (CBR, ABR and VBR alike), Ogg in the last page's granule position (and Opus's pre-skip). ADTS \
        carries no gapless information (it has no field for it): an .aac output decodes with the encoder's 1024 \
        priming frames in front and its padding behind. M4A files are written with 'moov' before 'mdat', so a \
        streaming parser (Apple's refuses the other order with optm) can start at once; the source's title, artist, \
        album and comment become 'ilst' items.

        Each codec's engine and options:

        AAC-LC (-d aac): engine: libavcodec's native aac encoder: the only AAC encoder of acceptable quality in \
        Debian's main archive (VisualOn's is rated very poor; FDK and FAAC are not there). afkit reaches the same SNR \
        as ffmpeg -c:a aac at the same bit rate (BENCHMARKS.md). Priming is the encoder's real delay, 1024 frames, \
        not Apple's 2112; options: -b bits per second (default 64 kbit/s a channel at 32 kHz and above, less below); \
        -s 0, 1, 2 (CBR, ABR, constrained VBR) all use the engine's bit-rate mode, which holds the average to -b over \
        a bit reservoir (an ABR: the engine has no strict CBR and no constrained VBR); -s 3 (VBR) uses its quality \
        mode with the quality set from -b; -q below 32 takes the fast quantizer search, 32 and above the two-loop \
        search (default 64). Rates AAC-LC cannot signal are resampled to the nearest one it can, with a note on \
        standard error

        Apple Lossless (-d alac): engine: afkit's own encoder (pure Swift, AudioCodecs/AppleLossless.swift): \
        libavcodec's writes 16 and 24 bits only, and Apple's ALAC codec is not packaged in Debian. Per element it \
        tries five stereo weightings (by second differences) and eight predictor orders (by the exact coded size of \
        the packet's first 1024 frames), keeps the verbatim form where that is smaller, and codes a batch of packets \
        on all cores at once: within about 1 % of ffmpeg -c:a alac's size and close to its speed (BENCHMARKS.md). \
        Decoding is libavcodec's. Packets of 4096 frames, the last shorter; options: integer sources keep their \
        depth: 16, 20, 24 or 32 bits (other depths go up to the next of those), read as stored integers, never \
        through floating point, so 32-bit sources stay exact; floating-point sources are written at 24 bits (a note \
        says so). An ALAC source is copied, never re-encoded (its packets are already what the encoder would make, \
        and a 32-bit stream would lose bits through floating point)

        MP3 (.mp3 names): engine: LAME. Every strategy's first frame is LAME's own tag frame, put over the stream's \
        first packet when the encoder finishes: an Info header for CBR, Xing for ABR and VBR (frame count, byte \
        count, the 100-entry seek table), with the LAME extension's encoder delay and padding, so afkit's reader, \
        libsndfile (mpg123) and FFmpeg give exactly the source's frames; options: -s 0 CBR (the default) at -b \
        (default 192 kbit/s), -q LAME's algorithm quality -q 9-qx9/127; -s 1 ABR averaging -b (lame --abr); -s 2 \
        and -s 3 VBR (lame -V, LAME's default VBR mode) with -q 0..127 mapped onto -V 9-qx9/127 rounded: -q 127 is \
        -V 0, -q 99 -V 2 (the default), -q 0 -V 9; -b there is the highest bit rate a frame takes (lame -B)

        AC-3, E-AC-3, AMR-NB, AMR-WB (decoding): engine: libavcodec's native decoders (ac3, eac3, amrnb, amrwb), a \
        sync frame or a 20 ms frame a packet: the only decoders of these in Debian's main archive besides liba52 \
        (AC-3 only) and opencore-amr, and loaded already for AAC; options: a lossy source converts to 16-bit PCM by \
        default

        AAC in LOAS/LATM (decoding): engine: libavcodec's aac_latm, given each LOAS frame whole (it reads the \
        StreamMuxConfig the frames repeat): the AAC access unit sits bit-aligned behind the mux fields, so a LOAS \
        frame is no AAC packet, and is never copied as one (--preset music re-encodes it). Decodes to FFmpeg's very \
        samples; options: a lossy source converts to 16-bit PCM by default

        FLAC (-f flac, -d flac): engine: libFLAC, the reference encoder (Debian libflac-dev): on the 10-minute track \
        it takes the time libavcodec's flac encoder takes, within the runs' spread, and makes files within 1 % of its \
        size (BENCHMARKS.md); every decoder is written against it. Packets are libFLAC's frames; .flac files get \
        STREAMINFO with the MD5 of the samples, a SEEKTABLE point every 10 s and the metadata as Vorbis comments; in \
        CAF the cookie is a whole 'dfLa' box, as Apple writes it and FFmpeg reads it. Checked by libFLAC (through \
        libsndfile) and FFmpeg decoding the source's very samples, and by flac -t; options: integer sources keep \
        their depth (8 to 24 bits; 32-bit integers are written at 24, floating point at 24, lossy sources at 16, each \
        with a note where bits go); -q 0..127 picks libFLAC's level q/16 (default 5, flac's; levels 0 to 2 use blocks \
        of 1152 frames, above 4096)

        Opus (-f opus, -d opus): engine: libopus, the reference encoder (Debian libopus-dev), 20 ms packets at 48 kHz \
        (other rates are resampled to it, with a note), mono and stereo as one stream, 3 to 8 channels as surround \
        streams (mapping family 1, Ogg only). The priming is libopus's look-ahead, 312 frames: Ogg Opus states it as \
        OpusHead's pre-skip and ends the last page's granule at the last source frame (libsndfile's libopus reader \
        and FFmpeg give exactly the source's frames, in place); CAF states it in 'pakt' and carries no cookie, as \
        FFmpeg writes it (Apple's Opus cookie is not published; FFmpeg skips it); options: -b bits per second \
        (default, as opusenc: 64 kbit/s a mono stream, 96 kbit/s a stereo pair); -s 0 CBR, every packet one size: \
        Safari and QuickTime decode Opus in CAF only at a constant bit rate, so CAF output is CBR unless -s says \
        otherwise; -s 1, 2 constrained VBR; -s 3 VBR (the default for .opus); -q 0..127 the encoder's complexity \
        qx10/127 (default 10)

        Vorbis (.ogg and .oga names, -f ogg, -d vorbis): engine: libvorbis with libvorbisenc, the reference encoder \
        (Debian libvorbis-dev), at the source's rate, 1 to 8 channels in Vorbis I's order (mono to 7.1; more are \
        refused, as Vorbis I gives them no order). Ogg only (Apple's players do not decode Vorbis in CAF or \
        MPEG-4), never under a .opus name (RFC 7845 keeps .opus for Ogg Opus: refused, naming .ogg). Vorbis has no priming: the first packet decodes to no frames and the engine ends the last page's \
        granule position at the last source frame, so afkit, libsndfile (libvorbis) and FFmpeg give exactly the \
        source's frames, in place. Tags, the cover and a loop are Vorbis comments (LOOPSTART, LOOPLENGTH in frames, \
        as game engines read them); options: without -b, quality VBR: -q 0..127 is oggenc -q qx11/127-1 (-1 to 10; \
        default 3, oggenc's); -b bits per second with -s 3 or none is oggenc -b: the quality of libvorbisenc's mode \
        for that rate, its bit-rate management off (true VBR: a simple sound takes less; -q is then not used, and \
        said so); otherwise the management holds it: -s 0 minimum = maximum = -b, -s 2 average and maximum -b, -s 1 \
        an average

        Vorbis and Opus (decoding): engine: libavcodec's native decoders, configured by the stream's headers (Vorbis: \
        its three headers; Opus: OpusHead, whose pre-skip afkit trims as priming, gapless as opusdec plays it; \
        libavcodec is given it with a pre-skip of 0 so it is not dropped twice); Opus decodes at its own 48 kHz. \
        libavcodec is loaded already for AAC and MP3, and measured in process against the reference libraries' own \
        decoders on the same packets it is 2.6 times as fast as libvorbis and 2.4 times as fast as libopus \
        (Benchmarks/OggDecoders, make bench; BENCHMARKS.md), so libvorbis and libopus are not used for decoding; \
        whole process, afkit decodes the 10-minute Vorbis and Opus tracks to WAV faster than FFmpeg (1.21x and \
        1.10x). libavcodec allocates 8 times a packet inside (measured alone); afkit's route around it allocates \
        nothing a packet (make bench's allocation gate); options: a lossy source converts to 16-bit PCM by default

        FLAC (decoding): engine: afkit's own decoder (pure Swift, AudioCodecs/FLAC.swift): bit-exact with flac -d on \
        every fixture (4 to 24 bits, 1 to 8 channels, any block size, LPC to order 32), and it writes its integers as \
        they are, so a FLAC source reaches PCM of its depth or deeper without floating point. Chosen over libFLAC by \
        measurement: a 10-minute stereo FLAC decodes to 16-bit CAF in 635 ms of CPU against FFmpeg's 955 ms and flac \
        -d's 1,030 ms wall (BENCHMARKS.md), with no C library to install; options: a FLAC source converts to PCM of \
        its own depth by default (24-bit FLAC to 24-bit PCM), as Apple Lossless does

        Presets, Apple's preferred formats (what each makes, and why):

        system-sound: CAF, 16-bit little-endian PCM, <= 30 s (refuses longer sources; --trim cuts them), at most 48 \
        kHz and two channels (a source above is resampled to 48 kHz, more channels mixed down to stereo, each with a \
        note and -c keeping more channels, so the output passes the system-sound profile without its sample-rate or \
        channels warning); .aif/.wav names get the same in those containers. Why: what System Sound Services plays, \
        with no decoding cost

        sfx: CAF (or AIFF-C), IMA4, mono, 22.05 kHz. Why: a quarter of 16-bit PCM's size and cheap to decode, so many \
        sounds can play at once; 22.05 kHz mono is plenty for effects

        pcm: CAF, 16-bit little-endian PCM (or AIFF/WAV by name). Why: lossless, the native format, for sounds that \
        must be exact

        music: AAC-LC at 128 kbit/s stereo (mono at 64 kbit/s; more channels mixed to stereo), at most 48 kHz \
        (resampled above, with a note), in CAF, or in M4A or ADTS for .m4a/.aac names; an AAC source's packets are \
        copied untouched into any of them; an .mp3 name gets MP3 through LAME at 192 kbit/s. Why: Apple's preferred \
        format for compressed audio played one sound at a time: the hardware decoder plays it; never re-encode AAC. \
        The engine's bit-rate mode beat its VBR mode at this rate (BENCHMARKS.md)

        lossless: Apple Lossless in CAF (or M4A); FLAC for a .flac name or -f flac; at most 48 kHz (resampled above, \
        with a note; -d alac@96000 keeps a higher rate). Why: about half the size of PCM, nothing lost: for music \
        masters and sounds that must be exact but are large

        voice: Opus at 32 kbit/s, mono, constant bit rate, in CAF (or Ogg Opus for .opus and .ogg names); an .m4a or \
        .aac name gets AAC-LC and an .mp3 name MP3, at the same bit rate, mono (a podcast's feed). Why: dialogue \
        lines: a third of IMA4's size with a spectrum as close to the source's, and far closer than AAC-LC's at the \
        same rate (BENCHMARKS.md); CBR because Apple's players decode Opus in CAF only at a constant bit rate. With \
        --loudness it levels speech (--dynamic) unless --linear is given.
        """
}
