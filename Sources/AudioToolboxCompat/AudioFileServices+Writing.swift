import AudioCodecs
import AudioContainers
import AudioConversion
import AudioFormats
import FileAccess
import Foundation

// Audio File Services (AudioFile.h), writing, over afkit's one AudioFileWriter: every container afkit writes,
// with the formats each writer says it holds.

// The keys of `kAudioFilePropertyInfoDictionary` (AudioFile.h's `kAFInfoDictionary_...`); afkit's metadata
// names are the same words.
/// Apple's `kAFInfoDictionary_Artist`.
public var kAFInfoDictionary_Artist: String { "artist" }
/// Apple's `kAFInfoDictionary_Album`.
public var kAFInfoDictionary_Album: String { "album" }
/// Apple's `kAFInfoDictionary_Tempo`.
public var kAFInfoDictionary_Tempo: String { "tempo" }
/// Apple's `kAFInfoDictionary_KeySignature`.
public var kAFInfoDictionary_KeySignature: String { "key signature" }
/// Apple's `kAFInfoDictionary_TimeSignature`.
public var kAFInfoDictionary_TimeSignature: String { "time signature" }
/// Apple's `kAFInfoDictionary_TrackNumber`.
public var kAFInfoDictionary_TrackNumber: String { "track number" }
/// Apple's `kAFInfoDictionary_Year`.
public var kAFInfoDictionary_Year: String { "year" }
/// Apple's `kAFInfoDictionary_Composer`.
public var kAFInfoDictionary_Composer: String { "composer" }
/// Apple's `kAFInfoDictionary_Lyricist`.
public var kAFInfoDictionary_Lyricist: String { "lyricist" }
/// Apple's `kAFInfoDictionary_Genre`.
public var kAFInfoDictionary_Genre: String { "genre" }
/// Apple's `kAFInfoDictionary_Title`.
public var kAFInfoDictionary_Title: String { "title" }
/// Apple's `kAFInfoDictionary_RecordedDate`.
public var kAFInfoDictionary_RecordedDate: String { "recorded date" }
/// Apple's `kAFInfoDictionary_Comments`.
public var kAFInfoDictionary_Comments: String { "comments" }
/// Apple's `kAFInfoDictionary_Copyright`.
public var kAFInfoDictionary_Copyright: String { "copyright" }
/// Apple's `kAFInfoDictionary_SourceEncoder`.
public var kAFInfoDictionary_SourceEncoder: String { "source encoder" }
/// Apple's `kAFInfoDictionary_EncodingApplication`.
public var kAFInfoDictionary_EncodingApplication: String { "encoding application" }
/// Apple's `kAFInfoDictionary_NominalBitRate`.
public var kAFInfoDictionary_NominalBitRate: String { "nominal bit rate" }
/// Apple's `kAFInfoDictionary_ChannelLayout`.
public var kAFInfoDictionary_ChannelLayout: String { "channel layout" }
/// Apple's `kAFInfoDictionary_ApproximateDurationInSeconds`.
public var kAFInfoDictionary_ApproximateDurationInSeconds: String { "approximate duration in seconds" }
/// Apple's `kAFInfoDictionary_SourceBitDepth`.
public var kAFInfoDictionary_SourceBitDepth: String { "source bit depth" }
/// Apple's `kAFInfoDictionary_ISRC`.
public var kAFInfoDictionary_ISRC: String { "ISRC" }
/// Apple's `kAFInfoDictionary_SubTitle`.
public var kAFInfoDictionary_SubTitle: String { "subtitle" }

/// A file made by ``AudioFileCreateWithURL(_:_:_:_:_:)``. What a client sets before its first packet (cookie,
/// channel layout, info dictionary) goes into the header, so the writer starts at the first packet; the file is
/// written beside its path and put there by ``AudioFileClose(_:)`` (nothing is left behind by a file not closed).
final class AudioFileWriting: AudioFileObject {
    let descriptor: ContainerDescriptor
    let format: StreamDescription
    private let output: AtomicOutputFile
    private var options = AudioFileWriterOptions()
    private var writer: AudioFileWriter?
    /// The table the client set, checked against the frames written when it was set; its valid frames follow
    /// the frames written (``currentPacketTable``), so a table set before the packets holds once they are.
    private var packetTable: PacketTableInfo?

