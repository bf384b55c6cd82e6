import AudioFormats

/// The facts `afkit info` reports for a parsed file, computed as the command-line contract says.
public struct AudioFileSummary: Sendable {
    public var container: FileType
    public var format: StreamDescription
    /// Every layer, richest first (more than one for HE-AAC).
    public var formatList: [StreamDescription]
    /// For MPEG-4 files: whether `moov` precedes the audio.
    public var isOptimized: Bool?
    public var packetCount: Int64
    public var primingFrames: Int64
    public var remainderFrames: Int64
    /// Valid frames: decoded frames less priming and remainder, or what the file states.
    public var frameCount: Int64
    public var durationSeconds: Double
    public var dataOffset: Int64
    public var dataByteCount: Int64
    public var bitRate: Int64
    public var maximumPacketSize: Int64
    public var magicCookie: [UInt8]?
    public var metadata: [String: String]
    public var isTruncated: Bool

    /// Summarizes settled stream properties (after `finish`).
    public init(_ properties: StreamProperties) throws {
        guard let container = properties.fileType, let format = properties.dataFormat else {
            throw AudioFileError.illegalOperation("the stream has not been parsed to its end")
        }
        self.container = container
        self.format = format
        formatList = properties.formatList
        isOptimized = properties.isOptimized
        packetCount = properties.audioDataPacketCount ?? 0
        primingFrames = Int64(properties.packetTableInfo?.primingFrames ?? 0)
        remainderFrames = Int64(properties.packetTableInfo?.remainderFrames ?? 0)
        frameCount = max(0, properties.validFrameCount ?? 0)
        durationSeconds = format.sampleRate > 0 ? Double(frameCount) / format.sampleRate : 0
        dataOffset = properties.dataOffset ?? 0
        dataByteCount = properties.audioDataByteCount ?? 0
        bitRate = properties.bitRate ?? 0
        maximumPacketSize = Int64(properties.maximumPacketSize ?? 0)
        magicCookie = properties.magicCookie
        metadata = properties.infoDictionary
        isTruncated = properties.isTruncated
    }

    /// The `format` object of the contract.
    public var formatJSON: JSONValue { Self.formatJSON(format) }

    /// A stream description as the contract's `format` object.
    public static func formatJSON(_ format: StreamDescription) -> JSONValue {
        .object([
            ("id", .string(format.formatID.description)),
            ("sampleRate", .number(format.sampleRate)),
            ("channels", .integer(Int64(format.channelsPerFrame))),
            ("bitsPerChannel", .integer(Int64(format.bitsPerChannel))),
            ("framesPerPacket", .integer(Int64(format.framesPerPacket))),
            ("bytesPerPacket", .integer(Int64(format.bytesPerPacket))),
            ("bytesPerFrame", .integer(Int64(format.bytesPerFrame))),
            ("flags", .integer(Int64(format.formatFlags.rawValue))),
        ])
    }

    /// The contract's fields after `path`, in its order.
    public var jsonFields: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [
            ("container", .string(container.rawValue)),
            ("format", formatJSON),
        ]
        if formatList.count > 1 { fields.append(("formatList", .array(formatList.map(Self.formatJSON)))) }
        fields += [
            ("packetCount", .integer(packetCount)),
            ("primingFrames", .integer(primingFrames)),
            ("remainderFrames", .integer(remainderFrames)),
            ("frameCount", .integer(frameCount)),
            ("durationSeconds", .number(durationSeconds)),
            ("dataOffset", .integer(dataOffset)),
            ("dataByteCount", .integer(dataByteCount)),
            ("bitRate", .integer(bitRate)),
            ("maximumPacketSize", .integer(maximumPacketSize)),
        ]
        if let cookie = magicCookie { fields.append(("magicCookie", .string(hexString(cookie)))) }
        if !metadata.isEmpty {
            fields.append(("metadata", .object(metadata.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        fields.append(("truncated", .bool(isTruncated)))
        return fields
    }
}

/// Lower-case hex digits, two per byte.
public func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    var text = ""
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0xF)])
    }
    return text
}
