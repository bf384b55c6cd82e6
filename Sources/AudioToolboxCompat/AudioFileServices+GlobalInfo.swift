import AudioContainers
import AudioConversion
import AudioFormats
import FileAccess
import Foundation

// Audio File Services' global info (AudioFile.h): which types afkit reads and writes, their names, extensions
// and media types, and the formats each writer holds, all asked of the container registry and the writers.

/// Apple's `kAudioFileGlobalInfo_ReadableTypes`.
public var kAudioFileGlobalInfo_ReadableTypes: AudioFilePropertyID { FourCharCode("afrf").rawValue }
/// Apple's `kAudioFileGlobalInfo_WritableTypes`.
public var kAudioFileGlobalInfo_WritableTypes: AudioFilePropertyID { FourCharCode("afwf").rawValue }
/// Apple's `kAudioFileGlobalInfo_FileTypeName`.
public var kAudioFileGlobalInfo_FileTypeName: AudioFilePropertyID { FourCharCode("ftnm").rawValue }
/// Apple's `kAudioFileGlobalInfo_AvailableStreamDescriptionsForFormat`.
public var kAudioFileGlobalInfo_AvailableStreamDescriptionsForFormat: AudioFilePropertyID {
    FourCharCode("sdid").rawValue
}
/// Apple's `kAudioFileGlobalInfo_AvailableFormatIDs`.
public var kAudioFileGlobalInfo_AvailableFormatIDs: AudioFilePropertyID { FourCharCode("fmid").rawValue }
/// Apple's `kAudioFileGlobalInfo_AllExtensions`.
public var kAudioFileGlobalInfo_AllExtensions: AudioFilePropertyID { FourCharCode("alxt").rawValue }
/// Apple's `kAudioFileGlobalInfo_AllMIMETypes`.
public var kAudioFileGlobalInfo_AllMIMETypes: AudioFilePropertyID { FourCharCode("amim").rawValue }
/// Apple's `kAudioFileGlobalInfo_ExtensionsForType`.
public var kAudioFileGlobalInfo_ExtensionsForType: AudioFilePropertyID { FourCharCode("fext").rawValue }
/// Apple's `kAudioFileGlobalInfo_MIMETypesForType`.
public var kAudioFileGlobalInfo_MIMETypesForType: AudioFilePropertyID { FourCharCode("fmim").rawValue }
/// Apple's `kAudioFileGlobalInfo_TypesForMIMEType`.
public var kAudioFileGlobalInfo_TypesForMIMEType: AudioFilePropertyID { FourCharCode("tmim").rawValue }
/// Apple's `kAudioFileGlobalInfo_TypesForExtension`.
public var kAudioFileGlobalInfo_TypesForExtension: AudioFilePropertyID { FourCharCode("text").rawValue }

/// A file type and a format in it (the specifier of `kAudioFileGlobalInfo_AvailableStreamDescriptionsForFormat`).
public struct AudioFileTypeAndFormatID: Hashable, Sendable {
    /// Apple's `mFileType` field.
    public var mFileType: AudioFileTypeID
    /// Apple's `mFormatID` field.
    public var mFormatID: AudioFormatID

    /// Every field zero.
    public init() { self.init(mFileType: 0, mFormatID: 0) }

    /// A pair of the fields given.
    public init(mFileType: AudioFileTypeID, mFormatID: AudioFormatID) {
        self.mFileType = mFileType
        self.mFormatID = mFormatID
    }
}

extension AudioFileTypeAndFormatID: BitwiseCopyable {}

/// Every data format afkit writes, as `-d` names them, in a file of `fileType` (the writer's own check, at
/// 48 kHz stereo, decides), in the order `-d` lists them.
func writableFormats(in fileType: FileType) -> [StreamDescription] {
    DataFormatSpecifier.names.compactMap { name in
        guard let format = DataFormatSpecifier(name)?.streamDescription(sampleRate: 48000, channels: 2),
            (try? AudioFileWriter.check(format, in: fileType)) != nil
        else { return nil }
        return format
    }
}

/// Distinct values in first-seen order.
func distinct<Value: Hashable>(_ values: [Value]) -> [Value] {
    var seen = Set<Value>()
    return values.filter { seen.insert($0).inserted }
}

/// A list of strings handed out as Core Foundation hands a `CFArray` of `CFString`s.
func stringList(_ strings: [String]) -> PropertyValue {
    retainedObject { NSArray(array: strings.map { NSString(string: $0) }) }
}

/// The value of global info property `id` for `specifier`, or the code that says why there is none.
func globalInfoValue(_ id: AudioFilePropertyID, _ specifier: UnsafeRawBufferPointer) -> Result<
    PropertyValue, FormatPropertyError
