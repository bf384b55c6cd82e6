/// join's reference: what `afkit help join` and its man page say beyond the options.
extension Join {
    /// The reference prose, paragraphs apart; indented lines are examples.
    static let reference = """
        Each input is read as convert reads it (its valid frames: a lossy file's priming and remainder gone, so an \
        MP3 or AAC joins without a gap or a click), brought to the output's rate and channels as convert brings one \
        (-d FORMAT@RATE and -c; by default the first input's rate and the widest input's channels and layout, so no \
        input is folded to fewer channels unasked; one -c folds gets a note), and placed right after the one before: the output \
        holds exactly the sum of the inputs' frames at its rate (each input's frames times the rate ratio, rounded \
        down). The joined sound then goes through convert's pipeline: -f, -d, -b, -q, -s, --preset, the edits \
        (--start, --fade-in, --pad, --gain: on the joined sound), --loudness, and --chapters (else each input's \
        chapters, moved to where it starts). The first input's tags are carried. Written atomically; never over an \
        input. Sample for sample what sox A B OUT writes for inputs of one format (JoinMixTests).

            afkit join intro.wav episode.mp3 outro.wav -o show.m4a --loudness -16
            afkit join a.wav b.flac -d LEI16@48000 -c 2 -o ab.wav
        """
}
