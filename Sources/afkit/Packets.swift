#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import ArgumentParser
import AudioContainers
import AudioFormats
import Foundation
import FileAccess

/// `afkit packets`: the streaming parser over a file or standard input, as a network client runs it.
struct Packets: NetworkCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the push parser over a file or standard input and list its packets.",
        discussion: "The input is fed N bytes at a time; the result does not depend on N.\n\n" + reference
    )

    @Flag(help: "Print one JSON object with the stream's properties and packets.")
    var json = false

    @Option(name: .customLong("chunk-size"), help: "Bytes given to the parser per call.")
    var chunkSize = 4096

    @Option(
        name: .customLong("type-hint"), help: "A file extension that breaks ties between containers (mp3, aac, ...).")
    var typeHint: String?

    @Option(
        name: .customLong("icy-metaint"),
        help: "Remove SHOUTcast/Icecast metadata sent every N audio bytes, and list the stream titles.")
    var icyMetaint: Int?

    @Flag(
        name: .customLong("json-lines"),
        help: "Over HTTP: print one JSON object per event as it arrives (connection, properties, packets, titles).")
    var jsonLines = false

    @Option(help: "Over HTTP: stop after this many seconds of audio (a live stream has no end).")
    var duration: Double?

    @Option(
        help: ArgumentHelp(
            "An HLS master playlist's variant: best (the highest BANDWIDTH, the default), worst, or the nearest to "
                + "a bit rate (128000, 128k).", valueName: "best|worst|BANDWIDTH"))
    var variant: String?

    @OptionGroup(title: "Over HTTP")
    var network: NetworkOptions

    @Flag(help: allowNetworkHelp)
    var allowNetwork = false

    @Argument(help: "An audio file, - for standard input, or an http:// or https:// URL.")
    var file: String

    func validate() throws {
        guard chunkSize > 0 else { throw ValidationError("--chunk-size must be at least 1") }
        if let icyMetaint, icyMetaint <= 0 { throw ValidationError("--icy-metaint must be at least 1") }
        if json && jsonLines { throw ValidationError("--json and --json-lines are alternatives: give one") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be a positive number of seconds") }
        if isStreamURL(file) {
            if icyMetaint != nil {
                throw usageError(
                    "--icy-metaint is read from the server's response for a URL", about: file, in: Self.self)
            }
        } else if jsonLines || duration != nil || network.isGiven {
            throw usageError(
                "--json-lines, --duration and the network options follow a stream over HTTP: give an http:// or "
                    + "https:// URL", about: file, in: Self.self)
        }
        if let typeHint, FileType(fileExtension: typeHint) == nil {
            throw ValidationError("--type-hint '\(typeHint)' names no container afkit reads")
        }
        if let variant, HLS.VariantChoice(variant) == nil {
            throw ValidationError("--variant takes best, worst or a bit rate (128000, 128k), not '\(variant)'")
        }
    }

    var readsNetwork: Bool { isStreamURL(file) }

    func runOverNetwork() async throws { try await runOverHTTP() }

    func run() throws {
        // Checked here, not in validate(): argument-parser reports an unknown option first.
        try checkPathsExist([file], in: Self.self, allowStandardInput: true)
        // A report written into one of the inputs (`>> IN`) is refused before anything is read.
        try checkStandardOutput(against: [file], in: Self.self)
        if file != "-", HLS.isPlaylistFile(file) { return try runPlaylist() }
        if variant != nil {
            throw usageError(
                "--variant chooses among an HLS master playlist's variants; '\(shownArgument(file))' is none",
                in: Self.self)
        }
        // Variable packets are listed; constant ones are only counted (a PCM stream has a packet per frame).
        // Kept on disk while the stream is parsed: listing them takes constant memory, whatever the length.
        let listing = try PacketListing()
        listing.hadMetadata = icyMetaint != nil
        // A seekable file answers the parser's seek requests (an MP4 whose `moov` follows its audio).
        let seekable = file != "-" && icyMetaint == nil && isSeekableFile(file)
        var stream = AudioFileStream(
            fileTypeHint: typeHint.flatMap(FileType.init(fileExtension:)), requestsSeeks: seekable)
        let collect: (AudioFileStream.Event) -> Void = { listing.take($0) }
        var icy = icyMetaint.map(ICYMetadataDemuxer.init(metadataInterval:))
        do {
            if seekable {
                // The feeder answers the parser's seek requests by reading from where it asks.
                let source = try ReadableFile(path: file)
                try stream.feed(
                    size: source.size, chunkSize: chunkSize, read: { try source.read(into: $0, at: $1) }, collect)
            } else {
                try forEachChunk(ofFileAt: file == "-" ? nil : file, chunkSize: chunkSize) { chunk in
                    guard icy != nil else { return try stream.parse(chunk, collect) }
                    let changes = try icy?.demux(chunk) { audio in try stream.parse(audio, collect) } ?? []
                    for change in changes {
                        listing.take(
                            .titleChanged(
                                ListedTitle(audioOffset: change.audioOffset, title: change.title, packet: nil)),
                            properties: { stream.properties })
                    }
                }
                try stream.finish(collect)
            }
        } catch let error as AudioFileError {
            throw failure(error)
        }
        try printListing(
            summary: AudioFileSummary(stream.properties), properties: stream.properties, packets: listing.packets,
            titles: listing.hadMetadata ? listing.titles : nil)
    }

    /// An HTTP Live Streaming playlist on the disk: its (chosen variant's) segments as one packet stream, each
    /// segment's start listed with the packets, gaps and overlaps of its timestamps as warnings.
    func runPlaylist() throws {
        let listing = try PacketListing()
        var reader = HLS.Reader(
            variant: variant.flatMap(HLS.VariantChoice.init) ?? .best,
            fetch: playlistAccess(file, allowsNetwork: allowNetwork).fetcher)
        var stream = AudioFileStream(fileTypeHint: typeHint.flatMap(FileType.init(fileExtension:)))
        do {
            try reader.read(location: file, into: &stream, chunkSize: chunkSize) { listing.take($0) }
        } catch let error as AudioFileError {
            throw failure(error)
        }
        for problem in reader.problems {
            Output.standardError(fileMessage("packets", file, .warning, problem))
        }
        try printListing(
            summary: AudioFileSummary(stream.properties), properties: stream.properties, packets: listing.packets,
            titles: nil, segments: reader.segments)
    }

    /// Reports a file that could not be read (an error object with `--json`, a line otherwise): the status to
    /// end with.
    func failure(_ error: AudioFileError) -> ExitCode {
        if json {
            Output.standardOutput(
                JSONValue.object([("path", .string(shownArgument(file))), ("error", errorJSON(error))])
                    .serialized(pretty: true) + "\n")
        } else {
            Output.standardError(fileMessage("packets", file, .error, "\(error)"))
        }
        return ExitCode(AFKit.Status.problemFound)
    }

    /// A stream title as listed: where in the audio it took effect, and from which packet when known.
    struct ListedTitle {
        var audioOffset: Int64
        var title: String
        var packet: Int64?
    }

    /// Prints the properties and packets as text or as one JSON object; `titles`, where the stream had
    /// ICY metadata.
    func printListing(
        summary: AudioFileSummary, properties: StreamProperties, packets: PacketSpool, titles: [ListedTitle]?,
        segments: [HLS.SegmentStart]? = nil
    ) throws {
        let constantPackets = packets.constantPackets
        let frames = Int64(summary.format.framesPerPacket)
        if json {
            // The object as `serialized(pretty:)` would write it, the packets streamed from the spool.
            let indented = { (value: JSONValue) in
                value.serialized(pretty: true).replacingOccurrences(of: "\n", with: "\n  ")
            }
            var text = "{\n  \"properties\": " + indented(.object(summary.jsonFields))
            if let constant = constantPackets, packets.count == 0 {
                text += ",\n  \"constantPacketSize\": \(constant.size),\n  \"packetCount\": \(constant.count)"
            } else {
                text += ",\n  \"packets\": ["
                var first = true
                try packets.forEach { offset, size, count in
                    // Each packet through the JSON writer, indented as it sits in the array.
                    text += first ? "\n    " : ",\n    "
                    JSONValue.writeObject(
                        [
                            ("offset", .integer(offset)), ("size", .integer(Int64(size))),
                            ("frames", .integer(count > 0 ? Int64(count) : frames)),
                        ], into: &text, pretty: true, depth: 2)
                    first = false
                    if text.utf8.count > 1 << 16 {
                        Output.standardOutput(text)
                        text = ""
                    }
                }
                text += first ? "]" : "\n  ]"
            }
            if let titles {
                text +=
                    ",\n  \"icyMetadata\": "
                    + indented(
                        .array(
                            titles.map { change in
                                var fields: [(String, JSONValue)] = [
                                    ("offset", .integer(change.audioOffset)), ("title", .string(change.title)),
                                ]
                                if let packet = change.packet { fields.append(("packet", .integer(packet))) }
                                return .object(fields)
                            }))
            }
            if let segments {
                text +=
                    ",\n  \"segments\": "
                    + indented(
                        .array(
                            segments.map { segment in
                                var fields: [(String, JSONValue)] = [
                                    ("uri", .string(segment.uri)), ("mediaSequence", .integer(segment.mediaSequence)),
                                    ("startTime", .number(segment.startTime)),
                                    ("firstPacket", .integer(segment.firstPacket)),
                                    ("discontinuity", .bool(segment.discontinuity)),
                                ]
                                if let problem = segment.timingProblem {
                                    fields.append(("timingProblem", .string(problem)))
                                }
                                return .object(fields)
                            }))
            }
            Output.standardOutput(text + "\n}\n")
        } else {
            var text = InfoText.render(path: shownArgument(file), summary: summary, properties: properties)
            if let constant = constantPackets {
                text +=
                    "\(constant.count) packets of \(constant.size) bytes and \(frames) frames each, "
                    + "from offset \(constant.firstOffset)\n"
            }
            var index = 0
            try packets.forEach { offset, size, variableFrames in
                let count = variableFrames > 0 ? Int64(variableFrames) : frames
                text += "packet \(index): offset \(offset), \(size) bytes, \(count) frames\n"
                index += 1
                if text.utf8.count > 1 << 16 {
                    Output.standardOutput(text)
                    text = ""
                }
            }
            for segment in segments ?? [] {
                text +=
                    "segment \(segment.mediaSequence): \(segment.uri) at \(fixedPoint(segment.startTime, places: 6)) s, "
                    + "from packet \(segment.firstPacket)\(segment.discontinuity ? " (discontinuity)" : "")\n"
            }
            for change in titles ?? [] {
                text +=
                    "stream title at audio byte \(change.audioOffset)"
                    + (change.packet.map { " (packet \($0))" } ?? "") + ": \(change.title)\n"
            }
            Output.standardOutput(text)
        }
    }
}

