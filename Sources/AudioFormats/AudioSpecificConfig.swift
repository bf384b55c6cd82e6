/// An MPEG-4 AudioSpecificConfig (ISO/IEC 14496-3, 1.6.2.1): the object type, rate and channels of
/// an AAC stream, and whether it signals SBR (HE-AAC) or SBR with parametric stereo (HE-AAC v2).
///
/// Only explicit signalling is seen here (object type 5 or 29 up front, or the backward-compatible
/// sync extension after the GASpecificConfig); implicit SBR shows only in the audio.
public struct AudioSpecificConfig: Hashable, Sendable {
    /// MPEG-4's sampling frequencies by index (ADTS headers and AudioSpecificConfig use the same table).
    public static let sampleRates = [
        96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350,
    ]

    /// The core object type (2 for AAC-LC), after any SBR/PS wrapper.
    public var objectType: Int
    /// The core sampling rate.
    public var sampleRate: Double
    /// The channel configuration (1 to 7 standard layouts; 0 means a program config element says).
    public var channelConfiguration: Int
    /// Frames in a core packet: 1024, or 960 where the frame length flag says so.
    public var coreFramesPerPacket: Int
    /// The channels a program config element gives, where the channel configuration is 0.
    public var programChannels: Int?
    /// The SBR output rate, where SBR is signalled.
    public var extensionSampleRate: Double?
    /// Whether parametric stereo is signalled (HE-AAC v2).
    public var hasParametricStereo: Bool

    /// Parses the config; `nil` where it is too short or names no rate.
    public init?(_ bytes: [UInt8]) {
        var reader = BitReader(bytes)
        func readObjectType() -> Int? {
            guard let type = reader.read(5) else { return nil }
            return type == 31 ? reader.read(6).map { 32 + $0 } : type
        }
        func rate() -> Double? {
            guard let index = reader.read(4) else { return nil }
            if index == 0xF { return reader.read(24).map(Double.init) }
            return index < Self.sampleRates.count ? Double(Self.sampleRates[index]) : nil
        }
        guard var type = readObjectType(), let coreRate = rate(), let channels = reader.read(4), coreRate > 0 else {
            return nil
        }
        var extensionRate: Double?
        var parametricStereo = false
        if type == 5 || type == 29 {
            parametricStereo = type == 29
            guard let outputRate = rate(), let core = readObjectType() else { return nil }
            extensionRate = outputRate
            type = core
            if type == 22, reader.read(4) == nil { return nil }  // ER BSAC's extension channel configuration
        }
        objectType = type
        sampleRate = coreRate
        channelConfiguration = channels
        coreFramesPerPacket = 1024
        extensionSampleRate = extensionRate
        hasParametricStereo = parametricStereo
        // GASpecificConfig, for the object types that have one: the frame length flag comes first.
        guard [1, 2, 3, 4, 6, 7, 17, 19, 20, 21, 22, 23].contains(type), let shortFrames = reader.read(1) else {
            return
        }
        coreFramesPerPacket = shortFrames == 1 ? 960 : 1024
        guard let dependsOnCore = reader.read(1) else { return }
        if dependsOnCore == 1, reader.read(14) == nil { return }
        guard let hasExtension = reader.read(1) else { return }
        if channels == 0 {
            // A program config element gives the channels (FFmpeg's encoder writes one for 5.1 with side
            // surrounds); backward-compatible signalling follows only a plain GASpecificConfig.
            programChannels = Self.programConfigChannels(&reader)
            return
        }
        guard extensionRate == nil else { return }
        if type == 6 || type == 20, reader.read(3) == nil { return }
        if hasExtension == 1 {
            if type == 22, reader.read(16) == nil { return }
            if [17, 19, 20, 23].contains(type), reader.read(3) == nil { return }
            if reader.read(1) == nil { return }
        }
        if [17, 19, 20, 21, 22, 23, 24, 25, 26, 27, 39].contains(type), reader.read(2) == nil { return }
        guard reader.remaining >= 16, reader.read(11) == 0x2B7, readObjectType() == 5, reader.read(1) == 1,
            let outputRate = rate()
        else { return }
        extensionSampleRate = outputRate
        if reader.remaining >= 12, reader.read(11) == 0x548, reader.read(1) == 1 { hasParametricStereo = true }
    }

