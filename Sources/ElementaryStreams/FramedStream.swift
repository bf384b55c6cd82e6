import AudioFormats
import StreamParsing

/// One frame of a framed format, as its header describes it.
struct FrameInfo {
    /// Bytes of the frame, header included.
    var length: Int
    /// Frames (samples per channel) it decodes to.
    var frames: Int
    /// The format it implies.
    var format: StreamDescription
    /// Whether it belongs to the packet before it (an E-AC-3 dependent substream) rather than starting one.
    var joinsPrevious = false
}

/// A format of frames whose headers give their lengths (AMR, AC-3/E-AC-3), read by ``FramedStreamParser``.
protocol FrameFormat: Sendable {
    /// The container the format is.
    static var fileType: FileType { get }
    /// A format before its leader is read.
    init()
    /// Reads the bytes before the first frame (AMR's magic, which fixes the variant): their count, `nil`
    /// where more bytes are needed, or an error that names what the file is when afkit does not read it.
    mutating func leaderLength(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) throws -> Int?
    /// The container a stream whose first frame has `format` is (AC-3's or E-AC-3's).
    static func fileType(of format: StreamDescription) -> FileType
    /// Bytes from a frame's start that tell its length.
    static var headerSize: Int { get }
    /// The frame at the start of `bytes` (at least ``headerSize`` of them), or `nil` where none starts.
    func frame(_ bytes: UnsafeRawBufferPointer) -> FrameInfo?
    /// Whether the format has a sync word to resynchronize on: bytes that are no frame are then passed
    /// over; without one (AMR), such bytes are an error.
    static var confirmsByNext: Bool { get }
    /// Whether a whole frame checks (AC-3's CRC); a sync word that data imitates fails it.
    static func isIntact(_ frame: UnsafeRawBufferPointer) -> Bool
    /// Whether frames may join the packet before them (E-AC-3's dependent substreams).
    static var hasJoiningFrames: Bool { get }
}

extension FrameFormat {
    static func fileType(of format: StreamDescription) -> FileType { fileType }
    static func isIntact(_ frame: UnsafeRawBufferPointer) -> Bool { true }
    static var hasJoiningFrames: Bool { false }
}

/// The push parser for ``FrameFormat``s: a leader, then frames back to back, one packet each (an
/// E-AC-3 dependent substream joins the packet before it). A frame is found by its header and confirmed
/// by its own check (AC-3's CRC); where a sync word allows it, bytes that are no frame are passed over
/// and noted; where none does, they are a `dta?` error at their offset. A last frame cut short is not a
/// packet and marks the stream truncated.
struct FramedStreamParser<Format: FrameFormat>: StreamParser {
    // Here, where the context is a stored property: the protocol's default, in StreamParsing, would copy it.
    var runDescriptions: [PacketDescription] { context.descriptions }
    var packetIndexIsKnown: Bool { context.packetIndexIsKnown }
    var retainedBytes: [UInt8] { context.retained.bytes }

    var context: ParseContext
    private var format = Format()
    private var leaderRead = false
    private var first: FrameInfo?
    private var junk: (start: Int64, count: Int64)?
    private var largest = 0
    private var bytesSeen: Int64 = 0
    private var lastEnd: Int64?
    private var framesSeen: Int64 = 0
    private var packetsSeen: Int64 = 0
    /// Whether every packet so far has had one size (a seek is then exact).
    private var constantSize: Int?? = .none
    /// Whether the stream's packets gather joining frames (E-AC-3 dependent substreams), as its first packet shows:
    /// the substreams a program carries do not change within it, so where the first packet has none, each later
    /// frame is a packet as soon as its bytes are whole (Apple's delivery: a client that never closes the stream
    /// still gets the last); `nil` until the first packet is whole.
    private var joins: Bool?

    /// The bytes of a leading ID3v2 tag still to step over.
    private var tagRemaining: Int64

    /// `leadingTagSize`: the bytes of an ID3v2 tag before the stream (HLS packed audio's timestamp), stepped over.
    init(mode: ParseMode, limits: ParserLimits, leadingTagSize: Int = 0) {
        context = ParseContext(mode: mode, limits: limits)
        context.properties.fileType = Format.fileType
        tagRemaining = Int64(leadingTagSize)
        if mode == .indexing { context.packetIndex = [] }
    }

