import ArgumentParser
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import AudioStreaming
import Dispatch

/// Whether a FILE argument is an address to stream from rather than a path.
func isStreamURL(_ argument: String) -> Bool {
    let lowered = argument.lowercased()
    return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
}

/// A FILE argument as the outputs show it: a URL's user information (a password) as `***`.
func shownArgument(_ argument: String) -> String {
    isStreamURL(argument) ? HTTPAudioStream.redactingCredentials(in: argument) : argument
}

/// An input as a message names it: `standard input` for `-`, a path with its control bytes escaped, a URL
/// without its password.
func shownInput(_ argument: String) -> String {
    argument == "-" ? "standard input" : PathEscaping.controlEscaped(shownArgument(argument))
}

/// How `packets` and `info` reach a URL: timeouts, retries, trust and redirects, in curl's spelling
/// where curl has one.
struct NetworkOptions: ParsableArguments {
    @Option(
        name: .customLong("read-timeout"),
        help: "Over HTTP: seconds without a byte before the connection counts as dropped.")
    var readTimeout: Double = 15

    @Option(
        name: .customLong("reconnect-attempts"),
        help:
            "Over HTTP: attempts to rejoin a dropped live stream or resume a file, counted until it makes progress again."
    )
    var reconnectAttempts = 5

    @Option(
        name: .customLong("max-time"), help: "Over HTTP: seconds the whole stream may take, reconnections included.")
    var maxTime: Double?

    @Option(
        name: .customLong("speed-limit"),
        help: "Over HTTP: bytes a second below which a connection counts as dropped (over --speed-time seconds).")
    var speedLimit: Int?

    @Option(name: .customLong("speed-time"), help: "Over HTTP: the seconds --speed-limit is averaged over (30).")
    var speedTime: Double?

    @Option(
        name: .customLong("ca-file"), help: "Over HTTPS: also trust the root certificate in this PEM file (repeatable)."
    )
    var caFiles: [String] = []

    @Flag(
        name: .customLong("allow-http-redirect"),
        help: "Over HTTPS: follow a redirect to plain http (refused otherwise).")
    var allowHTTPRedirect = false

    /// Whether any option was given that only a URL uses.
    var isGiven: Bool {
        readTimeout != 15 || reconnectAttempts != 5 || maxTime != nil || speedLimit != nil || speedTime != nil
            || !caFiles.isEmpty || allowHTTPRedirect
    }

    func validate() throws {
        guard readTimeout > 0 else { throw ValidationError("--read-timeout must be a positive number of seconds") }
        guard reconnectAttempts >= 0 else { throw ValidationError("--reconnect-attempts must be 0 or more") }
        if let maxTime, !(maxTime > 0) { throw ValidationError("--max-time must be a positive number of seconds") }
        if let speedLimit, speedLimit <= 0 {
            throw ValidationError("--speed-limit must be a positive number of bytes a second")
        }
        if let speedTime {
            guard speedTime > 0 else { throw ValidationError("--speed-time must be a positive number of seconds") }
            guard speedLimit != nil else { throw ValidationError("--speed-time goes with --speed-limit") }
        }
        // A trust root is read before any connection: a wrong path is a usage error, named.
        for path in caFiles {
            if case .failure(let problem) = HTTPAudioStream.Options.trustRoot(path) {
                throw ValidationError("--ca-file \(path): \(problem.reason)")
            }
        }
    }

    /// The stream's settings.
    func options(typeHint: String?) -> HTTPAudioStream.Options {
        var options = HTTPAudioStream.Options(fileTypeHint: typeHint.flatMap(FileType.init(fileExtension:)))
        options.additionalTrustRoots = caFiles
        options.readTimeout = Self.duration(readTimeout)
        options.maximumReconnectAttempts = reconnectAttempts
        options.maximumTime = maxTime.map(Self.duration)
        options.speedLimit = speedLimit.map { .init(bytesPerSecond: $0, period: Self.duration(speedTime ?? 30)) }
        options.followsRedirectsToHTTP = allowHTTPRedirect
        options.userAgent = "afkit/\(AudioConverter.version)"
        return options
    }

