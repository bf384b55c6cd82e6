// AudioToolbox's C-style API with Apple's names, types and codes, over afkit: iOS code that reads files and
// streams builds on Linux unchanged with
//
//     #if canImport(AudioToolbox)
//     import AudioToolbox
//     #else
//     import AudioToolboxCompat
//     #endif
//
// The types have the layouts of Apple's headers (CoreAudioTypes.h, AudioFile.h, AudioFileStream.h,
// ExtendedAudioFile.h) and the functions the signatures Swift imports them with. Where afkit has no answer,
// the call returns Apple's "unsupported property" code.
import AudioFormats
// `import AudioToolbox` brings Foundation on Apple's systems; code written for them uses it unimported.
@_exported import Foundation

/// A result code: 0 is success (`noErr`), other values Apple's codes.
public typealias OSStatus = Int32
/// Success.
public var noErr: OSStatus { 0 }
/// A 64-bit float, as Core Audio names it.
public typealias Float64 = Double
/// A 32-bit float, as Core Audio names it.
public typealias Float32 = Float
/// A count of frames, as Audio Unit and AVFoundation code names it.
public typealias AUAudioFrameCount = UInt32

/// Apple's `kAudio_UnimplementedError` result code.
public var kAudio_UnimplementedError: OSStatus { -4 }
/// Apple's `kAudio_FileNotFoundError` result code.
public var kAudio_FileNotFoundError: OSStatus { -43 }
/// Apple's `kAudio_FilePermissionError` result code.
public var kAudio_FilePermissionError: OSStatus { -54 }
/// Apple's `kAudio_TooManyFilesOpenError` result code.
public var kAudio_TooManyFilesOpenError: OSStatus { -42 }
/// Apple's `kAudio_BadFilePathError` result code.
public var kAudio_BadFilePathError: OSStatus { fourCharacterStatus("!pth") }
/// Apple's `kAudio_ParamError` result code: an argument that makes no sense.
public var kAudio_ParamError: OSStatus { -50 }
/// Apple's `kAudio_MemFullError` result code.
public var kAudio_MemFullError: OSStatus { -108 }

#if !canImport(Darwin)
    /// Core Foundation's URL, as code written for Apple's platforms casts to it (`url as CFURL`): on Linux a
    /// Foundation `URL`.
    public typealias CFURL = URL
    /// Core Foundation's string, as the services hand names out (`Unmanaged<CFString>`, `as String`): on Linux
    /// Foundation's `NSString`.
    public typealias CFString = NSString
    /// Core Foundation's array, as the services hand lists of names out: on Linux Foundation's `NSArray`.
    public typealias CFArray = NSArray
    /// Core Foundation's dictionary (`kAudioFilePropertyInfoDictionary`): on Linux Foundation's `NSDictionary`.
    public typealias CFDictionary = NSDictionary
    /// Core Foundation's data (`kAudioFilePropertyAlbumArtwork`): on Linux Foundation's `NSData`.
    public typealias CFData = NSData

    /// The C `Boolean` as Swift imports it from Apple's headers.
    public struct DarwinBoolean: ExpressibleByBooleanLiteral, Hashable, Sendable {
        /// The value.
        public var boolValue: Bool
        /// A value of `value`.
        public init(_ value: Bool) { boolValue = value }
        /// A value of `value`.
        public init(booleanLiteral value: Bool) { boolValue = value }
    }
#endif

/// A four-character code as an `OSStatus`, as Apple's headers spell many of their codes.
@inlinable func fourCharacterStatus(_ code: StaticString) -> OSStatus {
    OSStatus(bitPattern: FourCharCode(code).rawValue)
}

// MARK: - Stream descriptions

