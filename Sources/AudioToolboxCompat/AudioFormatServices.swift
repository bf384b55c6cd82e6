import AudioCodecs
import AudioContainers
import AudioConversion
import AudioFormats
import Foundation

// Audio Format Services (AudioFormat.h): what a format is, from its ID and magic cookie, and channel layouts,
// answered by afkit's cookie parsers, codec registry and layout table.

/// A property of Audio Format Services (`kAudioFormatProperty_...`).
public typealias AudioFormatPropertyID = UInt32

/// Apple's `kAudioFormatProperty_FormatInfo`: a description completed from its format ID and magic cookie.
public var kAudioFormatProperty_FormatInfo: AudioFormatPropertyID { FourCharCode("fmti").rawValue }
/// Apple's `kAudioFormatProperty_FormatName`.
public var kAudioFormatProperty_FormatName: AudioFormatPropertyID { FourCharCode("fnam").rawValue }
/// Apple's `kAudioFormatProperty_EncodeFormatIDs`.
public var kAudioFormatProperty_EncodeFormatIDs: AudioFormatPropertyID { FourCharCode("acof").rawValue }
/// Apple's `kAudioFormatProperty_DecodeFormatIDs`.
public var kAudioFormatProperty_DecodeFormatIDs: AudioFormatPropertyID { FourCharCode("acif").rawValue }
/// Apple's `kAudioFormatProperty_FormatList`.
public var kAudioFormatProperty_FormatList: AudioFormatPropertyID { FourCharCode("flst").rawValue }
/// Apple's `kAudioFormatProperty_ASBDFromESDS`.
public var kAudioFormatProperty_ASBDFromESDS: AudioFormatPropertyID { FourCharCode("essd").rawValue }
/// Apple's `kAudioFormatProperty_FormatIsVBR`.
public var kAudioFormatProperty_FormatIsVBR: AudioFormatPropertyID { FourCharCode("fvbr").rawValue }
/// Apple's `kAudioFormatProperty_FormatIsExternallyFramed`.
public var kAudioFormatProperty_FormatIsExternallyFramed: AudioFormatPropertyID { FourCharCode("fexf").rawValue }
/// Apple's `kAudioFormatProperty_ChannelLayoutForTag`.
public var kAudioFormatProperty_ChannelLayoutForTag: AudioFormatPropertyID { FourCharCode("cmpl").rawValue }
/// Apple's `kAudioFormatProperty_ChannelLayoutForBitmap`.
public var kAudioFormatProperty_ChannelLayoutForBitmap: AudioFormatPropertyID { FourCharCode("cmpb").rawValue }
/// Apple's `kAudioFormatProperty_NumberOfChannelsForLayout`.
public var kAudioFormatProperty_NumberOfChannelsForLayout: AudioFormatPropertyID { FourCharCode("nchm").rawValue }
/// Apple's `kAudioFormatProperty_TagsForNumberOfChannels`.
public var kAudioFormatProperty_TagsForNumberOfChannels: AudioFormatPropertyID { FourCharCode("tagc").rawValue }
/// Apple's `kAudioFormatProperty_TagForChannelLayout`.
public var kAudioFormatProperty_TagForChannelLayout: AudioFormatPropertyID { FourCharCode("cmpt").rawValue }
/// Apple's `kAudioFormatProperty_ChannelLayoutName`.
public var kAudioFormatProperty_ChannelLayoutName: AudioFormatPropertyID { FourCharCode("lonm").rawValue }

/// Apple's `kAudioFormatUnspecifiedError` result code.
public var kAudioFormatUnspecifiedError: OSStatus { fourCharacterStatus("what") }
/// Apple's `kAudioFormatUnsupportedPropertyError` result code.
public var kAudioFormatUnsupportedPropertyError: OSStatus { fourCharacterStatus("prop") }
/// Apple's `kAudioFormatBadPropertySizeError` result code.
public var kAudioFormatBadPropertySizeError: OSStatus { fourCharacterStatus("!siz") }
/// Apple's `kAudioFormatBadSpecifierSizeError` result code.
public var kAudioFormatBadSpecifierSizeError: OSStatus { fourCharacterStatus("!spc") }
/// Apple's `kAudioFormatUnsupportedDataFormatError` result code.
public var kAudioFormatUnsupportedDataFormatError: OSStatus { fourCharacterStatus("fmt?") }
/// Apple's `kAudioFormatUnknownFormatError` result code.
public var kAudioFormatUnknownFormatError: OSStatus { fourCharacterStatus("!fmt") }

