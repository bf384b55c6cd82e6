import AudioContainers
import AudioFormats
import Foundation

/// One ``HTTPAudioStream`` being read: the HTTP connection (and its successors after drops, seeks
/// and reconnections), the ICY demuxer and the parser, driven from `next()` one response chunk at a
/// time, so the server is read only as fast as events are taken.
final class HTTPStreamSession {
    typealias Event = HTTPAudioStream.Event

    let url: String
    let options: HTTPAudioStream.Options
    /// The response being read.
    private var transfer: HTTPTransfer?
    private(set) var stream: AudioFileStream?
    private var demuxer: ICYMetadataDemuxer?
    /// The first response's facts: whether the stream is live and takes ranges.
    private var first: HTTPAudioStream.Response?
    /// Where the current response ends in the resource, when it said.
    private var responseEnd: Int64?

    private var pending: [Event] = []
    private var index = 0
    /// Titles whose first packet has not come yet.
    private var waitingTitles: [(title: String, audioOffset: Int64)] = []
    /// Offset in the resource of the next byte from the server (not counting ICY metadata's removal:
    /// live streams are not addressed by offset).
    private var resourcePosition: Int64 = 0
    /// Audio bytes (metadata removed) given to the parser over every connection of a live stream.
    private var audioPosition: Int64 = 0
    /// How the next bytes are to be parsed: after a seek or a reconnection, as a discontinuity.
    private var resumeFlags: (flags: AudioFileStream.ParseFlags, offset: Int64?)?
    /// Bytes to drop from the response: a server that answered a range request with the whole file.
    private var bytesToSkip: Int64 = 0
    private var nextPacket: Int64 = 0
    /// Reconnection attempts since the stream last made progress: for a file, bytes past the furthest
    /// offset reached before; for a live stream, a packet.
    private var failedAttempts = 0
    /// The furthest offset in the file that bytes have reached.
    private var furthestPosition: Int64 = 0
    /// `nextPacket` when the current connection of a live stream was made.
    private var packetAtConnection: Int64 = 0
    /// When the whole stream must be over (`Options.maximumTime`), from the first request.
    private var deadline: ContinuousClock.Instant?
    /// The PEM text trusted for https (the system's roots and `additionalTrustRoots`), read once, at the
    /// first request; `nil` leaves libcurl's default.
    private lazy var trustedRoots = Result {
        try HTTPAudioStream.Options.trustedRoots(adding: options.additionalTrustRoots)
    }
    private(set) var receivedByteCount: Int64 = 0
    private var finished = false
    /// An error that ended the stream, thrown once the events before it have been taken.
    private var failure: (any Error)?

    init(url: String, options: HTTPAudioStream.Options) {
        self.url = url
        self.options = options
    }

    deinit {
        transfer?.cancel()
    }

    // MARK: - Events

    func next() async throws -> Event? {
        while index == pending.count {
            pending.removeAll(keepingCapacity: true)
            index = 0
            if let failure {
                self.failure = nil
                throw failure
            }
            if finished { return nil }
            do {
                try await step()
            } catch {
                await close()
                let failure =
                    error is AudioFileError || error is CancellationError || error is PlaylistFound
                    ? error
                    : (error as? Unrecoverable)?.error
                        ?? AudioFileError.network("http: \(describe(error))", offset: resourcePosition)
                // The events that came before the failure go out first.
                if pending.isEmpty { throw failure }
                self.failure = failure
            }
        }
        defer { index += 1 }
        return pending[index]
    }

    func seek(toPacket packet: Int64) async throws -> Int64 {
        guard let first, !first.isLive, first.acceptsRanges, var stream else {
            throw AudioFileError.illegalOperation(
                "http: seeking needs a file whose format is known, from a server that takes range requests")
        }
        self.stream = nil
        defer { self.stream = stream }
        let (offset, estimated) = try stream.seek(toPacket: packet)
        dropTransfer()
        pending.removeAll()
        index = 0
        waitingTitles.removeAll()
        try await open(from: offset, attempt: 0)
        resumeFlags = (.discontinuity, nil)
        // (After an estimate, the packets say their own index, or that it is unknown.)
        if !estimated { nextPacket = packet }
        return offset
    }

    func close() async {
        dropTransfer()
        finished = true
    }

    private func dropTransfer() {
        transfer?.cancel()
        transfer = nil
    }

    // MARK: - Reading