/// An audio data format's ID (`kAudioFormatLinearPCM`, ...).
public typealias AudioFormatID = UInt32
/// Flags of a format (`kAudioFormatFlagIsFloat`, ...).
public typealias AudioFormatFlags = UInt32
/// An audio channel layout's tag.
public typealias AudioChannelLayoutTag = UInt32
/// A channel label.
public typealias AudioChannelLabel = UInt32
/// A channel bitmap: which of Apple's channel positions a layout holds (`kAudioChannelBit_...`), an option set as
/// Swift imports it.
public struct AudioChannelBitmap: OptionSet, Hashable, Sendable, BitwiseCopyable {
    /// The bits, as Apple's C field holds them.
    public let rawValue: UInt32
    /// The bitmap of these bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Apple's `kAudioChannelBit_Left`.
    public static var bit_Left: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 0) }
    /// Apple's `kAudioChannelBit_Right`.
    public static var bit_Right: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 1) }
    /// Apple's `kAudioChannelBit_Center`.
    public static var bit_Center: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 2) }
    /// Apple's `kAudioChannelBit_LFEScreen`.
    public static var bit_LFEScreen: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 3) }
    /// Apple's `kAudioChannelBit_LeftSurround`.
    public static var bit_LeftSurround: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 4) }
    /// Apple's `kAudioChannelBit_RightSurround`.
    public static var bit_RightSurround: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 5) }
    /// Apple's `kAudioChannelBit_LeftCenter`.
    public static var bit_LeftCenter: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 6) }
    /// Apple's `kAudioChannelBit_RightCenter`.
    public static var bit_RightCenter: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 7) }
    /// Apple's `kAudioChannelBit_CenterSurround`.
    public static var bit_CenterSurround: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 8) }
    /// Apple's `kAudioChannelBit_LeftSurroundDirect`.
    public static var bit_LeftSurroundDirect: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 9) }
    /// Apple's `kAudioChannelBit_RightSurroundDirect`.
    public static var bit_RightSurroundDirect: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 10) }
    /// Apple's `kAudioChannelBit_TopCenterSurround`.
    public static var bit_TopCenterSurround: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 11) }
    /// Apple's `kAudioChannelBit_VerticalHeightLeft`.
    public static var bit_VerticalHeightLeft: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 12) }
    /// Apple's `kAudioChannelBit_VerticalHeightCenter`.
    public static var bit_VerticalHeightCenter: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 13) }
    /// Apple's `kAudioChannelBit_VerticalHeightRight`.
    public static var bit_VerticalHeightRight: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 14) }
    /// Apple's `kAudioChannelBit_TopBackLeft`.
    public static var bit_TopBackLeft: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 15) }
    /// Apple's `kAudioChannelBit_TopBackCenter`.
    public static var bit_TopBackCenter: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 16) }
    /// Apple's `kAudioChannelBit_TopBackRight`.
    public static var bit_TopBackRight: AudioChannelBitmap { AudioChannelBitmap(rawValue: 1 << 17) }
}
/// Flags of a channel description.
public typealias AudioChannelFlags = UInt32

/// Apple's AudioStreamBasicDescription: 40 bytes, the fields in their order.
public struct AudioStreamBasicDescription: Hashable, Sendable {
    /// Apple's `mSampleRate` field.
    public var mSampleRate: Float64
    /// Apple's `mFormatID` field.
    public var mFormatID: AudioFormatID
    /// Apple's `mFormatFlags` field.
    public var mFormatFlags: AudioFormatFlags
    /// Apple's `mBytesPerPacket` field.
    public var mBytesPerPacket: UInt32
    /// Apple's `mFramesPerPacket` field.
    public var mFramesPerPacket: UInt32
    /// Apple's `mBytesPerFrame` field.
    public var mBytesPerFrame: UInt32
    /// Apple's `mChannelsPerFrame` field.
    public var mChannelsPerFrame: UInt32
    /// Apple's `mBitsPerChannel` field.
    public var mBitsPerChannel: UInt32
    /// Apple's `mReserved` field.
    public var mReserved: UInt32

    /// Every field zero.
    public init() {
        self.init(
            mSampleRate: 0, mFormatID: 0, mFormatFlags: 0, mBytesPerPacket: 0, mFramesPerPacket: 0, mBytesPerFrame: 0,
            mChannelsPerFrame: 0, mBitsPerChannel: 0, mReserved: 0)
    }

