/// mix's reference: what `afkit help mix` and its man page say beyond the options.
extension Mix {
    /// The reference prose, paragraphs apart; indented lines are examples.
    static let reference = """
        The inputs are summed, each scaled by its --levels gain (dB) and starting at its --at time (seconds, \
        [[HH:]MM:]SS[.mmm] or frames of the output), each read and brought to the output's rate and channels as join \
        does (the widest input's channels: a mono voice over a stereo bed mixes into stereo); the output runs to the end of the input that ends last. Nothing is scaled behind your back: unlike \
        sox -m, which scales each of n inputs by 1/n, afkit mixes at the levels given (sox -m -v 1 a -v 1 b is the \
        same mix, sample for sample). Samples the sum takes past full scale are counted: a note says how many and \
        from where to where, and the output is still written (an integer output clips them; a float one keeps \
        them); --loudness puts a true-peak limiter after the mix that holds them. The mixed sound then goes through \
        convert's pipeline, as join's does.

            afkit mix voice.wav bed.wav --levels 0,-12 --at 0,2.5 -o episode.m4a --loudness -16
        """
}
