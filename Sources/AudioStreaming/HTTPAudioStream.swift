import AudioContainers
import AudioFormats

/// The packets of an audio stream or file served over HTTP: `AudioFileStream` fed from the network,
/// as an asynchronous sequence of events.
///
/// It asks for ICY metadata (`Icy-MetaData: 1`), removes it from the audio and reports each new
/// title with the packet it starts at; reconnects a live stream that drops, with backoff, and tells
/// the parser of the gap; resumes a file with a `Range` request where the connection broke, so no
/// packet is lost or repeated; and answers the parser's seek requests (an MPEG-4 file whose `moov`
/// follows its audio, a CAF whose packet table follows its data) with range requests.
///
/// ```swift
/// for try await event in HTTPAudioStream(url: "http://radio.example/live") {
///     switch event {
///     case .packets(let packets): decode(packets)
///     case .titleChanged(let title): show(title.title)
///     default: break
///     }
/// }
/// ```
///
/// Responses arrive through libcurl (HTTP/1.1 and HTTP/2, TLS with the system's roots, the proxy
/// variables `http_proxy`, `https_proxy` and `no_proxy`, SHOUTcast's `ICY 200 OK`), with
/// back-pressure: the server is read only as fast as the events are taken. Leaving the loop (or
/// cancelling its task) closes the connection.
public struct HTTPAudioStream: AsyncSequence, Sendable {
    /// The stream's events.
    public typealias Element = Event

    /// What the stream reports, in the order of the audio.
    public enum Event: Sendable {
        /// A response began: the first, and each after a reconnection or a range request.
        ///
        /// (This case and ``propertyChanged(_:properties:)`` hold their large facts boxed: the event a stream's
        /// every `next()` passes and holds is then the size of its packets, not of a stream's properties.)
        indirect case connected(Response)
        /// A parser property has a value now; `properties` is everything known at that moment.
        indirect case propertyChanged(StreamPropertyID, properties: StreamProperties)
        /// Consecutive whole packets.
        case packets(AudioFileStream.OwnedPackets)
        /// The ICY stream title changed, from the packet given.
        case titleChanged(StreamTitle)
        /// A live stream dropped and was joined again: the audio before and after does not join up. (In an
        /// HLS playlist: segments gone before they were read, or a segment's timestamp off the frames before it.)
        case discontinuity(Discontinuity)
        /// An HLS segment starts: its URI, media sequence number, time and first packet.
        case segment(HLS.SegmentStart)
    }

    /// The facts of one HTTP response.
    public struct Response: Sendable, Hashable {
        /// The address the audio came from (after redirects), its user information (a password) as `***`.
        public var url: String
        /// The HTTP status (200, or 206 for a range).
        public var status: Int
        /// `Content-Type`, which also hints the container.
        public var contentType: String?
        /// The bytes the response carries (`Content-Length`), if it said.
        public var contentLength: Int64?
        /// Where in the resource the response starts (a `Range` request's start; 0 otherwise).
        public var startOffset: Int64
        /// The whole resource's length: a full response's `Content-Length`, a partial one's
        /// `Content-Range` total.
        public var totalLength: Int64?
        /// `ETag` and `Last-Modified`: a resume asks for the rest of this version only (`If-Range`),
        /// and a response of another version ends the stream with an error.
        public var entityTag: String?
        /// `Last-Modified`, which a resumed request checks with `If-Range`.
        public var lastModified: String?
        /// Whether the server takes range requests (`Accept-Ranges: bytes`, or a 206 answer).
        public var acceptsRanges: Bool
        /// A live stream: an ICY server's (`icy-` or `ice-` headers, or an `ICY 200 OK` status line). It
        /// is joined again when it drops or ends rather than resumed; any other response is a file, which
        /// ends where the response ends cleanly (chunked or not, with a length or without).
        public var isLive: Bool
        /// `icy-metaint`: audio bytes between metadata blocks.
        public var metadataInterval: Int?
        /// `icy-name`, `icy-genre`, `icy-description`, `icy-url`.
        public var name: String?
        /// `icy-genre`.
        public var genre: String?
        /// `icy-description`.
        public var description: String?
        /// `icy-url`.
        public var homepage: String?
        /// `icy-br`: the station's stated bit rate in kbit/s.
        public var statedBitRate: Int?
        /// 0 for the first connection; the attempt that made this one after a drop.
        public var attempt: Int
    }

