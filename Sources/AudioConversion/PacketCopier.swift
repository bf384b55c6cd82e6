import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioEngines
import AudioFormats

/// The route that re-encodes nothing (``ConversionPlan/Route/copyPackets``): a file's packets copied
/// untouched (AAC from ADTS, CAF or M4A, and Apple Lossless from CAF or M4A, into another container),
/// with their cookie (an ALAC cookie as its bare ALACSpecificConfig) and gapless numbers, in runs.
public struct PacketCopier {
    /// The packets' format: the source's.
    public let destinationFormat: StreamDescription
    /// The source's priming frames, kept.
    public var primingFrames: Int { Int(packetTableInfo?.primingFrames ?? 0) }
    /// The cookie as containers store it (an ES descriptor for AAC).
    public let magicCookie: [UInt8]?
    /// The largest packet, where the source says.
    public let maximumPacketSize: Int
    /// The source's priming, remainder and valid frames.
    public let packetTableInfo: PacketTableInfo?
    /// The valid frames of the copy.
    public let validFrames: Int64
    private let file: AudioFile
    private var nextPacket: Int64 = 0

    /// Copies `file`'s packets.
    public init(_ file: AudioFile) throws {
        self.file = file
        destinationFormat = file.dataFormat
        let cookie = file.properties.magicCookie ?? []
        magicCookie =
            switch file.dataFormat.formatID {
            case .aac: AudioSpecificConfig.elementaryStreamDescriptor(inCookie: cookie)
            case .alac: AppleLossless.specificConfig(inCookie: cookie) ?? cookie
            default: cookie
            }
        packetTableInfo = file.properties.packetTableInfo
        let summary = try AudioFileSummary(file.properties)
        validFrames = summary.frameCount
        maximumPacketSize = Int(file.properties.maximumPacketSize ?? 0)
    }

    /// Appends up to `maximum` of the source's packets, their descriptions relative to `packets.bytes`
    /// (container framing such as ADTS headers left out); `false` when none are left.
    public mutating func copyPackets(maximum: Int, into packets: inout EncodedPackets) throws -> Bool {
        guard nextPacket < file.packetCount else { return false }
        let (bytes, descriptions) = try file.readPackets(from: nextPacket, count: maximum)
        guard !descriptions.isEmpty else { return false }
        try bytes.withUnsafeBytes { raw in
            for description in descriptions {
                let start = Int(description.startOffset)
                let end = start + Int(description.dataByteSize)
                guard start >= 0, end <= raw.count else {
                    throw AudioFileError.invalidPacket("copy: packet lies outside the bytes read", offset: nil)
                }
                packets.append(
                    packet: UnsafeRawBufferPointer(rebasing: raw[start..<end]),
                    variableFrames: Int(description.variableFramesInPacket))
            }
        }
        nextPacket += Int64(descriptions.count)
        return true
    }
}
