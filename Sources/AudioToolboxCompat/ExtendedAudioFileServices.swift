import AudioContainers
import AudioConversion
import AudioFormats
import Foundation

// Extended Audio File Services (ExtendedAudioFile.h) over afkit's ExtendedAudioFile.

/// A file opened by ``ExtAudioFileOpenURL(_:_:)`` or made by ``ExtAudioFileCreateWithURL(_:_:_:_:_:_:)``.
public typealias ExtAudioFileRef = OpaquePointer
/// A property of an extended audio file (`kExtAudioFileProperty_...`).
public typealias ExtAudioFilePropertyID = UInt32

/// Apple's `kExtAudioFileProperty_FileDataFormat`.
public var kExtAudioFileProperty_FileDataFormat: ExtAudioFilePropertyID { FourCharCode("ffmt").rawValue }
/// Apple's `kExtAudioFileProperty_FileChannelLayout`.
public var kExtAudioFileProperty_FileChannelLayout: ExtAudioFilePropertyID { FourCharCode("fclo").rawValue }
/// Apple's `kExtAudioFileProperty_ClientDataFormat`.
public var kExtAudioFileProperty_ClientDataFormat: ExtAudioFilePropertyID { FourCharCode("cfmt").rawValue }
/// Apple's `kExtAudioFileProperty_ClientChannelLayout`.
public var kExtAudioFileProperty_ClientChannelLayout: ExtAudioFilePropertyID { FourCharCode("cclo").rawValue }
/// Apple's `kExtAudioFileProperty_CodecManufacturer`.
public var kExtAudioFileProperty_CodecManufacturer: ExtAudioFilePropertyID { FourCharCode("cman").rawValue }
/// Apple's `kExtAudioFileProperty_AudioConverter`.
public var kExtAudioFileProperty_AudioConverter: ExtAudioFilePropertyID { FourCharCode("acnv").rawValue }
/// Apple's `kExtAudioFileProperty_AudioFile`.
public var kExtAudioFileProperty_AudioFile: ExtAudioFilePropertyID { FourCharCode("afil").rawValue }
/// Apple's `kExtAudioFileProperty_FileMaxPacketSize`.
public var kExtAudioFileProperty_FileMaxPacketSize: ExtAudioFilePropertyID { FourCharCode("fmps").rawValue }
/// Apple's `kExtAudioFileProperty_ClientMaxPacketSize`.
public var kExtAudioFileProperty_ClientMaxPacketSize: ExtAudioFilePropertyID { FourCharCode("cmps").rawValue }
/// Apple's `kExtAudioFileProperty_FileLengthFrames`.
public var kExtAudioFileProperty_FileLengthFrames: ExtAudioFilePropertyID { FourCharCode("#frm").rawValue }
/// Apple's `kExtAudioFileProperty_ConverterConfig`.
public var kExtAudioFileProperty_ConverterConfig: ExtAudioFilePropertyID { FourCharCode("accf").rawValue }
/// Apple's `kExtAudioFileProperty_IOBufferSizeBytes`.
public var kExtAudioFileProperty_IOBufferSizeBytes: ExtAudioFilePropertyID { FourCharCode("iobs").rawValue }
/// Apple's `kExtAudioFileProperty_IOBuffer`.
public var kExtAudioFileProperty_IOBuffer: ExtAudioFilePropertyID { FourCharCode("iobf").rawValue }
/// Apple's `kExtAudioFileProperty_PacketTable`.
public var kExtAudioFileProperty_PacketTable: ExtAudioFilePropertyID { FourCharCode("xpti").rawValue }