    /// The packet table as it stands: the client's priming and remainder (none where it set none) around the
    /// rest of the frames written; `nil` where they exceed them.
    private var currentPacketTable: PacketTableInfo? {
        let priming = packetTable?.primingFrames ?? 0
        let remainder = packetTable?.remainderFrames ?? 0
        let valid = frameCount - Int64(priming) - Int64(remainder)
        return valid >= 0
            ? PacketTableInfo(validFrames: valid, primingFrames: priming, remainderFrames: remainder) : nil
    }
    /// A cookie set once packets were written (FLAC's `STREAMINFO` completed): it replaces the header's at close.
    private var finalCookie: [UInt8]?
    private var packetCount: Int64 = 0
    private var frameCount: Int64 = 0
    private var byteCount: Int64 = 0
    private var maximumPacketSize: UInt32 = 0
    /// ``AudioFileWriteBytes(_:_:_:_:_:)``'s bytes short of a whole packet, held for the next call.
    private var partialPacket: [UInt8] = []
    /// Packets the client's descriptions scatter, gathered end to end for the writer.
    private var gathered: [UInt8] = []
    private var descriptions: [PacketDescription] = []
    private var isFinished = false
    /// Where the file goes when a client's callbacks take it (``AudioFileInitializeWithCallbacks``) rather
    /// than a path: the finished bytes are handed to them at close.
    var callbacks: WriteCallbacks?

    init(path: String, descriptor: ContainerDescriptor, format: StreamDescription) throws {
        self.descriptor = descriptor
        self.format = format
        // Packets all one size have it before any is written.
        maximumPacketSize = format.bytesPerPacket
        output = try AtomicOutputFile(path)
    }

    deinit {
        if !isFinished {
            writer?.cancel()
            output.abandon()
        }
    }

    /// The file as the property table answers it (the same table a file read answers from).
    var parsed: ParsedProperties {
        var properties = StreamProperties()
        properties.fileType = descriptor.fileType
        properties.dataFormat = format
        properties.magicCookie = finalCookie ?? options.magicCookie
        (properties.audioDataByteCount, properties.audioDataPacketCount) = (byteCount, packetCount)
        properties.channelLayout = options.channelLayout
        properties.infoDictionary = options.metadata
        properties.maximumPacketSize = maximumPacketSize
        properties.isOptimized = isFinished
        properties.packetTableInfo = currentPacketTable
        var parsed = ParsedProperties(properties: properties)
        if packetCount > 0 { parsed.averageBytesPerPacket = Double(byteCount) / Double(packetCount) }
        return parsed
    }

    /// Whether the file records the priming and remainder a client sets: where its container does, except an MP3
    /// file, whose counts go in the LAME tag frame afkit's encoder writes first, which packets copied lack.
    var recordsPacketTable: Bool { descriptor.recordsPriming && descriptor.fileType != .mp3 }

    /// The properties a client sets: the cookie, the packet table, the channel layout, the info dictionary.
    static let settable: Set<FourCharCode> = ["mgic", "pnfo", "cmap", "info"]

    func propertyInfo(
        _ id: AudioFilePropertyID, _ size: UnsafeMutablePointer<UInt32>?, _ writable: UnsafeMutablePointer<UInt32>?
    ) -> OSStatus {
        let code = FourCharCode(rawValue: id)
        // The packet table only where the container records priming and remainder.
        let isSettable = Self.settable.contains(code) && (code != "pnfo" || recordsPacketTable)
        let value = parsed.value(id)
        guard value != nil || isSettable else { return kAudioFileUnsupportedPropertyError }
        size?.pointee = UInt32(value?.size ?? 0)
        writable?.pointee = isSettable ? 1 : 0
        return noErr
    }

    // MARK: Properties