    private func step() async throws {
        guard let transfer else {
            try await open(from: 0, attempt: 0)
            return
        }
        let chunk: [UInt8]?
        do {
            chunk = try await transfer.nextChunk()
        } catch let failure as HTTPTransfer.Failure {
            switch failure {
            case .cancelled: throw CancellationError()
            case .deadlinePassed: throw deadlineError()
            default: try await recover(from: describe(failure))
            }
            return
        }
        guard let chunk else {
            dropTransfer()
            try await endOfResponse()
            return
        }
        receivedByteCount += Int64(chunk.count)
        try chunk.withUnsafeBytes { try consume($0) }
        if let first {
            // Progress, which ends a run of failed attempts: bytes past the furthest point reached
            // (not bytes sent again after a resume the server answered from the start), or a packet
            // of a live stream.
            if first.isLive ? nextPacket > packetAtConnection : resourcePosition > furthestPosition {
                failedAttempts = 0
            }
        }
        furthestPosition = max(furthestPosition, resourcePosition)
        // The parser's seek requests are answered as the file feeder answers them, from
        // `nextByteOffset`: here by a range request (once: a request made and not yet answered by
        // bytes, as when a server resends the whole file, is not made again).
        if let stream, stream.isAwaitingSeek, resumeFlags == nil {
            dropTransfer()
            try await open(from: stream.nextByteOffset, attempt: 0)
            resumeFlags = (.discontinuity, nil)
        }
    }

    private func consume(_ received: UnsafeRawBufferPointer) throws {
        var bytes = received
        if bytesToSkip > 0 {
            let skipped = Int(min(bytesToSkip, Int64(bytes.count)))
            bytesToSkip -= Int64(skipped)
            bytes = UnsafeRawBufferPointer(rebasing: bytes[skipped...])
        }
        resourcePosition += Int64(bytes.count)
        guard !bytes.isEmpty else { return }
        if var demuxer {
            self.demuxer = nil
            defer { self.demuxer = demuxer }
            let base = audioPosition - demuxer.audioByteCount
            try demuxer.demux(bytes, audio: { try parse($0) }) { change in
                waitingTitles.append((change.title, base + change.audioOffset))
            }
        } else {
            try parse(bytes)
        }
    }

    private func parse(_ bytes: UnsafeRawBufferPointer) throws {
        guard var stream else { return }
        self.stream = nil
        defer { self.stream = stream }
        let resume = resumeFlags ?? ([], nil)
        resumeFlags = nil
        audioPosition += Int64(bytes.count)
        try stream.parse(bytes, flags: resume.flags, streamOffset: resume.offset) { try handle($0) }
    }

    private func handle(_ event: AudioFileStream.Event) throws {
        switch event {
        case .propertyChanged(let id, let properties):
            pending.append(.propertyChanged(id, properties: properties))
        case .packets(let run):
            deliver(AudioFileStream.OwnedPackets(copying: run))
        case .seekRequested:
            break  // the stream holds the request: answered in `step()` from `nextByteOffset`
        }
    }

    /// Hands a run on, split where a waiting title takes effect so the title comes before its packet.
    private func deliver(_ run: AudioFileStream.OwnedPackets) {
        var run = run
        while let title = waitingTitles.first {
            let split = run.firstIndex(startingAtOrAfter: title.audioOffset)
            guard split < run.count else { break }
            if split > 0 {
                let (head, rest) = run.split(at: split)
                pending.append(.packets(head))
                run = rest
            }
            pending.append(
                .titleChanged(.init(title: title.title, audioOffset: title.audioOffset, packet: run.firstPacket)))
            waitingTitles.removeFirst()
        }
        nextPacket = run.firstPacket + Int64(run.count)
        pending.append(.packets(run))
    }

    /// Titles that no packet followed (the stream ended or broke): they take effect at the next packet.
    private func flushTitles() {
        for title in waitingTitles {
            pending.append(.titleChanged(.init(title: title.title, audioOffset: title.audioOffset, packet: nextPacket)))
        }
        waitingTitles.removeAll()
    }

    private func endOfResponse() async throws {
        guard let first else { return }
        if let demuxer, demuxer.isInsideMetadata {
            // A server that ends the response inside a block it announced is broken, not dropped.
            throw AudioFileError.truncated(
                "icy: the stream ended inside a metadata block", offset: demuxer.streamByteCount)
        }
        if first.isLive {
            try await recover(from: "the server ended the stream")
            return
        }
        if let responseEnd, resourcePosition < responseEnd {
            try await recover(from: "the connection closed after \(resourcePosition) of \(responseEnd) bytes")
            return
        }
        guard var stream else { return }
        self.stream = nil
        defer { self.stream = stream }
        try stream.finish { try handle($0) }
        flushTitles()
        await close()
    }

