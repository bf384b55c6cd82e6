import ArgumentParser
import AudioContainers
import AudioFormats
import FileAccess

/// `afkit packets`: the streaming parser over a file or standard input, as a network client runs it.
struct Packets: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the push parser over a file or standard input and list its packets.",
        discussion: "The input is fed N bytes at a time; the result does not depend on N."
    )

    @Flag(help: "Print one JSON object with the stream's properties and packets.")
    var json = false

    @Option(name: .customLong("chunk-size"), help: "Bytes given to the parser per call.")
    var chunkSize = 4096

    @Option(name: .customLong("type-hint"), help: "A file extension that breaks ties between containers (mp3, aac, ...).")
    var typeHint: String?

    @Option(name: .customLong("icy-metaint"),
        help: "Remove SHOUTcast/Icecast metadata sent every N audio bytes, and list the stream titles.")
    var icyMetaint: Int?

    @Argument(help: "An audio file, or - for standard input.")
    var file: String

    func validate() throws {
        guard chunkSize > 0 else { throw ValidationError("--chunk-size must be at least 1") }
        if let icyMetaint, icyMetaint <= 0 { throw ValidationError("--icy-metaint must be at least 1") }
        if let typeHint, FileType(fileExtension: typeHint) == nil {
            throw ValidationError("--type-hint '\(typeHint)' names no container afkit reads")
        }
    }

    func run() throws {
        // Checked here, not in validate(): argument-parser reports an unknown option first.
        try checkPathsExist([file], in: Self.self, allowStandardInput: true)
        // Variable packets are listed; constant ones are only counted (a PCM stream has a packet per frame).
        var packets: [PacketDescription] = []
        var constantPackets: (firstOffset: Int64, size: Int, count: Int)?
        // A seekable file answers the parser's seek requests (an MP4 whose `moov` follows its audio).
        let seekable = file != "-" && icyMetaint == nil && isSeekableFile(file)
        var stream = AudioFileStream(fileTypeHint: typeHint.flatMap(FileType.init(fileExtension:)), requestsSeeks: seekable)
        var seekTarget: Int64?
        let collect: (AudioFileStream.Event) -> Void = { event in
            if case .seekRequested(let offset) = event { seekTarget = offset }
            guard case .packets(let run) = event else { return }
            if let descriptions = run.descriptions {
                for description in descriptions {
                    packets.append(PacketDescription(
                        startOffset: run.streamOffset + description.startOffset,
                        variableFramesInPacket: description.variableFramesInPacket,
                        dataByteSize: description.dataByteSize))
                }
            } else {
                let size = run.count > 0 ? run.bytes.count / run.count : 0
                let first = constantPackets?.firstOffset ?? run.streamOffset
                constantPackets = (first, size, (constantPackets?.count ?? 0) + run.count)
            }
        }
        var icy = icyMetaint.map(ICYMetadataDemuxer.init(metadataInterval:))
        var titles: [ICYMetadataDemuxer.TitleChange] = []
        do {
            if seekable {
                var resuming = false
                try forEachChunk(ofSeekableFileAt: file, chunkSize: chunkSize) { chunk in
                    try stream.parse(chunk, flags: resuming ? .discontinuity : [], collect)
                    let target = seekTarget
                    seekTarget = nil
                    resuming = target != nil
                    return target
                }
            } else {
                try forEachChunk(ofFileAt: file == "-" ? nil : file, chunkSize: chunkSize) { chunk in
                    if icy != nil {
                        titles += try icy?.demux(chunk) { audio in try stream.parse(audio, collect) } ?? []
                    } else {
                        try stream.parse(chunk, collect)
                    }
                }
            }
            try stream.finish(collect)
        } catch let error as AudioFileError {
            if json {
                Output.standardOutput(JSONValue.object([("path", .string(file)), ("error", errorJSON(error))])
                    .serialized(pretty: true) + "\n")
            } else {
                Output.standardError("\(file): error: \(error)\n")
            }
            throw ExitCode(AFKit.Status.problemFound)
        }
        let summary = try AudioFileSummary(stream.properties)
        let frames = Int64(summary.format.framesPerPacket)
        if json {
            var fields: [(String, JSONValue)] = [("properties", .object(summary.jsonFields))]
            if let constant = constantPackets, packets.isEmpty {
                fields.append(("constantPacketSize", .integer(Int64(constant.size))))
                fields.append(("packetCount", .integer(Int64(constant.count))))
            } else {
                fields.append(("packets", .array(packets.map { packet in
                    .object([
                        ("offset", .integer(packet.startOffset)),
                        ("size", .integer(Int64(packet.dataByteSize))),
                        ("frames", .integer(packet.variableFramesInPacket > 0 ? Int64(packet.variableFramesInPacket) : frames)),
                    ])
                })))
            }
            if icy != nil {
                fields.append(("icyMetadata", .array(titles.map { change in
                    .object([("offset", .integer(change.audioOffset)), ("title", .string(change.title))])
                })))
            }
            Output.standardOutput(JSONValue.object(fields).serialized(pretty: true) + "\n")
        } else {
            var text = InfoText.render(path: file, summary: summary, properties: stream.properties)
            if let constant = constantPackets {
                text += "\(constant.count) packets of \(constant.size) bytes and \(frames) frames each, "
                    + "from offset \(constant.firstOffset)\n"
            }
            for (index, packet) in packets.enumerated() {
                let count = packet.variableFramesInPacket > 0 ? Int64(packet.variableFramesInPacket) : frames
                text += "packet \(index): offset \(packet.startOffset), \(packet.dataByteSize) bytes, \(count) frames\n"
                if text.utf8.count > 1 << 16 {
                    Output.standardOutput(text)
                    text = ""
                }
            }
            for change in titles { text += "stream title at audio byte \(change.audioOffset): \(change.title)\n" }
            Output.standardOutput(text)
        }
    }
}