    /// Sets property `id` from `size` bytes at `data`: a wrong size is `kAudioFileBadPropertySizeError`, a value
    /// that contradicts the file (a cookie of another rate or channel count, a table whose frames are not those
    /// written, a layout of other channels) `kAudio_ParamError` or the cookie's own code, a property the file
    /// cannot hold `kAudioFileUnsupportedPropertyError`.
    func setProperty(_ id: AudioFilePropertyID, _ size: UInt32, _ data: UnsafeRawPointer) -> OSStatus {
        guard !isFinished else { return kAudioFileNotOpenError }
        switch FourCharCode(rawValue: id) {
        case "mgic": return setCookie(UnsafeRawBufferPointer(start: data, count: Int(size)))
        case "pnfo":
            guard Int(size) == MemoryLayout<AudioFilePacketTableInfo>.size else {
                return kAudioFileBadPropertySizeError
            }
            return setPacketTable(data.loadUnaligned(as: AudioFilePacketTableInfo.self))
        case "cmap": return setChannelLayout(UnsafeRawBufferPointer(start: data, count: Int(size)))
        case "info":
            guard Int(size) == MemoryLayout<UnsafeRawPointer>.size else { return kAudioFileBadPropertySizeError }
            guard writer == nil else { return kAudioFileOperationNotSupportedError }
            guard let pointer = data.loadUnaligned(as: UnsafeRawPointer?.self) else { return kAudio_ParamError }
            let dictionary = Unmanaged<NSDictionary>.fromOpaque(pointer).takeUnretainedValue()
            for case (let key as String, let value as String) in dictionary.swiftDictionary {
                options.metadata[key] = value
            }
            return noErr
        default:
            return parsed.value(id) == nil ? kAudioFileUnsupportedPropertyError : kAudioFileOperationNotSupportedError
        }
    }

    /// The largest cookie taken (a FLAC `dfLa` with every metadata block stays far below it).
    static let maximumCookieSize = 1 << 20

    private func setCookie(_ bytes: UnsafeRawBufferPointer) -> OSStatus {
        guard !bytes.isEmpty, bytes.count <= Self.maximumCookieSize else { return kAudioFileBadPropertySizeError }
        let cookie = [UInt8](bytes)
        // A cookie afkit can read must describe the file's format: one that names another rate or channel
        // count, or that does not parse, would make a file no decoder plays.
        if let described = formatsDescribed(formatID: format.formatID, cookie: cookie) {
            guard !described.isEmpty else { return kAudioFileInvalidChunkError }
            let agrees = described.contains {
                ($0.channelsPerFrame == format.channelsPerFrame || $0.channelsPerFrame == 0)
                    && ($0.sampleRate == format.sampleRate || format.formatID == .opus)
            }
            guard agrees else { return kAudioFileUnsupportedDataFormatError }
        }
        guard writer != nil else {
            options.magicCookie = cookie
            return noErr
        }
        // Once the header is written, only a cookie that takes the same room and is completed at the end.
        guard format.formatID != .mpegLayer3, cookie.count == options.magicCookie?.count else {
            return kAudioFileOperationNotSupportedError
        }
        finalCookie = cookie
        return noErr
    }

    private func setPacketTable(_ table: AudioFilePacketTableInfo) -> OSStatus {
        guard recordsPacketTable || (table.mPrimingFrames == 0 && table.mRemainderFrames == 0) else {
            return kAudioFileUnsupportedPropertyError
        }
        let info = PacketTableInfo(
            validFrames: table.mNumberValidFrames, primingFrames: table.mPrimingFrames,
            remainderFrames: table.mRemainderFrames)
        guard info.validFrames >= 0, info.primingFrames >= 0, info.remainderFrames >= 0, let total = info.totalFrames
        else { return kAudio_ParamError }
        // Apple's rule: the three counts add up to the frames the packets hold. Before any packet, the priming
        // and remainder are kept and the valid frames follow from what is written.
        guard total == frameCount || frameCount == 0 else { return kAudio_ParamError }
        packetTable = info
        return noErr
    }

