/// packets's reference: what `afkit help packets` and its man page say beyond the options.
extension Packets {
    /// The reference prose, paragraphs apart; indented lines are examples.
    static let reference = """
        The push parser over a file or standard input, fed N bytes at a time as a network client would; the result \
        does not depend on N. --json prints {"properties": {...}, "packets": [{"offset", "size", "frames"}]} \
        (absolute offsets), or constantPacketSize and packetCount where every packet has the same size.

        --type-hint EXT (the container a name would say: mp3, aac, ...) breaks ties where the bytes allow two: before \
        the first confirmed frame, a frame of the other elementary kind must be confirmed by two more (a chance chain \
        in leading junk does not decide); a real stream of the other kind is still read. --icy-metaint N removes \
        SHOUTcast/Icecast metadata sent every N audio bytes and adds icyMetadata: [{"offset", "title"}] (offsets in \
        the audio with the metadata removed).

        An MPEG-4 file whose 'moov' follows its audio: on a FILE, the parser asks for the bytes after 'mdat', reads \
        'moov', then asks to go back to the first packet, and the command answers both seek requests (as a network \
        client answers them with range requests); on standard input, which cannot seek, it holds up to 64 MiB of \
        'mdat' waiting for 'moov', then fails with optm at the offset of 'mdat'. A CAF whose 'pakt' follows 'data' \
        (FFmpeg writes ALAC so) is read around its table where seeks are answered and its audio is more than 1 MiB \
        (past 'data' to 'pakt', then back to the first packet; the chunks read on the way are not read twice); \
        otherwise its audio is held and replayed, up to the same 64 MiB, then refused with 'lim!'.

        For example, a radio stream from curl:

          curl -s -H 'Icy-MetaData: 1' http://radio.example/stream | afkit packets --json --icy-metaint 16000 -

        An HTTP Live Streaming playlist (a FILE named .m3u8 or .m3u, or one that starts #EXTM3U; over HTTP, a URL \
        whose path ends so) is read as the one stream its segments make: a master playlist's variant (--variant best, \
        the highest BANDWIDTH and the default; worst; or the nearest to a bit rate, --variant 128k, its audio group's \
        rendition where it has a URI of its own), then each segment through one parser, an fMP4 initialization \
        section once first, EXT-X-BYTERANGE honoured (a range request over HTTP), so the packets run on across \
        segment boundaries with one priming at the start and do not depend on --chunk-size. Offsets are in the \
        segments' concatenation. Each segment's start is listed (segments: [{"uri", "mediaSequence", "startTime", \
        "firstPacket", "discontinuity", "timingProblem"?}], a segment event with --json-lines); a packed-audio \
        segment's 'PRIV' time or an fMP4 segment's 'tfdt' that is off the frames before it by more than a 90 kHz tick \
        is a warning naming the gap or overlap in milliseconds (over HTTP, a discontinuity event at the segment's \
        first packet), and EXT-X-DISCONTINUITY starts the count again. A live playlist (no EXT-X-ENDLIST) is reloaded \
        every target duration (half of it after a reload that brought nothing) until it ends; --duration stops it \
        cleanly, --max-time bounds the whole run (exit 1 when it passes, the events before it printed with \
        --json-lines), and a playlist that brings no segment in ten target durations has stopped (exit 1). Segments \
        it dropped before they were read are a discontinuity, and the next segment starts the timeline again. Over \
        HTTP a playlist is known by its name or by its Content-Type (application/vnd.apple.mpegurl and the older \
        audio/mpegurl names); lines may end in LF or CR LF, spaces around a line and whitespace-only lines are passed \
        over, as are comments before #EXTM3U, and a trailing EXTINF with no URI yet (a live playlist caught while it \
        is written) waits for the next reload. A radio or IPTV list (#EXTINF:-1, before each stream's URL, or URLs \
        with no HLS tag) is refused as "an M3U list of streams, not an HLS playlist". MPEG-TS segments, encrypted \
        segments (EXT-X-KEY) and a format change are refused by name. 'info' reads a playlist the same way (a VOD \
        playlist over HTTP to its end) and adds hls: {"mediaPlaylist", "segments", "problems"}.

        A playlist is untrusted input, and one trust boundary decides what it may name, for packets, 'info' and \
        validate alike. A playlist on the disk reads only files below its own folder (below the folder given, for a \
        playlist validate finds in a folder): an absolute path elsewhere, .. or a symbolic link leading out, a \
        device, /proc, /sys and /dev are refused by name ("is not read: outside the folder ..."), and it never \
        reaches the network unless --allow-network is given. A playlist read over HTTP may name http: and https: \
        resources on any host, never a local path or a file: URL. A segment or initialization section whose bytes do \
        not parse is said by kind ("not an fMP4 segment afkit reads"), never by what its bytes hold (run afkit info \
        on the file itself for more). A URL's user information (a password) is printed as *** wherever it came from \
        (the command line, a playlist at any level, a redirect), in every output format.


        Over HTTP or HTTPS (a URL as the input; options --json-lines, --duration, --read-timeout, \
        --reconnect-attempts, --max-time, --speed-limit, --speed-time, --ca-file, --allow-http-redirect): the same, \
        with the client's part done with the client's part done (the AudioStreaming library): afkit asks for ICY \
        metadata, takes icy-metaint from the response and removes the metadata, and lists each title with the packet \
        it starts at (icyMetadata: [{"offset", "title", "packet"}]); Content-Type hints the container. A live stream \
        (an ICY server: icy-/ice- headers, or SHOUTcast's ICY 200 OK) that ends, drops or stalls for --read-timeout \
        seconds (15) is joined again after 0.25 s, 0.5 s, 1 s, ... (up to 8 s) and the parser is told of the gap. Any \
        other response is a file, which ends where its response ends cleanly (its length reached, the last chunk of a \
        chunked body, or the close of a body without either); a file cut short is resumed with a Range request from \
        the byte it broke at, so no packet is lost or repeated, and the request carries If-Range (the first \
        response's strong ETag, or its Last-Modified): when the answer is another version of the file (another ETag, \
        Last-Modified or total length), the stream ends with 'net!' ("the file changed on the server") rather than \
        splice two versions. --reconnect-attempts (5) bounds every kind of retry: an attempt counts until the stream \
        makes progress, which for a file is a byte past the furthest offset reached before (a server that answers \
        each resume from the start and fails before the resume point makes none), and for a live stream a packet. \
        An HLS playlist's fetches (playlists, segments, initialization sections, each retried up to \
        --reconnect-attempts times) also share one retry budget for the whole reading: 10 retries and 30 s lost to \
        failed attempts and the waits between them, a fetch that succeeds earning back a tenth of a retry and a \
        second; once it is spent, the reading ends with 'net!' ("the retry budget of this reading is spent"). \
        --max-time SECONDS bounds the whole stream, waits and reconnections included; --speed-limit BYTES drops a \
        connection that delivers fewer bytes a second, averaged over --speed-time SECONDS (30), as one that stalls \
        (curl's spellings; a paused reader is not a slow server). Redirects are followed (up to 5), but never from \
        https to plain http unless --allow-http-redirect says so: the rule holds at every hop (http -> https -> http \
        stops at the second redirect), not only the first. An MPEG-4 file whose 'moov' follows its audio, and a CAF \
        whose 'pakt' follows more than 1 MiB of audio, are read with range requests (the audio crosses the network \
        once); from a server that takes no range requests they are held up to the limit, then refused (optm, 'lim!'). \
        --duration SECONDS stops within one packet of that much valid audio (a run of packets is cut at the packet \
        that reaches it), and the end event then counts what was delivered, without the priming. --json-lines prints \
        one object per event as it arrives, ready (the format) before the first packet whatever the container, so a \
        pipeline can follow a live stream:

        For example:

          afkit packets --json-lines --duration 30 http://radio.example/stream
          {"event":"connected","response":{"url":"...","status":200,"live":true,"icyMetaint":16000,"icyName":"..."}}
          {"event":"ready","properties":{"container":"mp3","format":{...},...}}
          {"event":"packet","packet":0,"offset":0,"size":418,"frames":1152}
          {"event":"title","title":"Artist - Song","packet":39,"offset":16000}
          {"event":"discontinuity","reason":"the server ended the stream","attempt":1,"nextPacket":812}
          {"event":"end","properties":{...}}

        Errors are the contract's objects ({"event":"error","error":{...}} in --json-lines): 'net!' for the server \
        and the connection (a status that is not the audio, a refused connection, named as "connection refused: \
        HOST:PORT", the host and port of the hop that refused, after any redirect, a stalled one, a file that cannot \
        be resumed), 'dta?' for an icy-metaint the stream does not follow (a metadata block that is not metadata \
        text), 'eof!' for a stream that ends inside a metadata block. Without --json-lines or --duration, the listing \
        of a live stream is printed when the stream ends. afkit info URL reads a stream's header over HTTP the same \
        way and stops, and takes the same network options. HTTPS uses the system's root certificates (libcurl's \
        bundle, or the file CURL_CA_BUNDLE or SSL_CERT_FILE names); --ca-file PEM (either command, repeatable) trusts \
        another root beside them (a private CA, a self-signed build server; \
        HTTPAudioStream.Options.additionalTrustRoots in the library), and a file that is missing, holds no whole PEM \
        certificate, or holds a certificate block cut short or not DER inside (an outer SEQUENCE holding the body, \
        the algorithm and the signature) is a usage error naming it (exit 2), before any connection. The proxy \
        variables http_proxy, https_proxy, all_proxy and no_proxy are honoured as curl honours them.
        """
}
