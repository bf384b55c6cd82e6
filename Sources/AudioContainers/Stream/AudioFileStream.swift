import AudioFormats
import StreamParsing

/// A push parser for audio files arriving in pieces, in the manner of Audio File Stream Services.
///
/// Give it bytes in chunks of any size with `parse(_:flags:streamOffset:_:)`; it detects the container from the
/// first bytes, then reports properties as it learns them and packets as they become whole.
/// Packet bytes are handed out without copying when they lie inside the chunk given. The result
/// does not depend on how the input is cut.
///
/// ```swift
/// var stream = AudioFileStream()
/// try stream.parse(chunk) { event in
///     switch event {
///     case .propertyChanged(.readyToProducePackets, let properties): prepare(properties.dataFormat)
///     case .packets(let packets): decode(packets.bytes, packets.descriptions)
///     default: break
///     }
/// }
/// try stream.finish { _ in }
/// ```
public struct AudioFileStream: Sendable {
    /// Flags for `parse(_:flags:streamOffset:_:)`.
    public struct ParseFlags: OptionSet, Sendable {
        /// The flag bits.
        public var rawValue: UInt32
        /// Flags from their bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// The bytes do not follow the previous ones: they start where the last ``seek(toPacket:)``
        /// said (or, without one, somewhere later in the stream). Any partial packet is dropped.
        public static let discontinuity = ParseFlags(rawValue: 1)
    }

    /// What the parser reports.
    public enum Event {
        /// A property has a value now (or a new one); the properties as known at that moment come with it.
        /// (Boxed: the properties are a few hundred bytes, and every packets event would otherwise be
        /// that large and copied so.)
        indirect case propertyChanged(StreamPropertyID, StreamProperties)
        /// Whole packets, valid only during the call.
        case packets(Packets)
        /// The parser needs the bytes from this absolute offset next (only when created with
        /// `requestsSeeks`): parse them with `.discontinuity`; bytes given before that are ignored.
        case seekRequested(Int64)
    }

    /// A run of consecutive whole packets, valid only during the handler call.
    public struct Packets {
        /// The packets' bytes.
        public var bytes: UnsafeRawBufferPointer
        /// Absolute offset in the stream of `bytes[0]`.
        public var streamOffset: Int64
        /// Index of the first packet in the stream: true where ``indexIsKnown``, else estimated from the
        /// packets' own offset.
        public var firstPacket: Int64
        /// Whether ``firstPacket`` is the packets' true index. After ``AudioFileStream/seek(toPacket:)``
        /// answered with an estimate, a parser that cannot learn the index from the bytes (MPEG audio, ADTS,
        /// AC-3, Ogg; not FLAC, whose frames are numbered) says `false` from then on: `firstPacket` is then
        /// an estimate from where the packets lie, never the number asked for.
        public var indexIsKnown: Bool
        /// How many packets.
        public var count: Int
        /// One description per packet, offsets relative to `bytes`; `nil` where all packets have the
        /// format's constant size and frame count.
        public var descriptions: UnsafeBufferPointer<PacketDescription>?
    }

    /// The container the caller expects; it only breaks ties between containers the bytes allow.
    public let fileTypeHint: FileType?
    /// Whether packets are delivered or only indexed.
    public let mode: ParseMode
    /// Bounds on what the parser holds and allocates.
    public let limits: ParserLimits
    /// Whether the parser may ask for bytes elsewhere in the stream (an MPEG-4 file whose `moov` follows
    /// its audio) rather than hold the audio until they come.
    public let requestsSeeks: Bool

    var parser: (any StreamParser)?
    private var tail: [UInt8] = []
    /// Absolute offset of `tail[0]`, or of the next byte expected when the tail is empty.
    private var tailOffset: Int64 = 0
    /// Bytes needed from `tail[0]` before the parser can go on.
    private var needed = 1
    private(set) var pendingSeek: Int64?
    private var failure: AudioFileError?
    private var finished = false
    private var awaitingSeek = false
    private var deliveredPackets: Int64 = 0
    private var deliveredBytes: Int64 = 0
    /// Parser steps taken so far (a step yields a property, a run of packets, or a request for more
    /// bytes), and an optional ceiling on them: tests prove with it that every step advances.
    var steps = 0
    var stepBudget: Int?

    /// Creates a parser; `mode` `.indexing` skips packet bytes instead of handing them out. With
    /// `requestsSeeks`, the client promises to answer ``Event/seekRequested(_:)`` (a seekable file, a
    /// server that takes range requests).
    public init(
        fileTypeHint: FileType? = nil, mode: ParseMode = .streaming, limits: ParserLimits = ParserLimits(),
        requestsSeeks: Bool = false
    ) {
        self.fileTypeHint = fileTypeHint
        self.mode = mode
        self.limits = limits
        self.requestsSeeks = requestsSeeks
    }