    private func setChannelLayout(_ bytes: UnsafeRawBufferPointer) -> OSStatus {
        guard bytes.count >= 12 else { return kAudioFileBadPropertySizeError }
        guard writer == nil else { return kAudioFileOperationNotSupportedError }
        guard let layout = channelLayout(from: bytes) else { return kAudioFileBadPropertySizeError }
        guard layout.channelCount == Int(format.channelsPerFrame) else { return kAudio_ParamError }
        options.channelLayout = layout
        return noErr
    }

    // MARK: Packets

    /// Appends `count` packets from `bytes` (their descriptions where the format's packets vary), starting at
    /// packet `start`, which must be the next one: afkit writes front to back.
    func writePackets(
        _ bytes: UnsafeRawBufferPointer, _ packetDescriptions: UnsafePointer<AudioStreamPacketDescription>?,
        _ start: Int64, _ count: Int
    ) -> OSStatus {
        guard !isFinished else { return kAudioFileNotOpenError }
        guard start == packetCount, partialPacket.isEmpty else { return kAudioFileInvalidPacketOffsetError }
        guard count > 0 else { return noErr }
        let run: UnsafeRawBufferPointer
        var frames: Int64 = 0
        descriptions.removeAll(keepingCapacity: true)
        if format.hasConstantPackets {
            let (size, overflow) = count.multipliedReportingOverflow(by: Int(format.bytesPerPacket))
            guard !overflow, size <= bytes.count else { return kAudio_ParamError }
            run = UnsafeRawBufferPointer(rebasing: bytes[0..<size])
            frames = Int64(count) * Int64(format.framesPerPacket)
        } else {
            guard let packetDescriptions else { return kAudio_ParamError }
            gathered.removeAll(keepingCapacity: true)
            for index in 0..<count {
                let packet = packetDescriptions[index]
                let size = Int(packet.mDataByteSize)
                let packetFrames = format.framesPerPacket > 0 ? format.framesPerPacket : packet.mVariableFramesInPacket
                guard packet.mStartOffset >= 0, packet.mStartOffset <= Int64(bytes.count) - Int64(size),
                    format.bytesPerPacket == 0 || packet.mDataByteSize == format.bytesPerPacket, packetFrames > 0
                else { return kAudio_ParamError }
                let offset = Int(packet.mStartOffset)
                descriptions.append(
                    PacketDescription(
                        startOffset: Int64(gathered.count), variableFramesInPacket: packet.mVariableFramesInPacket,
                        dataByteSize: packet.mDataByteSize))
                gathered.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + size]))
                frames += Int64(packetFrames)
                maximumPacketSize = max(maximumPacketSize, packet.mDataByteSize)
            }
            run = UnsafeRawBufferPointer(start: nil, count: 0)
        }
        do {
            let writer = try startedWriter()
            if format.hasConstantPackets {
                try writer.writePackets(run)
            } else {
                try gathered.withUnsafeBytes { try writer.writePackets($0, descriptions: descriptions) }
            }
        } catch {
            return status(of: error)
        }
        if format.hasConstantPackets {
            maximumPacketSize = format.bytesPerPacket
            byteCount += Int64(run.count)
        } else {
            byteCount += Int64(gathered.count)
        }
        packetCount += Int64(count)
        frameCount += frames
        return noErr
    }

    /// Appends bytes of a format whose packets are all one size (linear PCM, IMA4, G.711) from `start`, which
    /// must be where the audio ends; bytes short of a whole packet wait for the next call.
    func writeBytes(_ bytes: UnsafeRawBufferPointer, at start: Int64) -> OSStatus {
        guard !isFinished else { return kAudioFileNotOpenError }
        guard format.hasConstantPackets else { return kAudioFileOperationNotSupportedError }
        guard start == byteCount + Int64(partialPacket.count) else { return kAudioFilePositionError }
        let packetSize = Int(format.bytesPerPacket)
        var pending = partialPacket
        pending.append(contentsOf: bytes)
        let whole = pending.count / packetSize
        partialPacket = Array(pending[(whole * packetSize)...])
        guard whole > 0 else { return noErr }
        return pending.withUnsafeBytes { writePacketsKeepingPartial($0, count: whole) }
    }

    private func writePacketsKeepingPartial(_ bytes: UnsafeRawBufferPointer, count: Int) -> OSStatus {
        let held = partialPacket
        partialPacket = []
        defer { partialPacket = held }
        return writePackets(bytes, nil, packetCount, count)
    }

    /// The writer, made at the first packet with what the client set before it.
    private func startedWriter() throws -> AudioFileWriter {
        if let writer { return writer }
        var options = self.options
        // The bare ALACSpecificConfig, as Apple writes it in CAF (there with its `chan` layout info, where it has
        // one) and an MPEG-4 sample entry holds it: clients copy cookies wrapped in `frma` and `alac` atoms
        // (FFmpeg's CAF, QuickTime), which libsndfile does not read.
        if format.formatID == .alac, let cookie = options.magicCookie,
            let config = AppleLossless.specificConfig(inCookie: cookie),
            descriptor.fileType != .caf || !cookie.starts(with: config)
        {
            options.magicCookie = config
        }
        // AAC's cookie as the writers take it (and CAF's `kuki` must hold it): the ES descriptor, where a client
        // gives the bare AudioSpecificConfig (afkit's readers hand that out), as the packet copier gives it.
        if format.formatID == .aac, let cookie = options.magicCookie {
            options.magicCookie = AudioSpecificConfig.elementaryStreamDescriptor(inCookie: cookie)
        }
        let writer = try AudioFileWriter(
            path: output.temporaryPath, fileType: descriptor.fileType, format: format, options: options)
        self.writer = writer
        return writer
    }

    /// Ends the file: the writer closes with the packet table, and the file goes to its path.
    func finish() -> OSStatus {
        guard !isFinished else { return noErr }
        isFinished = true
        do {
            guard partialPacket.isEmpty else {
                throw AudioFileError.invalidPacket(
                    "\(output.path): \(partialPacket.count) bytes short of a whole packet at the end", offset: nil)
            }
            guard let table = currentPacketTable else {
                throw AudioFileError.invalidPacket(
                    "\(output.path): priming and remainder exceed the frames written", offset: nil)
            }
            try startedWriter().close(packetTableInfo: packetTable == nil ? nil : table, magicCookie: finalCookie)
            if let callbacks {
                try callbacks.deliver(ReadableFile(path: output.temporaryPath))
                output.abandon()
            } else {
                try output.commit()
            }
            return noErr
        } catch {
            writer?.cancel()
            output.abandon()
            if case .invalidPacket? = error as? AudioFileError { return kAudio_ParamError }
            return status(of: error)
        }
    }
}