/// Packet descriptions kept in a temporary file, 16 bytes each, while a stream is parsed: memory stays
/// constant however many packets the stream holds. The file is removed when the spool goes (and by an
/// interrupted command, like every temporary).
final class PacketSpool {
    private let path: String
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private(set) var count = 0

    init() throws {
        let path = try StandardStreams.createSpool(named: "packets")
        self.path = path
        do {
            descriptor = try TemporaryFiles.openOwnFile(path, flags: O_RDWR)
        } catch {
            TemporaryFiles.discard(path)
            throw error
        }
        buffer.reserveCapacity(1 << 20)
    }

    deinit {
        close(descriptor)
        TemporaryFiles.discard(path)
    }

    /// Constant-size packets are only counted (a PCM stream has a packet per frame): the first's offset,
    /// their size and count.
    private(set) var constantPackets: (firstOffset: Int64, size: Int, count: Int)?

    /// Keeps a run of packets: each one where they vary, a count where they have a constant size.
    func append(
        run streamOffset: Int64, byteCount: Int, count: Int, descriptions: UnsafeBufferPointer<PacketDescription>?
    ) {
        if let descriptions {
            for description in descriptions {
                append(
                    offset: streamOffset + description.startOffset, size: description.dataByteSize,
                    frames: description.variableFramesInPacket)
            }
        } else {
            let size = count > 0 ? byteCount / count : 0
            constantPackets = (
                constantPackets?.firstOffset ?? streamOffset, size, (constantPackets?.count ?? 0) + count
            )
        }
    }