    /// A description of the fields given.
    public init(
        mSampleRate: Float64, mFormatID: AudioFormatID, mFormatFlags: AudioFormatFlags, mBytesPerPacket: UInt32,
        mFramesPerPacket: UInt32, mBytesPerFrame: UInt32, mChannelsPerFrame: UInt32, mBitsPerChannel: UInt32,
        mReserved: UInt32
    ) {
        self.mSampleRate = mSampleRate
        self.mFormatID = mFormatID
        self.mFormatFlags = mFormatFlags
        self.mBytesPerPacket = mBytesPerPacket
        self.mFramesPerPacket = mFramesPerPacket
        self.mBytesPerFrame = mBytesPerFrame
        self.mChannelsPerFrame = mChannelsPerFrame
        self.mBitsPerChannel = mBitsPerChannel
        self.mReserved = mReserved
    }
}

/// Apple's AudioStreamPacketDescription: where a packet lies, 16 bytes.
public struct AudioStreamPacketDescription: Hashable, Sendable {
    /// Apple's `mStartOffset` field.
    public var mStartOffset: Int64
    /// Apple's `mVariableFramesInPacket` field.
    public var mVariableFramesInPacket: UInt32
    /// Apple's `mDataByteSize` field.
    public var mDataByteSize: UInt32

    /// Every field zero.
    public init() { self.init(mStartOffset: 0, mVariableFramesInPacket: 0, mDataByteSize: 0) }

    /// A description of the fields given.
    public init(mStartOffset: Int64, mVariableFramesInPacket: UInt32, mDataByteSize: UInt32) {
        self.mStartOffset = mStartOffset
        self.mVariableFramesInPacket = mVariableFramesInPacket
        self.mDataByteSize = mDataByteSize
    }
}

/// One buffer of an ``AudioBufferList``.
public struct AudioBuffer {
    /// Apple's `mNumberChannels` field.
    public var mNumberChannels: UInt32
    /// Apple's `mDataByteSize` field.
    public var mDataByteSize: UInt32
    /// Apple's `mData` field.
    public var mData: UnsafeMutableRawPointer?

    /// Every field zero.
    public init() { self.init(mNumberChannels: 0, mDataByteSize: 0, mData: nil) }

    /// A buffer of the fields given.
    public init(mNumberChannels: UInt32, mDataByteSize: UInt32, mData: UnsafeMutableRawPointer?) {
        self.mNumberChannels = mNumberChannels
        self.mDataByteSize = mDataByteSize
        self.mData = mData
    }
}

/// Apple's AudioBufferList: a count and that many buffers, the first inline (the rest follow it in memory,
/// as ``UnsafeMutableAudioBufferListPointer`` reaches them).
public struct AudioBufferList {
    /// Apple's `mNumberBuffers` field.
    public var mNumberBuffers: UInt32
    /// Apple's `mBuffers` field.
    public var mBuffers: AudioBuffer

    /// No buffers.
    public init() { self.init(mNumberBuffers: 0, mBuffers: AudioBuffer()) }

    /// A list of the fields given.
    public init(mNumberBuffers: UInt32, mBuffers: AudioBuffer) {
        self.mNumberBuffers = mNumberBuffers
        self.mBuffers = mBuffers
    }

    /// The bytes a list of `maximumBuffers` buffers takes.
    public static func sizeInBytes(maximumBuffers: Int) -> Int {
        precondition(maximumBuffers >= 1, "an AudioBufferList holds at least one buffer")
        return MemoryLayout<AudioBufferList>.stride + (maximumBuffers - 1) * MemoryLayout<AudioBuffer>.stride
    }

    /// A list with room for `maximumBuffers` buffers, zeroed; free it with its `unsafeMutablePointer.deallocate()`.
    public static func allocate(maximumBuffers: Int) -> UnsafeMutableAudioBufferListPointer {
        let size = sizeInBytes(maximumBuffers: maximumBuffers)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<AudioBufferList>.alignment)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        let list = raw.bindMemory(to: AudioBufferList.self, capacity: 1)
        list.pointee.mNumberBuffers = UInt32(maximumBuffers)
        return UnsafeMutableAudioBufferListPointer(list)
    }
}