extension NSDictionary {
    /// The entries as Swift values.
    fileprivate var swiftDictionary: [AnyHashable: Any] {
        var entries: [AnyHashable: Any] = [:]
        for (key, value) in self { if let key = key as? AnyHashable { entries[key] = value } }
        return entries
    }
}

/// afkit's layout of Apple's AudioChannelLayout bytes (tag, bitmap, count, then 20-byte descriptions), or
/// `nil` where the bytes hold fewer descriptions than the count says.
func channelLayout(from bytes: UnsafeRawBufferPointer) -> ChannelLayout? {
    guard bytes.count >= 12 else { return nil }
    let tag = bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self)
    let bitmap = bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
    let count = Int(bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    let stride = MemoryLayout<AudioChannelDescription>.stride
    guard count <= (bytes.count - 12) / stride else { return nil }
    let descriptions = (0..<count).map { index in
        let description = bytes.loadUnaligned(fromByteOffset: 12 + index * stride, as: AudioChannelDescription.self)
        return ChannelDescription(
            label: description.mChannelLabel, flags: description.mChannelFlags,
            coordinates: description.mCoordinates)
    }
    return ChannelLayout(tag: tag, bitmap: bitmap, descriptions: descriptions)
}

/// Creates a file of `inFileType` for packets of `inFormat` at `inFileRef` (replacing a file there only with
/// `.eraseFile`): any container afkit writes, with the formats its writer holds; another type is
/// `kAudioFileUnsupportedFileTypeError`, another format `kAudioFileUnsupportedDataFormatError`. The file is
/// written beside its path and appears there at ``AudioFileClose(_:)``.
@discardableResult
public func AudioFileCreateWithURL(
    _ inFileRef: CFURL, _ inFileType: AudioFileTypeID, _ inFormat: UnsafePointer<AudioStreamBasicDescription>,
    _ inFlags: AudioFileFlags, _ outAudioFile: UnsafeMutablePointer<AudioFileID?>
) -> OSStatus {
    guard let type = fileType(ofAppleID: inFileType), let descriptor = ContainerRegistry.descriptor(of: type),
        descriptor.isWritten
    else { return kAudioFileUnsupportedFileTypeError }
    let format = inFormat.pointee.streamDescription
    guard format.sampleRate > 0, format.sampleRate.isFinite, format.channelsPerFrame > 0 else {
        return kAudioFileUnsupportedDataFormatError
    }
    do {
        try AudioFileWriter.check(format, in: type)
    } catch {
        return kAudioFileUnsupportedDataFormatError
    }
    let path = filePath(inFileRef)
    if !inFlags.contains(.eraseFile), FileIdentity(path: path) != nil { return kAudioFilePermissionsError }
    do {
        outAudioFile.pointee = try AudioFileWriting(path: path, descriptor: descriptor, format: format).retainedID
        return noErr
    } catch {
        return fileStatus(of: error)
    }
}

