/// A description of an audio stream: Apple's AudioStreamBasicDescription, same fields, same flag bits.
@frozen
public struct StreamDescription: Hashable, Sendable {
    /// Frames per second of the stream at its natural rate.
    public var sampleRate: Double
    /// The data format, such as `.lpcm` or `.ima4`.
    public var formatID: FourCharCode
    /// Format-specific flags; for linear PCM the bits of `FormatFlags`.
    public var formatFlags: FormatFlags
    /// Bytes in a packet, or 0 where packets vary in size.
    public var bytesPerPacket: UInt32
    /// Frames in a packet, or 0 where packets vary in frame count.
    public var framesPerPacket: UInt32
    /// Bytes from one frame to the next, or 0 for compressed formats.
    public var bytesPerFrame: UInt32
    /// Channels in each frame.
    public var channelsPerFrame: UInt32
    /// Bits of sample data per channel, or 0 for compressed formats.
    public var bitsPerChannel: UInt32

    /// A description with AudioStreamBasicDescription's fields.
    public init(
        sampleRate: Double, formatID: FourCharCode, formatFlags: FormatFlags = [], bytesPerPacket: UInt32,
        framesPerPacket: UInt32, bytesPerFrame: UInt32, channelsPerFrame: UInt32, bitsPerChannel: UInt32
    ) {
        self.sampleRate = sampleRate
        self.formatID = formatID
        self.formatFlags = formatFlags
        self.bytesPerPacket = bytesPerPacket
        self.framesPerPacket = framesPerPacket
        self.bytesPerFrame = bytesPerFrame
        self.channelsPerFrame = channelsPerFrame
        self.bitsPerChannel = bitsPerChannel
    }

    /// The AudioStreamBasicDescription format flags. Apple's bit meanings.
    @frozen
    public struct FormatFlags: OptionSet, Hashable, Sendable {
        /// The flag bits.
        public var rawValue: UInt32
        /// Flags from their bits.
        @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// `kAudioFormatFlagIsFloat`.
        public static let isFloat = FormatFlags(rawValue: 1 << 0)
        /// `kAudioFormatFlagIsBigEndian`.
        public static let isBigEndian = FormatFlags(rawValue: 1 << 1)
        /// `kAudioFormatFlagIsSignedInteger`.
        public static let isSignedInteger = FormatFlags(rawValue: 1 << 2)
        /// `kAudioFormatFlagIsPacked`.
        public static let isPacked = FormatFlags(rawValue: 1 << 3)
        /// `kAudioFormatFlagIsAlignedHigh`.
        public static let isAlignedHigh = FormatFlags(rawValue: 1 << 4)
        /// `kAudioFormatFlagIsNonInterleaved`.
        public static let isNonInterleaved = FormatFlags(rawValue: 1 << 5)
        /// `kAudioFormatFlagIsNonMixable`.
        public static let isNonMixable = FormatFlags(rawValue: 1 << 6)
    }

    /// Interleaved, packed linear PCM.
    ///
    /// Integer samples of 8 bits are unsigned (no signed-integer bit) unless `signed8` is set;
    /// wider integers are signed. Samples narrower than their container sit at its top (Apple's
    /// aligned-high bit) unless `isAlignedLow` is set.
    public static func linearPCM(
        sampleRate: Double, channels: UInt32, bitsPerChannel: UInt32, isFloat: Bool = false,
        isBigEndian: Bool = false, bytesPerSample: UInt32? = nil, signed8: Bool = false, isAlignedLow: Bool = false
    ) -> StreamDescription {
        let width = bytesPerSample ?? (bitsPerChannel + 7) / 8
        var flags: FormatFlags = []
        if isFloat {
            flags.insert(.isFloat)
        } else if bitsPerChannel > 8 || signed8 {
            flags.insert(.isSignedInteger)
        }
        // The bit says how the container stores samples, also for one-byte samples.
        if isBigEndian { flags.insert(.isBigEndian) }
        if UInt64(width) * 8 == UInt64(bitsPerChannel) {
            flags.insert(.isPacked)
        } else if !isAlignedLow {
            flags.insert(.isAlignedHigh)
        }
        return StreamDescription(
            sampleRate: sampleRate, formatID: .lpcm, formatFlags: flags, bytesPerPacket: width * channels,
            framesPerPacket: 1, bytesPerFrame: width * channels, channelsPerFrame: channels,
            bitsPerChannel: bitsPerChannel)
    }

    /// Apple IMA4: packets of 64 frames in 34 bytes per channel.
    public static func appleIMA4(sampleRate: Double, channels: UInt32) -> StreamDescription {
        StreamDescription(
            sampleRate: sampleRate, formatID: .ima4, bytesPerPacket: 34 * channels, framesPerPacket: 64,
            bytesPerFrame: 0, channelsPerFrame: channels, bitsPerChannel: 0)
    }

