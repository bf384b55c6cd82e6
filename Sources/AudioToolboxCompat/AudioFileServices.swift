import AudioContainers
import AudioFormats
import Foundation

// Audio File Services (AudioFile.h), reading, over afkit's AudioFile.

/// A file opened by ``AudioFileOpenURL(_:_:_:_:)``.
public typealias AudioFileID = OpaquePointer
/// A file type (`kAudioFileCAFType`, ...).
public typealias AudioFileTypeID = UInt32
/// A property of a file (`kAudioFileProperty...`).
public typealias AudioFilePropertyID = UInt32

/// How a file is opened.
public enum AudioFilePermissions: Int8, Sendable {
    case readPermission = 1
    case writePermission = 2
    case readWritePermission = 3
}

/// Flags of a file created.
public struct AudioFileFlags: OptionSet, Hashable, Sendable {
    /// The flag bits.
    public let rawValue: UInt32
    /// Flags of `rawValue`'s bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Replace a file that exists.
    public static let eraseFile = AudioFileFlags(rawValue: 1)
    /// Do not pad the header so the audio starts on a page.
    public static let dontPageAlignAudioData = AudioFileFlags(rawValue: 2)
}

/// Apple's `kAudioFileAIFFType`.
public var kAudioFileAIFFType: AudioFileTypeID { FourCharCode("AIFF").rawValue }
/// Apple's `kAudioFileAIFCType`.
public var kAudioFileAIFCType: AudioFileTypeID { FourCharCode("AIFC").rawValue }
/// Apple's `kAudioFileWAVEType`.
public var kAudioFileWAVEType: AudioFileTypeID { FourCharCode("WAVE").rawValue }
/// Apple's `kAudioFileRF64Type`.
public var kAudioFileRF64Type: AudioFileTypeID { FourCharCode("RF64").rawValue }
/// Apple's `kAudioFileBW64Type`.
public var kAudioFileBW64Type: AudioFileTypeID { FourCharCode("BW64").rawValue }
/// Apple's `kAudioFileWave64Type`.
public var kAudioFileWave64Type: AudioFileTypeID { FourCharCode("W64f").rawValue }
/// Apple's `kAudioFileSoundDesigner2Type`.
public var kAudioFileSoundDesigner2Type: AudioFileTypeID { FourCharCode("Sd2f").rawValue }
/// Apple's `kAudioFileNextType`.
public var kAudioFileNextType: AudioFileTypeID { FourCharCode("NeXT").rawValue }
/// Apple's `kAudioFileMP3Type`.
public var kAudioFileMP3Type: AudioFileTypeID { FourCharCode("MPG3").rawValue }
/// Apple's `kAudioFileMP2Type`.
public var kAudioFileMP2Type: AudioFileTypeID { FourCharCode("MPG2").rawValue }
/// Apple's `kAudioFileMP1Type`.
public var kAudioFileMP1Type: AudioFileTypeID { FourCharCode("MPG1").rawValue }
/// Apple's `kAudioFileAC3Type`.
public var kAudioFileAC3Type: AudioFileTypeID { FourCharCode("ac-3").rawValue }
/// Apple's `kAudioFileAAC_ADTSType`.
public var kAudioFileAAC_ADTSType: AudioFileTypeID { FourCharCode("adts").rawValue }
/// Apple's `kAudioFileMPEG4Type`.
public var kAudioFileMPEG4Type: AudioFileTypeID { FourCharCode("mp4f").rawValue }
/// Apple's `kAudioFileM4AType`.
public var kAudioFileM4AType: AudioFileTypeID { FourCharCode("m4af").rawValue }
/// Apple's `kAudioFileM4BType`.
public var kAudioFileM4BType: AudioFileTypeID { FourCharCode("m4bf").rawValue }
/// Apple's `kAudioFileCAFType`.
public var kAudioFileCAFType: AudioFileTypeID { FourCharCode("caff").rawValue }
/// Apple's `kAudioFile3GPType`.
public var kAudioFile3GPType: AudioFileTypeID { FourCharCode("3gpp").rawValue }
/// Apple's `kAudioFile3GP2Type`.
public var kAudioFile3GP2Type: AudioFileTypeID { FourCharCode("3gp2").rawValue }
/// Apple's `kAudioFileAMRType`.
public var kAudioFileAMRType: AudioFileTypeID { FourCharCode("amrf").rawValue }
/// Apple's `kAudioFileFLACType`.
public var kAudioFileFLACType: AudioFileTypeID { FourCharCode("flac").rawValue }
/// Apple's `kAudioFileLATMInLOASType`.
public var kAudioFileLATMInLOASType: AudioFileTypeID { FourCharCode("loas").rawValue }