/// A format and its magic cookie (the specifier of `kAudioFormatProperty_FormatList`).
public struct AudioFormatInfo {
    /// Apple's `mASBD` field.
    public var mASBD: AudioStreamBasicDescription
    /// Apple's `mMagicCookie` field.
    public var mMagicCookie: UnsafeRawPointer?
    /// Apple's `mMagicCookieSize` field.
    public var mMagicCookieSize: UInt32

    /// Every field zero.
    public init() { self.init(mASBD: AudioStreamBasicDescription(), mMagicCookie: nil, mMagicCookieSize: 0) }

    /// Info of the fields given.
    public init(mASBD: AudioStreamBasicDescription, mMagicCookie: UnsafeRawPointer?, mMagicCookieSize: UInt32) {
        self.mASBD = mASBD
        self.mMagicCookie = mMagicCookie
        self.mMagicCookieSize = mMagicCookieSize
    }
}

/// The formats a magic cookie of `formatID` describes, richest first (an HE-AAC cookie: HE-AAC v2, HE-AAC,
/// then the AAC core): `nil` for a format afkit reads no cookie of, an empty list for a cookie that does not
/// parse. ALAC cookies are taken bare (24 bytes) or in `frma`/`alac`/`wave` atoms, AAC ones as an ES
/// descriptor or a bare AudioSpecificConfig, FLAC's as `STREAMINFO` in any of its wrappings, Opus's as
/// `OpusHead` (whose rate is the source's; Opus decodes at 48 kHz).
func formatsDescribed(formatID: FourCharCode, cookie: [UInt8]) -> [StreamDescription]? {
    switch formatID {
    case .alac:
        guard let config = AppleLossless.specificConfig(inCookie: cookie) else { return [] }
        func field(_ offset: Int) -> UInt32 { config[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        guard config[9] > 0, field(20) > 0, field(0) > 0 else { return [] }
        return [
            .appleLossless(
                sampleRate: Double(field(20)), channels: UInt32(config[9]), bitDepth: Int(config[5]),
                framesPerPacket: field(0))
        ]
    case .aac, .aacSpectralBandReplication, .aacParametricStereo:
        guard let bytes = AudioSpecificConfig.audioSpecificConfig(inCookie: cookie),
            let config = AudioSpecificConfig(bytes)
        else { return [] }
        return config.formatList
    case .flac:
        guard let info = FLACStreamInfo(cookie: cookie) else { return [] }
        return [info.streamDescription]
    case .opus:
        guard cookie.count >= 19, cookie.starts(with: Array("OpusHead".utf8)), cookie[9] > 0 else { return [] }
        return [
            StreamDescription(
                sampleRate: 48000, formatID: .opus, bytesPerPacket: 0, framesPerPacket: 960, bytesPerFrame: 0,
                channelsPerFrame: UInt32(cookie[9]), bitsPerChannel: 0)
        ]
    default: return nil
    }
}

/// The format a cookie of `formatID` describes (of that ID where the cookie offers it): `nil` for a format
/// afkit reads no cookie of, `.some(nil)` for a cookie that does not parse.
func formatInfo(formatID: FourCharCode, cookie: [UInt8]) -> StreamDescription?? {
    guard let formats = formatsDescribed(formatID: formatID, cookie: cookie) else { return nil }
    return .some(formats.first { $0.formatID == formatID } ?? formats.first)
}

/// Apple's description with what its format ID implies filled in (packet sizes and frames), from the cookie
/// where there is one; `nil` for a cookie that does not parse or a format afkit does not know.
func completedFormat(_ description: AudioStreamBasicDescription, cookie: [UInt8]) -> AudioStreamBasicDescription? {
    let format = description.streamDescription
    if !cookie.isEmpty, let described = formatInfo(formatID: format.formatID, cookie: cookie) {
        return described.map(AudioStreamBasicDescription.init)
    }
    if format.formatID == .lpcm {
        var completed = description
        let bytes = (description.mBitsPerChannel + 7) / 8 * description.mChannelsPerFrame
        if completed.mFramesPerPacket == 0 { completed.mFramesPerPacket = 1 }
        if completed.mBytesPerFrame == 0 { completed.mBytesPerFrame = bytes }
        if completed.mBytesPerPacket == 0 { completed.mBytesPerPacket = completed.mBytesPerFrame }
        return completed
    }
    guard CodecDescriptor.of(format.formatID) != nil else { return nil }
    guard let name = CodecDescriptor.afconvertName(of: format), let specifier = DataFormatSpecifier(name) else {
        return description
    }
    // The codec's packet layout at the caller's rate and channels, its flags kept where it gave some.
    var completed = AudioStreamBasicDescription(
        specifier.streamDescription(sampleRate: format.sampleRate, channels: format.channelsPerFrame))
    if description.mFormatFlags != 0 { completed.mFormatFlags = description.mFormatFlags }
    if description.mFramesPerPacket != 0 { completed.mFramesPerPacket = description.mFramesPerPacket }
    return completed
}

/// A Core Foundation object handed out as Apple's functions do, retained for the caller (who releases it, or
/// takes it with `takeRetainedValue()`): a property value of one pointer.
func retainedObject(_ make: @escaping () -> AnyObject) -> PropertyValue {
    .translation(size: MemoryLayout<UnsafeRawPointer>.size) { data in
        data.storeBytes(of: Unmanaged.passRetained(make()).toOpaque(), as: UnsafeMutableRawPointer.self)
        return noErr
    }
}

/// A list of plain values as the property calls copy it.
func listValue<Element: BitwiseCopyable>(_ elements: [Element]) -> PropertyValue {
    .bytes(elements.withUnsafeBytes { [UInt8]($0) })
}

/// Apple's AudioChannelLayout bytes of afkit's layout: the tag, bitmap and count, then each description.
func layoutBytes(_ layout: ChannelLayout) -> [UInt8] {
    var header = AudioChannelLayout(
        mChannelLayoutTag: layout.tag, mChannelBitmap: AudioChannelBitmap(rawValue: layout.bitmap),
        mNumberChannelDescriptions: UInt32(layout.descriptions.count), mChannelDescriptions: AudioChannelDescription())
    let offset = MemoryLayout<AudioChannelLayout>.offset(of: \AudioChannelLayout.mChannelDescriptions) ?? 12
    var bytes = withUnsafeBytes(of: &header) { [UInt8]($0.prefix(offset)) }
    for description in layout.descriptions {
        let apple = AudioChannelDescription(
            mChannelLabel: description.label, mChannelFlags: description.flags, mCoordinates: description.coordinates)
        withUnsafeBytes(of: apple) { bytes += $0 }
    }
    // At least Apple's struct, which holds one description.
    if bytes.count < MemoryLayout<AudioChannelLayout>.size {
        bytes += [UInt8](repeating: 0, count: MemoryLayout<AudioChannelLayout>.size - bytes.count)
    }
    return bytes
}

/// A layout of `labels`, one description each (what Apple's ChannelLayoutForTag answers).
func describedLayout(_ labels: [UInt32]) -> ChannelLayout {
    ChannelLayout(
        tag: ChannelLayout.Tag.useChannelDescriptions, descriptions: labels.map { ChannelDescription(label: $0) })
}

/// The value of an Audio Format Services property for `specifier`, or the code that says why there is none.
func formatPropertyValue(_ id: AudioFormatPropertyID, _ specifier: UnsafeRawBufferPointer) -> Result<
    PropertyValue, FormatPropertyError
> {
    let descriptionSize = MemoryLayout<AudioStreamBasicDescription>.size
    func description() -> AudioStreamBasicDescription? {
        specifier.count == descriptionSize ? specifier.loadUnaligned(as: AudioStreamBasicDescription.self) : nil
    }
    func word() -> UInt32? { specifier.count == 4 ? specifier.loadUnaligned(as: UInt32.self) : nil }
    let badSpecifier = Result<PropertyValue, FormatPropertyError>.failure(.init(kAudioFormatBadSpecifierSizeError))
    switch FourCharCode(rawValue: id) {
    case "fmti":
        // The description comes in the property data; the answer's size is the description's.
        return .success(.value(AudioStreamBasicDescription()))
    case "fnam":
        guard let format = description()?.streamDescription else { return badSpecifier }
        let name = CodecDescriptor.spokenName(of: format.formatID) + ", " + format.summary
        return .success(retainedObject { NSString(string: name) })
    case "fvbr", "fexf":
        guard let format = description() else { return badSpecifier }
        let variable =
            format.mBytesPerPacket == 0 || (id == FourCharCode("fexf").rawValue && format.mFramesPerPacket == 0)
        return .success(.value(UInt32(variable ? 1 : 0)))
    case "acof":
        return .success(listValue(AudioConverter.registry.encodedFormats.map(\.rawValue).sorted()))
    case "acif":
        return .success(listValue(AudioConverter.registry.decodedFormats.map(\.rawValue).sorted()))
    case "essd":
        guard let format = formatInfo(formatID: .aac, cookie: [UInt8](specifier)) else { return badSpecifier }
        guard let format else { return .failure(.init(kAudioFormatUnsupportedDataFormatError)) }
        return .success(.value(AudioStreamBasicDescription(format)))
    case "flst":
        guard specifier.count == MemoryLayout<AudioFormatInfo>.size else { return badSpecifier }
        let info = specifier.loadUnaligned(as: AudioFormatInfo.self)
        let cookie =
            info.mMagicCookie.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: Int(info.mMagicCookieSize))) }
            ?? []
        let format = info.mASBD.streamDescription
        guard let formats = formatsDescribed(formatID: format.formatID, cookie: cookie) else {
            return .success(listValue([AudioFormatListItem(mASBD: info.mASBD, mChannelLayoutTag: 0)]))
        }
        guard !formats.isEmpty else { return .failure(.init(kAudioFormatUnsupportedDataFormatError)) }
        return .success(listValue(formats.map { AudioFormatListItem(mASBD: .init($0), mChannelLayoutTag: 0) }))
    case "cmpl":
        guard let tag = word() else { return badSpecifier }
        guard let labels = ChannelLayout(tag: tag).labels, tag != ChannelLayout.Tag.useChannelDescriptions,
            tag != ChannelLayout.Tag.useChannelBitmap
        else { return .failure(.init(kAudioFormatUnknownFormatError)) }
        return .success(.bytes(layoutBytes(describedLayout(labels))))
    case "cmpb":
        guard let bitmap = word() else { return badSpecifier }
        guard let labels = ChannelLayout(tag: ChannelLayout.Tag.useChannelBitmap, bitmap: bitmap).labels,
            labels.count == bitmap.nonzeroBitCount, bitmap != 0
        else { return .failure(.init(kAudioFormatUnknownFormatError)) }
        return .success(.bytes(layoutBytes(describedLayout(labels))))
    case "tagc":
        guard let channels = word() else { return badSpecifier }
        let tags = ChannelLayout.namedTags.filter { $0.labels.count == Int(channels) }.map(\.tag)
        guard !tags.isEmpty else { return .failure(.init(kAudioFormatUnknownFormatError)) }
        return .success(listValue(tags))
    case "cmpt":
        guard let layout = channelLayout(from: specifier) else { return badSpecifier }
        let named = ChannelLayout.namedTags.first { $0.tag == layout.tag || $0.labels == layout.labels }
        guard let tag = named?.tag else { return .failure(.init(kAudioFormatUnknownFormatError)) }
        return .success(.value(tag))
    case "nchm", "lonm":
        guard let layout = channelLayout(from: specifier) else { return badSpecifier }
        if id == FourCharCode("nchm").rawValue { return .success(.value(UInt32(layout.channelCount))) }
        guard layout.labels != nil else { return .failure(.init(kAudioFormatUnknownFormatError)) }
        return .success(retainedObject { NSString(string: layout.spokenName) })
    default:
        return .failure(.init(kAudioFormatUnsupportedPropertyError))
    }
}