/// The buffers of an ``AudioBufferList`` as a collection (Core Audio's Swift overlay).
public struct UnsafeMutableAudioBufferListPointer: RandomAccessCollection, MutableCollection {
    /// The list.
    public var unsafeMutablePointer: UnsafeMutablePointer<AudioBufferList>
    /// The list, read only.
    public var unsafePointer: UnsafePointer<AudioBufferList> { UnsafePointer(unsafeMutablePointer) }

    /// The buffers of the list at `pointer`.
    public init(_ pointer: UnsafeMutablePointer<AudioBufferList>) { unsafeMutablePointer = pointer }

    /// The buffers of the list at `pointer`, if there is one.
    public init?(_ pointer: UnsafeMutablePointer<AudioBufferList>?) {
        guard let pointer else { return nil }
        unsafeMutablePointer = pointer
    }

    /// How many buffers.
    public var count: Int {
        get { Int(unsafeMutablePointer.pointee.mNumberBuffers) }
        nonmutating set { unsafeMutablePointer.pointee.mNumberBuffers = UInt32(newValue) }
    }
    /// The first buffer's index.
    public var startIndex: Int { 0 }
    /// Past the last buffer's index.
    public var endIndex: Int { count }

    private var buffers: UnsafeMutablePointer<AudioBuffer> {
        let offset = MemoryLayout<AudioBufferList>.offset(of: \AudioBufferList.mBuffers) ?? 8
        return (UnsafeMutableRawPointer(unsafeMutablePointer) + offset).assumingMemoryBound(to: AudioBuffer.self)
    }

    /// Buffer `index`.
    public subscript(index: Int) -> AudioBuffer {
        get {
            precondition(index >= 0 && index < count, "buffer \(index) of \(count)")
            return buffers[index]
        }
        nonmutating set {
            precondition(index >= 0 && index < count, "buffer \(index) of \(count)")
            buffers[index] = newValue
        }
    }
}

/// One channel of an ``AudioChannelLayout``.
public struct AudioChannelDescription: Hashable, Sendable {
    /// Apple's `mChannelLabel` field.
    public var mChannelLabel: AudioChannelLabel
    /// Apple's `mChannelFlags` field.
    public var mChannelFlags: AudioChannelFlags
    /// Apple's `mCoordinates` field.
    public var mCoordinates: (Float32, Float32, Float32)

    /// Every field zero.
    public init() { self.init(mChannelLabel: 0, mChannelFlags: 0, mCoordinates: (0, 0, 0)) }

    /// A description of the fields given.
    public init(
        mChannelLabel: AudioChannelLabel, mChannelFlags: AudioChannelFlags, mCoordinates: (Float32, Float32, Float32)
    ) {
        self.mChannelLabel = mChannelLabel
        self.mChannelFlags = mChannelFlags
        self.mCoordinates = mCoordinates
    }

    /// Apple's `==(lhs:rhs:)`.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.mChannelLabel == rhs.mChannelLabel && lhs.mChannelFlags == rhs.mChannelFlags
            && lhs.mCoordinates == rhs.mCoordinates
    }

    /// Field by field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(mChannelLabel)
        hasher.combine(mChannelFlags)
    }
}

/// Apple's AudioChannelLayout: a tag, a bitmap, and the descriptions that follow it.
public struct AudioChannelLayout: Hashable, Sendable {
    /// Apple's `mChannelLayoutTag` field.
    public var mChannelLayoutTag: AudioChannelLayoutTag
    /// Apple's `mChannelBitmap` field.
    public var mChannelBitmap: AudioChannelBitmap
    /// Apple's `mNumberChannelDescriptions` field.
    public var mNumberChannelDescriptions: UInt32
    /// Apple's `mChannelDescriptions` field.
    public var mChannelDescriptions: AudioChannelDescription