/// Apple's `kExtAudioFileError_InvalidProperty` result code.
public var kExtAudioFileError_InvalidProperty: OSStatus { -66561 }
/// Apple's `kExtAudioFileError_InvalidPropertySize` result code.
public var kExtAudioFileError_InvalidPropertySize: OSStatus { -66562 }
/// Apple's `kExtAudioFileError_NonPCMClientFormat` result code.
public var kExtAudioFileError_NonPCMClientFormat: OSStatus { -66563 }
/// Apple's `kExtAudioFileError_InvalidChannelMap` result code.
public var kExtAudioFileError_InvalidChannelMap: OSStatus { -66564 }
/// Apple's `kExtAudioFileError_InvalidOperationOrder` result code.
public var kExtAudioFileError_InvalidOperationOrder: OSStatus { -66565 }
/// Apple's `kExtAudioFileError_InvalidDataFormat` result code.
public var kExtAudioFileError_InvalidDataFormat: OSStatus { -66566 }
/// Apple's `kExtAudioFileError_MaxPacketSizeUnknown` result code.
public var kExtAudioFileError_MaxPacketSizeUnknown: OSStatus { -66567 }
/// Apple's `kExtAudioFileError_InvalidSeek` result code.
public var kExtAudioFileError_InvalidSeek: OSStatus { -66568 }
/// Apple's `kExtAudioFileError_AsyncWriteTooLarge` result code.
public var kExtAudioFileError_AsyncWriteTooLarge: OSStatus { -66569 }
/// Apple's `kExtAudioFileError_AsyncWriteBufferOverflow` result code.
public var kExtAudioFileError_AsyncWriteBufferOverflow: OSStatus { -66570 }

extension ExtendedAudioFile {
    static func from(_ reference: ExtAudioFileRef) -> ExtendedAudioFile {
        Unmanaged<ExtendedAudioFile>.fromOpaque(UnsafeRawPointer(reference)).takeUnretainedValue()
    }

    var reference: ExtAudioFileRef { ExtAudioFileRef(Unmanaged.passRetained(self).toOpaque()) }
}

/// Opens a file for reading in a client format (at first the file's rate and channels as 32-bit float).
@discardableResult
public func ExtAudioFileOpenURL(_ inURL: CFURL, _ outExtAudioFile: UnsafeMutablePointer<ExtAudioFileRef?>) -> OSStatus {
    do {
        outExtAudioFile.pointee = try ExtendedAudioFile(readingPath: filePath(inURL)).reference
        return noErr
    } catch {
        return fileStatus(of: error)
    }
}

/// Creates a file of `inFileType` holding `inStreamDesc` (any codec afkit writes; a codec's description
/// needs its ID, rate and channels). `inFlags` with `kAudioFileFlags_EraseFile` replaces a file that exists.
@discardableResult
public func ExtAudioFileCreateWithURL(
    _ inURL: CFURL, _ inFileType: AudioFileTypeID, _ inStreamDesc: UnsafePointer<AudioStreamBasicDescription>,
    _ inChannelLayout: UnsafePointer<AudioChannelLayout>?, _ inFlags: UInt32,
    _ outExtAudioFile: UnsafeMutablePointer<ExtAudioFileRef?>
) -> OSStatus {
    guard let type = fileType(ofAppleID: inFileType) else { return kAudioFileUnsupportedFileTypeError }
    do {
        let file = try ExtendedAudioFile(
            creatingPath: filePath(inURL), fileType: type, fileFormat: inStreamDesc.pointee.streamDescription,
            overwrite: inFlags & AudioFileFlags.eraseFile.rawValue != 0)
        outExtAudioFile.pointee = file.reference
        return noErr
    } catch {
        if case .illegalOperation? = error as? AudioFileError { return kAudioFilePermissionsError }
        return status(of: error)
    }
}

/// Ends the file: a file written is finished and put at its path.
@discardableResult
public func ExtAudioFileDispose(_ inExtAudioFile: ExtAudioFileRef) -> OSStatus {
    let unmanaged = Unmanaged<ExtendedAudioFile>.fromOpaque(UnsafeRawPointer(inExtAudioFile))
    defer { unmanaged.release() }
    do {
        try unmanaged.takeUnretainedValue().close()
        return noErr
    } catch {
        return status(of: error)
    }
}

