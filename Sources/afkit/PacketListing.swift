import AudioContainers
import AudioFormats
import AudioStreaming

/// One event of the stream `packets` lists, whichever source its bytes come from: a file or standard input,
/// a playlist on the disk, or HTTP.
enum PacketsEvent {
    /// A response began (HTTP).
    case connected(HTTPAudioStream.Response)
    case propertyChanged(StreamPropertyID, StreamProperties)
    /// Consecutive whole packets; their descriptions are valid only during the call.
    case packets(PacketRun)
    /// The ICY stream title changed.
    case titleChanged(Packets.ListedTitle)
    /// A live stream was joined again (HTTP).
    case discontinuity(HTTPAudioStream.Discontinuity)
    /// An HLS segment starts (HTTP).
    case segment(HLS.SegmentStart)
}

/// A run of consecutive packets as `packets` lists it: where the run lies, how many packets, and one
/// description per packet where they vary (valid only during the call).
struct PacketRun {
    var streamOffset: Int64
    var firstPacket: Int64
    var count: Int
    var byteCount: Int
    var descriptions: UnsafeBufferPointer<PacketDescription>?
}

/// What `packets` keeps of a stream's events, and what `--json-lines` says of each as it arrives: the one
/// event loop every source of bytes feeds (a file, a playlist on the disk, HTTP).
final class PacketListing {
    /// Variable packets listed, constant ones counted.
    let packets: PacketSpool
    /// `--duration`: stop after the packet that completes this many seconds of audio.
    let duration: Double?
    /// `--json-lines`: each event printed as a JSON object as it comes.
    let jsonLines: Bool
    private(set) var titles: [Packets.ListedTitle] = []
    private(set) var segments: [HLS.SegmentStart] = []
    /// Whether the stream had ICY metadata (its titles are listed, even none).
    var hadMetadata = false
    private(set) var deliveredPackets: Int64 = 0
    private(set) var deliveredFrames: Int64 = 0
    /// Whether `--duration` of audio came before the stream's end.
    private(set) var stoppedByDuration = false
    /// The properties as the last event that changed them gave them.
    private var known = StreamProperties()

    init(duration: Double? = nil, jsonLines: Bool = false) throws {
        packets = try PacketSpool()
        self.duration = duration
        self.jsonLines = jsonLines
    }

    /// Takes one event; `properties` gives the stream's properties as known now (what `--duration` counts
    /// packets by). Returns `false` once `--duration` of audio has come: the stream is to stop.
    @discardableResult
    func take(_ event: PacketsEvent, properties: () -> StreamProperties) -> Bool {
        switch event {
        case .connected(let response):
            hadMetadata = hadMetadata || response.metadataInterval != nil
            emit([("event", .string("connected")), ("response", response.json)])
        case .propertyChanged(let id, let properties):
            known = properties
            if id == .readyToProducePackets, jsonLines, let summary = try? AudioFileSummary(properties) {
                emit([("event", .string("ready")), ("properties", .object(summary.jsonFields))])
            }
        case .packets(let run):
            return keep(run, properties: properties())
        case .titleChanged(let change):
            titles.append(change)
            var fields: [(String, JSONValue)] = [("event", .string("title")), ("title", .string(change.title))]
            if let packet = change.packet { fields.append(("packet", .integer(packet))) }
            emit(fields + [("offset", .integer(change.audioOffset))])
        case .discontinuity(let gap):
            emit([
                ("event", .string("discontinuity")), ("reason", .string(gap.reason)),
                ("attempt", .integer(Int64(gap.attempt))), ("nextPacket", .integer(gap.nextPacket)),
            ])
        case .segment(let start):
            segments.append(start)
            emit([
                ("event", .string("segment")), ("uri", .string(start.uri)),
                ("mediaSequence", .integer(start.mediaSequence)), ("startTime", .number(start.startTime)),
                ("firstPacket", .integer(start.firstPacket)), ("discontinuity", .bool(start.discontinuity)),
            ])
        }
        return true
    }

