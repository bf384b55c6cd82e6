/// afkit's reference: what `afkit help afkit` and its man page say beyond the options.
extension AFKit {
    /// The reference prose, paragraphs apart; indented lines are examples.
    static let reference = """
        Exit status, for every subcommand: 0 success; 1 the work was done but found a problem (a file that cannot be \
        parsed, a validation error, a failed conversion); 2 a usage error (unknown flag, missing argument, a path \
        that does not exist). Standard output carries only the documented output; progress and diagnostics go to \
        standard error. A file name that starts with a dash is read as that file when it exists (afkit info \
        -dash.wav); one that names nothing is a usage error that says to put -- before such names.

        Every message names its command and the file it is about, as COMMAND: FILE: KIND: TEXT (convert: a.mp3: note: \
        ...); one about no file as COMMAND: KIND: TEXT, usage errors included (batch: error: --jobs takes 1 to 256, \
        then the usage lines). Every output is written to a hidden temporary beside it, flushed and renamed into place, so it appears \
        whole or not at all; SIGINT, SIGTERM and SIGHUP remove the temporary and exit 130, 143 and 129. Outputs \
        depend on the input's bytes, the options and afkit's version only. Documentation/Behaviour.md, in afkit's \
        source, describes these rules in full.

        Error codes, in JSON's "code" and in messages:

        typ?: not a container afkit reads: a format it recognises (named) or bytes it does not.

        fmt?: a data format afkit does not support in that container.

        dta?: a value that cannot be (0 channels, a NaN or negative sample rate, IMA block align 0, variable packets \
        with no packet table).

        chk?: a chunk whose size contradicts its contents (a 'pakt' larger than its chunk or the audio).

        eof!: the input ends inside the header.

        lim!: honouring the input would pass a configured limit (a 4 GiB format chunk; more than 64 MiB of audio \
        before a CAF 'pakt' in a stream; more than 100,000 boxes inside one MPEG-4 box).

        optm: an MPEG-4 stream whose 'moov' follows more audio than the parser may hold (Apple's \
        kAudioFileStreamError_NotOptimized).

        pck?: a packet that does not exist.

        io!!: the operating system refused a read or write.

        net!: the server or the connection failed (packets and info over HTTP).

        A header that is complete but whose audio is cut short, or whose size fields overstate the audio, is not an \
        error: afkit counts the whole packets present and says the file is truncated.
        """
}
