/// batch's reference: what `afkit help batch` and its man page say beyond the options.
extension Batch {
    /// The reference prose, paragraphs apart; indented lines are examples.
    static let reference = """
        Converts files and folders in parallel (--jobs, default: the cores), mirroring the source tree under DIR, \
        each output in CAF, or in the container -f names (afconvert's codes, as convert takes them) under its usual \
        extension: --preset music -f m4af makes .m4a files, --preset voice -f opus Ogg Opus .opus files (-f ogg \
        names them .ogg; with -d vorbis they are Ogg Vorbis), --preset music -f ogg stereo Ogg Vorbis .ogg files \
        (for Android and game engines), --preset pcm -f WAVE .wav files (plain AIFF, -f AIFF, takes the preset's \
        16-bit PCM big-endian). -d replaces the preset's data format, and -c, -b, -q and -s its channels, bit rate, \
        quality and bit-rate strategy, as convert takes them (--preset music -f ogg -q 81: Vorbis at oggenc's -q 6). \
        The preset, -f, -d and those are checked together as convert checks them, before anything is converted (a \
        combination that cannot be written is a usage error, exit 2), and they are part of what an output records. \
        A folder's files keep their path below it, and with several source folders, below each folder's own name \
        (batch --out o a b makes o/a/x.caf and o/b/x.caf, as cp -r a b o places them). --name PATTERN names each \
        output below DIR instead, without its extension (the container gives that): {stem} (the source's name without \
        its extension), {ext} (its extension, without the dot), {dir} (its folder below the root, as mirrored) and \
        {preset}; the default is {dir}/{stem}, and a pattern without {dir} puts every output straight into DIR \
        (--name '{dir}/{stem}-{ext}' keeps x.wav and x.ogg apart as x-wav.caf and x-ogg.caf). An unknown placeholder, \
        or a name that would leave DIR, is a usage error; the pattern is part of what an output records. A file as \
        --out is one usage error. What a conversion notes (a truncated source, a resampled rate, a second generation \
        of loss) is said on standard error as convert says it, and --report gives each converted file's notes and \
        marks a source cut short "sourceTruncated": true. Folders are searched for the files of every container afkit \
        reads, by the extensions of the containers afkit reads (validate walks the same set: one list, \
        ContainerRegistry.walkedExtensions); a line on standard error names the files a walk skipped and their \
        extensions (batch: skipped 1 file not named as a sound file afkit reads (.txt): 'Sounds/notes.txt'). Symbolic \
        links are followed (to files and folders, never round a loop), macOS's ._name files and .DS_Store are left \
        out, and DIR itself is never read as a source, even when it lies inside one.

        Incremental, by content, not by time: each output records what made it (afkit's version, the preset and its \
        settings, and a 64-bit xxHash of the source's bytes) and the frames it holds. An output is skipped only when \
        both still match and it reads back whole; a source replaced by mv, restored with an old time (cp -p, git \
        checkout), or edited in place is converted again, and so is an output cut short. Touching a source without \
        changing it converts nothing. Sources that would write one output (a.wav and a.aif) are an error before \
        anything is converted (exit 1): every such output is found first and all are named in one message, which ends \
        with a --name pattern that would keep them apart (batch: error: 3 outputs would each be made from more than \
        one source: give --name '{dir}/{stem}-{ext}' to name them apart, or rename the sources (nothing was \
        converted)). \
        Paths that hold no source exit 2 unless --allow-empty. --trim cuts sources longer than the profile in force \
        allows (--profile, else the preset's own), as convert --trim does (ending with its 10 ms fade, --trim-fade \
        TIME to change it), or is a usage error where that profile sets no limit; -ar RATE sets every output's rate \
        (and is recorded, as -d is). --loudness, --true-peak, --no-limiter, --normalize-peak, --normalize-true-peak, \
        --loop-crossfade and --trim-silence apply to every file as in convert, and are part of what an output \
        records (a changed target converts again). --report FILE writes every file's \
        loudness, source and output, so a team can chart its sound set: {"files": [{"source", "output", "status", \
        "sourceLoudness", "outputLoudness"}]}, each loudness {"integrated", "range", "truePeak", "samplePeak", \
        "shortTermMaximum"} (null for -inf), a failed file's error instead. --report FILE.html writes validate \
        --format html's page of the outputs instead, checked against --profile (default: the preset's own profile, as \
        for --trim; system-sound for pcm); a source that failed to convert is listed with its error as the finding \
        (one longer than the profile allows with validate's fix for its length: the batch's options and --trim). \
        The page's fixes remake an output from its source with the batch's options and the fix's own (afkit convert \
        --preset pcm --gain=-3 --trim src/long.wav out/long-fixed.caf), never from the output, which would be a \
        second generation of loss; a fix writes beside the output, never over it or another output (the batch's next \
        run would convert it back), and where no other fix of the page does (-fixed, -fixed-2, ...). Every preset's \
        output passes its own profile (no error) with no finding about what the preset decides (container, data \
        format, sample rate, channels, length): PresetProfileTests converts sources from 8 to 192 kHz, 1 to 8 \
        channels, 8- to 32-bit integers and float with each preset and validates them in-process. What the source \
        brings is judged as it comes, and may still be a warning: the presets do not level loudness (music, lossless \
        and voice outputs keep the source's: give --loudness, as the page's fixes do), nor take off silence at the \
        ends (--trim-silence), nor undo clipping or a true peak above the ceiling (--loudness's limiter holds it).

        On a terminal one progress line shows the files done and the file being written, its time and speed (batch: \
        3/10 files - long.wav 00:02:13.4 of 00:10:00.0 - 41.2x; --progress forces it elsewhere); piped, a line a file \
        converted (batch: converted src/a.wav -> out/a.caf); notes name their source (batch: src/a.wav: note: ...); a \
        summary line (1 file: 1 converted, 0 up to date, 0 failed) goes to standard output; with --quiet, errors only \
        and no summary. Exit status 1 if any file failed (the others are still converted).
        """
}