/// Apple's `kAudioFileUnspecifiedError` result code.
public var kAudioFileUnspecifiedError: OSStatus { fourCharacterStatus("wht?") }
/// Apple's `kAudioFileUnsupportedFileTypeError` result code.
public var kAudioFileUnsupportedFileTypeError: OSStatus { fourCharacterStatus("typ?") }
/// Apple's `kAudioFileUnsupportedDataFormatError` result code.
public var kAudioFileUnsupportedDataFormatError: OSStatus { fourCharacterStatus("fmt?") }
/// Apple's `kAudioFileUnsupportedPropertyError` result code.
public var kAudioFileUnsupportedPropertyError: OSStatus { fourCharacterStatus("pty?") }
/// Apple's `kAudioFileBadPropertySizeError` result code.
public var kAudioFileBadPropertySizeError: OSStatus { fourCharacterStatus("!siz") }
/// Apple's `kAudioFilePermissionsError` result code.
public var kAudioFilePermissionsError: OSStatus { fourCharacterStatus("prm?") }
/// Apple's `kAudioFileNotOptimizedError` result code.
public var kAudioFileNotOptimizedError: OSStatus { fourCharacterStatus("optm") }
/// Apple's `kAudioFileInvalidChunkError` result code.
public var kAudioFileInvalidChunkError: OSStatus { fourCharacterStatus("chk?") }
/// Apple's `kAudioFileDoesNotAllow64BitDataSizeError` result code.
public var kAudioFileDoesNotAllow64BitDataSizeError: OSStatus { fourCharacterStatus("off?") }
/// Apple's `kAudioFileInvalidPacketOffsetError` result code.
public var kAudioFileInvalidPacketOffsetError: OSStatus { fourCharacterStatus("pck?") }
/// Apple's `kAudioFileInvalidPacketDependencyError` result code.
public var kAudioFileInvalidPacketDependencyError: OSStatus { fourCharacterStatus("dep?") }
/// Apple's `kAudioFileInvalidFileError` result code.
public var kAudioFileInvalidFileError: OSStatus { fourCharacterStatus("dta?") }
/// Apple's `kAudioFileOperationNotSupportedError` result code.
public var kAudioFileOperationNotSupportedError: OSStatus { 0x6F70_3F3F }
/// Apple's `kAudioFileNotOpenError` result code.
public var kAudioFileNotOpenError: OSStatus { -38 }
/// Apple's `kAudioFileEndOfFileError` result code.
public var kAudioFileEndOfFileError: OSStatus { -39 }
/// Apple's `kAudioFilePositionError` result code.
public var kAudioFilePositionError: OSStatus { -40 }
/// Apple's `kAudioFileFileNotFoundError` result code.
public var kAudioFileFileNotFoundError: OSStatus { -43 }