    // MARK: - Connections

    /// Joins a live stream again, or resumes a file where it broke, with backoff; throws when every
    /// attempt fails or the file cannot be resumed.
    private func recover(from reason: String) async throws {
        dropTransfer()
        guard let first else { throw AudioFileError.network("http: \(reason)", offset: resourcePosition) }
        if !first.isLive && !first.acceptsRanges {
            throw AudioFileError.network(
                "http: \(reason), and the server takes no range requests to resume from", offset: resourcePosition)
        }
        var lastFailure = reason
        // Attempts count until bytes arrive again: a server that accepts and drops at once cannot
        // keep the stream reconnecting for ever.
        while failedAttempts < options.maximumReconnectAttempts {
            failedAttempts += 1
            var delay = options.reconnectDelay
            for _ in 1..<failedAttempts { delay = min(delay * 2, options.maximumReconnectDelay) }
            if let deadline {
                guard ContinuousClock.now + delay < deadline else { throw deadlineError() }
            }
            try await Task.sleep(for: delay)
            do {
                if first.isLive {
                    try await open(from: 0, attempt: failedAttempts)
                    flushTitles()
                    pending.append(
                        .discontinuity(.init(reason: reason, attempt: failedAttempts, nextPacket: nextPacket)))
                    resumeFlags = (.discontinuity, audioPosition)
                } else {
                    try await open(from: resourcePosition, attempt: failedAttempts)
                }
                return
            } catch let error as AudioFileError where error.code == "net!" {
                lastFailure = error.message
            }
        }
        // The stream is over: the packets it delivered whole are handed on (the parser holds the last
        // until it knows the frame is whole), and the titles that came with them.
        if var stream {
            self.stream = nil
            try? stream.finish { try handle($0) }
            self.stream = stream
            flushTitles()
        }
        let tries = options.maximumReconnectAttempts
        throw AudioFileError.network(
            tries == 0
                ? "http: \(reason)"
                : "http: \(reason); \(tries) reconnection attempts failed, the last: \(lastFailure)",
            offset: first.isLive ? audioPosition : resourcePosition)
    }

    /// Sends a request for the resource from `offset` and reads the response's head.
    ///
    /// (The request and the response's facts are made in synchronous functions, on the thread's stack: an
    /// asynchronous function's locals live in its task's allocator, whose memory a task keeps while it lives, so
    /// every stream would hold this function's largest frame for good.)
    private func open(from offset: Int64, attempt: Int) async throws {
        let (transfer, wantsMetadata) = try startTransfer(from: offset)
        let head: HTTPTransfer.Head
        do {
            head = try await transfer.responseHead()
        } catch let failure as HTTPTransfer.Failure {
            transfer.cancel()
            throw openingError(failure, offset: offset)
        }
        try accept(head, of: transfer, from: offset, attempt: attempt, wantsMetadata: wantsMetadata)
    }

    /// The transfer of a request for the resource from `offset`, started, and whether it asks for ICY metadata.
    private func startTransfer(from offset: Int64) throws -> (HTTPTransfer, wantsMetadata: Bool) {
        if deadline == nil, let limit = options.maximumTime { deadline = .now + limit }
        var request = HTTPTransfer.Request(
            url: url, options: options, deadline: deadline, trustedRoots: try trustedRoots.get())
        // A stream held open for hours holds libcurl's receive buffer all the while: 8 KiB, not 16, is half a
        // second of a 128 kbit/s stream (the reader's queue, not this, bounds how far the server runs ahead).
        request.receiveBufferSize = Self.receiveBufferSize
        let wantsMetadata = options.requestsMetadata && (first?.isLive ?? true)
        if wantsMetadata { request.headers.append("Icy-MetaData: 1") }
        if offset > 0 {
            request.rangeStart = offset
            // The same version of the file or all of it: never bytes of another spliced on.
            if let validator = first?.rangeValidator { request.headers.append("If-Range: \(validator)") }
        }
        return (HTTPTransfer(request), wantsMetadata)
    }

    /// Why a request for the resource from `offset` got no response head.
    private func openingError(_ failure: HTTPTransfer.Failure, offset: Int64) -> any Error {
        switch failure {
        case .cancelled: return CancellationError()
        case .deadlinePassed: return deadlineError()
        default: return AudioFileError.network("http: cannot get \(url): \(describe(failure))", offset: offset)
        }
    }