    /// Apple Lossless: packets that vary in size; the flags say the source's bit depth (1: 16, 2: 20,
    /// 3: 24, 4: 32 bits), as Apple's ALAC descriptions do.
    public static func appleLossless(sampleRate: Double, channels: UInt32, bitDepth: Int, framesPerPacket: UInt32)
        -> StreamDescription
    {
        StreamDescription(
            sampleRate: sampleRate, formatID: .alac,
            formatFlags: losslessFlags(bitDepth: bitDepth) ?? FormatFlags(rawValue: 1),
            bytesPerPacket: 0, framesPerPacket: framesPerPacket, bytesPerFrame: 0, channelsPerFrame: channels,
            bitsPerChannel: 0)
    }

    /// FLAC: packets that vary in size; the flags say the source's bit depth as Apple Lossless's do
    /// (0 for depths other than 16, 20, 24 and 32, whose frames say theirs).
    public static func flac(sampleRate: Double, channels: UInt32, bitDepth: Int, framesPerPacket: UInt32)
        -> StreamDescription
    {
        StreamDescription(
            sampleRate: sampleRate, formatID: .flac, formatFlags: losslessFlags(bitDepth: bitDepth) ?? [],
            bytesPerPacket: 0, framesPerPacket: framesPerPacket, bytesPerFrame: 0, channelsPerFrame: channels,
            bitsPerChannel: 0)
    }

    /// Apple's lossless source-depth flags, both ways: 1 for 16 bits, 2 for 20, 3 for 24, 4 for 32.
    private static let losslessDepths: [UInt32: Int] = [1: 16, 2: 20, 3: 24, 4: 32]

    /// The flags naming a lossless source's depth; `nil` for a depth they cannot name.
    static func losslessFlags(bitDepth: Int) -> FormatFlags? {
        losslessDepths.first { $0.value == bitDepth }.map { FormatFlags(rawValue: $0.key) }
    }

    /// G.711 u-law or A-law: one byte per sample.
    public static func g711(_ formatID: FourCharCode, sampleRate: Double, channels: UInt32) -> StreamDescription {
        StreamDescription(
            sampleRate: sampleRate, formatID: formatID, bytesPerPacket: channels, framesPerPacket: 1,
            bytesPerFrame: channels, channelsPerFrame: channels, bitsPerChannel: 8)
    }

    /// The bits of the samples a lossless format gives back exactly: integer linear PCM's depth, or the
    /// source depth Apple Lossless and FLAC flags name (16, 20, 24 or 32); `nil` for float and lossy formats.
    public var losslessBitDepth: Int? {
        switch formatID {
        case .lpcm: formatFlags.contains(.isFloat) ? nil : Int(bitsPerChannel)
        case .alac, .flac: Self.losslessDepths[formatFlags.rawValue]
        default: nil
        }
    }

    /// Whether every packet has the same byte size and frame count.
    @inlinable
    public var hasConstantPackets: Bool { bytesPerPacket > 0 && framesPerPacket > 0 }

    /// Whether this is linear PCM.
    @inlinable
    public var isLinearPCM: Bool { formatID == .lpcm }

    /// A short human-readable form, in the style of afinfo.
    public var summary: String {
        var parts = ["\(channelsPerFrame) ch", "\(formatSampleRate(sampleRate)) Hz", "'\(formatID)'"]
        if isLinearPCM {
            let kind =
                formatFlags.contains(.isFloat)
                ? "float" : formatFlags.contains(.isSignedInteger) ? "signed integer" : "unsigned integer"
            // A sample's bytes: a frame's over its channels, or a non-interleaved buffer's frame whole.
            let nonInterleaved = formatFlags.contains(.isNonInterleaved)
            let sampleBytes = nonInterleaved ? bytesPerFrame : bytesPerFrame / max(channelsPerFrame, 1)
            let order = sampleBytes > 1 ? (formatFlags.contains(.isBigEndian) ? " big-endian" : " little-endian") : ""
            parts.append(
                "(0x\(String(formatFlags.rawValue, radix: 16, uppercase: true))) \(bitsPerChannel)-bit\(order) \(kind)"
                    + (nonInterleaved ? ", non-interleaved" : ""))
        } else {
            parts.append("(0x\(String(formatFlags.rawValue, radix: 16, uppercase: true)))")
            parts.append(bytesPerPacket == 0 ? "variable bytes/packet" : "\(bytesPerPacket) bytes/packet")
            parts.append(framesPerPacket == 0 ? "variable frames/packet" : "\(framesPerPacket) frames/packet")
        }
        return parts.joined(separator: ", ")
    }
}

/// Prints a rate without a fractional part when it is whole (`22050`, `8912.75`), and any rate too
/// large for an integer as a double.
public func formatSampleRate(_ rate: Double) -> String {
    if rate.isFinite, rate == rate.rounded(), abs(rate) < 1e15 { return String(Int64(rate)) }
    return String(rate)
}