    private static func duration(_ seconds: Double) -> Duration { .milliseconds(Int64((seconds * 1000).rounded())) }
}

extension HTTPAudioStream.Response {
    /// The response's facts for the JSON outputs.
    var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("url", .string(url)), ("status", .integer(Int64(status))), ("live", .bool(isLive)),
            ("acceptsRanges", .bool(acceptsRanges)), ("startOffset", .integer(startOffset)),
            ("attempt", .integer(Int64(attempt))),
        ]
        let optional: [(String, JSONValue?)] = [
            ("contentType", contentType.map(JSONValue.string)), ("contentLength", contentLength.map(JSONValue.integer)),
            ("icyMetaint", metadataInterval.map { .integer(Int64($0)) }), ("icyName", name.map(JSONValue.string)),
            ("icyGenre", genre.map(JSONValue.string)), ("icyDescription", description.map(JSONValue.string)),
            ("icyUrl", homepage.map(JSONValue.string)), ("icyBitRate", statedBitRate.map { .integer(Int64($0)) }),
        ]
        for case (let key, let value?) in optional { fields.append((key, value)) }
        return .object(fields)
    }
}

extension HTTPAudioStream.Response {
    /// A line for `info`'s text.
    var text: String {
        var facts = [
            contentType ?? "no Content-Type", isLive ? "live" : contentLength.map { "\($0) bytes" } ?? "no length",
            acceptsRanges ? "takes range requests" : "no range requests",
        ]
        if let metadataInterval { facts.append("icy-metaint \(metadataInterval)") }
        if let name { facts.append("icy-name '\(name)'") }
        return "Served as:              \(facts.joined(separator: ", "))\n"
    }
}

/// The trust boundary for the playlist the user named at `location` (``HLS/ResourceAccess``): what it names
/// is read below its folder, over HTTP where it was read over HTTP, and from a playlist on the disk only with
/// `--allow-network`. One boundary for `packets`, `info` and `validate`; its fetches share one retry budget.
func playlistAccess(_ location: String, allowsNetwork: Bool) -> HLS.ResourceAccess {
    let budget = HTTPResource.RetryBudget()
    return HLS.ResourceAccess(playlist: location, allowsNetwork: allowsNetwork) {
        try HTTPResource.fetchWaiting($0, range: $1, budget: budget).bytes
    }
}

/// The help of `--allow-network`, one text for every command that reads playlists.
let allowNetworkHelp = ArgumentHelp(
    "Let a playlist on the disk name segments and playlists over HTTP (by default it reads only files below "
        + "its own folder, and never the network).")

/// What `info` says of an HLS playlist read over HTTP: its media playlist, segments and timing problems.
struct PlaylistReading {
    var mediaPlaylist: String
    var segments = 0
    var problems: [String] = []

    /// `hls` in `info --json`.
    var json: JSONValue {
        .object([
            ("mediaPlaylist", .string(mediaPlaylist)), ("segments", .integer(Int64(segments))),
            ("problems", .array(problems.map(JSONValue.string))),
        ])
    }

    /// The `HLS:` line of `info`'s text.
    var text: String {
        "HLS:                    \(segments) segments of \(mediaPlaylist)\n"
            + problems.map { "                        \($0)\n" }.joined()
    }
}

func readStreamHeader(_ url: String, network: NetworkOptions) async throws -> (
    StreamProperties, HTTPAudioStream.Response, PlaylistReading?
) {
    var iterator = HTTPAudioStream(url: url, options: network.options(typeHint: nil)).makeAsyncIterator()
    var response: HTTPAudioStream.Response?
    var properties = StreamProperties()
    // An HLS VOD playlist is read to its end (its counts are its segments'); a live one, like a file, to its header.
    var playlist: PlaylistReading?
    var live = false
    while let event = try await iterator.next() {
        switch event {
        case .connected(let facts):
            response = response ?? facts
            live = facts.isLive
            if playlist != nil || HLS.isPlaylistURL(url) || facts.contentType.map(isPlaylistType) == true {
                playlist = PlaylistReading(mediaPlaylist: facts.url)
            }
        case .segment: playlist?.segments += 1
        case .discontinuity(let gap): playlist?.problems.append(gap.reason)
        case .propertyChanged(let id, let known):
            properties = known
            if id == .readyToProducePackets, playlist == nil || live {
                await iterator.close()
                guard let response else { break }
                return (properties, response, playlist)
            }
        default: break
        }
    }
    guard let response else {
        throw AudioFileError.network("http: \(shownArgument(url)) sent no response", offset: nil)
    }
    return (playlist != nil ? iterator.properties : properties, response, playlist)
}

