/// clip's reference: what `afkit help clip` and its man page say beyond the options.
extension Clip {
    /// The reference prose, paragraphs apart; indented lines are examples.
    static let reference = """
        Apple's afclip (Mastered for iTunes) on Linux: each file decoded as convert decodes it (a lossy file counts \
        as decoded: AAC that clips only after encoding is what it is for), every sample at full scale (32767 of \
        32768) or beyond counted as clipped on the sample grid, and every interval whose waveform passes full scale \
        between two samples that do not clip themselves (4x oversampled by the true-peak meter's interpolator) \
        counted as clipped between samples. Text: a row a run of consecutive clips (time, first sample, channel, how \
        many, peak dB, where), then each channel's totals; --json: an array with one object per file, channels \
        (onSample, interSample, runCount, runsNotListed) and runs (channel, kind, startFrame, count, startSeconds, \
        peakDecibels). Each channel's first 1,000 runs are listed (16,000 in all: fewer a channel past 16 channels), \
        so memory stays flat for a sound clipped at every other sample: every run and every clip is still counted, \
        and the runs past them are said ("N more runs not listed"; runsNotListed). Exit 1 when anything clips or a \
        file cannot be read. --summary prints one line of totals a file (PATH: channels, rate, frames: clipped on \
        the sample grid, between samples, in how many runs; or no clipping) and lists no run; with --json the \
        members stay, runs empty and every run counted in runsNotListed, and each file object gains the totals \
        onSample, interSample and runCount. ClipCommandTests count against what FFmpeg- and SoX-made files hold \
        (make-clip-fixtures.sh): FFmpeg's flat tops are exactly the stored full-scale samples; a sine 45 degrees off \
        its peaks clips only between samples; speech 0.3 dB under full scale clips nowhere, and its 32 kbit/s AAC \
        does once decoded. convert --check-clip counts the same way after writing: an output that, decoded, clips \
        more than its source fails (exit 1, nothing written), naming both counts and the first clip.
        """
}