> {
    let badSize = Result<PropertyValue, FormatPropertyError>.failure(.init(kAudioFileBadPropertySizeError))
    let unknownType = Result<PropertyValue, FormatPropertyError>.failure(.init(kAudioFileUnsupportedFileTypeError))
    /// The container a specifier's file type names.
    func container() -> ContainerDescriptor?? {
        guard specifier.count == MemoryLayout<AudioFileTypeID>.size else { return nil }
        let type = fileType(ofAppleID: specifier.loadUnaligned(as: AudioFileTypeID.self))
        return .some(type.flatMap(ContainerRegistry.descriptor(of:)))
    }
    /// The string a specifier points to (a `CFString`).
    func string() -> String? {
        guard specifier.count == MemoryLayout<UnsafeRawPointer>.size,
            let pointer = specifier.loadUnaligned(as: UnsafeRawPointer?.self)
        else { return nil }
        return Unmanaged<NSString>.fromOpaque(pointer).takeUnretainedValue() as String
    }
    switch FourCharCode(rawValue: id) {
    case "afrf": return .success(listValue(distinct(ContainerRegistry.all.map(\.fileTypeID.rawValue))))
    case "afwf": return .success(listValue(distinct(ContainerRegistry.written.map(\.fileTypeID.rawValue))))
    case "alxt": return .success(stringList(distinct(ContainerRegistry.all.flatMap(\.fileType.extensionsInOrder))))
    case "amim": return .success(stringList(distinct(ContainerRegistry.all.flatMap(\.mediaTypes))))
    case "ftnm", "fext", "fmim", "fmid":
        guard let found = container() else { return badSize }
        guard let descriptor = found else { return unknownType }
        switch FourCharCode(rawValue: id) {
        case "ftnm":
            let name = descriptor.name
            return .success(retainedObject { NSString(string: name) })
        case "fext": return .success(stringList(descriptor.fileType.extensionsInOrder))
        case "fmim": return .success(stringList(descriptor.mediaTypes))
        default:
            guard descriptor.isWritten else { return unknownType }
            return .success(listValue(distinct(writableFormats(in: descriptor.fileType).map(\.formatID.rawValue))))
        }
    case "sdid":
        guard specifier.count == MemoryLayout<AudioFileTypeAndFormatID>.size else { return badSize }
        let pair = specifier.loadUnaligned(as: AudioFileTypeAndFormatID.self)
        guard let type = fileType(ofAppleID: pair.mFileType), let descriptor = ContainerRegistry.descriptor(of: type),
            descriptor.isWritten
        else { return unknownType }
        // Apple's answer: the layouts the type holds, with no rate or channels (nor the sizes they make).
        let formats = writableFormats(in: type).filter { $0.formatID.rawValue == pair.mFormatID }
        guard !formats.isEmpty else { return .failure(.init(kAudioFileUnsupportedDataFormatError)) }
        return .success(
            listValue(
                formats.map { format in
                    var description = AudioStreamBasicDescription(format)
                    description.mSampleRate = 0
                    description.mChannelsPerFrame = 0
                    if format.formatID == .lpcm || format.bytesPerFrame > 0 {
                        description.mBytesPerFrame = 0
                        description.mBytesPerPacket = 0
                    }
                    return description
                }))
    case "text":
        guard let wanted = string()?.lowercased() else { return badSize }
        let types = ContainerRegistry.all.filter { $0.fileType.knownExtensions.contains(wanted) }
        return .success(listValue(distinct(types.map(\.fileTypeID.rawValue))))
    case "tmim":
        guard let wanted = string()?.lowercased() else { return badSize }
        let types = ContainerRegistry.all.filter { $0.mediaTypes.contains(wanted) }
        return .success(listValue(distinct(types.map(\.fileTypeID.rawValue))))
    default:
        return .failure(.init(kAudioFileUnsupportedPropertyError))
    }
}

/// The size of global info property `inPropertyID`'s value for the specifier given.
@discardableResult
public func AudioFileGetGlobalInfoSize(
    _ inPropertyID: AudioFilePropertyID, _ inSpecifierSize: UInt32, _ inSpecifier: UnsafeMutableRawPointer?,
    _ outDataSize: UnsafeMutablePointer<UInt32>
) -> OSStatus {
    let specifier = UnsafeRawBufferPointer(start: inSpecifier, count: inSpecifier == nil ? 0 : Int(inSpecifierSize))
    return globalInfoValue(inPropertyID, specifier).reportSize(in: outDataSize)
}

/// Global info property `inPropertyID`'s value for the specifier given, written to `outPropertyData`
/// (`ioDataSize` bytes, set to those written). Names and lists of names come as Core Foundation objects
/// retained for the caller (on Linux, Foundation's `NSString` and `NSArray`).
@discardableResult
public func AudioFileGetGlobalInfo(
    _ inPropertyID: AudioFilePropertyID, _ inSpecifierSize: UInt32, _ inSpecifier: UnsafeMutableRawPointer?,
    _ ioDataSize: UnsafeMutablePointer<UInt32>, _ outPropertyData: UnsafeMutableRawPointer
) -> OSStatus {
    let specifier = UnsafeRawBufferPointer(start: inSpecifier, count: inSpecifier == nil ? 0 : Int(inSpecifierSize))
    return globalInfoValue(inPropertyID, specifier).write(
        into: outPropertyData, size: ioDataSize, badSize: kAudioFileBadPropertySizeError)
}