    /// Takes `transfer`'s response (`head`, to the request from `offset`) as the one read now, or ends it with
    /// why it cannot be (a status not 2xx, another version of the file, a range not asked for, a playlist).
    private func accept(
        _ head: HTTPTransfer.Head, of transfer: HTTPTransfer, from offset: Int64, attempt: Int, wantsMetadata: Bool
    ) throws {
        let status = head.status
        guard (200..<300).contains(status) else {
            transfer.cancel()
            throw AudioFileError.network("http: \(url) answered \(status) \(head.reason)", offset: offset)
        }
        var facts: HTTPAudioStream.Response
        do {
            facts = try HTTPAudioStream.Response(head: head, wantsMetadata: wantsMetadata, attempt: attempt)
            if let first, !first.isLive, let change = first.change(to: facts) {
                throw Unrecoverable(
                    error: AudioFileError.network(
                        "http: the file changed on the server before the rest could be read (\(change)); "
                            + "the packets before byte \(offset) came from the earlier version", offset: offset))
            }
        } catch {
            transfer.cancel()
            throw error
        }
        if offset > 0 {
            if status == 206 {
                guard facts.startOffset == offset else {
                    transfer.cancel()
                    throw AudioFileError.network(
                        "http: asked for bytes from \(offset), the server sent them from \(facts.startOffset)",
                        offset: offset)
                }
            } else {
                // The whole resource again (the same version, by its validators): read up to where it is needed.
                facts.acceptsRanges = false
                bytesToSkip = offset
            }
        }
        self.transfer = transfer
        resourcePosition = offset
        packetAtConnection = nextPacket
        responseEnd = facts.contentLength.map { facts.startOffset + $0 }
        if first == nil {
            // A playlist served under another name (`Content-Type` alone says so, RFC 8216, 4): read as HLS.
            if let type = facts.contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
                .lowercased(), HLS.mediaTypes.contains(type)
            {
                transfer.cancel()
                throw PlaylistFound(url: head.url, options: options)
            }
            first = facts
            stream = AudioFileStream(
                fileTypeHint: options.fileTypeHint ?? facts.contentType.flatMap(FileType.init(mediaType:)),
                limits: facts.isLive ? options.limits.withoutSeekIndex : options.limits,
                requestsSeeks: !facts.isLive && facts.acceptsRanges)
        }
        demuxer = wantsMetadata ? facts.metadataInterval.map(ICYMetadataDemuxer.init(metadataInterval:)) : nil
        pending.append(.connected(facts))
    }

    /// libcurl's receive buffer for a stream's transfers.
    static let receiveBufferSize = 8 * 1024

    /// The first response is an HLS playlist: the iterator reads it as one (``HLSStreamSession``).
    struct PlaylistFound: Error {
        /// Where it was found, after redirects.
        var url: String
        /// The stream's options.
        var options: HTTPAudioStream.Options

        /// The session that reads the playlist.
        var session: HLSStreamSession { HLSStreamSession(url: url, options: options, variant: options.variant) }
    }

    /// An error no further attempt can mend (the file changed on the server): it ends the stream at once.
    private struct Unrecoverable: Error {
        var error: AudioFileError
    }

    private func deadlineError() -> AudioFileError {
        let limit = options.maximumTime.map { " of \($0)" } ?? ""
        return AudioFileError.network(
            "http: the time limit\(limit) passed before the stream ended",
            offset: first?.isLive == true ? audioPosition : resourcePosition)
    }

    private func describe(_ error: any Error) -> String {
        guard let failure = error as? HTTPTransfer.Failure else { return String(describing: error) }
        switch failure {
        case .transfer(let message, _): return message
        case .stalled(let timeout): return "no byte arrived for \(timeout) (the read timeout)"
        case .tooSlow(let bytes, let period):
            return "fewer than \(bytes) bytes a second arrived over \(period) (the speed limit)"
        case .deadlinePassed: return "the time limit passed"
        case .cancelled: return "cancelled"
        }
    }
}