    /// Channels of the standard configurations (7 is 7.1: eight), or of the program config element; 0 where
    /// neither says.
    public var channelCount: Int {
        channelConfiguration == 0
            ? programChannels ?? 0 : channelConfiguration == 7 ? 8 : channelConfiguration < 7 ? channelConfiguration : 0
    }

    /// The channels of a program config element (ISO/IEC 14496-3, 4.4.1.1) at the reader: each front, side and
    /// back element one channel, or two for a channel pair, and each LFE one; `nil` where it is cut short.
    package static func programConfigChannels(_ reader: inout BitReader) -> Int? {
        // Instance tag, object type, frequency index; element counts: front, side, back, LFE, data, coupling.
        guard reader.read(4 + 2 + 4) != nil, let front = reader.read(4), let side = reader.read(4),
            let back = reader.read(4), let lfe = reader.read(2), reader.read(3) != nil, reader.read(4) != nil
        else { return nil }
        // Mono and stereo mixdowns (a flag, then an element number), the matrix mixdown (a flag, then 3 bits).
        for width in [4, 4, 3] {
            guard let present = reader.read(1) else { return nil }
            if present == 1, reader.read(width) == nil { return nil }
        }
        var channels = lfe
        for _ in 0..<(front + side + back) {
            guard let pair = reader.read(1), reader.read(4) != nil else { return nil }
            channels += 1 + pair
        }
        return channels
    }

    /// The channels of the program config element that opens an AAC raw data block (ADTS frames with channel
    /// configuration 0 carry it in-band), or `nil`.
    package static func programConfigChannels(inRawDataBlock bytes: [UInt8]) -> Int? {
        var reader = BitReader(bytes)
        guard reader.read(3) == 5 else { return nil }  // ID_PCE
        return programConfigChannels(&reader)
    }

    /// Every layer a decoder can output, richest first: `aacp` for SBR+PS, `aach` for SBR, else the core
    /// (`aac ` for AAC-LC and its kin), at the rate and frames per packet a decoder outputs.
    public var formatList: [StreamDescription] {
        let coreChannels = UInt32(channelCount)
        func layer(_ id: FourCharCode, rate: Double, frames: Int, channels: UInt32) -> StreamDescription {
            StreamDescription(
                sampleRate: rate, formatID: id, bytesPerPacket: 0, framesPerPacket: UInt32(frames), bytesPerFrame: 0,
                channelsPerFrame: channels,
                bitsPerChannel: 0)
        }
        var layers: [StreamDescription] = []
        let core = layer(.aac, rate: sampleRate, frames: coreFramesPerPacket, channels: coreChannels)
        if let extensionSampleRate {
            let frames = coreFramesPerPacket * Int((extensionSampleRate / sampleRate).rounded())
            if hasParametricStereo {
                layers.append(layer(.aacParametricStereo, rate: extensionSampleRate, frames: frames, channels: 2))
            }
            layers.append(
                layer(
                    .aacSpectralBandReplication, rate: extensionSampleRate, frames: frames,
                    channels: coreChannels))
        }
        layers.append(core)
        return layers
    }
}

// MARK: - Magic cookies

/// An AAC magic cookie: an MPEG-4 ES descriptor (CAF's `kuki`, MP4's `esds`) or a bare AudioSpecificConfig
/// (ADTS, libavcodec's extradata).
extension AudioSpecificConfig {
    /// An MPEG-4 ES descriptor wrapping an AudioSpecificConfig, as a CAF `kuki` or the body of an MP4
    /// `esds` box holds it (descriptor lengths in the four-byte form Apple writes).
    public static func elementaryStreamDescriptor(
        wrapping audioSpecificConfig: [UInt8], maximumBitrate: Int = 0,
        averageBitrate: Int = 0, bufferSize: Int = 0
    ) -> [UInt8] {
        func descriptor(_ tag: UInt8, _ body: [UInt8]) -> [UInt8] {
            let length = body.count
            return [
                tag, 0x80 | UInt8(length >> 21 & 0x7F), 0x80 | UInt8(length >> 14 & 0x7F),
                0x80 | UInt8(length >> 7 & 0x7F), UInt8(length & 0x7F),
            ] + body
        }
        var decoderConfig: [UInt8] = [0x40, 0x15]  // MPEG-4 audio; audio stream, not upstream, reserved bit
        decoderConfig += [UInt8(bufferSize >> 16 & 0xFF), UInt8(bufferSize >> 8 & 0xFF), UInt8(bufferSize & 0xFF)]
        decoderConfig.appendInteger(UInt32(clamping: maximumBitrate), endianness: .big)
        decoderConfig.appendInteger(UInt32(clamping: averageBitrate), endianness: .big)
        decoderConfig += descriptor(0x05, audioSpecificConfig)
        let body: [UInt8] = [0, 0, 0] + descriptor(0x04, decoderConfig) + descriptor(0x06, [0x02])
        return descriptor(0x03, body)
    }