    var skippableByteCount: Int64 { tagRemaining }
    mutating func skip(_ count: Int64) { tagRemaining = max(tagRemaining - count, 0) }
    mutating func nextAnnouncement() -> StreamPropertyID? { context.nextAnnouncement() }
    mutating func discontinuity() { endJunk() }

    private var name: String { Format.fileType.rawValue }

    mutating func next(_ cursor: inout ByteCursor, atEnd: Bool) throws -> ParserStep {
        while true {
            if let id = context.nextAnnouncement() { return .property(id) }
            guard cursor.remaining > 0 else { return .needMore(1) }
            if tagRemaining > 0 {
                let count = Int(min(Int64(cursor.remaining), tagRemaining))
                _ = cursor.skip(count)
                tagRemaining -= Int64(count)
                if tagRemaining == 0 {
                    context.properties.trace.append(offset: 0, size: cursor.absoluteOffset, "ID3v2 tag stepped over")
                }
                continue
            }
            let bytes = UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.position...])
            if !leaderRead {
                guard let count = try format.leaderLength(bytes, atEnd: atEnd) else {
                    return .needMore(bytes.count + 1)
                }
                leaderRead = true
                context.announce(.fileFormat)
                _ = cursor.skip(count)
                continue
            }
            let offset = cursor.absoluteOffset
            if bytes.count < Format.headerSize && !atEnd { return .needMore(Format.headerSize) }
            guard let frame = bytes.count >= Format.headerSize ? format.frame(bytes) : nil,
                first.map({
                    $0.format.formatID == frame.format.formatID && $0.format.sampleRate == frame.format.sampleRate
                })
                    ?? true
            else {
                if bytes.count < Format.headerSize {
                    cutShort(&cursor, at: offset, bytes.count)
                    return .needMore(1)
                }
                guard Format.confirmsByNext else {
                    throw AudioFileError.malformed(
                        "\(name): the frame header at byte \(offset) is not valid: the stream is damaged",
                        offset: offset)
                }
                passJunk(&cursor)
                continue
            }
            if frame.joinsPrevious, joins == false {
                // A dependent substream in a stream whose first packet had none: not a packet of its own.
                passJunk(&cursor)
                continue
            }
            // The packet: this frame, whole and intact, and any that join it.
            if bytes.count < frame.length {
                if !atEnd { return .needMore(frame.length) }
                cutShort(&cursor, at: offset, bytes.count)
                return .needMore(1)
            }
            guard Format.isIntact(UnsafeRawBufferPointer(rebasing: bytes[0..<frame.length])) else {
                passJunk(&cursor)
                continue
            }
            var length = frame.length
            if Format.hasJoiningFrames, joins != false {
                while true {
                    if bytes.count < length + Format.headerSize {
                        if !atEnd { return .needMore(length + Format.headerSize) }
                        break
                    }
                    let rest = UnsafeRawBufferPointer(rebasing: bytes[length...])
                    guard let next = format.frame(rest), next.joinsPrevious else { break }
                    if rest.count < next.length {
                        // A joining frame not yet whole: the packet waits for it.
                        if !atEnd { return .needMore(length + next.length) }
                        break
                    }
                    guard Format.isIntact(UnsafeRawBufferPointer(rebasing: rest[0..<next.length])) else { break }
                    length += next.length
                }
                if joins == nil { joins = length > frame.length }
            }
            if let step = accept(frame, length: length, cursor: &cursor) { return step }
        }
    }

    /// An ID3v1 or APE tag after the last frame.
    private func isTag(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 3
            && (bytes.starts(with: "TAG".utf8) || bytes.starts(with: "ID3".utf8) || bytes.starts(with: "APE".utf8))
    }

    private mutating func cutShort(_ cursor: inout ByteCursor, at offset: Int64, _ count: Int) {
        endJunk()
        if first != nil && !isTag(UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.position...])) {
            context.properties.isTruncated = true
            context.properties.trace.append(
                offset: offset, size: Int64(count), "the last frame is cut short (\(count) bytes): not a packet")
        }
        _ = cursor.skip(count)
    }

    private mutating func passJunk(_ cursor: inout ByteCursor) {
        if junk == nil { junk = (cursor.absoluteOffset, 0) }
        junk?.count += 1
        _ = cursor.skip(1)
    }

    private mutating func endJunk() {
        guard let junk else { return }
        context.properties.trace.append(
            offset: junk.start, size: junk.count, "\(junk.count) bytes that are not frames skipped")
        context.noteDamage("\(name): \(junk.count) bytes at byte \(junk.start) are not frames; skipped")
        self.junk = nil
    }

    private mutating func accept(_ frame: FrameInfo, length: Int, cursor: inout ByteCursor) -> ParserStep? {
        endJunk()
        let offset = cursor.absoluteOffset
        if first == nil {
            first = frame
            context.properties.fileType = Format.fileType(of: frame.format)
            context.properties.dataFormat = frame.format
            context.properties.dataOffset = offset
            context.announce(.dataFormat)
            context.announce(.dataOffset)
            context.announcedReady = true
            context.announce(.readyToProducePackets)
        } else if frame.format.channelsPerFrame != first?.format.channelsPerFrame {
            context.properties.trace.append(
                offset: offset,
                "the channels change to \(frame.format.channelsPerFrame): the first frame's are reported")
        }
        switch constantSize {
        case .none: constantSize = .some(length)
        case .some(let size?) where size != length: constantSize = .some(nil)
        default: break
        }
        largest = max(largest, length)
        bytesSeen += Int64(length)
        framesSeen += Int64(frame.frames)
        lastEnd = offset + Int64(length)
        packetsSeen += 1
        numberResumedPacket(at: offset)
        let packet = context.nextPacket
        context.noteSeenPacket(packet, at: offset)
        context.nextPacket += 1
        context.packetIndex?.append(
            PacketDescription(startOffset: offset, variableFramesInPacket: 0, dataByteSize: UInt32(length)))
        _ = cursor.skip(length)
        if context.mode == .indexing { return nil }
        context.beginPacketRun()
        _ = context.appendPacket(at: 0, size: UInt32(length), frames: 0)
        return .packets(
            PacketRun(
                source: .input(index: cursor.position - length), firstPacket: packet, packetCount: 1,
                absoluteOffset: offset, byteCount: length, hasDescriptions: true))
    }

    package mutating func finish(endOffset: Int64, unconsumed: Int) throws {
        endJunk()
        guard context.properties.dataFormat != nil else {
            throw AudioFileError.truncated("\(name): the stream holds no whole frame", offset: endOffset)
        }
        context.properties.audioDataPacketCount = context.nextPacket
        context.properties.audioDataByteCount = bytesSeen
        context.properties.maximumPacketSize = UInt32(largest)
    }

    /// Resumes at a packet: exact where every packet so far had one size (CBR) or the index holds it, else at
    /// the average's estimate, the frame found there numbered from its own offset.
    mutating func resume(atPacket packet: Int64, averagePacketSize: Double?) throws -> (
        offset: Int64, isEstimate: Bool
    ) {
        guard let dataOffset = context.properties.dataOffset, packet >= 0,
            let estimate = packetToByte(packet, averagePacketSize: averagePacketSize)
        else {
            throw AudioFileError.illegalOperation("\(name): cannot seek before the first frame")
        }
        guard !estimate.isEstimate || Format.confirmsByNext else {
            throw AudioFileError.illegalOperation(
                "\(name): frames of varying sizes carry no sync word: a seek needs the file indexed first")
        }
        resumeNumbering(atPacket: packet, isEstimate: estimate.isEstimate, averagePacketSize: averagePacketSize)
        let (offset, overflow) = dataOffset.addingReportingOverflow(estimate.offset)
        return (overflow ? Int64.max : offset, estimate.isEstimate)
    }

    func packetToByte(_ packet: Int64, averagePacketSize: Double?) -> (offset: Int64, isEstimate: Bool)? {
        guard packet >= 0 else { return nil }
        if let start = context.knownStart(ofPacket: packet), let dataOffset = context.properties.dataOffset {
            return (start - dataOffset, false)
        }
        if let size = constantSize.flatMap({ $0 }) {
            return packet.multipliedOrNil(by: Int64(size)).map { ($0, false) }
        }
        let average = packetsSeen > 0 ? Double(bytesSeen) / Double(packetsSeen) : nil
        return averageEstimate(packet, averagePacketSize: averagePacketSize ?? average)
    }
}