extension HTTPAudioStream.Response {
    /// The facts of a response head; a malformed `icy-metaint` or `Content-Range` is an error.
    init(head: HTTPTransfer.Head, wantsMetadata: Bool, attempt: Int) throws {
        let value = head.value
        url = HTTPAudioStream.redactingCredentials(in: head.url)
        status = head.status
        contentType = value("content-type")
        contentLength = value("content-length").flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
        startOffset = 0
        totalLength = status == 200 ? contentLength : nil
        acceptsRanges = value("accept-ranges")?.lowercased().contains("bytes") == true
        if status == 206 {
            // `bytes FIRST-LAST/TOTAL`, TOTAL perhaps `*`
            guard let range = value("content-range"), range.lowercased().hasPrefix("bytes "),
                let dash = range.firstIndex(of: "-"),
                let start = Int64(
                    range[range.index(range.startIndex, offsetBy: 6)..<dash].trimmingCharacters(in: .whitespaces)),
                start >= 0
            else {
                throw AudioFileError.network("http: a partial response without a readable Content-Range", offset: nil)
            }
            startOffset = start
            acceptsRanges = true
            if let slash = range.firstIndex(of: "/") {
                totalLength = Int64(range[range.index(after: slash)...].trimmingCharacters(in: .whitespaces))
            }
        }
        let tag = value("etag")
        entityTag = tag
        lastModified = value("last-modified")
        metadataInterval = nil
        if wantsMetadata, let text = value("icy-metaint") {
            guard let interval = Int(text), (1...Self.maximumMetadataInterval).contains(interval) else {
                throw AudioFileError.malformed(
                    "http: icy-metaint '\(text)' is not a byte count from 1 to \(Self.maximumMetadataInterval)",
                    offset: 0)
            }
            metadataInterval = interval
        }
        name = value("icy-name")
        genre = value("icy-genre")
        description = value("icy-description")
        homepage = value("icy-url")
        statedBitRate = value("icy-br").flatMap { Int($0.split(separator: ",").first ?? "") }
        // A live stream is an ICY server's (Icecast, SHOUTcast): a response without a length from any
        // other server is a file whose end is the response's clean end.
        isLive =
            metadataInterval != nil || head.isICYStatusLine
            || head.fields.contains { $0.name.hasPrefix("icy-") || $0.name.hasPrefix("ice-") }
        self.attempt = attempt
    }

    /// The largest ICY metadata interval taken (servers use 8 to 64 KiB).
    static let maximumMetadataInterval = 1 << 20

    /// What `If-Range` carries on a resume: a strong entity tag, else the modification date.
    var rangeValidator: String? {
        if let entityTag, !entityTag.hasPrefix("W/") { return entityTag }
        return lastModified
    }

    /// How a later response shows a different version of the file than this one, if it does.
    func change(to later: Self) -> String? {
        if let before = entityTag, let after = later.entityTag, before != after {
            return "ETag \(before), then \(after)"
        }
        if let before = lastModified, let after = later.lastModified, before != after {
            return "Last-Modified \(before), then \(after)"
        }
        if let before = totalLength, let after = later.totalLength, before != after {
            return "\(before) bytes, then \(after)"
        }
        return nil
    }
}

extension HTTPAudioStream.Options {
    /// Why a trust root cannot be used.
    public struct TrustRootProblem: Error {
        /// What is wrong with the file.
        public var reason: String
    }

