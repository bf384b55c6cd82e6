import AudioContainers
import AudioFormats
import Foundation

/// One ``HTTPAudioStream`` over an HTTP Live Streaming playlist: the playlist (a master's chosen variant's
/// media playlist), then each segment fetched whole and read through ``HLS/Reader``'s steps into one
/// ``AudioFileStream``, so the events are those of one stream, with a `.segment` event as each segment
/// starts. A VOD playlist is read to its end; a live one (no `EXT-X-ENDLIST`) is reloaded every target
/// duration (half of it when a reload brought nothing new, as RFC 8216 asks) until it ends or the time limit
/// passes. Each fetch retries with the stream's backoff, within one retry budget for the whole reading
/// (`HTTPResource.RetryBudget`); a live playlist that moved past segments not yet read is a discontinuity.
final class HLSStreamSession: StreamSession {
    typealias Event = HTTPAudioStream.Event

    let url: String
    let options: HTTPAudioStream.Options
    private(set) var stream: AudioFileStream?
    private(set) var receivedByteCount: Int64 = 0
    private var reader: HLS.Reader
    private var pending: [Event] = []
    private var index = 0
    private var finished = false
    /// The media playlist's address and its latest contents.
    private var media: (location: String, playlist: HLS.MediaPlaylist)?
    /// The media sequence number of the next segment to read.
    private var nextSequence: Int64?
    /// Whether the last reload of a live playlist brought a new segment.
    private var reloadBroughtNews = true
    private var deadline: ContinuousClock.Instant?
    /// The retries every fetch of the reading shares.
    private let budget: HTTPResource.RetryBudget

    init(url: String, options: HTTPAudioStream.Options, variant: HLS.VariantChoice = .best) {
        self.url = url
        self.options = options
        budget = HTTPResource.RetryBudget(options)
        reader = HLS.Reader(variant: variant) { _, _ in [] }
    }

    func next() async throws -> Event? {
        while index == pending.count {
            pending.removeAll(keepingCapacity: true)
            index = 0
            if let failure {
                self.failure = nil
                finished = true
                throw failure
            }
            if finished { return nil }
            do {
                try await step()
            } catch {
                let failure =
                    error is AudioFileError || error is CancellationError
                    ? error : AudioFileError.network("http: \(error)", offset: nil)
                // The events before the failure go out first.
                if pending.isEmpty {
                    finished = true
                    throw failure
                }
                self.failure = failure
            }
        }
        defer { index += 1 }
        return pending[index]
    }

    /// An error that ended the stream, thrown once the events before it have been taken.
    private var failure: (any Error)?

    func seek(toPacket packet: Int64) async throws -> Int64 {
        throw AudioFileError.illegalOperation("http: seeking in an HLS playlist is not supported yet")
    }

    func close() async { finished = true }

    // MARK: - Steps

    private func step() async throws {
        if deadline == nil, let limit = options.maximumTime { deadline = .now + limit }
        guard let media else {
            try await openPlaylist()
            return
        }
        let playlist = media.playlist
        let first = playlist.mediaSequence
        let sequence = nextSequence ?? first
        if sequence < first {
            // A live playlist moved past segments not read: the audio before and after does not join up, and the
            // next segment starts the timeline again.
            pending.append(
                .discontinuity(
                    .init(
                        reason: "the playlist no longer lists segments \(sequence) to \(first - 1)", attempt: 0,
                        nextPacket: reader.nextPacket)))
            nextSequence = first
            skippedSegments = true
            return
        }
        let position = Int(sequence - first)
        if position < playlist.segments.count {
            var segment = playlist.segments[position]
            if skippedSegments { segment.discontinuity = true }
            skippedSegments = false
            try await read(segment, sequence: sequence, from: media.location)
            nextSequence = sequence + 1
            reloadBroughtNews = true
            lastNews = .now
            return
        }
        if playlist.endList {
            guard var stream else { throw AudioFileError.malformed("hls: the playlist has no segment", offset: nil) }
            self.stream = nil
            try stream.finish { try handle($0) }
            self.stream = stream
            finished = true
            return
        }
        // Live: wait, then reload.
        // (A target over an hour is no live stream's: the waits are bounded by an hour.)
        let target = Double(min(max(playlist.targetDuration ?? 6, 1), 3600))
        let wait = Duration.milliseconds(Int64(target * (reloadBroughtNews ? 1000 : 500)))
        if let deadline, ContinuousClock.now + wait > deadline {
            throw AudioFileError.network(
                "http: the time limit\(options.maximumTime.map { " of \($0)" } ?? "") passed while the live playlist "
                    + "was being followed", offset: nil)
        }
        // A live playlist that brings no segment for ten target durations has stopped (its encoder is gone).
        let since = lastNews ?? .now
        lastNews = since
        if ContinuousClock.now - since > .milliseconds(Int64(target * 10_000)) {
            throw AudioFileError.network(
                "http: the live playlist \(HTTPAudioStream.redactingCredentials(in: media.location)) brought no new "
                    + "segment in \(fixedPoint(target * 10, places: 0)) s (ten target durations): it has stopped",
                offset: nil)
        }
        try await Task.sleep(for: wait)
        let (reloaded, _, _) = try await mediaPlaylist(media.location)
        reloadBroughtNews = reloaded.mediaSequence + Int64(reloaded.segments.count) > sequence
        self.media = (media.location, reloaded)
    }