/// Apple's `kAudioFilePropertyFileFormat`.
public var kAudioFilePropertyFileFormat: AudioFilePropertyID { FourCharCode("ffmt").rawValue }
/// Apple's `kAudioFilePropertyDataFormat`.
public var kAudioFilePropertyDataFormat: AudioFilePropertyID { FourCharCode("dfmt").rawValue }
/// Apple's `kAudioFilePropertyIsOptimized`.
public var kAudioFilePropertyIsOptimized: AudioFilePropertyID { FourCharCode("optm").rawValue }
/// Apple's `kAudioFilePropertyMagicCookieData`.
public var kAudioFilePropertyMagicCookieData: AudioFilePropertyID { FourCharCode("mgic").rawValue }
/// Apple's `kAudioFilePropertyAudioDataByteCount`.
public var kAudioFilePropertyAudioDataByteCount: AudioFilePropertyID { FourCharCode("bcnt").rawValue }
/// Apple's `kAudioFilePropertyAudioDataPacketCount`.
public var kAudioFilePropertyAudioDataPacketCount: AudioFilePropertyID { FourCharCode("pcnt").rawValue }
/// Apple's `kAudioFilePropertyMaximumPacketSize`.
public var kAudioFilePropertyMaximumPacketSize: AudioFilePropertyID { FourCharCode("psze").rawValue }
/// Apple's `kAudioFilePropertyDataOffset`.
public var kAudioFilePropertyDataOffset: AudioFilePropertyID { FourCharCode("doff").rawValue }
/// Apple's `kAudioFilePropertyChannelLayout`.
public var kAudioFilePropertyChannelLayout: AudioFilePropertyID { FourCharCode("cmap").rawValue }
/// Apple's `kAudioFilePropertyPacketToFrame`.
public var kAudioFilePropertyPacketToFrame: AudioFilePropertyID { FourCharCode("pkfr").rawValue }
/// Apple's `kAudioFilePropertyFrameToPacket`.
public var kAudioFilePropertyFrameToPacket: AudioFilePropertyID { FourCharCode("frpk").rawValue }
/// Apple's `kAudioFilePropertyRestrictsRandomAccess`.
public var kAudioFilePropertyRestrictsRandomAccess: AudioFilePropertyID { FourCharCode("rrap").rawValue }
/// Apple's `kAudioFilePropertyPacketToRollDistance`.
public var kAudioFilePropertyPacketToRollDistance: AudioFilePropertyID { FourCharCode("pkrl").rawValue }
/// Apple's `kAudioFilePropertyPacketToByte`.
public var kAudioFilePropertyPacketToByte: AudioFilePropertyID { FourCharCode("pkby").rawValue }
/// Apple's `kAudioFilePropertyByteToPacket`.
public var kAudioFilePropertyByteToPacket: AudioFilePropertyID { FourCharCode("bypk").rawValue }
/// Apple's `kAudioFilePropertyPacketTableInfo`.
public var kAudioFilePropertyPacketTableInfo: AudioFilePropertyID { FourCharCode("pnfo").rawValue }
/// Apple's `kAudioFilePropertyFormatList`.
public var kAudioFilePropertyFormatList: AudioFilePropertyID { FourCharCode("flst").rawValue }
/// Apple's `kAudioFilePropertyPacketSizeUpperBound`.
public var kAudioFilePropertyPacketSizeUpperBound: AudioFilePropertyID { FourCharCode("pkub").rawValue }
/// Apple's `kAudioFilePropertyEstimatedDuration`.
public var kAudioFilePropertyEstimatedDuration: AudioFilePropertyID { FourCharCode("edur").rawValue }
/// Apple's `kAudioFilePropertyBitRate`.
public var kAudioFilePropertyBitRate: AudioFilePropertyID { FourCharCode("brat").rawValue }
/// Apple's `kAudioFilePropertyInfoDictionary`.
public var kAudioFilePropertyInfoDictionary: AudioFilePropertyID { FourCharCode("info").rawValue }
/// Apple's `kAudioFilePropertyAlbumArtwork`: the front cover (else the first picture) as `CFData`, where the file
/// holds one.
public var kAudioFilePropertyAlbumArtwork: AudioFilePropertyID { FourCharCode("aart").rawValue }
/// Apple's `kAudioFilePropertyID3Tag`: afkit reads ID3 tags into the info dictionary and keeps no raw tag, so it
/// answers "unsupported property".
public var kAudioFilePropertyID3Tag: AudioFilePropertyID { FourCharCode("id3t").rawValue }

/// The container of Apple's file type `id` (0: none given).
func fileType(ofAppleID id: AudioFileTypeID) -> FileType? {
    guard id != 0 else { return nil }
    return ContainerRegistry.all.first { $0.fileTypeID.rawValue == id }?.fileType
}

/// The state behind an ``AudioFileID``: a file opened for reading (``AudioFileBox``) or one being written
/// (``AudioFileWriting``).
class AudioFileObject {
    /// The object `id` stands for.
    static func object(_ id: AudioFileID) -> AudioFileObject {
        Unmanaged<AudioFileObject>.fromOpaque(UnsafeRawPointer(id)).takeUnretainedValue()
    }

