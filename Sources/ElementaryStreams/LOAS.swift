import AudioFormats
import StreamParsing

/// LOAS/LATM (ISO/IEC 14496-3, 1.7): AudioSyncStream frames, each an 11-bit sync (0x2B7), a 13-bit
/// length and an AudioMuxElement whose StreamMuxConfig (in the first frame, and again every few frames)
/// carries the AudioSpecificConfig, then the AAC access unit, bit-aligned behind the mux fields. A packet
/// is a whole LOAS frame, as FFmpeg's demuxer gives it; the format is the AudioSpecificConfig's (`aac `,
/// 1024 frames a packet), read from the first frame. LATM framing is not AAC's: the packets are decoded
/// whole by an engine that reads LATM (``AudioFile/decodingFormat`` names them `latm`), never copied as
/// AAC access units.
package struct LOAS: FrameFormat {
    static let fileType = FileType.loas
    static let headerSize = 3
    static let confirmsByNext = true

    /// The stream's format, from the first frame's StreamMuxConfig.
    private(set) var format: StreamDescription?
    /// The AudioSpecificConfig (byte-aligned) the first frame carries.
    private(set) var audioSpecificConfig: [UInt8] = []

    init() {}

    /// Reads the first frame's StreamMuxConfig (no bytes precede the frames): `nil` until the whole frame
    /// is there.
    mutating func leaderLength(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) throws -> Int? {
        guard bytes.count >= Self.headerSize, let length = Self.frameLength(bytes) else {
            if atEnd || bytes.count >= Self.headerSize {
                throw AudioFileError.unsupportedFileType("loas: no AudioSyncStream sync word", offset: 0)
            }
            return nil
        }
        guard bytes.count >= length else {
            if atEnd { throw AudioFileError.truncated("loas: the first frame is cut short", offset: 0) }
            return nil
        }
        let config = try Self.streamMuxConfig(Array(bytes[Self.headerSize..<length]))
        guard let parsed = AudioSpecificConfig(config), let core = parsed.formatList.last, core.channelsPerFrame > 0
        else {
            throw AudioFileError.unsupportedDataFormat(
                "loas: the AudioSpecificConfig names no rate or standard channel layout", offset: 3)
        }
        audioSpecificConfig = config
        format = core
        return 0
    }

    func frame(_ bytes: UnsafeRawBufferPointer) -> FrameInfo? {
        guard let length = Self.frameLength(bytes), let format else { return nil }
        return FrameInfo(length: length, frames: Int(format.framesPerPacket), format: format)
    }

    /// A frame's length, header included, where `bytes` start with the sync word.
    static func frameLength(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 3, bytes[0] == 0x56, bytes[1] & 0xE0 == 0xE0 else { return nil }
        return 3 + (Int(bytes[1] & 0x1F) << 8 | Int(bytes[2]))
    }

    /// The AudioSpecificConfig of an AudioMuxElement that carries a StreamMuxConfig (one program, one
    /// layer), byte-aligned; throws where the element carries none or one afkit does not read.
    static func streamMuxConfig(_ element: [UInt8]) throws -> [UInt8] {
        var reader = BitReader(element)
        func value() -> Int? {
            // LatmGetValue: 2 bits for the count of further bytes, then the bytes.
            guard let bytes = reader.read(2) else { return nil }
            return reader.read((bytes + 1) * 8)
        }
        let malformed = AudioFileError.malformed("loas: the StreamMuxConfig is cut short", offset: 3)
        guard let same = reader.read(1) else { throw malformed }
        guard same == 0 else {
            throw AudioFileError.unsupportedDataFormat(
                "loas: the first frame carries no StreamMuxConfig (the stream was cut mid-way)", offset: 3)
        }
        guard let version = reader.read(1) else { throw malformed }
        if version == 1 {
            guard let versionA = reader.read(1), versionA == 0 else {
                throw AudioFileError.unsupportedDataFormat("loas: StreamMuxConfig version A 1 is reserved", offset: 3)
            }
            guard value() != nil else { throw malformed }  // taraBufferFullness
        }
        guard reader.read(1) != nil, reader.read(6) != nil, let programs = reader.read(4), let layers = reader.read(3)
        else { throw malformed }
        guard programs == 0, layers == 0 else {
            throw AudioFileError.unsupportedDataFormat(
                "loas: \(programs + 1) programs of \(layers + 1) layers; afkit reads one AAC stream",
                offset: 3)
        }
        // Version 1 states the config's length; version 0 leaves it to the config, read here to its end
        // (an AudioSpecificConfig is at most a few bytes: 64 bits taken, the parser reads what it needs).
        let bits: Int
        if version == 1 {
            guard let length = value(), length > 0, length <= reader.remaining else { throw malformed }
            bits = length
        } else {
            bits = min(64, reader.remaining)
        }
        var config: [UInt8] = []
        var left = bits
        while left > 0 {
            let take = min(8, left)
            guard let byte = reader.read(take) else { throw malformed }
            config.append(UInt8(byte << (8 - take)))
            left -= take
        }
        return config
    }
}

extension FileType {
    /// LOAS/LATM: AAC in AudioSyncStream frames.
    public static let loas = FileType(rawValue: "loas")
}

extension LOAS {
    /// LOAS, read only; records no priming.
    package static let descriptor = ContainerDescriptor(
        .loas, name: "LOAS", kind: "a LOAS/LATM stream", fileTypeID: "loas", extensions: ["loas", "latm", "xhe"],
        mediaTypes: ["audio/mp4a-latm"],
        signatures: [
            FileSignature.Entry(outcome: .read(.loas)) { bytes, atEnd in FileSignature.loas(bytes, atEnd: atEnd) }
        ],
        makeParser: { FramedStreamParser<LOAS>(mode: $0.mode, limits: $0.limits) })
}