    /// A new ICY stream title.
    public struct StreamTitle: Sendable, Hashable {
        /// The title, as the server sent it.
        public var title: String
        /// Offset in the audio (metadata removed, counted across reconnections) where it took effect.
        public var audioOffset: Int64
        /// The first packet at or after that offset.
        public var packet: Int64
    }

    /// A gap in a live stream.
    public struct Discontinuity: Sendable, Hashable {
        /// Why the connection ended.
        public var reason: String
        /// The reconnection attempt that succeeded (1 for the first retry).
        public var attempt: Int
        /// The index the next packet will have; packets already delivered are never delivered again.
        public var nextPacket: Int64
    }

    /// How the stream connects, waits and retries.
    public struct Options: Sendable {
        /// The container expected; without one, `Content-Type` hints it, and the bytes decide.
        public var fileTypeHint: FileType?
        /// Bounds on what the parser holds and allocates.
        public var limits = ParserLimits()
        /// Ask for ICY metadata (`Icy-MetaData: 1`).
        public var requestsMetadata = true
        /// A connection that delivers no byte for this long has stalled: it is dropped (and joined
        /// again, or resumed, as a broken connection is).
        public var readTimeout: Duration = .seconds(15)
        /// How long a connection may take to open.
        public var connectTimeout: Duration = .seconds(10)
        /// Attempts to reconnect after a drop before the stream fails; 0 never retries. An attempt
        /// counts until the stream makes progress again: bytes of a file past the furthest offset
        /// reached before, a packet of a live stream.
        public var maximumReconnectAttempts = 5
        /// The wait before the first retry, doubled for each further one up to `maximumReconnectDelay`.
        public var reconnectDelay: Duration = .milliseconds(250)
        /// The longest wait between retries.
        public var maximumReconnectDelay: Duration = .seconds(8)
        /// The retries the fetches of one HLS reading (a playlist read as a stream, or checked by `validate`) may
        /// make together, each fetch still at most `maximumReconnectAttempts`: 10, so a package whose server fails
        /// a few segments once still reads whole, while one that fails every request stops after a few rounds of
        /// retries, in seconds. A fetch that succeeds earns back a tenth of one (`HTTPResource.RetryBudget`).
        public var retryBudget = 10
        /// The time the fetches of one HLS reading may lose to failures together (each failed attempt's time and
        /// the waits before retries, summed over fetches running at once): 30 s, two read timeouts, so a server
        /// that accepts connections and never answers costs one retry, not five for each segment. A fetch that
        /// succeeds earns back a second.
        public var retryTimeBudget: Duration = .seconds(30)
        /// Sent as `User-Agent`.
        public var userAgent = "afkit"
        /// PEM files of root certificates trusted for https beside the system's (a private CA, a
        /// self-signed server). Each is read before the first connection; a missing one is an error
        /// naming it.
        public var additionalTrustRoots: [String] = []
        /// The whole stream (every connection and wait) must be over within this, as curl's
        /// `--max-time`; `nil` has no limit.
        public var maximumTime: Duration?
        /// A connection slower than this (curl's `--speed-limit` and `--speed-time`) is dropped as a
        /// stalled one is.
        public var speedLimit: SpeedLimit?
        /// Follow a redirect from https to plain http (refused by default).
        public var followsRedirectsToHTTP = false
        /// An HLS master playlist's variant to read (the highest `BANDWIDTH` by default).
        public var variant = HLS.VariantChoice.best

        /// The defaults, expecting `fileTypeHint`'s container where given.
        public init(fileTypeHint: FileType? = nil) { self.fileTypeHint = fileTypeHint }
    }

