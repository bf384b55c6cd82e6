import AudioFormats
import StreamParsing

/// AC-3 and E-AC-3 elementary streams (ATSC A/52): sync frames that start with 0x0B77. An AC-3 frame's
/// size comes from its rate code and frame-size code and holds 1,536 frames; an E-AC-3 frame states its
/// size and holds 256 frames per block (1, 2, 3 or 6 blocks); a dependent substream (extra channels)
/// belongs to the packet of the independent frame before it. Apple's `ac-3` and `ec-3`.
package struct AC3: FrameFormat {
    static let fileType = FileType.ac3
    static let headerSize = AC3FrameHeader.size
    static let confirmsByNext = true
    static let hasJoiningFrames = true

    /// A frame's second CRC covers it all but the sync word (FLAC's CRC-16, whose residue is 0).
    static func isIntact(_ frame: UnsafeRawBufferPointer) -> Bool {
        frame.count > 4 && FoldedCRC.flac(UnsafeRawBufferPointer(rebasing: frame[2...]), continuing: 0) == 0
    }

    init() {}

    static func fileType(of format: StreamDescription) -> FileType {
        format.formatID == .enhancedAC3 ? .ec3 : .ac3
    }

    mutating func leaderLength(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) throws -> Int? { 0 }

    func frame(_ bytes: UnsafeRawBufferPointer) -> FrameInfo? {
        AC3FrameHeader(bytes).map {
            FrameInfo(length: $0.length, frames: $0.frames, format: $0.format, joinsPrevious: $0.joinsPrevious)
        }
    }
}

extension FileType {
    /// AC-3 elementary streams.
    public static let ac3 = FileType(rawValue: "ac3")
    /// E-AC-3 elementary streams.
    public static let ec3 = FileType(rawValue: "ec3")
}

extension AC3 {
    /// AC-3, whose parser also reads E-AC-3.
    package static let descriptor = ContainerDescriptor(
        .ac3, name: "AC-3", kind: "an AC-3 stream", fileTypeID: "ac-3", extensions: ["ac3"],
        mediaTypes: ["audio/ac3"],
        signatures: [
            FileSignature.Entry(outcome: .read(.ac3)) { bytes, atEnd in FileSignature.ac3(bytes, atEnd: atEnd) }
        ],
        makeParser: { FramedStreamParser<AC3>(mode: $0.mode, limits: $0.limits, leadingTagSize: $0.leadingTagSize) },
        readsBehindID3Tag: true)

    /// E-AC-3, found by AC-3's parser.
    package static let enhancedDescriptor = ContainerDescriptor(
        .ec3, name: "E-AC-3", kind: "an E-AC-3 stream", fileTypeID: "ec-3", extensions: ["ec3", "eac3"],
        mediaTypes: ["audio/eac3"])
}

extension FileSignature {
    /// AC-3 and E-AC-3 sync frames: 0x0B77, a valid frame size, and (where the bytes reach it) the next
    /// frame's sync right after.
    static func ac3(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) -> Verdict {
        let sync = magic(bytes, [0x0B, 0x77])
        guard case .yes = sync else { return sync }
        guard bytes.count >= AC3.headerSize else { return atEnd ? .no : .undecided(AC3.headerSize) }
        // The frame's header as the parser reads it, and the next frame's sync where it says.
        guard let frame = AC3().frame(bytes) else { return .no }
        switch magic(bytes, [0x0B, 0x77], at: frame.length) {
        case .no: return .no
        case .undecided(let count): return atEnd ? .yes() : .undecided(count)
        case .yes: return .yes()
        }
    }
}