    /// Everything learned so far.
    public var properties: StreamProperties { parser?.context.properties ?? StreamProperties() }

    /// Bytes the parser holds: an incomplete unit awaiting more input, plus audio retained while
    /// waiting for the chunk needed to read it. Never more than the input given.
    public var bufferedByteCount: Int { tail.count + (parser?.context.retained.count ?? 0) }

    /// Absolute offset of the next byte the parser expects.
    public var streamPosition: Int64 { tailOffset + Int64(tail.count) }

    /// Bytes starting at ``streamPosition`` the parser would only step over (chunks it does not read;
    /// in `.indexing` mode, the audio). A reader of a file may seek past them and call ``skip(_:)``.
    public var skippableByteCount: Int64 { tail.isEmpty ? parser?.skippableByteCount ?? 0 : 0 }

    /// Tells the parser `count` bytes (at most ``skippableByteCount``) passed without being given.
    public mutating func skip(_ count: Int64) {
        guard count > 0, tail.isEmpty, var parser = self.parser else { return }
        let step = min(count, parser.skippableByteCount)
        self.parser = nil
        parser.skip(step)
        self.parser = parser
        tailOffset += step
    }

    /// Parses the next bytes of the stream, calling `handler` for each property change and packet run.
    ///
    /// With `.discontinuity`, `streamOffset` may say where in the stream `bytes[0]` lies (a ranged
    /// request after a reconnect); after ``seek(toPacket:)`` the seek's offset is assumed.
    public mutating func parse(
        _ bytes: UnsafeRawBufferPointer, flags: ParseFlags = [], streamOffset: Int64? = nil,
        _ handler: (Event) throws -> Void
    ) throws {
        if let failure { throw failure }
        guard !finished else { throw AudioFileError.illegalOperation("the stream has already finished") }
        if awaitingSeek && !flags.contains(.discontinuity) { return }
        do {
            if flags.contains(.discontinuity) {
                awaitingSeek = false
                tailOffset = streamOffset ?? pendingSeek ?? streamPosition
                tail.removeAll(keepingCapacity: true)
                pendingSeek = nil
                if var parser = self.parser {
                    self.parser = nil
                    parser.discontinuity()
                    self.parser = parser
                }
            }
            try feed(bytes, handler)
        } catch let error as AudioFileError {
            failure = error
            throw error
        }
    }

    /// Parses the next bytes of the stream.
    public mutating func parse(
        _ bytes: [UInt8], flags: ParseFlags = [], streamOffset: Int64? = nil, _ handler: (Event) throws -> Void
    ) throws {
        try bytes.withUnsafeBytes { try parse($0, flags: flags, streamOffset: streamOffset, handler) }
    }

    /// Ends the stream: settles counts to what arrived, notes truncation, or throws when the header
    /// never completed.
    public mutating func finish(_ handler: (Event) throws -> Void = { _ in }) throws {
        if let failure { throw failure }
        guard !finished else { return }
        finished = true
        do {
            if parser == nil {
                try tail.withUnsafeBytes { bytes in
                    if case .parser(let detected) = try detectContainer(
                        bytes, atEnd: true, hint: fileTypeHint, mode: mode,
                        limits: limits, requestsSeeks: requestsSeeks)
                    {
                        parser = detected
                    }
                }
                if !tail.isEmpty {
                    let bytes = tail
                    tail = []
                    tailOffset = 0
                    try bytes.withUnsafeBytes { try feed($0, handler) }
                }
            }
            guard var parser = self.parser else {
                throw AudioFileError.unsupportedFileType("the stream is empty", offset: 0)
            }
            // The unconsumed tail, seen once more as the end of the stream.
            if !tail.isEmpty {
                let bytes = tail
                let consumed = try bytes.withUnsafeBytes { try run($0, baseOffset: tailOffset, atEnd: true, handler) }
                tail.removeFirst(consumed)
                tailOffset += Int64(consumed)
                guard let updated = self.parser else { return }
                parser = updated
            }
            self.parser = nil
            defer { self.parser = parser }
            try parser.finish(endOffset: streamPosition, unconsumed: tail.count)
            parser.context.noteCountsLeavingNoFrame()
            while let id = parser.nextAnnouncement() { try handler(.propertyChanged(id, parser.context.properties)) }
            var settled: [StreamPropertyID] = [
                .audioDataByteCount, .audioDataPacketCount, .maximumPacketSize, .bitRate,
            ]
            if parser.context.properties.packetTableInfo != nil { settled.append(.packetTableInfo) }
            for id in settled { try handler(.propertyChanged(id, parser.context.properties)) }
        } catch let error as AudioFileError {
            failure = error
            throw error
        }
    }