/// Writes `ioNumPackets` packets from `inBuffer` (`inNumBytes` bytes; descriptions where the format's packets
/// vary, offsets into the buffer) as packets `inStartingPacket...`: the next packets, as afkit writes front to
/// back (another start is `kAudioFileInvalidPacketOffsetError`). Descriptions missing or reaching outside the
/// buffer are `kAudio_ParamError`; a file opened for reading is `kAudioFilePermissionsError`.
@discardableResult
public func AudioFileWritePackets(
    _ inAudioFile: AudioFileID, _ inUseCache: Bool, _ inNumBytes: UInt32,
    _ inPacketDescriptions: UnsafePointer<AudioStreamPacketDescription>?, _ inStartingPacket: Int64,
    _ ioNumPackets: UnsafeMutablePointer<UInt32>, _ inBuffer: UnsafeRawPointer
) -> OSStatus {
    guard let file = AudioFileObject.object(inAudioFile) as? AudioFileWriting else {
        return AudioFileBox.refusedChange(inAudioFile)
    }
    let bytes = UnsafeRawBufferPointer(start: inBuffer, count: Int(inNumBytes))
    let status = file.writePackets(bytes, inPacketDescriptions, inStartingPacket, Int(ioNumPackets.pointee))
    if status != noErr { ioNumPackets.pointee = 0 }
    return status
}

/// Writes `ioNumBytes` bytes of audio from `inBuffer` at `inStartingByte` of the audio data (where it ends):
/// for formats whose packets are all one size; others are `kAudioFileOperationNotSupportedError`.
@discardableResult
public func AudioFileWriteBytes(
    _ inAudioFile: AudioFileID, _ inUseCache: Bool, _ inStartingByte: Int64, _ ioNumBytes: UnsafeMutablePointer<UInt32>,
    _ inBuffer: UnsafeRawPointer
) -> OSStatus {
    guard let file = AudioFileObject.object(inAudioFile) as? AudioFileWriting else {
        return AudioFileBox.refusedChange(inAudioFile)
    }
    let status = file.writeBytes(
        UnsafeRawBufferPointer(start: inBuffer, count: Int(ioNumBytes.pointee)), at: inStartingByte)
    if status != noErr { ioNumBytes.pointee = 0 }
    return status
}