    /// At least `bytesPerSecond`, averaged over each `period` the reader is keeping up.
    public struct SpeedLimit: Sendable, Hashable {
        /// The slowest average allowed.
        public var bytesPerSecond: Int
        /// The window it is averaged over.
        public var period: Duration

        /// A limit of `bytesPerSecond` averaged over `period`.
        public init(bytesPerSecond: Int, period: Duration) {
            self.bytesPerSecond = bytesPerSecond
            self.period = period
        }
    }

    /// The stream's address (http or https).
    public let url: String
    /// How it connects, waits and retries.
    public let options: Options

    /// libcurl's version (with its TLS library's) as loaded, or `nil` where it cannot be loaded.
    public static var engineVersion: String? { HTTPTransfer.engineVersion }

    /// Cancels every HTTP transfer of the process and waits, up to `timeout`, for each to close its
    /// connection. Call it before `exit` in a program that may exit with a transfer running: a TLS
    /// connection still closing while the process's exit handlers run can crash it.
    public static func endAllTransfers(within timeout: Duration = .seconds(2)) {
        HTTPTransfer.endAll(within: timeout)
    }

    /// A stream of the audio at `url` (http or https).
    public init(url: String, options: Options = Options()) {
        self.url = url
        self.options = options
    }

    /// An iterator that connects on its first `next()`, and seeks by packet. A URL whose path ends in `.m3u8`
    /// or `.m3u` is an HTTP Live Streaming playlist: its segments are read as one stream
    /// (``Options/variant`` chooses a master playlist's variant).
    public func makeAsyncIterator() -> Iterator {
        if HLS.isPlaylistURL(url) {
            return Iterator(session: HLSStreamSession(url: url, options: options, variant: options.variant))
        }
        return Iterator(session: HTTPStreamSession(url: url, options: options))
    }

    /// Takes the events one at a time; also seeks, for a file served with range support.
    public struct Iterator: AsyncIteratorProtocol {
        var session: any StreamSession

        /// The next event, or `nil` after the last. Errors are `AudioFileError`s (`net!` for the
        /// server and connection) or `CancellationError`.
        public mutating func next() async throws -> Event? {
            do {
                return try await session.next()
            } catch let found as HTTPStreamSession.PlaylistFound {
                // The first response turned out to be a playlist (by its `Content-Type`): read as one.
                session = found.session
                return try await next()
            } catch let error as AudioFileError {
                throw error.rewritten(HTTPAudioStream.redactingCredentials)
            }
        }

        /// Continues from a packet: the rest of the current response is dropped and the packet's
        /// bytes are asked for with a range request. Returns the byte offset asked for.
        @discardableResult
        public mutating func seek(toPacket packet: Int64) async throws -> Int64 {
            do { return try await session.seek(toPacket: packet) } catch let error as AudioFileError {
                throw error.rewritten(HTTPAudioStream.redactingCredentials)
            }
        }

        /// Everything the parser knows so far.
        public var properties: StreamProperties { session.stream?.properties ?? StreamProperties() }

        /// Bytes received from the server so far, metadata included, over every connection.
        public var receivedByteCount: Int64 { session.receivedByteCount }

        /// Closes the connection; `next()` returns `nil` from then on.
        public mutating func close() async { await session.close() }
    }
}

/// What an ``HTTPAudioStream/Iterator`` drives: one resource's connections (``HTTPStreamSession``) or an HLS
/// playlist's segments (``HLSStreamSession``).
protocol StreamSession: AnyObject {
    func next() async throws -> HTTPAudioStream.Event?
    func seek(toPacket packet: Int64) async throws -> Int64
    func close() async
    var stream: AudioFileStream? { get }
    var receivedByteCount: Int64 { get }
}

extension HTTPStreamSession: StreamSession {}

extension HTTPAudioStream {
    /// `text` with the user information of every URL in it (`http://alice:s3cret@host/` and the like)
    /// replaced by `***` (`Redaction.credentialsRemoved(from:)`, the one redaction afkit prints through).
    public static func redactingCredentials(in text: String) -> String { Redaction.credentialsRemoved(from: text) }
}