/// Reads up to `ioNumberFrames` frames in the client format into `ioData`'s buffers (one interleaved, or one a
/// channel), setting the frames read (0 at the end) and each buffer's `mDataByteSize`.
@discardableResult
public func ExtAudioFileRead(
    _ inExtAudioFile: ExtAudioFileRef, _ ioNumberFrames: UnsafeMutablePointer<UInt32>,
    _ ioData: UnsafeMutablePointer<AudioBufferList>
) -> OSStatus {
    let file = ExtendedAudioFile.from(inExtAudioFile)
    let list = UnsafeMutableAudioBufferListPointer(ioData)
    let format = file.clientDataFormat
    let nonInterleaved = format.formatFlags.contains(.isNonInterleaved)
    let bytesPerFrame = Int(format.bytesPerFrame)
    guard bytesPerFrame > 0, list.count == (nonInterleaved ? Int(format.channelsPerFrame) : 1) else {
        return kExtAudioFileError_InvalidDataFormat
    }
    // No more frames than every buffer holds.
    let room = list.map { Int($0.mDataByteSize) / bytesPerFrame }.min() ?? 0
    var buffers: [[UInt8]] = []
    do {
        let frames = try file.read(maximumFrames: min(Int(ioNumberFrames.pointee), room), into: &buffers)
        for index in 0..<list.count {
            let bytes = index < buffers.count ? buffers[index] : []
            if let data = list[index].mData, !bytes.isEmpty {
                bytes.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(start: data, count: bytes.count).copyMemory(from: $0)
                }
            }
            list[index].mDataByteSize = UInt32(frames * bytesPerFrame)
        }
        ioNumberFrames.pointee = UInt32(frames)
        return noErr
    } catch {
        return status(of: error)
    }
}

/// Writes `inNumberFrames` frames in the client format from `ioData`'s buffers.
@discardableResult
public func ExtAudioFileWrite(
    _ inExtAudioFile: ExtAudioFileRef, _ inNumberFrames: UInt32, _ ioData: UnsafePointer<AudioBufferList>
) -> OSStatus {
    let file = ExtendedAudioFile.from(inExtAudioFile)
    let list = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: ioData))
    let bytesPerFrame = Int(file.clientDataFormat.bytesPerFrame)
    let buffers = list.map { buffer -> [UInt8] in
        let count = min(Int(buffer.mDataByteSize), Int(inNumberFrames) * bytesPerFrame)
        guard let data = buffer.mData else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: count))
    }
    do {
        try file.write(frames: Int(inNumberFrames), from: buffers)
        return noErr
    } catch {
        return status(of: error)
    }
}

/// Writes as ``ExtAudioFileWrite(_:_:_:)`` does (afkit's writes complete before the call returns); a call
/// with no data primes nothing.
@discardableResult
public func ExtAudioFileWriteAsync(
    _ inExtAudioFile: ExtAudioFileRef, _ inNumberFrames: UInt32, _ ioData: UnsafePointer<AudioBufferList>?
) -> OSStatus {
    guard let ioData else { return noErr }
    return ExtAudioFileWrite(inExtAudioFile, inNumberFrames, ioData)
}

/// Moves to client frame `inFrameOffset`.
@discardableResult
public func ExtAudioFileSeek(_ inExtAudioFile: ExtAudioFileRef, _ inFrameOffset: Int64) -> OSStatus {
    do {
        try ExtendedAudioFile.from(inExtAudioFile).seek(toFrame: inFrameOffset)
        return noErr
    } catch {
        return kExtAudioFileError_InvalidSeek
    }
}

/// The client frame the next read starts at.
@discardableResult
public func ExtAudioFileTell(_ inExtAudioFile: ExtAudioFileRef, _ outFrameOffset: UnsafeMutablePointer<Int64>)
    -> OSStatus
{
    outFrameOffset.pointee = ExtendedAudioFile.from(inExtAudioFile).tell()
    return noErr
}