    /// Every field zero.
    public init() {
        self.init(
            mChannelLayoutTag: 0, mChannelBitmap: [], mNumberChannelDescriptions: 0,
            mChannelDescriptions: AudioChannelDescription())
    }

    /// A layout of the fields given.
    public init(
        mChannelLayoutTag: AudioChannelLayoutTag, mChannelBitmap: AudioChannelBitmap,
        mNumberChannelDescriptions: UInt32,
        mChannelDescriptions: AudioChannelDescription
    ) {
        self.mChannelLayoutTag = mChannelLayoutTag
        self.mChannelBitmap = mChannelBitmap
        self.mNumberChannelDescriptions = mNumberChannelDescriptions
        self.mChannelDescriptions = mChannelDescriptions
    }
}

/// A format and its channel layout (a `kAudioFilePropertyFormatList` item).
public struct AudioFormatListItem: Hashable, Sendable {
    /// Apple's `mASBD` field.
    public var mASBD: AudioStreamBasicDescription
    /// Apple's `mChannelLayoutTag` field.
    public var mChannelLayoutTag: AudioChannelLayoutTag

    /// Every field zero.
    public init() { self.init(mASBD: AudioStreamBasicDescription(), mChannelLayoutTag: 0) }

    /// An item of the fields given.
    public init(mASBD: AudioStreamBasicDescription, mChannelLayoutTag: AudioChannelLayoutTag) {
        self.mASBD = mASBD
        self.mChannelLayoutTag = mChannelLayoutTag
    }
}

// MARK: - Format IDs and flags (CoreAudioBaseTypes.h)

/// Apple's `kAudioFormatLinearPCM`.
public var kAudioFormatLinearPCM: AudioFormatID { FourCharCode("lpcm").rawValue }
/// Apple's `kAudioFormatAC3`.
public var kAudioFormatAC3: AudioFormatID { FourCharCode("ac-3").rawValue }
/// Apple's `kAudioFormatAppleIMA4`.
public var kAudioFormatAppleIMA4: AudioFormatID { FourCharCode("ima4").rawValue }
/// Apple's `kAudioFormatMPEG4AAC`.
public var kAudioFormatMPEG4AAC: AudioFormatID { FourCharCode("aac ").rawValue }
/// Apple's `kAudioFormatMPEG4AAC_HE`.
public var kAudioFormatMPEG4AAC_HE: AudioFormatID { FourCharCode("aach").rawValue }
/// Apple's `kAudioFormatMPEG4AAC_HE_V2`.
public var kAudioFormatMPEG4AAC_HE_V2: AudioFormatID { FourCharCode("aacp").rawValue }
/// Apple's `kAudioFormatMPEG4AAC_LD`.
public var kAudioFormatMPEG4AAC_LD: AudioFormatID { FourCharCode("aacl").rawValue }
/// Apple's `kAudioFormatMPEG4AAC_ELD`.
public var kAudioFormatMPEG4AAC_ELD: AudioFormatID { FourCharCode("aace").rawValue }
/// Apple's `kAudioFormatULaw`.
public var kAudioFormatULaw: AudioFormatID { FourCharCode("ulaw").rawValue }
/// Apple's `kAudioFormatALaw`.
public var kAudioFormatALaw: AudioFormatID { FourCharCode("alaw").rawValue }
/// Apple's `kAudioFormatMPEGLayer1`.
public var kAudioFormatMPEGLayer1: AudioFormatID { FourCharCode(".mp1").rawValue }
/// Apple's `kAudioFormatMPEGLayer2`.
public var kAudioFormatMPEGLayer2: AudioFormatID { FourCharCode(".mp2").rawValue }
/// Apple's `kAudioFormatMPEGLayer3`.
public var kAudioFormatMPEGLayer3: AudioFormatID { FourCharCode(".mp3").rawValue }
/// Apple's `kAudioFormatAppleLossless`.
public var kAudioFormatAppleLossless: AudioFormatID { FourCharCode("alac").rawValue }
/// Apple's `kAudioFormatAMR`.
public var kAudioFormatAMR: AudioFormatID { FourCharCode("samr").rawValue }
/// Apple's `kAudioFormatAMR_WB`.
public var kAudioFormatAMR_WB: AudioFormatID { FourCharCode("sawb").rawValue }
/// Apple's `kAudioFormatEnhancedAC3`.
public var kAudioFormatEnhancedAC3: AudioFormatID { FourCharCode("ec-3").rawValue }
/// Apple's `kAudioFormatFLAC`.
public var kAudioFormatFLAC: AudioFormatID { FourCharCode("flac").rawValue }
/// Apple's `kAudioFormatOpus`.
public var kAudioFormatOpus: AudioFormatID { FourCharCode("opus").rawValue }
/// Apple's `kAudioFormatDVIIntelIMA`: IMA ADPCM as WAV files hold it (`'ms\0\x11'`).
public var kAudioFormatDVIIntelIMA: AudioFormatID { 0x6D73_0011 }