/// Lays the file out for reading: afkit's files are written whole at ``AudioFileClose(_:)``, so there is
/// nothing to move.
@discardableResult
public func AudioFileOptimize(_ inAudioFile: AudioFileID) -> OSStatus { noErr }

// MARK: - Callbacks

/// A client's read procedure: fills `buffer` with up to `count` bytes from `position`, setting `actualCount`.
public typealias AudioFile_ReadProc =
    @convention(c) (
        _ inClientData: UnsafeMutableRawPointer, _ inPosition: Int64, _ requestCount: UInt32,
        _ buffer: UnsafeMutableRawPointer, _ actualCount: UnsafeMutablePointer<UInt32>
    ) -> OSStatus
/// A client's write procedure: writes `count` bytes of `buffer` at `position`, setting `actualCount`.
public typealias AudioFile_WriteProc =
    @convention(c) (
        _ inClientData: UnsafeMutableRawPointer, _ inPosition: Int64, _ requestCount: UInt32,
        _ buffer: UnsafeRawPointer, _ actualCount: UnsafeMutablePointer<UInt32>
    ) -> OSStatus
/// A client's size procedure: the bytes its file holds.
public typealias AudioFile_GetSizeProc = @convention(c) (_ inClientData: UnsafeMutableRawPointer) -> Int64
/// A client's truncation procedure: sets the bytes its file holds.
public typealias AudioFile_SetSizeProc =
    @convention(c) (_ inClientData: UnsafeMutableRawPointer, _ inSize: Int64) -> OSStatus

/// A client's write callbacks, which take a finished file's bytes front to back.
struct WriteCallbacks {
    let clientData: UnsafeMutableRawPointer
    let write: AudioFile_WriteProc
    let setSize: AudioFile_SetSizeProc

    /// Hands every byte of `file` to the write procedure, a mebibyte at a time, then sets the size.
    func deliver(_ file: ReadableFile) throws {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var position: Int64 = 0
        while position < file.size {
            let count = try chunk.withUnsafeMutableBytes { try file.read(into: $0, at: position) }
            guard count > 0 else { break }
            var written: UInt32 = 0
            let status = chunk.withUnsafeBytes { bytes in
                bytes.baseAddress.map { write(clientData, position, UInt32(count), $0, &written) } ?? kAudio_ParamError
            }
            guard status == noErr, Int(written) == count else {
                throw AudioFileError.io("the write callback took \(written) of \(count) bytes (\(status))", errno: EIO)
            }
            position += Int64(count)
        }
        let status = setSize(clientData, position)
        guard status == noErr else { throw AudioFileError.io("the size callback failed (\(status))", errno: EIO) }
    }
}

/// Creates a file of `inFileType` for `inFormat` whose bytes go to the client's callbacks (handed over, front to
/// back, at ``AudioFileClose(_:)``); otherwise as ``AudioFileCreateWithURL(_:_:_:_:_:)``.
@discardableResult
public func AudioFileInitializeWithCallbacks(
    _ inClientData: UnsafeMutableRawPointer, _ inReadFunc: AudioFile_ReadProc,
    _ inWriteFunc: AudioFile_WriteProc, _ inGetSizeFunc: AudioFile_GetSizeProc,
    _ inSetSizeFunc: AudioFile_SetSizeProc, _ inFileType: AudioFileTypeID,
    _ inFormat: UnsafePointer<AudioStreamBasicDescription>, _ inFlags: AudioFileFlags,
    _ outAudioFile: UnsafeMutablePointer<AudioFileID?>
) -> OSStatus {
    // The file is made beside a name of its own in the temporary folder, and never put there.
    let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("afkit-\(UUID().uuidString)")
    let status = AudioFileCreateWithURL(scratch as CFURL, inFileType, inFormat, inFlags, outAudioFile)
    guard status == noErr, let id = outAudioFile.pointee, let file = AudioFileObject.object(id) as? AudioFileWriting
    else { return status }
    file.callbacks = WriteCallbacks(clientData: inClientData, write: inWriteFunc, setSize: inSetSizeFunc)
    return noErr
}