    /// An ID for the object, which holds it until ``AudioFileClose(_:)``.
    var retainedID: AudioFileID { AudioFileID(Unmanaged.passRetained(self).toOpaque()) }
}

/// A file opened for reading.
final class AudioFileBox: AudioFileObject {
    let file: AudioFile
    /// Whether the client asked to write too (`.readWritePermission`).
    let asksToWrite: Bool
    init(_ file: AudioFile, asksToWrite: Bool = false) {
        self.file = file
        self.asksToWrite = asksToWrite
    }

    /// The code for a call that would change the file `id` stands for, which is not one being written: what afkit
    /// cannot do where the client asked for write permission, a permission error where it did not.
    static func refusedChange(_ id: AudioFileID) -> OSStatus {
        from(id)?.asksToWrite == true ? kAudioFileOperationNotSupportedError : kAudioFilePermissionsError
    }

    /// The file `id` stands for, if it was opened for reading.
    static func from(_ id: AudioFileID) -> AudioFileBox? { object(id) as? AudioFileBox }

    var parsed: ParsedProperties {
        var parsed = ParsedProperties(properties: file.properties)
        if let bytes = file.properties.audioDataByteCount, file.packetCount > 0 {
            parsed.averageBytesPerPacket = Double(bytes) / Double(file.packetCount)
        }
        let file = self.file
        let dataOffset = file.properties.dataOffset ?? 0
        parsed.frameOfPacket = { file.frame(ofPacket: $0) }
        parsed.pictureData = { try? file.pictureData($0) }
        parsed.packetOfFrame = { file.packet(ofFrame: $0) }
        parsed.packetToByte = { packet in
            (try? file.packetDescription(packet)).map { ($0.startOffset - dataOffset, false) }
        }
        parsed.byteToPacket = { byte in
            // The last packet starting at or before the byte.
            var low: Int64 = 0
            var high = file.packetCount
            while low < high {
                let middle = (low + high) / 2
                guard let start = try? file.packetDescription(middle).startOffset - dataOffset else { return nil }
                if start <= byte { low = middle + 1 } else { high = middle }
            }
            guard low > 0, let start = try? file.packetDescription(low - 1).startOffset - dataOffset else { return nil }
            return (low - 1, byte - start, false)
        }
        return parsed
    }
}

/// The path of a URL as Apple's functions take it.
func filePath(_ url: CFURL) -> String {
    #if canImport(Darwin)
        return (url as URL).path
    #else
        return url.path
    #endif
}

/// Opens a file for reading (``AudioFileCreateWithURL(_:_:_:_:_:)`` makes one to write). With
/// `.readWritePermission`, as metadata tools open files, it is read as with `.readPermission`, and calls that
/// would change it are `kAudioFileOperationNotSupportedError` (afkit does not edit a file in place); write
/// permission alone is `kAudioFilePermissionsError`.
@discardableResult
public func AudioFileOpenURL(
    _ inFileRef: CFURL, _ inPermissions: AudioFilePermissions, _ inFileTypeHint: AudioFileTypeID,
    _ outAudioFile: UnsafeMutablePointer<AudioFileID?>
) -> OSStatus {
    guard inPermissions != .writePermission else { return kAudioFilePermissionsError }
    let path = filePath(inFileRef)
    do {
        let file = try AudioFile(path: path, fileTypeHint: fileType(ofAppleID: inFileTypeHint))
        outAudioFile.pointee = AudioFileBox(file, asksToWrite: inPermissions == .readWritePermission).retainedID
        return noErr
    } catch {
        return fileStatus(of: error)
    }
}

/// Apple's code for an error opening or creating a file: a missing file (or folder) is
/// `kAudioFileFileNotFoundError`, others the error's own code.
func fileStatus(of error: any Error) -> OSStatus {
    if case .io(_, let code)? = error as? AudioFileError, code == ENOENT { return kAudioFileFileNotFoundError }
    return status(of: error)
}