/// The value of a property afkit answers: the file and client data formats, the length in frames, the
/// file's largest packet; others are `kExtAudioFileError_InvalidProperty`.
private func extendedProperty(_ file: ExtendedAudioFile, _ id: ExtAudioFilePropertyID) -> PropertyValue? {
    switch FourCharCode(rawValue: id) {
    case "ffmt": return .value(AudioStreamBasicDescription(file.fileDataFormat))
    case "cfmt": return .value(AudioStreamBasicDescription(file.clientDataFormat))
    case "#frm": return .value(file.fileLengthFrames)
    case "fmps":
        return (file.audioFile?.properties.maximumPacketSize).map { .value($0) }
    case "cmps": return .value(file.clientDataFormat.bytesPerPacket)
    case "xpti":
        guard let table = file.audioFile?.properties.packetTableInfo else { return nil }
        return .value(
            AudioFilePacketTableInfo(
                mNumberValidFrames: table.validFrames, mPrimingFrames: table.primingFrames,
                mRemainderFrames: table.remainderFrames))
    default: return nil
    }
}

/// The size of a property's value, and whether it can be set (the client data format can).
@discardableResult
public func ExtAudioFileGetPropertyInfo(
    _ inExtAudioFile: ExtAudioFileRef, _ inPropertyID: ExtAudioFilePropertyID, _ outSize: UnsafeMutablePointer<UInt32>?,
    _ outWritable: UnsafeMutablePointer<DarwinBoolean>?
) -> OSStatus {
    guard let value = extendedProperty(ExtendedAudioFile.from(inExtAudioFile), inPropertyID) else {
        return kExtAudioFileError_InvalidProperty
    }
    outSize?.pointee = UInt32(value.size)
    outWritable?.pointee = DarwinBoolean(inPropertyID == kExtAudioFileProperty_ClientDataFormat)
    return noErr
}

/// A property's value, written to `outPropertyData` (`ioPropertyDataSize` bytes, set to those written).
@discardableResult
public func ExtAudioFileGetProperty(
    _ inExtAudioFile: ExtAudioFileRef, _ inPropertyID: ExtAudioFilePropertyID,
    _ ioPropertyDataSize: UnsafeMutablePointer<UInt32>, _ outPropertyData: UnsafeMutableRawPointer
) -> OSStatus {
    guard let value = extendedProperty(ExtendedAudioFile.from(inExtAudioFile), inPropertyID) else {
        return kExtAudioFileError_InvalidProperty
    }
    return value.write(into: outPropertyData, size: ioPropertyDataSize, badSize: kExtAudioFileError_InvalidPropertySize)
}

/// Sets a property: the client data format (linear PCM of any layout, rate and channels).
@discardableResult
public func ExtAudioFileSetProperty(
    _ inExtAudioFile: ExtAudioFileRef, _ inPropertyID: ExtAudioFilePropertyID, _ inPropertyDataSize: UInt32,
    _ inPropertyData: UnsafeRawPointer
) -> OSStatus {
    guard inPropertyID == kExtAudioFileProperty_ClientDataFormat else { return kExtAudioFileError_InvalidProperty }
    guard Int(inPropertyDataSize) == MemoryLayout<AudioStreamBasicDescription>.size else {
        return kExtAudioFileError_InvalidPropertySize
    }
    let format = inPropertyData.loadUnaligned(as: AudioStreamBasicDescription.self)
    guard format.mFormatID == kAudioFormatLinearPCM else { return kExtAudioFileError_NonPCMClientFormat }
    do {
        try ExtendedAudioFile.from(inExtAudioFile).setClientDataFormat(format.streamDescription)
        return noErr
    } catch {
        return kExtAudioFileError_InvalidDataFormat
    }
}