    /// The PEM text of a root certificate file, or why it cannot be used (missing, unreadable, no whole PEM
    /// certificate in it, a certificate block cut short or not DER inside): checked before any connection,
    /// so a broken file is a usage error, not a failed handshake.
    public static func trustRoot(_ path: String) -> Result<[UInt8], TrustRootProblem> {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "it cannot be read" : "there is no such file"
            return .failure(.init(reason: reason))
        }
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        var lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map {
            $0.trimmingCharacters(in: .whitespaces)
        }[...]
        var certificates = 0
        while let start = lines.firstIndex(of: begin) {
            let number = certificates + 1
            guard let stop = lines[start...].firstIndex(of: end) else {
                return .failure(.init(reason: "certificate \(number) has no '\(end)' line: the file is cut short"))
            }
            let body = lines[(start + 1)..<stop].joined()
            guard let der = Data(base64Encoded: body), isCertificateDER(Array(der)) else {
                return .failure(.init(reason: "certificate \(number) is not a DER certificate in base64"))
            }
            certificates += 1
            lines = lines[(stop + 1)...]
        }
        guard certificates > 0 else { return .failure(.init(reason: "it holds no PEM certificate")) }
        return .success(Array(data))
    }

    /// Whether bytes are shaped as an X.509 certificate: a DER SEQUENCE filling them exactly, holding two
    /// SEQUENCEs (the certificate's body and its signature algorithm) and a BIT STRING (the signature).
    static func isCertificateDER(_ bytes: [UInt8]) -> Bool {
        /// The tag, and the range of the contents, of the element at `offset`.
        func element(at offset: Int, within end: Int) -> (tag: UInt8, contents: Range<Int>)? {
            guard offset + 2 <= end else { return nil }
            let first = Int(bytes[offset + 1])
            var length = first
            var start = offset + 2
            if first & 0x80 != 0 {
                let count = first & 0x7F
                guard (1...4).contains(count), start + count <= end else { return nil }
                length = bytes[start..<(start + count)].reduce(0) { $0 << 8 | Int($1) }
                start += count
            }
            guard length <= end - start else { return nil }
            return (bytes[offset], start..<(start + length))
        }
        guard let outer = element(at: 0, within: bytes.count), outer.tag == 0x30,
            outer.contents.upperBound == bytes.count,
            let body = element(at: outer.contents.lowerBound, within: outer.contents.upperBound), body.tag == 0x30,
            let algorithm = element(at: body.contents.upperBound, within: outer.contents.upperBound),
            algorithm.tag == 0x30,
            let signature = element(at: algorithm.contents.upperBound, within: outer.contents.upperBound),
            signature.tag == 0x03
        else { return false }
        return signature.contents.upperBound == outer.contents.upperBound
    }

    /// The roots to trust for https: the system's bundle (`CURL_CA_BUNDLE` or `SSL_CERT_FILE` where
    /// set, as curl(1) reads them; else libcurl's own default) followed by each of `paths`, every one of
    /// which must hold a PEM certificate. The bundle alone is named for libcurl to read when a connection
    /// needs it (a copy of its 200 KiB in every transfer would cost a thousand streams 400 MB); joined with
    /// `paths`, it is one PEM text.
    static func trustedRoots(adding paths: [String]) throws -> HTTPTransfer.TrustedRoots? {
        var text: [UInt8] = []
        for path in paths {
            switch trustRoot(path) {
            case .success(let pem): text += pem + [10]
            case .failure(let problem):
                throw AudioFileError.network("http: the trust root '\(path)': \(problem.reason)", offset: nil)
            }
        }
        let environment = ProcessInfo.processInfo.environment
        let chosen = environment["CURL_CA_BUNDLE"] ?? environment["SSL_CERT_FILE"]
        // libcurl reads its default bundle itself when nothing is added to it.
        if paths.isEmpty { return chosen.map(HTTPTransfer.TrustedRoots.file) }
        if let system = chosen ?? HTTPTransfer.defaultTrustBundle,
            let data = FileManager.default.contents(atPath: system)
        {
            text = Array(data) + [10] + text
        }
        return .text(text)
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}

extension AudioFileStream.OwnedPackets {
    /// The index (within the run) of the first packet that starts at or after a stream offset; `count`
    /// when none does.
    func firstIndex(startingAtOrAfter offset: Int64) -> Int {
        guard count > 0 else { return 0 }
        if let descriptions {
            return descriptions.firstIndex { streamOffset + $0.startOffset >= offset } ?? count
        }
        let size = Int64(bytes.count / count)
        guard offset > streamOffset else { return 0 }
        guard size > 0 else { return count }
        return Int(min(Int64(count), (offset - streamOffset + size - 1) / size))
    }

    /// The first `index` packets and the rest.
    func split(at index: Int) -> (Self, Self) {
        let cut: Int
        var headDescriptions: [PacketDescription]?
        var restDescriptions: [PacketDescription]?
        if let descriptions {
            cut = Int(descriptions[index].startOffset)
            headDescriptions = Array(descriptions[..<index])
            restDescriptions = descriptions[index...].map { description in
                var moved = description
                moved.startOffset -= Int64(cut)
                return moved
            }
        } else {
            cut = bytes.count / count * index
        }
        let head = Self(
            bytes: Array(bytes[..<cut]), streamOffset: streamOffset, firstPacket: firstPacket,
            indexIsKnown: indexIsKnown, count: index, descriptions: headDescriptions)
        let rest = Self(
            bytes: Array(bytes[cut...]), streamOffset: streamOffset + Int64(cut),
            firstPacket: firstPacket + Int64(index), indexIsKnown: indexIsKnown, count: count - index,
            descriptions: restDescriptions)
        return (head, rest)
    }
}

extension ParserLimits {
    /// These limits with no index of where each packet passed starts (`maximumSeekIndexPackets`
    /// 0): for a stream that cannot seek (a live stream, a playlist), whose index would only grow, 8 bytes a
    /// packet, 2 MiB after two hours of 128 kbit/s MP3.
    var withoutSeekIndex: ParserLimits {
        var limits = self
        limits.maximumSeekIndexPackets = 0
        return limits
    }
}