/// A services' code, as a `Result`'s failure.
struct FormatPropertyError: Error {
    let status: OSStatus
    init(_ status: OSStatus) { self.status = status }
}

extension Result where Success == PropertyValue, Failure == FormatPropertyError {
    /// The value's size in `size` (the `...GetPropertyInfo` and `...GetGlobalInfoSize` answer), or the code.
    func reportSize(in size: UnsafeMutablePointer<UInt32>) -> OSStatus {
        switch self {
        case .success(let value):
            size.pointee = UInt32(value.size)
            return noErr
        case .failure(let error):
            return error.status
        }
    }

    /// The value written into `data` (`*size` bytes, set to those written; no data: set to those it takes),
    /// `badSize` for a buffer of the wrong size, or the code.
    func write(into data: UnsafeMutableRawPointer?, size: UnsafeMutablePointer<UInt32>, badSize: OSStatus) -> OSStatus {
        guard case .success(let value) = self, let data else { return reportSize(in: size) }
        return value.write(into: data, size: size, badSize: badSize)
    }
}

/// The size of property `inPropertyID`'s value for the specifier given.
@discardableResult
public func AudioFormatGetPropertyInfo(
    _ inPropertyID: AudioFormatPropertyID, _ inSpecifierSize: UInt32, _ inSpecifier: UnsafeRawPointer?,
    _ outPropertyDataSize: UnsafeMutablePointer<UInt32>
) -> OSStatus {
    let specifier = UnsafeRawBufferPointer(start: inSpecifier, count: inSpecifier == nil ? 0 : Int(inSpecifierSize))
    return formatPropertyValue(inPropertyID, specifier).reportSize(in: outPropertyDataSize)
}