    /// Whether segments were dropped from the live playlist before they were read.
    private var skippedSegments = false
    /// When the last new segment was read.
    private var lastNews: ContinuousClock.Instant?

    /// The playlist at the stream's URL, and a master's chosen variant's media playlist. Each response is a
    /// `.connected` event; the media playlist's says `isLive` where the playlist has no `EXT-X-ENDLIST`.
    private func openPlaylist() async throws {
        let (bytes, response, effective) = try await fetch(url, range: nil)
        switch try HLS.parse(bytes) {
        case .media(let playlist):
            var response = response
            response.isLive = !playlist.endList
            pending.append(.connected(response))
            media = (effective, playlist)
        case .master(let master):
            pending.append(.connected(response))
            guard let chosen = reader.choose(master) else {
                throw AudioFileError.malformed("hls: the master playlist names no variant stream", offset: 0)
            }
            let (playlist, mediaResponse, location) = try await mediaPlaylist(HLS.resolve(chosen, against: effective))
            var facts = mediaResponse
            facts.isLive = !playlist.endList
            pending.append(.connected(facts))
            media = (location, playlist)
        }
        // (No seeking in a playlist: no index of the packets passed, which would grow with a live one.)
        stream = AudioFileStream(fileTypeHint: options.fileTypeHint, limits: options.limits.withoutSeekIndex)
    }

    private func mediaPlaylist(_ location: String) async throws -> (
        HLS.MediaPlaylist, HTTPAudioStream.Response, String
    ) {
        let (bytes, response, effective) = try await fetch(location, range: nil)
        guard case .media(let playlist) = try HLS.parse(bytes) else {
            throw AudioFileError.malformed(
                "hls: '\(location)' is a master playlist where a media playlist belongs", offset: 0)
        }
        return (playlist, response, effective)
    }

    /// Fetches a segment (and the initialization section it needs) and reads it into the stream.
    private func read(_ segment: HLS.Segment, sequence: Int64, from location: String) async throws {
        guard var stream else { return }
        if let map = reader.initializationNeeded(for: segment) {
            let bytes = try await fetch(HLS.resolve(map.uri, against: location), range: map.byteRange).bytes
            self.stream = nil
            defer { self.stream = stream }
            try reader.hold(map, bytes: bytes, into: &stream, chunkSize: 64 * 1024) { try handle($0) }
        }
        let bytes = try await fetch(HLS.resolve(segment.uri, against: location), range: segment.byteRange).bytes
        self.stream = nil
        defer { self.stream = stream }
        try reader.consume(
            segment, sequence: sequence, bytes: bytes, into: &stream, chunkSize: 64 * 1024,
            segment: { start in
                // A timestamp off the frames before: the audio does not join up at this segment's first packet.
                if let problem = start.timingProblem {
                    pending.append(.discontinuity(.init(reason: problem, attempt: 0, nextPacket: start.firstPacket)))
                }
                pending.append(.segment(start))
            }
        ) { try handle($0) }
    }

    private func handle(_ event: AudioFileStream.Event) throws {
        switch event {
        case .propertyChanged(let id, let properties):
            pending.append(.propertyChanged(id, properties: properties))
        case .packets(let run):
            pending.append(.packets(AudioFileStream.OwnedPackets(copying: run)))
        case .seekRequested:
            break
        }
    }

    // MARK: - Fetching

    private func fetch(_ location: String, range: HLS.ByteRange?) async throws -> (
        bytes: [UInt8], response: HTTPAudioStream.Response, location: String
    ) {
        // What a playlist read over HTTP names passes the one boundary: http and https only, never a local path.
        try HLS.ResourceAccess(playlist: url).check(location)
        let fetched = try await HTTPResource.fetch(
            location, range: range, options: options, deadline: deadline, budget: budget)
        receivedByteCount += Int64(fetched.bytes.count)
        return fetched
    }
}