/// Apple's `kAudioFormatFlagIsFloat`.
public var kAudioFormatFlagIsFloat: AudioFormatFlags { 1 << 0 }
/// Apple's `kAudioFormatFlagIsBigEndian`.
public var kAudioFormatFlagIsBigEndian: AudioFormatFlags { 1 << 1 }
/// Apple's `kAudioFormatFlagIsSignedInteger`.
public var kAudioFormatFlagIsSignedInteger: AudioFormatFlags { 1 << 2 }
/// Apple's `kAudioFormatFlagIsPacked`.
public var kAudioFormatFlagIsPacked: AudioFormatFlags { 1 << 3 }
/// Apple's `kAudioFormatFlagIsAlignedHigh`.
public var kAudioFormatFlagIsAlignedHigh: AudioFormatFlags { 1 << 4 }
/// Apple's `kAudioFormatFlagIsNonInterleaved`.
public var kAudioFormatFlagIsNonInterleaved: AudioFormatFlags { 1 << 5 }
/// Apple's `kAudioFormatFlagIsNonMixable`.
public var kAudioFormatFlagIsNonMixable: AudioFormatFlags { 1 << 6 }
/// Apple's `kAudioFormatFlagsAreAllClear`.
public var kAudioFormatFlagsAreAllClear: AudioFormatFlags { 0x8000_0000 }
/// Apple's `kLinearPCMFormatFlagIsFloat`.
public var kLinearPCMFormatFlagIsFloat: AudioFormatFlags { kAudioFormatFlagIsFloat }
/// Apple's `kLinearPCMFormatFlagIsBigEndian`.
public var kLinearPCMFormatFlagIsBigEndian: AudioFormatFlags { kAudioFormatFlagIsBigEndian }
/// Apple's `kLinearPCMFormatFlagIsSignedInteger`.
public var kLinearPCMFormatFlagIsSignedInteger: AudioFormatFlags { kAudioFormatFlagIsSignedInteger }
/// Apple's `kLinearPCMFormatFlagIsPacked`.
public var kLinearPCMFormatFlagIsPacked: AudioFormatFlags { kAudioFormatFlagIsPacked }
/// Apple's `kLinearPCMFormatFlagIsAlignedHigh`.
public var kLinearPCMFormatFlagIsAlignedHigh: AudioFormatFlags { kAudioFormatFlagIsAlignedHigh }
/// Apple's `kLinearPCMFormatFlagIsNonInterleaved`.
public var kLinearPCMFormatFlagIsNonInterleaved: AudioFormatFlags { kAudioFormatFlagIsNonInterleaved }
/// Apple's `kLinearPCMFormatFlagIsNonMixable`.
public var kLinearPCMFormatFlagIsNonMixable: AudioFormatFlags { kAudioFormatFlagIsNonMixable }
/// Apple's `kLinearPCMFormatFlagsAreAllClear`.
public var kLinearPCMFormatFlagsAreAllClear: AudioFormatFlags { kAudioFormatFlagsAreAllClear }
/// The machine's byte order: 0 on a little-endian machine.
public var kAudioFormatFlagsNativeEndian: AudioFormatFlags {
    UInt16(1).bigEndian == 1 ? kAudioFormatFlagIsBigEndian : 0
}
/// Apple's `kAudioFormatFlagsNativeFloatPacked`.
public var kAudioFormatFlagsNativeFloatPacked: AudioFormatFlags {
    kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked
}
/// Apple's `kAppleLosslessFormatFlag_16BitSourceData`.
public var kAppleLosslessFormatFlag_16BitSourceData: AudioFormatFlags { 1 }
/// Apple's `kAppleLosslessFormatFlag_20BitSourceData`.
public var kAppleLosslessFormatFlag_20BitSourceData: AudioFormatFlags { 2 }
/// Apple's `kAppleLosslessFormatFlag_24BitSourceData`.
public var kAppleLosslessFormatFlag_24BitSourceData: AudioFormatFlags { 3 }
/// Apple's `kAppleLosslessFormatFlag_32BitSourceData`.
public var kAppleLosslessFormatFlag_32BitSourceData: AudioFormatFlags { 4 }