    /// The absolute byte offset of a packet; parse from there with `.discontinuity` to resume at it.
    ///
    /// Exact from the file's tables, constant packets or a seek table; otherwise the estimate that
    /// ``packetToByte(_:)`` gives (the same one), and the packets that follow carry
    /// ``Packets/indexIsKnown`` `false` unless their frames say their index (FLAC). An Ogg packet resumes
    /// at the page it begins on, numbered from the first packet that begins there.
    public mutating func seek(toPacket packet: Int64) throws -> (byteOffset: Int64, isEstimated: Bool) {
        guard var parser = self.parser else {
            throw AudioFileError.illegalOperation("cannot seek before the stream's format is known")
        }
        let average = averageBytesPerPacket?.value
        self.parser = nil
        defer { self.parser = parser }
        let (offset, isEstimate) = try parser.resume(atPacket: packet, averagePacketSize: average)
        pendingSeek = offset
        return (offset, isEstimate)
    }

    /// The first frame of a packet, where packets have a constant frame count.
    public func frame(ofPacket packet: Int64) -> Int64? {
        guard let frames = properties.dataFormat?.framesPerPacket, frames > 0 else { return nil }
        return packet * Int64(frames)
    }

    /// The packet holding a frame and the frame's offset in it, where packets have a constant frame count.
    public func packet(ofFrame frame: Int64) -> (packet: Int64, frameOffset: Int64)? {
        guard let frames = properties.dataFormat?.framesPerPacket, frames > 0, frame >= 0 else { return nil }
        return (frame / Int64(frames), frame % Int64(frames))
    }

    /// Average bytes per packet (Apple's AverageBytesPerPacket): exact where the file states its packet
    /// and byte counts (a header, a packet table, an MPEG-4 sample table; and at the end of any
    /// stream), else a running average over the packets so far, flagged as an estimate.
    public var averageBytesPerPacket: (value: Double, isEstimate: Bool)? {
        let properties = properties
        if finished || parser?.declaresPacketCounts == true, let packets = properties.audioDataPacketCount, packets > 0,
            let bytes = properties.audioDataByteCount
        {
            return (Double(bytes) / Double(packets), false)
        }
        guard deliveredPackets > 0 else { return nil }
        return (Double(deliveredBytes) / Double(deliveredPackets), true)
    }

    /// Apple's PacketToByte: the offset of a packet from the start of the audio data, exact from the
    /// file's tables or constant packets, else estimated from the average packet size.
    public func packetToByte(_ packet: Int64) -> (offset: Int64, isEstimate: Bool)? {
        parser?.packetToByte(packet, averagePacketSize: averageBytesPerPacket?.value)
    }

    /// Apple's ByteToPacket: the packet holding a byte (an offset from the start of the audio data) and
    /// the byte's offset inside it, exact or estimated as ``packetToByte(_:)`` is.
    public func byteToPacket(_ byte: Int64) -> (packet: Int64, offsetInPacket: Int64, isEstimate: Bool)? {
        parser?.byteToPacket(byte, averagePacketSize: averageBytesPerPacket?.value)
    }

    /// The offset of a packet from the start of the audio data.
    public func byteOffset(ofPacket packet: Int64) throws -> Int64 {
        guard let context = parser?.context else {
            throw AudioFileError.illegalOperation("the stream's format is not known yet")
        }
        return try context.byteOffset(ofPacket: packet)
    }

    // MARK: - Driving the parser

