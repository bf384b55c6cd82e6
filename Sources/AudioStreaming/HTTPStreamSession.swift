import AsyncHTTPClient
import AudioContainers
import AudioFormats
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// One ``HTTPAudioStream`` being read: the HTTP connection (and its successors after drops, seeks
/// and reconnections), the ICY demuxer and the parser, driven from `next()` one response chunk at a
/// time, so the server is read only as fast as events are taken.
final class HTTPStreamSession {
    typealias Event = HTTPAudioStream.Event

    let url: String
    let options: HTTPAudioStream.Options
    private var client: HTTPClient?
    private var body: HTTPClientResponse.Body.AsyncIterator?
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
    private var seekTarget: Int64?
    private var nextPacket: Int64 = 0
    /// Reconnection attempts since bytes last arrived.
    private var failedAttempts = 0
    private(set) var receivedByteCount: Int64 = 0
    private var finished = false
    /// An error that ended the stream, thrown once the events before it have been taken.
    private var failure: (any Error)?

    init(url: String, options: HTTPAudioStream.Options) {
        self.url = url
        self.options = options
    }

    deinit {
        // The client finishes shutting down on its own event loop; it keeps itself alive until then.
        client?.shutdown().whenComplete { _ in }
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
                let failure = error is AudioFileError || error is CancellationError
                    ? error : AudioFileError.network(describe(error), offset: resourcePosition)
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
        let offset = try stream.seek(toPacket: packet).byteOffset
        body = nil
        pending.removeAll()
        index = 0
        waitingTitles.removeAll()
        try await open(from: offset, attempt: 0)
        resumeFlags = (.discontinuity, nil)
        nextPacket = packet
        return offset
    }

    func close() async {
        body = nil
        finished = true
        if let client {
            self.client = nil
            try? await client.shutdown()
        }
    }

    // MARK: - Reading

    private func step() async throws {
        guard var iterator = body else {
            try await open(from: 0, attempt: 0)
            return
        }
        body = nil
        let chunk: ByteBuffer?
        do {
            chunk = try await iterator.next()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            try await recover(from: describe(error))
            return
        }
        guard let chunk else {
            try await endOfResponse()
            return
        }
        body = iterator
        receivedByteCount += Int64(chunk.readableBytes)
        if chunk.readableBytes > 0 { failedAttempts = 0 }
        try chunk.withUnsafeReadableBytes { try consume($0) }
        if let target = seekTarget {
            seekTarget = nil
            body = nil
            try await open(from: target, attempt: 0)
            resumeFlags = (.discontinuity, target)
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
            deliver(AudioFileStream.OwnedPackets(
                bytes: Array(run.bytes), streamOffset: run.streamOffset, firstPacket: run.firstPacket,
                count: run.count, descriptions: run.descriptions.map(Array.init)))
        case .seekRequested(let offset):
            seekTarget = offset
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
            pending.append(.titleChanged(.init(title: title.title, audioOffset: title.audioOffset, packet: run.firstPacket)))
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
        body = nil
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
            try await Task.sleep(for: delay)
            do {
                if first.isLive {
                    try await open(from: 0, attempt: failedAttempts)
                    flushTitles()
                    pending.append(.discontinuity(.init(reason: reason, attempt: failedAttempts, nextPacket: nextPacket)))
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
            tries == 0 ? "http: \(reason)" : "http: \(reason); \(tries) reconnection attempts failed, the last: \(lastFailure)",
            offset: first.isLive ? audioPosition : resourcePosition)
    }

    /// Sends a request for the resource from `offset` and reads the response's head.
    private func open(from offset: Int64, attempt: Int) async throws {
        let client = makeClient()
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: options.userAgent)
        let wantsMetadata = options.requestsMetadata && (first?.isLive ?? true)
        if wantsMetadata { request.headers.add(name: "Icy-MetaData", value: "1") }
        if offset > 0 { request.headers.add(name: "Range", value: "bytes=\(offset)-") }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: .distantFuture)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw AudioFileError.network("http: cannot get \(url): \(describe(error))", offset: offset)
        }
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            throw AudioFileError.network(
                "http: \(url) answered \(status) \(response.status.reasonPhrase)", offset: offset)
        }
        var facts = try HTTPAudioStream.Response(url: url, head: response, wantsMetadata: wantsMetadata, attempt: attempt)
        if offset > 0 {
            if status == 206 {
                guard facts.startOffset == offset else {
                    throw AudioFileError.network(
                        "http: asked for bytes from \(offset), the server sent them from \(facts.startOffset)", offset: offset)
                }
            } else {
                // The whole resource again: read up to where it is needed.
                facts.acceptsRanges = false
                bytesToSkip = offset
            }
        }
        resourcePosition = offset
        responseEnd = facts.contentLength.map { facts.startOffset + $0 }
        if first == nil {
            first = facts
            stream = AudioFileStream(
                fileTypeHint: options.fileTypeHint ?? facts.contentType.flatMap(FileType.init(mediaType:)),
                limits: options.limits, requestsSeeks: !facts.isLive && facts.acceptsRanges)
        }
        demuxer = wantsMetadata ? facts.metadataInterval.map(ICYMetadataDemuxer.init(metadataInterval:)) : nil
        body = response.body.makeAsyncIterator()
        pending.append(.connected(facts))
    }

    private func makeClient() -> HTTPClient {
        if let client { return client }
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: TimeAmount(options.connectTimeout), read: TimeAmount(options.readTimeout))
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        configuration.decompression = .disabled
        if !options.additionalTrustRoots.isEmpty {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = options.additionalTrustRoots.map { .file($0) }
            configuration.tlsConfiguration = tls
        }
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        self.client = client
        return client
    }

    private func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout: return "no byte arrived for \(options.readTimeout) (the read timeout)"
            case .connectTimeout: return "the connection was not made within \(options.connectTimeout)"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: break
            }
        }
        return String(describing: error)
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