/// The client's data pointer, which afkit hands back to the client's callbacks from its reading threads.
private struct ClientData: @unchecked Sendable { let pointer: UnsafeMutableRawPointer }

/// Opens a file for reading whose bytes the client's callbacks give (`inGetSizeFunc` their count, `inReadFunc`
/// a run of them); the write callbacks are not called.
@discardableResult
public func AudioFileOpenWithCallbacks(
    _ inClientData: UnsafeMutableRawPointer, _ inReadFunc: AudioFile_ReadProc,
    _ inWriteFunc: AudioFile_WriteProc?, _ inGetSizeFunc: AudioFile_GetSizeProc,
    _ inSetSizeFunc: AudioFile_SetSizeProc?, _ inFileTypeHint: AudioFileTypeID,
    _ outAudioFile: UnsafeMutablePointer<AudioFileID?>
) -> OSStatus {
    let client = ClientData(pointer: inClientData)
    let read = inReadFunc
    let bytes = ReadCallbacks(size: max(0, inGetSizeFunc(inClientData))) { buffer, offset in
        guard let base = buffer.baseAddress else { return 0 }
        var count: UInt32 = 0
        let status = read(client.pointer, offset, UInt32(clamping: buffer.count), base, &count)
        guard status == noErr || status == kAudioFileEndOfFileError else {
            throw AudioFileError.io("the read callback failed (\(status))", errno: EIO)
        }
        return min(Int(count), buffer.count)
    }
    do {
        let file = try AudioFile(bytes: bytes, name: "callbacks", fileTypeHint: fileType(ofAppleID: inFileTypeHint))
        outAudioFile.pointee = AudioFileBox(file).retainedID
        return noErr
    } catch {
        return status(of: error)
    }
}

/// Closes a file: one being written is finished (header, packet table, trailer) and put at its path.
@discardableResult
public func AudioFileClose(_ inAudioFile: AudioFileID) -> OSStatus {
    let unmanaged = Unmanaged<AudioFileObject>.fromOpaque(UnsafeRawPointer(inAudioFile))
    defer { unmanaged.release() }
    return (unmanaged.takeUnretainedValue() as? AudioFileWriting)?.finish() ?? noErr
}

/// The size of a property's value, and whether it can be set (0: none can).
@discardableResult
public func AudioFileGetPropertyInfo(
    _ inAudioFile: AudioFileID, _ inPropertyID: AudioFilePropertyID, _ outDataSize: UnsafeMutablePointer<UInt32>?,
    _ isWritable: UnsafeMutablePointer<UInt32>?
) -> OSStatus {
    if let writing = AudioFileObject.object(inAudioFile) as? AudioFileWriting {
        return writing.propertyInfo(inPropertyID, outDataSize, isWritable)
    }
    guard let value = AudioFileBox.from(inAudioFile)?.parsed.value(inPropertyID) else {
        return kAudioFileUnsupportedPropertyError
    }
    outDataSize?.pointee = UInt32(value.size)
    isWritable?.pointee = 0
    return noErr
}

/// A property's value, written to `outPropertyData` (`ioDataSize` bytes, set to those written).
@discardableResult
public func AudioFileGetProperty(
    _ inAudioFile: AudioFileID, _ inPropertyID: AudioFilePropertyID, _ ioDataSize: UnsafeMutablePointer<UInt32>,
    _ outPropertyData: UnsafeMutableRawPointer
) -> OSStatus {
    let object = AudioFileObject.object(inAudioFile)
    let parsed = (object as? AudioFileWriting)?.parsed ?? (object as? AudioFileBox)?.parsed
    guard let value = parsed?.value(inPropertyID) else { return kAudioFileUnsupportedPropertyError }
    return value.write(into: outPropertyData, size: ioDataSize, badSize: kAudioFileBadPropertySizeError)
}

/// Sets a property of a file being written: its magic cookie, packet table (priming and remainder), channel
/// layout or info dictionary (`AudioFileWriting.setProperty(_:_:_:)`); a file opened for reading takes none.
@discardableResult
public func AudioFileSetProperty(
    _ inAudioFile: AudioFileID, _ inPropertyID: AudioFilePropertyID, _ inDataSize: UInt32,
    _ inPropertyData: UnsafeRawPointer
) -> OSStatus {
    guard let writing = AudioFileObject.object(inAudioFile) as? AudioFileWriting else {
        return AudioFileBox.refusedChange(inAudioFile)
    }
    return writing.setProperty(inPropertyID, inDataSize, inPropertyData)
}