    private mutating func feed(_ bytes: UnsafeRawBufferPointer, _ handler: (Event) throws -> Void) throws {
        var index = 0
        // Bytes of this call copied into the tail: while the tail holds no more than those, they are
        // still in `bytes`, and parsing goes back to reading `bytes` in place.
        var copied = 0
        while true {
            if !tail.isEmpty || parser == nil && bytes.count - index < needed {
                // Complete the unit that straddles the last call's end, copying what it needs (at least a few KiB
                // where the call has them: a parser that asks for a byte more is not run a byte at a time).
                let take = min(max(needed - tail.count, Self.leastTailCopy), bytes.count - index)
                tail.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<index + take]))
                index += take
                copied += take
                if tail.count < needed { return }
                let consumed = try tail.withUnsafeBytes { try run($0, baseOffset: tailOffset, atEnd: false, handler) }
                if awaitingSeek {
                    tail.removeAll(keepingCapacity: true)
                    return
                }
                guard consumed > 0 || needed > tail.count else {
                    throw AudioFileError.illegalOperation("parser made no progress at byte \(tailOffset)")
                }
                tail.removeFirst(consumed)
                tailOffset += Int64(consumed)
                if !tail.isEmpty && tail.count <= copied && parser != nil {
                    // What is left came from this call's bytes: read them in place from here on. (The tail's
                    // storage is let go: between calls it holds a frame's remnant, not the few KiB copied here,
                    // which a thousand streams held open would each keep.)
                    index -= tail.count
                    tail = []
                }
                if !tail.isEmpty { continue }
                if index == bytes.count { return }
            }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[index...])
            let consumed = try run(rest, baseOffset: tailOffset, atEnd: false, handler)
            if awaitingSeek { return }
            tailOffset += Int64(consumed)
            tail.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[consumed...]))
            return
        }
    }

    /// The fewest bytes of a call copied into the tail at a time, where the call has them.
    static let leastTailCopy = 4096

    /// Runs the parser over `bytes` until it needs more; returns the bytes it consumed.
    private mutating func run(
        _ bytes: UnsafeRawBufferPointer, baseOffset: Int64, atEnd: Bool, _ handler: (Event) throws -> Void
    ) throws -> Int {
        if parser == nil {
            switch try detectContainer(
                bytes, atEnd: atEnd, hint: fileTypeHint, mode: mode, limits: limits,
                requestsSeeks: requestsSeeks)
            {
            case .parser(let detected): parser = detected
            case .needMore(let count):
                needed = count
                return 0
            }
        }
        guard var parser = self.parser else { return 0 }
        self.parser = nil
        defer { self.parser = parser }
        var cursor = ByteCursor(bytes, baseOffset: baseOffset)
        while true {
            steps += 1
            if let budget = stepBudget, steps > budget {
                throw AudioFileError.limitExceeded(
                    "the parser took more than \(budget) steps", offset: cursor.absoluteOffset)
            }
            switch try parser.next(&cursor, atEnd: atEnd) {
            case .property(let id):
                try handler(.propertyChanged(id, parser.context.properties))
            case .packets(let run):
                // What the step that made the run announced (its data offset, readiness) comes first, as
                // Audio File Stream Services orders it: a listener knows the format before the first packet.
                while let id = parser.nextAnnouncement() {
                    try handler(.propertyChanged(id, parser.context.properties))
                }
                try deliver(
                    run, indexIsKnown: parser.packetIndexIsKnown, input: bytes,
                    descriptions: run.hasDescriptions ? parser.runDescriptions : [], retained: { parser.retainedBytes },
                    handler)
            case .seek(let offset):
                pendingSeek = offset
                awaitingSeek = true
                needed = 1
                try handler(.seekRequested(offset))
                return bytes.count
            case .needMore(let count):
                needed = count
                if atEnd { return cursor.remaining == 0 ? cursor.position : cursor.position }
                return cursor.position
            }
        }
    }

    private mutating func deliver(
        _ run: PacketRun, indexIsKnown: Bool, input: UnsafeRawBufferPointer, descriptions: [PacketDescription],
        retained: () -> [UInt8],
        _ handler: (Event) throws -> Void
    ) throws {
        deliveredPackets += Int64(run.packetCount)
        if run.hasDescriptions {
            deliveredBytes += descriptions.prefix(run.packetCount).reduce(0) { $0 + Int64($1.dataByteSize) }
        } else {
            deliveredBytes += Int64(run.byteCount)
        }
        func emit(_ bytes: UnsafeRawBufferPointer) throws {
            if run.hasDescriptions {
                try descriptions.withUnsafeBufferPointer { descriptions in
                    try handler(
                        .packets(
                            Packets(
                                bytes: bytes, streamOffset: run.absoluteOffset,
                                firstPacket: run.firstPacket, indexIsKnown: indexIsKnown, count: run.packetCount,
                                descriptions: descriptions)))
                }
            } else {
                try handler(
                    .packets(
                        Packets(
                            bytes: bytes, streamOffset: run.absoluteOffset,
                            firstPacket: run.firstPacket, indexIsKnown: indexIsKnown, count: run.packetCount,
                            descriptions: nil)))
            }
        }
        switch run.source {
        case .input(let index):
            try emit(UnsafeRawBufferPointer(rebasing: input[index..<index + run.byteCount]))
        case .retained(let index):
            try retained().withUnsafeBytes {
                try emit(UnsafeRawBufferPointer(rebasing: $0[index..<index + run.byteCount]))
            }
        }
    }
}
