/// waveform's reference: what `afkit help waveform` and its man page say beyond the options.
extension Waveform {
    /// The reference prose, paragraphs apart; indented lines are examples.
    static let reference = """
        Waveform data in BBC audiowaveform's formats, version 2, so peaks.js and waveform-data.js use afkit's output \
        as it is: for each point of --zoom frames (default 256, audiowaveform's; or the sample rate divided by \
        --pixels-per-second), the least and the greatest 16-bit sample of the channels mixed as audiowaveform mixes \
        them (their samples summed and divided by the count, truncating), or of each channel with --split-channels \
        ('data' interleaves them point by point: channel 0's min and max, then channel 1's); --bits 8 stores each \
        value divided by 256 (truncating), so the data equals audiowaveform's. .json is {"version": 2, "channels", \
        "sample_rate", "samples_per_pixel", "bits", "data", "length"}, compact as afkit's other unindented JSON (the \
        length last: it is known once the points are); .dat the 24-byte little-endian header \
        (version, flags with bit 0 set for 8 bits, sample rate, samples per pixel, length, channels) and the values. \
        Any file afkit reads; the last partial point is included. Tested against the published format description, \
        the pairs computed in the test from the file's stored samples (WaveformCommandTests). .png and .svg draw it \
        (audiowaveform's option names): the whole sound across --width (800) unless a zoom is given, each channel in \
        a band of its own, a stroke a point from its minimum to its maximum, time labels along the bottom \
        (--no-axis-labels drops them). With --zoom or --pixels-per-second a picture shows its width's points from the \
        start, one a pixel, as audiowaveform draws it (a sound that ends sooner leaves the rest blank), and reading \
        stops there. Memory holds what is drawn, not what is read: .json and .dat are streamed into the file as the \
        points are made (the .dat header's length written at the end, JSON's after the data), a fitted picture \
        keeps at most twice its width in points (a sound longer than its header said is paired down as it goes), a \
        zoomed one its width. --zoom 1 of a 3-hour 8 kHz WAV writes 86.4 M points (a 920 \
        MB .json in 4.9 s, a 345 MB .dat in 5.0 s, release build) in 26 MB, under ulimit -v 1048576 (before: 4.4 GB \
        and SIGABRT); MemoryBoundTests holds it at a second's memory plus 16 MiB. A negative number is answered as \
        out of range, naming the option. PNG is 8-bit RGB written by afkit's own encoder (one fixed-Huffman deflate \
        block matching the pixel before and the row above: a 400 x 120 waveform takes under 2 KB); the tests read the \
        PNG back with zlib (every chunk's CRC, the stream inflated) and the SVG with an XML parser, and find nothing \
        drawn in the silent first half of a sound and the tone in the second.
        """
}