    /// Takes a parser's event (a file's, a playlist's): its properties and packets.
    func take(_ event: AudioFileStream.Event) {
        switch event {
        case .propertyChanged(let id, let properties): take(.propertyChanged(id, properties), properties: { known })
        case .packets(let run):
            take(
                .packets(
                    PacketRun(
                        streamOffset: run.streamOffset, firstPacket: run.firstPacket, count: run.count,
                        byteCount: run.bytes.count, descriptions: run.descriptions)),
                properties: { known })
        case .seekRequested: break
        }
    }

    /// Takes an event of a stream over HTTP, its properties as `properties` gives them now; `false` once
    /// `--duration` of audio has come.
    func take(_ event: HTTPAudioStream.Event, properties: () -> StreamProperties) -> Bool {
        switch event {
        case .connected(let response): take(PacketsEvent.connected(response), properties: properties)
        case .propertyChanged(let id, let known): take(PacketsEvent.propertyChanged(id, known), properties: properties)
        case .packets(let run):
            run.descriptions.withOptionalBuffer { descriptions in
                take(
                    PacketsEvent.packets(
                        PacketRun(
                            streamOffset: run.streamOffset, firstPacket: run.firstPacket, count: run.count,
                            byteCount: run.bytes.count, descriptions: descriptions)),
                    properties: properties)
            }
        case .titleChanged(let change):
            take(
                PacketsEvent.titleChanged(
                    Packets.ListedTitle(audioOffset: change.audioOffset, title: change.title, packet: change.packet)),
                properties: properties)
        case .discontinuity(let gap): take(PacketsEvent.discontinuity(gap), properties: properties)
        case .segment(let start): take(PacketsEvent.segment(start), properties: properties)
        }
    }

    /// Keeps a run's packets, up to the one that completes `--duration` (counted in valid frames: the priming
    /// is not audio, however many packets a run carries); returns `false` once it is complete.
    private func keep(_ run: PacketRun, properties: StreamProperties) -> Bool {
        let framesPerPacket = Int64(properties.dataFormat?.framesPerPacket ?? 0)
        let limit = duration.flatMap { seconds in
            properties.dataFormat.map { format in
                Int64((seconds * format.sampleRate).rounded(.up))
                    + Int64(properties.packetTableInfo?.primingFrames ?? 0)
            }
        }
        var taken = run.count
        if let descriptions = run.descriptions {
            var lines = ""
            for (index, description) in descriptions.prefix(run.count).enumerated() {
                if let limit, deliveredFrames >= limit {
                    taken = index
                    break
                }
                let frames =
                    description.variableFramesInPacket > 0
                    ? Int64(description.variableFramesInPacket) : framesPerPacket
                deliveredFrames += frames
                if jsonLines {
                    lines +=
                        JSONValue.object([
                            ("event", .string("packet")), ("packet", .integer(run.firstPacket + Int64(index))),
                            ("offset", .integer(run.streamOffset + description.startOffset)),
                            ("size", .integer(Int64(description.dataByteSize))), ("frames", .integer(frames)),
                        ]).serialized() + "\n"
                }
            }
            if jsonLines { Output.standardOutput(lines) }
        } else {
            if let limit, framesPerPacket > 0 {
                let room = max(0, (limit - deliveredFrames + framesPerPacket - 1) / framesPerPacket)
                taken = Int(min(Int64(run.count), room))
            }
            deliveredFrames += Int64(taken) * framesPerPacket
            if taken > 0 {
                emit([
                    ("event", .string("packets")), ("packet", .integer(run.firstPacket)),
                    ("count", .integer(Int64(taken))), ("offset", .integer(run.streamOffset)),
                    ("size", .integer(Int64(run.count > 0 ? run.byteCount / run.count : 0))),
                ])
            }
        }
        packets.append(
            run: run.streamOffset, byteCount: run.count > 0 ? run.byteCount / run.count * taken : 0, count: taken,
            descriptions: run.descriptions.map { UnsafeBufferPointer(rebasing: $0.prefix(taken)) })
        deliveredPackets += Int64(taken)
        if let limit, deliveredFrames >= limit {
            stoppedByDuration = true
            return false
        }
        return true
    }

    /// One `--json-lines` object.
    func emit(_ fields: [(String, JSONValue)]) {
        guard jsonLines else { return }
        Output.standardOutput(JSONValue.object(fields).serialized() + "\n")
    }
}
