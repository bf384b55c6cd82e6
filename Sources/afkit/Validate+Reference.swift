/// validate's reference: what `afkit help validate` and its man page say beyond the options.
extension Validate {
    /// The reference prose, paragraphs apart; indented lines are examples.
    static let reference = """
        Checks sound files (directories are searched recursively for the contract's .caf .aif .aiff .aifc .wav .mp3 \
        .aac .adts and every other extension of a container afkit reads, as the containers table lists them; a line \
        names what a walk skipped and why) and exits 1 if any file has an error. m4a/mp4 fail system-sound's \
        container rule. Text output is one line per problem, path: severity: rule: message, then a summary line; \
        formats are named in words beside their code ('0x6D730011' (IMA ADPCM in WAV)), and a finding afkit can fix \
        ends with ; fix:  and the command that fixes it. A file's findings share one command, which fixes them all \
        into one output (three findings never write three x-fixed.caf): the profile's preset where the container \
        or format fails (afkit convert --preset system-sound --trim x.ogg x.caf for a 35 s Ogg Vorbis file; sfx \
        for the game profiles, music for the music ones), else the file's own format, as -d 0 where convert writes \
        it again (linear PCM, IMA4, IMA ADPCM, G.711: afkit convert -d 0 --trim -c 2 x.caf x-fixed.caf keeps IMA4), \
        by its name where -d 0 cannot keep it (-d aac, -d .mp3, -d opus, -d flac, -d alac), and the preset for a \
        format afkit does not write (Vorbis, MP2, HE-AAC); with --trim for duration (--profile NAME where the \
        profile is not validate's default, --duration S for a profile file), -c N for channels, @RATE or -ar RATE \
        for a rate, --trim-silence for silence at the ends, --loop-crossfade 0.02 for a loop's seam (loop-seam), and \
        --loudness TARGET (with --true-peak MAX where the profile's ceiling is under convert's -1 dBTP) for \
        loudness. A true-peak or clipping finding is fixed, where the profile has no loudness rule, by one gain that \
        puts the true peak 0.5 dB under the profile's ceiling (or convert's -1 dBTP): --normalize-true-peak -1.5 \
        (a limiter held at the file's own loudness cannot always reach it); under a loudness rule, by a loudness \
        that gain alone reaches under the ceiling within the rule's band, as below. A fix never adds a finding: where the profile has a loudness rule and the fix moves loudness (a \
        mix to fewer channels, a preset, a cut, silence trimmed), it levels too; its target is the rule's, or where \
        the file's true peak keeps gain alone from it, the loudest level gain reaches under the ceiling (less 0.2 \
        LU) where that is within the rule's tolerance; else (only the limiter would reach the band, at a cost known \
        only by converting), and for a silent, truncated or damaged file, the loudness finding says no fix, and why. --trim-silence is not \
        suggested where a loop or marker the file declares lies in the silence (convert's own --trim-silence stops \
        at them, with a note). The extension finding names the rename in its message (rename it 'x.mp3'), not as a \
        fix: a file's fix is one command that runs, and the conversion's output carries its container's own \
        extension. The output goes beside the file, with its container's extension where afkit \
        writes that container with the output's format (else .caf, .m4a for music), -fixed added where the name is \
        the file's own, another file's already there or another fix's of the same run (then -fixed-2, ...: x.wav \
        and x.aif checked together are fixed into x.caf and x-fixed.caf), so every fix of a run can be run; a file \
        with no audio frames gets no fix (its output would be as empty). The fix of a lossy file (AAC, MP3, Opus, \
        Vorbis, IMA4) carries a note, in text after the command and in JSON as "fixNote": run it on the file's \
        source, if you have it, for from the file a lossy output is a second generation of loss; a batch report's fixes name the \
        source itself. A lossy file's fix asks its codec for what the file spent: an MP3's LAME tag's VBR level (-V 2: \
        -s 3 -q 99) or ABR rate (-s 1 -b), else the stream's own bit rate (-b; -s 1 for a VBR whose level LAME \
        leaves unsaid), never the codec's default. FixCommandTests and FixesThatRunTests run every suggested fix as printed, for sources in \
        every container afkit reads (Ogg Vorbis from oggenc, make-fix-fixtures.sh), and validate what it wrote: it \
        passes. -o FILE (--output) writes the report to FILE, made whole and renamed into place, in the --format \
        given (without one, the format FILE's extension names: .html, .json, or .xml for junit; else text), and \
        nothing to standard output; FILE is refused (exit 2) where it is one of the inputs or inside a \
        folder walked. json is {"profile", "files": [{"path", "ok", "violations": [{"rule", "severity", "message", "fix"?, \
        "fixNote"?}]}], "summary"}, and for each file whose audio the \
        profile's rules decoded, "audio": {"frames", "peak", "leadingSilence", "trailingSilence", "rms", "loudness": \
        {"integrated", "range", "truePeak", "samplePeak"}} (dBFS, seconds, LUFS; what the rules measured, read \
        through the same reader as convert and info --loudness); junit is one test case per file for CI dashboards; \
        github prints ::error file=...:: annotations.

        html is one self-contained page for the person who must act on a finding: the run (profile, afkit's version, \
        files checked, passed, failed, warnings), a table of every file (status, container, format, duration, \
        integrated loudness, true peak, the rules that fired) sortable by any column and filterable to the files that \
        failed, each row linking to the file's section; there, the findings with their fixes (the pictures' text \
        equivalent), then the pictures the findings point into: a min/max waveform of every channel with the silence \
        at the ends hatched, each clipped run marked (a down triangle), the true-peak maximum (a diamond), markers \
        and loops along the top; the short-term loudness (3 s window) with the profile's target band and the \
        integrated level, the stretch beyond the band hatched when the loudness rule fired; a spectrogram thumbnail \
        (48 log-spaced bands, 128 moments); and for each loop a zoom of its seam, the 64 frames before the wrap \
        beside the 64 after it. Everything comes from the validator's one decode pass (AssetValidator.drawsPictures: \
        no second decode), is embedded as compact JSON (samples as base64), and is drawn by the page's own script as \
        each section scrolls into view (and all of it as the page is printed or saved as PDF). The page loads nothing \
        and runs only its own code: its content security policy is default-src 'none' with the page's one script and \
        one style sheet named by their SHA-256 (script-src 'sha256-...', no 'unsafe-inline'), so a script or style an \
        escaping slip let in would not run; no external script, style sheet, font or image. It opens from a CI \
        artifact in any browser as a local file; marks differ by shape and pattern as well as colour (greyscale keeps \
        them apart), and the layout reflows at 200 % zoom. A file takes 8 to 12 KB (a short effect), 24 KB with six \
        channels, 32 KB for a ten-minute track; a report of 1,000 effects is written in 1.4x the time validate takes \
        alone (BENCHMARKS.md, "HTML report").

        --profile hls-audio checks HTTP Live Streaming playlists instead of sound files: a master or media playlist \
        (a folder: the playlists in it that no other names), every media playlist it names and every segment, read \
        from the disk below the playlist's folder (URIs relative to the playlist, EXT-X-BYTERANGE and EXT-X-MAP \
        honoured; the network only with --allow-network: the trust boundary packets describes). Its rules, one error \
        each, with Apple's recommendations as warnings: hls-playlist (readable, no byte order mark, a target \
        duration, segments, a version that has the tags used, VOD playlists ended, a master listing each media \
        playlist once per audio group, an ended playlist saying EXT-X-PLAYLIST-TYPE as Apple requires; renditions' \
        media sequences that differ are a warning), hls-segments (each \
        segment readable, one stream, starting on a sync point; a format change only after EXT-X-DISCONTINUITY; \
        MPEG-TS and encrypted segments refused by name, once for all of them), hls-initialization (each fMP4 init \
        section as RFC 8216, 3.3 requires: an 'ftyp' brand compatible with iso6 or later, 'mvhd' and 'tkhd' of zero \
        duration, an empty sample table, a sound track, 'mvex' after the last track), hls-target-duration (no EXTINF over \
        the target, no segment more than 0.5 s past it, EXTINF what the segment presents within a packet (fMP4: the \
        init section's edit list applied), one target for every rendition; a target other than 6 s warns), \
        hls-timestamps (packed audio's 'PRIV' times continue within a 90 kHz tick, fMP4's 'tfdt' exactly; a gap or an \
        overlap named in milliseconds), hls-bandwidth (BANDWIDTH and AVERAGE-BANDWIDTH at least the measured peak and \
        average segment bit rates within 10 %, both present as Apple requires; more than 10 % over them warns, and \
        so does a peak over twice the average), hls-codecs (CODECS names the stream's \
        codec and no codec the variant's audio-only streams do not hold, CHANNELS its channels) and \
        hls-audio-renditions (a stereo AAC rendition offered, mono for a mono programme; every audio rendition with a \
        LANGUAGE; Apple's bit-rate table as warnings: stereo AAC-LC at 32 to 160 kbit/s, HE-AAC at most 64, 5.1 AAC \
        320, AC-3 5.1 384, E-AC-3 96 to 160 stereo, 192 5.1, 384 7.1; 44.1 or 48 kHz) and hls-chapters (Apple's \
        chapters file an EXT-X-SESSION-DATA with DATA-ID com.apple.hls.chapters names: read through the same trust \
        boundary, JSON, an array of entries each with a start-time of 0 or more, titles with a language and a title, \
        a duration above 0 where given; the starts in order, every chapter starting and ending within the \
        presentation, its longest media playlist). Every report format works; afkit's own packages pass, FFmpeg's \
        fMP4 passes with the 6 s warning, and HLSTests fails playlists broken on purpose (a target under the \
        segments, a halved BANDWIDTH, mp4a.40.5 for AAC-LC, CHANNELS 6 for stereo, a 'PRIV' time 10 ms late, a \
        segment cut into its first frame, a missing segment). A playlist URL is read over HTTP, each playlist and \
        segment fetched whole with the network retries (a 4xx answer is final), four segments at a time (the \
        findings, in order, those of one at a time), all within one retry budget for each playlist checked: 10 \
        retries and 30 s lost to failed attempts and the waits between them, summed over its fetches (a fetch that \
        succeeds earns back a tenth of a retry and a second). Once it is spent, the rest fail at once ("not tried: \
        the retry budget of this reading is spent", with how many fetches failed), so a server that refuses or \
        fails every request stops within seconds, and one that accepts connections and never answers after about \
        one read timeout (15 s).

        To keep the report of a CI run, write it to a file and attach it as an artifact; validate exits 1 on \
        failures, so let the upload step run anyway:

          # GitHub Actions
          - run: afkit validate --profile game-sfx --format html Sounds > sound-report.html
          - if: always()
            uses: actions/upload-artifact@v4
            with: { name: sound-report, path: sound-report.html }

          # GitLab CI
          sounds:
            script: afkit validate --profile game-sfx --format html Sounds > sound-report.html
            artifacts:
              when: always
              expose_as: sound report
              paths: [sound-report.html]

        The built-in profiles (rules that are errors; then warnings):

        system-sound (the default): for AudioServicesPlaySystemSound. Rules: malformed, container (CAF, AIFF/AIFF-C, \
        WAV; RF64), data-format (linear PCM, IMA4; WAV IMA ADPCM), duration (30.000 s passes, one frame more fails), \
        truncated, empty; extension (Apple opens files by content), channels (<= 2; more still play), sample-rate (<= \
        48 kHz and native), clipping (runs of three or more consecutive samples at full scale, the flat tops of a \
        clipped waveform; afkit clip counts every sample at full scale and between samples), silence (> 0.5 s at \
        either end)

        simultaneous-sfx: for games playing many sounds at once. Rules: malformed, container (CAF), data-format (PCM, \
        IMA4), extension, truncated, empty; hardware-codec (AAC, MP3, ALAC decode one stream at a time), channels \
        (mono), sample-rate (<= 32 kHz), clipping, silence (> 0.25 s), true-peak (<= -1 dBTP)

        music: for background music. Rules: malformed, data-format (PCM, IMA4, AAC, HE-AAC, MP3, ALAC; in any \
        container afkit reads, M4A included), extension, truncated, empty; sample-rate, clipping, loudness (-16 +/- 2 \
        LUFS), true-peak (<= -1 dBTP)

        music-streaming: for music for streaming and phones. Rules: the music rules with loudness (-16 +/- 1 LUFS), \
        true-peak (<= -1 dBTP) and loop-seam as errors; dc-offset (mean above -40 dBFS), mono-compatibility (stereo \
        correlation below 0), channel-balance (more than 3 dB), leading-silence (> 2 s)

        game-sfx: for game effects that must sit together. Rules: the simultaneous-sfx rules with loudness (-18 +/- 3 \
        LUFS), true-peak (<= -1 dBTP), leading-silence (> 0.05 s below -60 dBFS) and loop-seam as errors; dc-offset, \
        mono-compatibility, channel-balance as for music-streaming

        dialogue: for voice lines and dialogue (batch --preset voice reports with it). Rules: malformed, extension, \
        truncated, empty; clipping, loudness (-18 +/- 2 LUFS, AES TD1008's anchor for speech), true-peak (<= -1 \
        dBTP), leading-silence (> 0.5 s)

        hls-audio: for HTTP Live Streaming playlists (afkit hls's output). Rules: hls-playlist, hls-segments, \
        hls-initialization, hls-target-duration (a target other than 6 s), hls-timestamps, hls-bandwidth (declared more than 10 % over), \
        hls-codecs (no CHANNELS), hls-audio-renditions (a stereo AAC-LC rendition; bit rates and rates outside \
        Apple's ranges), hls-chapters (Apple's JSON chapters, where the master names them)

        simultaneous-sfx and music also warn on loop-seam. The rules that need audio share one decode pass per file, \
        streaming, in bounded memory: peak and clipping, silence at either end for every threshold the profile names, \
        DC offset, stereo correlation and balance, the frames around each loop's wrap, and the loudness meter \
        (libebur128, fed the same blocks). silence, leading-silence and trailing-silence take maximumSeconds and \
        thresholdDecibels (dBFS, default -60). loop-seam checks every loop the file records (CAF 'inst'/'regn', AIFF \
        'INST', WAV 'smpl'), and with "wholeFile": true the whole file as one loop: where the loop's last frame meets \
        its first, the step and the change of slope are compared with how the signal moves around the wrap (64 frames \
        each side, RMS, quiet movement floored at -72 dBFS); more than maximumDecibels (default 12) is a click. A \
        loop over whole periods of a tone measures under 4 dB; one cut half a period short, over 12.

        A project can keep a profile file beside its assets to choose rules, thresholds and severities, with per-path \
        overrides:

          { "name": "game", "extends": "system-sound",
            "rules": { "duration": { "maximumSeconds": 5 }, "silence": { "severity": "error" } },
            "overrides": [ { "paths": ["**/music/**"], "profile": "music" },
                           { "paths": ["**/ui/*.caf"], "rules": { "channels": { "maximum": 1 } } } ] }
        """
}