// MARK: - Channel layout tags and labels (CoreAudioBaseTypes.h)

/// The value of Apple's named layout tag, from afkit's one table of them.
func namedLayoutTag(_ name: String) -> AudioChannelLayoutTag { ChannelLayout.namedTag(name)?.tag ?? 0 }

/// Apple's `kAudioChannelLayoutTag_UseChannelDescriptions`.
public var kAudioChannelLayoutTag_UseChannelDescriptions: AudioChannelLayoutTag {
    ChannelLayout.Tag.useChannelDescriptions
}
/// Apple's `kAudioChannelLayoutTag_UseChannelBitmap`.
public var kAudioChannelLayoutTag_UseChannelBitmap: AudioChannelLayoutTag { ChannelLayout.Tag.useChannelBitmap }
/// Apple's `kAudioChannelLayoutTag_DiscreteInOrder` (OR the channel count into it).
public var kAudioChannelLayoutTag_DiscreteInOrder: AudioChannelLayoutTag { 147 << 16 }
/// Apple's `kAudioChannelLayoutTag_Unknown` (OR the channel count into it).
public var kAudioChannelLayoutTag_Unknown: AudioChannelLayoutTag { 0xFFFF_0000 }
/// Apple's `kAudioChannelLayoutTag_Mono`.
public var kAudioChannelLayoutTag_Mono: AudioChannelLayoutTag { namedLayoutTag("Mono") }
/// Apple's `kAudioChannelLayoutTag_Stereo`.
public var kAudioChannelLayoutTag_Stereo: AudioChannelLayoutTag { namedLayoutTag("Stereo") }
/// Apple's `kAudioChannelLayoutTag_StereoHeadphones`.
public var kAudioChannelLayoutTag_StereoHeadphones: AudioChannelLayoutTag { namedLayoutTag("StereoHeadphones") }
/// Apple's `kAudioChannelLayoutTag_Quadraphonic`.
public var kAudioChannelLayoutTag_Quadraphonic: AudioChannelLayoutTag { namedLayoutTag("Quadraphonic") }
/// Apple's `kAudioChannelLayoutTag_MPEG_3_0_A`.
public var kAudioChannelLayoutTag_MPEG_3_0_A: AudioChannelLayoutTag { namedLayoutTag("MPEG_3_0_A") }
/// Apple's `kAudioChannelLayoutTag_MPEG_4_0_A`.
public var kAudioChannelLayoutTag_MPEG_4_0_A: AudioChannelLayoutTag { namedLayoutTag("MPEG_4_0_A") }
/// Apple's `kAudioChannelLayoutTag_MPEG_5_0_A`.
public var kAudioChannelLayoutTag_MPEG_5_0_A: AudioChannelLayoutTag { namedLayoutTag("MPEG_5_0_A") }
/// Apple's `kAudioChannelLayoutTag_MPEG_5_1_A`.
public var kAudioChannelLayoutTag_MPEG_5_1_A: AudioChannelLayoutTag { namedLayoutTag("MPEG_5_1_A") }
/// Apple's `kAudioChannelLayoutTag_MPEG_5_1_C`.
public var kAudioChannelLayoutTag_MPEG_5_1_C: AudioChannelLayoutTag { namedLayoutTag("MPEG_5_1_C") }
/// Apple's `kAudioChannelLayoutTag_MPEG_5_1_D`.
public var kAudioChannelLayoutTag_MPEG_5_1_D: AudioChannelLayoutTag { namedLayoutTag("MPEG_5_1_D") }
/// Apple's `kAudioChannelLayoutTag_MPEG_7_1_A`.
public var kAudioChannelLayoutTag_MPEG_7_1_A: AudioChannelLayoutTag { namedLayoutTag("MPEG_7_1_A") }
/// Apple's `kAudioChannelLayoutTag_MPEG_7_1_C`.
public var kAudioChannelLayoutTag_MPEG_7_1_C: AudioChannelLayoutTag { namedLayoutTag("MPEG_7_1_C") }
/// Apple's `kAudioChannelLayoutTag_AAC_5_1`.
public var kAudioChannelLayoutTag_AAC_5_1: AudioChannelLayoutTag { namedLayoutTag("AAC_5_1") }
/// Apple's `kAudioChannelLayoutTag_AAC_7_1`.
public var kAudioChannelLayoutTag_AAC_7_1: AudioChannelLayoutTag { namedLayoutTag("AAC_7_1") }

