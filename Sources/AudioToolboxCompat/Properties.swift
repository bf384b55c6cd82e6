import AudioCodecs
import AudioContainers
import AudioFormats
import Foundation

/// Translations between frames and packets (`kAudioFilePropertyPacketToFrame`, `...FrameToPacket`).
public struct AudioFramePacketTranslation: Hashable, Sendable {
    /// Apple's `mFrame` field.
    public var mFrame: Int64
    /// Apple's `mPacket` field.
    public var mPacket: Int64
    /// Apple's `mFrameOffsetInPacket` field.
    public var mFrameOffsetInPacket: UInt32

    /// Every field zero.
    public init() { self.init(mFrame: 0, mPacket: 0, mFrameOffsetInPacket: 0) }

    /// A translation of the fields given.
    public init(mFrame: Int64, mPacket: Int64, mFrameOffsetInPacket: UInt32) {
        self.mFrame = mFrame
        self.mPacket = mPacket
        self.mFrameOffsetInPacket = mFrameOffsetInPacket
    }
}

/// Flags of a byte–packet translation.
public struct AudioBytePacketTranslationFlags: OptionSet, Hashable, Sendable {
    /// The flag bits.
    public let rawValue: UInt32
    /// Flags of `rawValue`'s bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The answer is an estimate.
    public static let bytePacketTranslationFlag_IsEstimate = AudioBytePacketTranslationFlags(rawValue: 1)
}

/// Translations between bytes and packets (`kAudioFilePropertyPacketToByte`, `...ByteToPacket`).
public struct AudioBytePacketTranslation: Hashable, Sendable {
    /// Apple's `mByte` field.
    public var mByte: Int64
    /// Apple's `mPacket` field.
    public var mPacket: Int64
    /// Apple's `mByteOffsetInPacket` field.
    public var mByteOffsetInPacket: UInt32
    /// Apple's `mFlags` field.
    public var mFlags: AudioBytePacketTranslationFlags

    /// Every field zero.
    public init() { self.init(mByte: 0, mPacket: 0, mByteOffsetInPacket: 0, mFlags: []) }

    /// A translation of the fields given.
    public init(mByte: Int64, mPacket: Int64, mByteOffsetInPacket: UInt32, mFlags: AudioBytePacketTranslationFlags) {
        self.mByte = mByte
        self.mPacket = mPacket
        self.mByteOffsetInPacket = mByteOffsetInPacket
        self.mFlags = mFlags
    }
}

/// A packet's roll distance (`kAudioFilePropertyPacketToRollDistance`).
public struct AudioPacketRollDistanceTranslation: Hashable, Sendable {
    /// Apple's `mPacket` field.
    public var mPacket: Int64
    /// Apple's `mRollDistance` field.
    public var mRollDistance: Int64

    /// Every field zero.
    public init() { self.init(mPacket: 0, mRollDistance: 0) }

    /// A translation of the fields given.
    public init(mPacket: Int64, mRollDistance: Int64) {
        self.mPacket = mPacket
        self.mRollDistance = mRollDistance
    }
}

/// The nearest independently decodable packet (`kAudioFilePropertyPreviousIndependentPacket`, `...Next...`).
public struct AudioIndependentPacketTranslation: Hashable, Sendable {
    /// Apple's `mPacket` field.
    public var mPacket: Int64
    /// Apple's `mIndependentlyDecodablePacket` field.
    public var mIndependentlyDecodablePacket: Int64

    /// Every field zero.
    public init() { self.init(mPacket: 0, mIndependentlyDecodablePacket: 0) }

    /// A translation of the fields given.
    public init(mPacket: Int64, mIndependentlyDecodablePacket: Int64) {
        self.mPacket = mPacket
        self.mIndependentlyDecodablePacket = mIndependentlyDecodablePacket
    }
}

/// Priming, remainder and valid frames (`kAudioFilePropertyPacketTableInfo`).
public struct AudioFilePacketTableInfo: Hashable, Sendable {
    /// Apple's `mNumberValidFrames` field.
    public var mNumberValidFrames: Int64
    /// Apple's `mPrimingFrames` field.
    public var mPrimingFrames: Int32
    /// Apple's `mRemainderFrames` field.
    public var mRemainderFrames: Int32

    /// Every field zero.
    public init() { self.init(mNumberValidFrames: 0, mPrimingFrames: 0, mRemainderFrames: 0) }

    /// Counts of the fields given.
    public init(mNumberValidFrames: Int64, mPrimingFrames: Int32, mRemainderFrames: Int32) {
        self.mNumberValidFrames = mNumberValidFrames
        self.mPrimingFrames = mPrimingFrames
        self.mRemainderFrames = mRemainderFrames
    }
}

/// A property's value as the services hand it out: its bytes, or a translation that reads its question from
/// the caller's buffer and writes the answer over it.
enum PropertyValue {
    case value(any BitwiseCopyable)
    case bytes([UInt8])
    case list([AudioFormatListItem])
    case translation(size: Int, answer: (UnsafeMutableRawPointer) -> OSStatus)