extension HTTPAudioStream.Response {
    /// The facts of a response head; a malformed `icy-metaint` or `Content-Range` is an error.
    init(url: String, head: HTTPClientResponse, wantsMetadata: Bool, attempt: Int) throws {
        let headers = head.headers
        func value(_ name: String) -> String? {
            headers.first(name: name)?.trimmingCharacters(in: .whitespaces).nilIfEmpty
        }
        self.url = head.url?.absoluteString ?? url
        status = Int(head.status.code)
        contentType = value("Content-Type")
        contentLength = value("Content-Length").flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
        startOffset = 0
        acceptsRanges = value("Accept-Ranges")?.lowercased().contains("bytes") == true
        if status == 206 {
            // `bytes FIRST-LAST/TOTAL`
            guard let range = value("Content-Range"), range.lowercased().hasPrefix("bytes "),
                let dash = range.firstIndex(of: "-"),
                let start = Int64(range[range.index(range.startIndex, offsetBy: 6)..<dash].trimmingCharacters(in: .whitespaces)),
                start >= 0
            else {
                throw AudioFileError.network("http: a partial response without a readable Content-Range", offset: nil)
            }
            startOffset = start
            acceptsRanges = true
        }
        metadataInterval = nil
        if wantsMetadata, let text = value("icy-metaint") {
            guard let interval = Int(text), (1...Self.maximumMetadataInterval).contains(interval) else {
                throw AudioFileError.malformed(
                    "http: icy-metaint '\(text)' is not a byte count from 1 to \(Self.maximumMetadataInterval)", offset: 0)
            }
            metadataInterval = interval
        }
        name = value("icy-name")
        genre = value("icy-genre")
        description = value("icy-description")
        homepage = value("icy-url")
        statedBitRate = value("icy-br").flatMap { Int($0.split(separator: ",").first ?? "") }
        isLive = metadataInterval != nil || name != nil || statedBitRate != nil || (status == 200 && contentLength == nil)
        self.attempt = attempt
    }

    /// The largest ICY metadata interval taken (servers use 8 to 64 KiB).
    static let maximumMetadataInterval = 1 << 20
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}

extension FileType {
    /// The container a `Content-Type` names, if it names one.
    init?(mediaType: String) {
        let type = mediaType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        switch type {
        case "audio/mpeg", "audio/mp3", "audio/mpeg3", "audio/x-mpeg": self = .mp3
        case "audio/aac", "audio/aacp", "audio/x-aac", "audio/x-hx-aac-adts": self = .adts
        case "audio/mp4", "audio/x-m4a", "audio/m4a", "audio/mp4a-latm": self = .m4a
        case "video/mp4": self = .mp4
        case "audio/x-caf", "audio/caf": self = .caf
        case "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave": self = .wav
        case "audio/aiff", "audio/x-aiff": self = .aiff
        default: return nil
        }
    }
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
        let head = Self(bytes: Array(bytes[..<cut]), streamOffset: streamOffset, firstPacket: firstPacket, count: index,
            descriptions: headDescriptions)
        let rest = Self(bytes: Array(bytes[cut...]), streamOffset: streamOffset + Int64(cut),
            firstPacket: firstPacket + Int64(index), count: count - index, descriptions: restDescriptions)
        return (head, rest)
    }
}
