import AudioFormats

/// How a written container frames its packets, one packet at a time: ADTS puts a header before each, Ogg gathers
/// them into pages. A container that lays its packets back to back has none.
package protocol PacketFramer {
    /// Appends `packet` (of `frames` frames; 0: the format's constant count), framed, to `out`.
    mutating func append(packet: UnsafeRawBufferPointer, frames: Int, into out: inout [UInt8]) throws
    /// Appends what follows the last packet (Ogg's last page, with the granule that ends the valid frames).
    mutating func finish(packetTableInfo: PacketTableInfo?, into out: inout [UInt8])
}

extension PacketFramer {
    /// Nothing follows the last packet.
    package mutating func finish(packetTableInfo: PacketTableInfo?, into out: inout [UInt8]) {}
}

/// Which byte order a container stores linear PCM in when the source or the user leaves it free.
public enum PCMByteOrder: Sendable {
    /// Big-endian (AIFF).
    case bigEndian
    /// Little-endian (WAV).
    case littleEndian
    /// Either: the source's own order (CAF).
    case source
}

/// Which channel layout a container records (`-l`).
public enum ChannelLayoutRecording: Sendable {
    /// None: its channels are in its codec's order, or unnamed.
    case none
    /// Any of Apple's layouts (CAF's `chan`).
    case any
    /// Only the speakers of a WAVE_FORMAT_EXTENSIBLE mask, in WAV's one order.
    case waveChannelMask
}

/// What a container gets when a conversion leaves a choice to it: the decisions that belong to the container
/// alone, declared beside its writer and asked by the conversion plan.
public struct WriterPolicy: Sendable {
    /// The data format (afconvert's `-d` spelling) written when neither the settings nor the source decide.
    public var defaultDataFormat: String
    /// The data formats an output name's extension or a `-f` code asks for in place of the default (Ogg's
    /// `.opus` and `-f opus`: Opus, where `.ogg` and `-f ogg` give Vorbis), keyed by the extension with its dot.
    public var dataFormatsByExtension: [String: String]
    /// How it stores linear PCM; `nil` for a container that holds none.
    public var pcmByteOrder: PCMByteOrder?
    /// Whether it stores 8-bit samples signed (AIFF, CAF) or unsigned (WAV).
    public var signedEightBit: Bool
    /// Which channel layout it records.
    public var channelLayouts: ChannelLayoutRecording
    /// Why it cannot carry `picture` beside the rest of `options` (`nil`: it can).
    public var pictureRefusal: @Sendable (Picture, AudioFileWriterOptions) -> String?
    /// Whether it stores whole sample rates only (a rate with a fraction is resampled to the nearest whole one).
    public var wholeSampleRates: Bool
    /// The first type of its family (AIFF for AIFF-C, WAV for RF64): a name of one is a name of the other.
    public var family: FileType?
    /// The type its files become for data it cannot hold but its family can (a `.aif` name with little-endian
    /// or compressed data becomes AIFF-C).
    public var widensTo: FileType?
    /// Codecs it holds only at a constant bit rate, as its players decode them (Opus in CAF).
    public var constantBitRateCodecs: [FourCharCode]

    /// A policy: 16-bit little-endian PCM by default unless told, no layout, every picture, any rate.
    public init(
        defaultDataFormat: String, dataFormatsByExtension: [String: String] = [:], pcmByteOrder: PCMByteOrder? = nil,
        signedEightBit: Bool = true,
        channelLayouts: ChannelLayoutRecording = .none,
        pictureRefusal: @escaping @Sendable (Picture, AudioFileWriterOptions) -> String? = { _, _ in nil },
        wholeSampleRates: Bool = false, family: FileType? = nil, widensTo: FileType? = nil,
        constantBitRateCodecs: [FourCharCode] = []
    ) {
        self.defaultDataFormat = defaultDataFormat
        self.dataFormatsByExtension = dataFormatsByExtension
        self.pcmByteOrder = pcmByteOrder
        self.signedEightBit = signedEightBit
        self.channelLayouts = channelLayouts
        self.pictureRefusal = pictureRefusal
        self.wholeSampleRates = wholeSampleRates
        self.family = family
        self.widensTo = widensTo
        self.constantBitRateCodecs = constantBitRateCodecs
    }
}

extension WriterPolicy {
    /// The data format an output named with `fileExtension` (`.opus`; `nil`: no name) gets by default.
    public func defaultDataFormat(forExtension fileExtension: String?) -> String {
        fileExtension.flatMap { dataFormatsByExtension[$0.lowercased()] } ?? defaultDataFormat
    }
}

/// Where a container keeps the cookie an encoder completes at the end.
public enum CookiePlacement: Sendable {
    /// In the header (CAF's `kuki`, an MPEG-4 sample entry, FLAC's `STREAMINFO`): the writer makes it again with
    /// the final cookie.
    case header
    /// As the stream's first packet (LAME's tag frame in MP3): the encoder writes a stand-in frame first, which
    /// the final cookie overwrites; the header holds none.
    case firstPacket
}

/// How afkit writes a container, declared in its descriptor: its layout (header and trailer around the packets
/// for given counts), how it frames packets, where the final cookie goes and whether the header may grow, and
/// its policy for what a conversion leaves to it. ``AudioFileWriter`` and the conversion plan ask this, never
/// the file type.
public struct ContainerWriter: Sendable {
    /// The header and trailer for a format, options and counts; the size reserved for the header when the file
    /// is finished (`nil` while it is provisional). Throws the error writing would (`fmt?`) for data it cannot hold.
    package let layout:
        @Sendable (StreamDescription, AudioFileWriterOptions, WrittenCounts, Int?) throws -> ContainerLayout
    /// Its packet framing for a format and options (`nil`: packets back to back).
    package let makeFramer: (@Sendable (StreamDescription, AudioFileWriterOptions) throws -> any PacketFramer)?
    /// Where the cookie completed at the end goes.
    public let cookiePlacement: CookiePlacement
    /// Whether its final header may outgrow the room left for it (MPEG-4's sample tables), moving the audio up.
    public let headerMayGrow: Bool
    /// What a conversion leaves to it.
    public let policy: WriterPolicy

    package init(
        policy: WriterPolicy, cookiePlacement: CookiePlacement = .header, headerMayGrow: Bool = false,
        makeFramer: (@Sendable (StreamDescription, AudioFileWriterOptions) throws -> any PacketFramer)? = nil,
        layout:
            @escaping @Sendable (StreamDescription, AudioFileWriterOptions, WrittenCounts, Int?) throws ->
            ContainerLayout
    ) {
        self.layout = layout
        self.makeFramer = makeFramer
        self.cookiePlacement = cookiePlacement
        self.headerMayGrow = headerMayGrow
        self.policy = policy
    }
}