    /// Bytes the value takes.
    var size: Int {
        switch self {
        case .value(let value): Self.size(of: value)
        case .bytes(let bytes): bytes.count
        case .list(let items): items.count * MemoryLayout<AudioFormatListItem>.stride
        case .translation(let size, _): size
        }
    }

    /// The size of the value's own type (the existential opened).
    private static func size<Value: BitwiseCopyable>(of value: Value) -> Int { MemoryLayout<Value>.size }

    /// The value's own bytes (the existential opened).
    private static func store<Value: BitwiseCopyable>(_ value: Value, at data: UnsafeMutableRawPointer) {
        withUnsafeBytes(of: value) { UnsafeMutableRawBufferPointer(start: data, count: $0.count).copyMemory(from: $0) }
    }

    /// Writes the value into the caller's `data` of `*size` bytes (which must hold it), `*size` set to what
    /// was written; `badSize` is the service's code for a buffer of the wrong size.
    func write(into data: UnsafeMutableRawPointer, size: UnsafeMutablePointer<UInt32>, badSize: OSStatus) -> OSStatus {
        let need = self.size
        switch self {
        case .bytes, .list:
            guard Int(size.pointee) >= need else { return badSize }
        case .value, .translation:
            guard Int(size.pointee) == need else { return badSize }
        }
        switch self {
        case .value(let value): Self.store(value, at: data)
        case .bytes(let bytes):
            bytes.withUnsafeBytes { if let base = $0.baseAddress { data.copyMemory(from: base, byteCount: need) } }
        case .list(let items):
            items.withUnsafeBytes { if let base = $0.baseAddress { data.copyMemory(from: base, byteCount: need) } }
        case .translation(_, let answer):
            let status = answer(data)
            guard status == noErr else { return status }
        }
        size.pointee = UInt32(need)
        return noErr
    }
}

/// The properties a parse has learned, by Apple's IDs (shared by Audio File and Audio File Stream Services,
/// whose IDs are the same four characters).
struct ParsedProperties {
    var properties: StreamProperties
    /// Bytes per packet on average, where known.
    var averageBytesPerPacket: Double?
    /// PacketToByte and ByteToPacket, where the parse can answer them.
    var packetToByte: ((Int64) -> (offset: Int64, isEstimate: Bool)?)?
    var byteToPacket: ((Int64) -> (packet: Int64, offsetInPacket: Int64, isEstimate: Bool)?)?
    /// PacketToFrame and FrameToPacket where packets vary in frames (a file's table); else the constant count.
    var frameOfPacket: ((Int64) -> Int64?)?
    var packetOfFrame: ((Int64) -> (packet: Int64, frameOffset: Int64)?)?
    /// A picture's bytes, where the parse left them in the file (a file opened for reading reads them there).
    var pictureData: ((Picture) -> [UInt8]?)?

    /// The value of property `id`, or `nil` where afkit has none (the caller answers "unsupported").
    func value(_ id: UInt32) -> PropertyValue? {
        let code = FourCharCode(rawValue: id)
        let format = properties.dataFormat
        switch code {
        case "redy": return .value(UInt32(properties.dataFormat != nil && properties.dataOffset != nil ? 1 : 0))
        case "ffmt": return properties.fileType.map { .value($0.fileTypeID.rawValue) }
        case "dfmt": return format.map { .value(AudioStreamBasicDescription($0)) }
        case "flst":
            let layout = properties.channelLayout?.tag ?? 0
            return .list(properties.formatList.map { AudioFormatListItem(mASBD: .init($0), mChannelLayoutTag: layout) })
        case "mgic": return properties.magicCookie.map { .bytes($0) }
        case "bcnt": return properties.audioDataByteCount.map { .value(UInt64(max(0, $0))) }
        case "pcnt": return properties.audioDataPacketCount.map { .value(UInt64(max(0, $0))) }
        case "psze": return properties.maximumPacketSize.map { .value($0) }
        case "pkub": return (properties.packetSizeUpperBound ?? properties.maximumPacketSize).map { .value($0) }
        case "doff": return properties.dataOffset.map { .value($0) }
        case "pnfo":
            return properties.packetTableInfo.map {
                .value(
                    AudioFilePacketTableInfo(
                        mNumberValidFrames: $0.validFrames, mPrimingFrames: $0.primingFrames,
                        mRemainderFrames: $0.remainderFrames))
            }
        case "abpp": return averageBytesPerPacket.map { .value($0) }
        case "brat":
            // Constant-rate MPEG audio: the rate its headers state (128000, where the bytes average 127999).
            if let stated = properties.headerBitRate { return .value(UInt32(clamping: stated)) }
            guard let format, let average = averageBytesPerPacket, format.framesPerPacket > 0 else {
                // Packets of varying frames (Opus, Vorbis): the rate over the whole stream, once its counts are known.
                return properties.bitRate.map { .value(UInt32(clamping: $0)) }
            }
            return .value(UInt32(average * 8 * format.sampleRate / Double(format.framesPerPacket)))
        case "cmap":
            // The whole layout: its tag, bitmap and every description (at least Apple's struct's size).
            return properties.channelLayout.map { .bytes(layoutBytes($0)) }
        case "rrap":
            // Packets that depend on those before them (a codec with a roll distance) restrict random access.
            return format.map { .value(UInt32(CodecDescriptor.rollDistance(of: $0.formatID) > 0 ? 1 : 0)) }
        case "pkrl", "pkfr", "frpk", "pkby", "bypk": return translation(code, format: format)
        case "edur":
            guard let format, let frames = properties.validFrameCount, format.sampleRate > 0 else { return nil }
            return .value(Double(frames) / format.sampleRate)
        case "optm": return properties.isOptimized.map { .value(UInt32($0 ? 1 : 0)) }
        case "aart":
            let pictures = properties.pictures
            guard let picture = pictures.first(where: { $0.type == 3 }) ?? pictures.first,
                let data = picture.data ?? pictureData?(picture)
            else { return nil }
            return retainedObject { NSData(bytes: data, length: data.count) }
        case "info":
            // A dictionary of strings by Apple's lower-case keys (afkit's names are the same).
            let info = properties.infoDictionary
            return retainedObject { NSDictionary(dictionary: info) }
        default: return nil
        }
    }