/// Whether a `Content-Type` is a playlist's.
func isPlaylistType(_ contentType: String) -> Bool {
    HLS.mediaTypes.contains(
        contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? "")
}

extension Packets {
    /// `afkit packets URL`: the stream's events as they arrive (`--json-lines`), or the same listing as
    /// for a file once the stream ends (or `--duration` of audio has come).
    func runOverHTTP() async throws {
        var options = network.options(typeHint: typeHint)
        options.variant = variant.flatMap(HLS.VariantChoice.init) ?? .best
        let listing = try PacketListing(duration: duration, jsonLines: jsonLines)
        let outcome = try await { () async throws -> StreamProperties? in
            var iterator = HTTPAudioStream(url: file, options: options).makeAsyncIterator()
            do {
                while let event = try await iterator.next() {
                    guard listing.take(event, properties: { iterator.properties }) else {
                        await iterator.close()
                        return iterator.properties
                    }
                }
            } catch let error as AudioFileError {
                if jsonLines {
                    listing.emit([("event", .string("error")), ("error", errorJSON(error))])
                } else if json {
                    Output.standardOutput(
                        JSONValue.object([("path", .string(shownArgument(file))), ("error", errorJSON(error))])
                            .serialized(pretty: true) + "\n")
                } else {
                    Output.standardError(fileMessage("packets", file, .error, "\(error)"))
                }
                return nil
            }
            return iterator.properties
        }()
        guard let properties = outcome else { throw ExitCode(AFKit.Status.problemFound) }
        let (deliveredPackets, deliveredFrames) = (listing.deliveredPackets, listing.deliveredFrames)
        let stoppedByDuration = listing.stoppedByDuration
        guard var summary = try? AudioFileSummary(properties) else {
            let error = AudioFileError.truncated("http: the stream ended before its format was known", offset: nil)
            if jsonLines {
                listing.emit([("event", .string("error")), ("error", errorJSON(error))])
            } else {
                Output.standardError(fileMessage("packets", file, .error, "\(error)"))
            }
            throw ExitCode(AFKit.Status.problemFound)
        }
        // A live stream (or one stopped by --duration) states no counts: give what arrived, its valid frames
        // without the priming (and the remainder only where the stream ended where its header said).
        if stoppedByDuration || properties.audioDataPacketCount == nil || summary.packetCount < deliveredPackets {
            summary.packetCount = deliveredPackets
            summary.frameCount = max(0, deliveredFrames - Int64(summary.primingFrames))
            if stoppedByDuration { summary.remainderFrames = 0 }
            summary.durationSeconds =
                summary.format.sampleRate > 0 ? Double(summary.frameCount) / summary.format.sampleRate : 0
        }
        if jsonLines {
            listing.emit([("event", .string("end")), ("properties", .object(summary.jsonFields))])
            return
        }
        try printListing(
            summary: summary, properties: properties, packets: listing.packets,
            titles: listing.hadMetadata ? listing.titles : nil,
            segments: listing.segments.isEmpty ? nil : listing.segments)
    }
}

extension Optional where Wrapped == [PacketDescription] {
    /// Calls `body` with the descriptions' buffer, or `nil`.
    func withOptionalBuffer<R>(_ body: (UnsafeBufferPointer<PacketDescription>?) throws -> R) rethrows -> R {
        guard let self else { return try body(nil) }
        return try self.withUnsafeBufferPointer { try body($0) }
    }
}