/// Apple's `kAudioChannelLabel_Left`.
public var kAudioChannelLabel_Left: AudioChannelLabel { 1 }
/// Apple's `kAudioChannelLabel_Right`.
public var kAudioChannelLabel_Right: AudioChannelLabel { 2 }
/// Apple's `kAudioChannelLabel_Center`.
public var kAudioChannelLabel_Center: AudioChannelLabel { 3 }
/// Apple's `kAudioChannelLabel_LFEScreen`.
public var kAudioChannelLabel_LFEScreen: AudioChannelLabel { 4 }
/// Apple's `kAudioChannelLabel_LeftSurround`.
public var kAudioChannelLabel_LeftSurround: AudioChannelLabel { 5 }
/// Apple's `kAudioChannelLabel_RightSurround`.
public var kAudioChannelLabel_RightSurround: AudioChannelLabel { 6 }
/// Apple's `kAudioChannelLabel_Mono`.
public var kAudioChannelLabel_Mono: AudioChannelLabel { 42 }

// MARK: - Between afkit's types and Apple's

extension AudioStreamBasicDescription {
    /// Apple's fields of afkit's description.
    init(_ format: StreamDescription) {
        self.init(
            mSampleRate: format.sampleRate, mFormatID: format.formatID.rawValue,
            mFormatFlags: format.formatFlags.rawValue, mBytesPerPacket: format.bytesPerPacket,
            mFramesPerPacket: format.framesPerPacket, mBytesPerFrame: format.bytesPerFrame,
            mChannelsPerFrame: format.channelsPerFrame, mBitsPerChannel: format.bitsPerChannel, mReserved: 0)
    }

    /// afkit's description of Apple's fields.
    var streamDescription: StreamDescription {
        StreamDescription(
            sampleRate: mSampleRate, formatID: FourCharCode(rawValue: mFormatID),
            formatFlags: StreamDescription.FormatFlags(rawValue: mFormatFlags), bytesPerPacket: mBytesPerPacket,
            framesPerPacket: mFramesPerPacket, bytesPerFrame: mBytesPerFrame, channelsPerFrame: mChannelsPerFrame,
            bitsPerChannel: mBitsPerChannel)
    }
}

extension AudioStreamPacketDescription {
    /// Apple's fields of afkit's description.
    init(_ description: PacketDescription) {
        self.init(
            mStartOffset: description.startOffset, mVariableFramesInPacket: description.variableFramesInPacket,
            mDataByteSize: description.dataByteSize)
    }
}