    /// A translation property's answer (`pkrl`, `pkfr`, `frpk`, `pkby`, `bypk`): the calculation that fills
    /// the caller's structure, or `nil` where afkit cannot make it.
    private func translation(_ code: FourCharCode, format: StreamDescription?) -> PropertyValue? {
        switch code {
        case "pkrl":
            guard let format else { return nil }
            let roll = Int64(CodecDescriptor.rollDistance(of: format.formatID))
            return .translation(size: MemoryLayout<AudioPacketRollDistanceTranslation>.size) { data in
                var translation = data.loadUnaligned(as: AudioPacketRollDistanceTranslation.self)
                translation.mRollDistance = min(roll, max(0, translation.mPacket))
                data.storeBytes(of: translation, as: AudioPacketRollDistanceTranslation.self)
                return noErr
            }
        case "pkfr", "frpk":
            let frames = Int64(format?.framesPerPacket ?? 0)
            let frameOfPacket = self.frameOfPacket ?? (frames > 0 ? { $0 * frames } : nil)
            let packetOfFrame = self.packetOfFrame ?? (frames > 0 ? { ($0 / frames, $0 % frames) } : nil)
            guard let frameOfPacket, let packetOfFrame else { return nil }
            return .translation(size: MemoryLayout<AudioFramePacketTranslation>.size) { data in
                var translation = data.loadUnaligned(as: AudioFramePacketTranslation.self)
                if code == "pkfr" {
                    guard let frame = frameOfPacket(translation.mPacket) else { return fourCharacterStatus("pck?") }
                    translation.mFrame = frame
                    translation.mFrameOffsetInPacket = 0
                } else {
                    guard let found = packetOfFrame(translation.mFrame) else { return fourCharacterStatus("pck?") }
                    translation.mPacket = found.packet
                    translation.mFrameOffsetInPacket = UInt32(clamping: found.frameOffset)
                }
                data.storeBytes(of: translation, as: AudioFramePacketTranslation.self)
                return noErr
            }
        case "pkby", "bypk":
            guard let packetToByte, let byteToPacket else { return nil }
            return .translation(size: MemoryLayout<AudioBytePacketTranslation>.size) { data in
                var translation = data.loadUnaligned(as: AudioBytePacketTranslation.self)
                if code == "pkby" {
                    guard let answer = packetToByte(translation.mPacket) else {
                        return fourCharacterStatus("unk?")
                    }
                    translation.mByte = answer.offset
                    translation.mFlags = answer.isEstimate ? .bytePacketTranslationFlag_IsEstimate : []
                } else {
                    guard let answer = byteToPacket(translation.mByte) else { return fourCharacterStatus("unk?") }
                    translation.mPacket = answer.packet
                    translation.mByteOffsetInPacket = UInt32(clamping: answer.offsetInPacket)
                    translation.mFlags = answer.isEstimate ? .bytePacketTranslationFlag_IsEstimate : []
                }
                data.storeBytes(of: translation, as: AudioBytePacketTranslation.self)
                return noErr
            }
        default: return nil
        }
    }
}

// Plain bytes, as the property calls copy them.
extension AudioStreamBasicDescription: BitwiseCopyable {}
extension AudioStreamPacketDescription: BitwiseCopyable {}
extension AudioFilePacketTableInfo: BitwiseCopyable {}
extension AudioFramePacketTranslation: BitwiseCopyable {}
extension AudioBytePacketTranslationFlags: BitwiseCopyable {}
extension AudioBytePacketTranslation: BitwiseCopyable {}
extension AudioPacketRollDistanceTranslation: BitwiseCopyable {}
extension AudioIndependentPacketTranslation: BitwiseCopyable {}
extension AudioChannelDescription: BitwiseCopyable {}
extension AudioChannelLayout: BitwiseCopyable {}
extension AudioFormatListItem: BitwiseCopyable {}