    /// The AudioSpecificConfig an AAC magic cookie holds: the cookie itself (ADTS, bare), or the one
    /// inside its ES descriptor (CAF `kuki`, MP4 `esds`); `nil` for a descriptor without one.
    public static func audioSpecificConfig(inCookie cookie: [UInt8]) -> [UInt8]? {
        cookie.first == 0x03 ? audioSpecificConfig(inElementaryStreamDescriptor: cookie) : cookie
    }

    /// An AAC magic cookie as CAF and MP4 store it: an ES descriptor (a bare AudioSpecificConfig is
    /// wrapped in one).
    public static func elementaryStreamDescriptor(inCookie cookie: [UInt8]) -> [UInt8] {
        cookie.first == 0x03 ? cookie : elementaryStreamDescriptor(wrapping: cookie)
    }

    /// The AudioSpecificConfig inside an ES descriptor, or `nil`.
    public static func audioSpecificConfig(inElementaryStreamDescriptor bytes: [UInt8]) -> [UInt8]? {
        guard let info = AudioSpecificConfig.decoderConfig(inElementaryStreamDescriptor: bytes)?.specificInfo,
            !info.isEmpty
        else { return nil }
        return info
    }

    /// The object type and decoder-specific info of an MPEG-4 ES descriptor (a CAF `kuki`, an `esds`
    /// body after its version and flags); `nil` where it has no decoder config.
    package static func decoderConfig(inElementaryStreamDescriptor bytes: [UInt8]) -> (
        objectType: UInt8, specificInfo: [UInt8]
    )? {
        var index = 0
        func length() -> Int? {
            var value = 0
            for _ in 0..<4 {
                guard index < bytes.count else { return nil }
                value = value << 7 | Int(bytes[index] & 0x7F)
                index += 1
                if bytes[index - 1] & 0x80 == 0 { return value }
            }
            return value
        }
        guard bytes.first == 0x03 else { return nil }
        index = 1
        guard length() != nil, index + 3 <= bytes.count else { return nil }
        let flags = bytes[index + 2]
        index += 3
        if flags & 0x80 != 0 { index += 2 }
        if flags & 0x40 != 0 {
            guard index < bytes.count else { return nil }
            index += 1 + Int(bytes[index])
        }
        if flags & 0x20 != 0 { index += 2 }
        guard index < bytes.count, bytes[index] == 0x04 else { return nil }
        index += 1
        guard let configLength = length(), configLength >= 13, index + 13 <= bytes.count else { return nil }
        let objectType = bytes[index]
        index += 13
        guard index < bytes.count, bytes[index] == 0x05 else { return (objectType, []) }
        index += 1
        guard let size = length(), size <= bytes.count - index else { return (objectType, []) }
        return (objectType, Array(bytes[index..<index + size]))
    }
}

/// Reads big-endian bit fields.
package struct BitReader {
    private let bytes: [UInt8]
    private var bit = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package var remaining: Int { bytes.count * 8 - bit }

    /// The next `count` bits (at most 32), or `nil` past the end.
    package mutating func read(_ count: Int) -> Int? {
        guard count <= remaining else { return nil }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int(bytes[bit >> 3] >> (7 - UInt8(bit & 7)) & 1)
            bit += 1
        }
        return value
    }
}