/// Property `inPropertyID`'s value for the specifier given, written to `outPropertyData` (`ioPropertyDataSize`
/// bytes, set to those written; with no data, set to those it would take). `kAudioFormatProperty_FormatInfo`
/// completes the description in `outPropertyData` from its format ID and the cookie in the specifier.
@discardableResult
public func AudioFormatGetProperty(
    _ inPropertyID: AudioFormatPropertyID, _ inSpecifierSize: UInt32, _ inSpecifier: UnsafeRawPointer?,
    _ ioPropertyDataSize: UnsafeMutablePointer<UInt32>?, _ outPropertyData: UnsafeMutableRawPointer?
) -> OSStatus {
    let specifier = UnsafeRawBufferPointer(start: inSpecifier, count: inSpecifier == nil ? 0 : Int(inSpecifierSize))
    guard let ioPropertyDataSize else { return kAudio_ParamError }
    if inPropertyID == kAudioFormatProperty_FormatInfo {
        let size = MemoryLayout<AudioStreamBasicDescription>.size
        guard let outPropertyData else {
            ioPropertyDataSize.pointee = UInt32(size)
            return noErr
        }
        guard Int(ioPropertyDataSize.pointee) == size else { return kAudioFormatBadPropertySizeError }
        let given = outPropertyData.loadUnaligned(as: AudioStreamBasicDescription.self)
        guard let completed = completedFormat(given, cookie: [UInt8](specifier)) else {
            return kAudioFormatUnsupportedDataFormatError
        }
        outPropertyData.storeBytes(of: completed, as: AudioStreamBasicDescription.self)
        return noErr
    }
    return formatPropertyValue(inPropertyID, specifier).write(
        into: outPropertyData, size: ioPropertyDataSize, badSize: kAudioFormatBadPropertySizeError)
}