/// Reads packets from `inStartingPacket`: as many of `ioNumPackets` as fit in `ioNumBytes` bytes of
/// `outBuffer` (both set to what was read: 0 packets at the end), with their descriptions where packets
/// vary (offsets relative to the buffer). Ogg's packets, which pages interrupt, come joined.
@discardableResult
public func AudioFileReadPacketData(
    _ inAudioFile: AudioFileID, _ inUseCache: Bool, _ ioNumBytes: UnsafeMutablePointer<UInt32>,
    _ outPacketDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?, _ inStartingPacket: Int64,
    _ ioNumPackets: UnsafeMutablePointer<UInt32>, _ outBuffer: UnsafeMutableRawPointer?
) -> OSStatus {
    guard let file = AudioFileBox.from(inAudioFile)?.file else { return kAudioFilePermissionsError }
    guard inStartingPacket >= 0 else { return kAudioFileInvalidPacketOffsetError }
    let capacity = Int(ioNumBytes.pointee)
    var count = Int(min(Int64(ioNumPackets.pointee), max(0, file.packetCount - inStartingPacket)))
    // As many whole packets as the buffer holds.
    var bytes = 0
    for index in 0..<count {
        guard let size = try? Int(file.packetDescription(inStartingPacket + Int64(index)).dataByteSize),
            bytes + size <= capacity
        else {
            count = index
            break
        }
        bytes += size
    }
    guard count > 0 else {
        ioNumBytes.pointee = 0
        ioNumPackets.pointee = 0
        // A buffer too small for the next packet is the caller's error; past the end, no packets.
        return inStartingPacket < file.packetCount ? kAudioFileBadPropertySizeError : noErr
    }
    do {
        let (data, descriptions) = try file.readPackets(from: inStartingPacket, count: count)
        // The packets back to back (an ADTS header or damage between two in the file is not copied): never
        // more than the `bytes` counted against the caller's capacity.
        var written = 0
        for (index, description) in descriptions.enumerated() {
            let start = Int(description.startOffset)
            let size = Int(description.dataByteSize)
            guard start >= 0, start + size <= data.count, written + size <= capacity else {
                return kAudioFileInvalidFileError
            }
            if let outBuffer {
                data.withUnsafeBytes { raw in
                    UnsafeMutableRawBufferPointer(start: outBuffer + written, count: size)
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[start..<start + size]))
                }
            }
            var packed = description
            packed.startOffset = Int64(written)
            outPacketDescriptions?[index] = AudioStreamPacketDescription(packed)
            written += size
        }
        ioNumBytes.pointee = UInt32(written)
        ioNumPackets.pointee = UInt32(descriptions.count)
        return noErr
    } catch {
        return status(of: error)
    }
}

/// Reads `ioNumBytes` bytes of the audio data from `inStartingByte` (counted from the data's start; set to
/// those read, `kAudioFileEndOfFileError` when the end came first).
@discardableResult
public func AudioFileReadBytes(
    _ inAudioFile: AudioFileID, _ inUseCache: Bool, _ inStartingByte: Int64, _ ioNumBytes: UnsafeMutablePointer<UInt32>,
    _ outBuffer: UnsafeMutableRawPointer
) -> OSStatus {
    guard let file = AudioFileBox.from(inAudioFile)?.file else { return kAudioFilePermissionsError }
    guard inStartingByte >= 0 else { return kAudioFilePositionError }
    do {
        let bytes = try file.readAudioBytes(from: inStartingByte, count: Int(ioNumBytes.pointee))
        bytes.withUnsafeBytes {
            if let base = $0.baseAddress { outBuffer.copyMemory(from: base, byteCount: bytes.count) }
        }
        let asked = ioNumBytes.pointee
        ioNumBytes.pointee = UInt32(bytes.count)
        return bytes.count < asked ? kAudioFileEndOfFileError : noErr
    } catch {
        return status(of: error)
    }
}