    func append(offset: Int64, size: UInt32, frames: UInt32) {
        buffer.appendInteger(offset, endianness: .little)
        buffer.appendInteger(size, endianness: .little)
        buffer.appendInteger(frames, endianness: .little)
        count += 1
        if buffer.count >= 1 << 20 { flush() }
    }

    private func flush() {
        guard !buffer.isEmpty else { return }
        if let failure = buffer.withUnsafeBytes({ Output.writeAll($0, to: descriptor) }) {
            let reason = strerror(failure).map { String(cString: $0) } ?? "error \(failure)"
            Output.standardError(
                commandMessage("packets", .error, "cannot keep the packet list in '\(path)': \(reason)"))
            TemporaryFiles.removeAll()
            _exit(AFKit.Status.problemFound)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with each packet's offset, size and frames, in order.
    func forEach(_ body: (Int64, UInt32, UInt32) throws -> Void) throws {
        flush()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var position: off_t = 0
        while true {
            let read = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, position) }
            if read < 0 && errno == EINTR { continue }
            guard read >= 0 else { throw AudioFileError.io("cannot read back '\(path)'", errno: errno) }
            let whole = read / 16 * 16
            if whole == 0 { return }
            try chunk.withUnsafeBytes { bytes in
                for start in stride(from: 0, to: whole, by: 16) {
                    try body(
                        Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: start, as: Int64.self)),
                        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: start + 8, as: UInt32.self)),
                        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: start + 12, as: UInt32.self)))
                }
            }
            position += off_t(whole)
        }
    }
}
