import AudioContainers
import AudioFormats

// Audio File Stream Services (AudioFileStream.h) over afkit's push parser.

/// A parser opened by ``AudioFileStreamOpen(_:_:_:_:_:)``.
public typealias AudioFileStreamID = OpaquePointer
/// A property of a stream (`kAudioFileStreamProperty_...`).
public typealias AudioFileStreamPropertyID = UInt32

/// Flags a property listener gets and may set.
public struct AudioFileStreamPropertyFlags: OptionSet, Hashable, Sendable {
    /// The flag bits.
    public let rawValue: UInt32
    /// Flags of `rawValue`'s bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The property's value is kept by the parser.
    public static let propertyIsCached = AudioFileStreamPropertyFlags(rawValue: 1)
    /// The listener asks the parser to keep the value.
    public static let cacheProperty = AudioFileStreamPropertyFlags(rawValue: 2)
}

/// Flags of ``AudioFileStreamParseBytes(_:_:_:_:)``.
public struct AudioFileStreamParseFlags: OptionSet, Hashable, Sendable {
    /// The flag bits.
    public let rawValue: UInt32
    /// Flags of `rawValue`'s bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The bytes do not follow the previous ones (after a seek).
    public static let discontinuity = AudioFileStreamParseFlags(rawValue: 1)
}

/// Flags of ``AudioFileStreamSeek(_:_:_:_:)``.
public struct AudioFileStreamSeekFlags: OptionSet, Hashable, Sendable {
    /// The flag bits.
    public let rawValue: UInt32
    /// Flags of `rawValue`'s bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The offset given is an estimate.
    public static let offsetIsEstimated = AudioFileStreamSeekFlags(rawValue: 1)
}

/// Called as each property becomes known. (Apple's is a C function pointer; a Swift function or a closure that
/// captures nothing, as such code passes, is taken as it is.)
public typealias AudioFileStream_PropertyListenerProc =
    (
        UnsafeMutableRawPointer, AudioFileStreamID, AudioFileStreamPropertyID,
        UnsafeMutablePointer<AudioFileStreamPropertyFlags>
    ) -> Void
/// Called with each run of whole packets: bytes, packet count, the data, and the descriptions (`nil` for
/// packets of constant size).
public typealias AudioFileStream_PacketsProc =
    (
        UnsafeMutableRawPointer, UInt32, UInt32, UnsafeRawPointer, UnsafeMutablePointer<AudioStreamPacketDescription>?
    ) -> Void

/// Apple's `kAudioFileStreamError_UnsupportedFileType` result code.
public var kAudioFileStreamError_UnsupportedFileType: OSStatus { fourCharacterStatus("typ?") }
/// Apple's `kAudioFileStreamError_UnsupportedDataFormat` result code.
public var kAudioFileStreamError_UnsupportedDataFormat: OSStatus { fourCharacterStatus("fmt?") }
/// Apple's `kAudioFileStreamError_UnsupportedProperty` result code.
public var kAudioFileStreamError_UnsupportedProperty: OSStatus { fourCharacterStatus("pty?") }
/// Apple's `kAudioFileStreamError_BadPropertySize` result code.
public var kAudioFileStreamError_BadPropertySize: OSStatus { fourCharacterStatus("!siz") }
/// Apple's `kAudioFileStreamError_NotOptimized` result code.
public var kAudioFileStreamError_NotOptimized: OSStatus { fourCharacterStatus("optm") }
/// Apple's `kAudioFileStreamError_InvalidPacketOffset` result code.
public var kAudioFileStreamError_InvalidPacketOffset: OSStatus { fourCharacterStatus("pck?") }
/// Apple's `kAudioFileStreamError_InvalidFile` result code.
public var kAudioFileStreamError_InvalidFile: OSStatus { fourCharacterStatus("dta?") }
/// Apple's `kAudioFileStreamError_ValueUnknown` result code.
public var kAudioFileStreamError_ValueUnknown: OSStatus { fourCharacterStatus("unk?") }
/// Apple's `kAudioFileStreamError_DataUnavailable` result code.
public var kAudioFileStreamError_DataUnavailable: OSStatus { fourCharacterStatus("more") }
/// Apple's `kAudioFileStreamError_IllegalOperation` result code.
public var kAudioFileStreamError_IllegalOperation: OSStatus { fourCharacterStatus("nope") }
/// Apple's `kAudioFileStreamError_UnspecifiedError` result code.
public var kAudioFileStreamError_UnspecifiedError: OSStatus { fourCharacterStatus("wht?") }
/// Apple's `kAudioFileStreamError_DiscontinuityCantRecover` result code.
public var kAudioFileStreamError_DiscontinuityCantRecover: OSStatus { fourCharacterStatus("dsc!") }

/// Apple's `kAudioFileStreamProperty_ReadyToProducePackets`.
public var kAudioFileStreamProperty_ReadyToProducePackets: AudioFileStreamPropertyID { FourCharCode("redy").rawValue }
/// Apple's `kAudioFileStreamProperty_FileFormat`.
public var kAudioFileStreamProperty_FileFormat: AudioFileStreamPropertyID { FourCharCode("ffmt").rawValue }
/// Apple's `kAudioFileStreamProperty_DataFormat`.
public var kAudioFileStreamProperty_DataFormat: AudioFileStreamPropertyID { FourCharCode("dfmt").rawValue }
/// Apple's `kAudioFileStreamProperty_FormatList`.
public var kAudioFileStreamProperty_FormatList: AudioFileStreamPropertyID { FourCharCode("flst").rawValue }
/// Apple's `kAudioFileStreamProperty_MagicCookieData`.
public var kAudioFileStreamProperty_MagicCookieData: AudioFileStreamPropertyID { FourCharCode("mgic").rawValue }
/// Apple's `kAudioFileStreamProperty_AudioDataByteCount`.
public var kAudioFileStreamProperty_AudioDataByteCount: AudioFileStreamPropertyID { FourCharCode("bcnt").rawValue }
/// Apple's `kAudioFileStreamProperty_AudioDataPacketCount`.
public var kAudioFileStreamProperty_AudioDataPacketCount: AudioFileStreamPropertyID { FourCharCode("pcnt").rawValue }
/// Apple's `kAudioFileStreamProperty_MaximumPacketSize`.
public var kAudioFileStreamProperty_MaximumPacketSize: AudioFileStreamPropertyID { FourCharCode("psze").rawValue }
/// Apple's `kAudioFileStreamProperty_DataOffset`.
public var kAudioFileStreamProperty_DataOffset: AudioFileStreamPropertyID { FourCharCode("doff").rawValue }
/// Apple's `kAudioFileStreamProperty_ChannelLayout`.
public var kAudioFileStreamProperty_ChannelLayout: AudioFileStreamPropertyID { FourCharCode("cmap").rawValue }
/// Apple's `kAudioFileStreamProperty_PacketToFrame`.
public var kAudioFileStreamProperty_PacketToFrame: AudioFileStreamPropertyID { FourCharCode("pkfr").rawValue }
/// Apple's `kAudioFileStreamProperty_FrameToPacket`.
public var kAudioFileStreamProperty_FrameToPacket: AudioFileStreamPropertyID { FourCharCode("frpk").rawValue }
/// Apple's `kAudioFileStreamProperty_RestrictsRandomAccess`.
public var kAudioFileStreamProperty_RestrictsRandomAccess: AudioFileStreamPropertyID { FourCharCode("rrap").rawValue }
/// Apple's `kAudioFileStreamProperty_PacketToRollDistance`.
public var kAudioFileStreamProperty_PacketToRollDistance: AudioFileStreamPropertyID { FourCharCode("pkrl").rawValue }
/// Apple's `kAudioFileStreamProperty_PacketToByte`.
public var kAudioFileStreamProperty_PacketToByte: AudioFileStreamPropertyID { FourCharCode("pkby").rawValue }
/// Apple's `kAudioFileStreamProperty_ByteToPacket`.
public var kAudioFileStreamProperty_ByteToPacket: AudioFileStreamPropertyID { FourCharCode("bypk").rawValue }
/// Apple's `kAudioFileStreamProperty_PacketTableInfo`.
public var kAudioFileStreamProperty_PacketTableInfo: AudioFileStreamPropertyID { FourCharCode("pnfo").rawValue }
/// Apple's `kAudioFileStreamProperty_PacketSizeUpperBound`.
public var kAudioFileStreamProperty_PacketSizeUpperBound: AudioFileStreamPropertyID { FourCharCode("pkub").rawValue }
/// Apple's `kAudioFileStreamProperty_AverageBytesPerPacket`.
public var kAudioFileStreamProperty_AverageBytesPerPacket: AudioFileStreamPropertyID { FourCharCode("abpp").rawValue }
/// Apple's `kAudioFileStreamProperty_BitRate`.
public var kAudioFileStreamProperty_BitRate: AudioFileStreamPropertyID { FourCharCode("brat").rawValue }
/// Apple's `kAudioFileStreamProperty_InfoDictionary`.
public var kAudioFileStreamProperty_InfoDictionary: AudioFileStreamPropertyID { FourCharCode("info").rawValue }

/// The state behind an ``AudioFileStreamID``.
final class FileStreamBox {
    var stream: AudioFileStream
    let clientData: UnsafeMutableRawPointer?
    let listener: AudioFileStream_PropertyListenerProc
    let packetsProc: AudioFileStream_PacketsProc
    /// What the parse had learned when it last said so (read by listeners during a parse).
    var known = StreamProperties()
    var descriptions: [AudioStreamPacketDescription] = []
    var failed = false
    /// Whether a parse call is under way: the callbacks it makes may ask for properties, which then come from
    /// what it last said (the stream itself is busy).
    var parsing = false
    /// Whether ``AudioFileStreamSeek(_:_:_:_:)`` was called since the last parse: the next parse with the
    /// discontinuity flag starts at the offset it gave.
    var seekPending = false
    /// Packets and their bytes handed to the client (the running average while the parse is busy).
    var deliveredPackets: Int64 = 0
    var deliveredBytes: Int64 = 0
    /// Whether the packet-size upper bound has been said (with the data format, where packets vary).
    var saidUpperBound = false

    /// What a client that gave no data pointer gets (Apple's callbacks take a non-null one).
    private let placeholder = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

    deinit { placeholder.deallocate() }

    init(
        clientData: UnsafeMutableRawPointer?, listener: @escaping AudioFileStream_PropertyListenerProc,
        packetsProc: @escaping AudioFileStream_PacketsProc, hint: FileType?
    ) {
        stream = AudioFileStream(fileTypeHint: hint)
        self.clientData = clientData
        self.listener = listener
        self.packetsProc = packetsProc
    }

    var id: AudioFileStreamID { AudioFileStreamID(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ id: AudioFileStreamID) -> FileStreamBox {
        Unmanaged<FileStreamBox>.fromOpaque(UnsafeRawPointer(id)).takeUnretainedValue()
    }

    /// Hands an event to the client's callbacks.
    func handle(_ event: AudioFileStream.Event) {
        let data = clientData ?? placeholder
        switch event {
        case .propertyChanged(let id, let properties):
            known = properties
            // A property is said only once it can be read.
            guard let code = Self.appleID(of: id), parsed.value(code) != nil else { return }
            var flags = AudioFileStreamPropertyFlags()
            listener(data, self.id, code, &flags)
            // The bound on a packet's size is known with the format (the codec's ceiling): said then.
            if id == .dataFormat, !saidUpperBound, properties.dataFormat?.bytesPerPacket == 0,
                (properties.packetSizeUpperBound ?? 0) > 0
            {
                saidUpperBound = true
                var flags = AudioFileStreamPropertyFlags()
                listener(data, self.id, kAudioFileStreamProperty_PacketSizeUpperBound, &flags)
            }
        case .packets(let packets):
            deliveredPackets += Int64(packets.count)
            deliveredBytes += Int64(packets.bytes.count)
            guard let base = packets.bytes.baseAddress else { return }
            if let own = packets.descriptions {
                descriptions.removeAll(keepingCapacity: true)
                descriptions.append(contentsOf: own.prefix(packets.count).map(AudioStreamPacketDescription.init))
                descriptions.withUnsafeMutableBufferPointer { buffer in
                    packetsProc(
                        data, UInt32(packets.bytes.count), UInt32(packets.count), base, buffer.baseAddress)
                }
            } else {
                packetsProc(data, UInt32(packets.bytes.count), UInt32(packets.count), base, nil)
            }
        case .seekRequested:
            break
        }
    }

    /// Apple's ID of a property afkit announces (`nil` for those Apple's parser does not announce).
    static func appleID(of id: StreamPropertyID) -> AudioFileStreamPropertyID? {
        switch id {
        case .readyToProducePackets: kAudioFileStreamProperty_ReadyToProducePackets
        case .fileFormat: kAudioFileStreamProperty_FileFormat
        case .dataFormat: kAudioFileStreamProperty_DataFormat
        case .magicCookie: kAudioFileStreamProperty_MagicCookieData
        case .dataOffset: kAudioFileStreamProperty_DataOffset
        case .audioDataByteCount: kAudioFileStreamProperty_AudioDataByteCount
        case .audioDataPacketCount: kAudioFileStreamProperty_AudioDataPacketCount
        case .maximumPacketSize: kAudioFileStreamProperty_MaximumPacketSize
        case .packetTableInfo: kAudioFileStreamProperty_PacketTableInfo
        case .channelLayout: kAudioFileStreamProperty_ChannelLayout
        case .formatList: kAudioFileStreamProperty_FormatList
        case .bitRate: kAudioFileStreamProperty_BitRate
        case .infoDictionary, .markers: nil
        }
    }

    /// The properties as a listener asks for them.
    var parsed: ParsedProperties {
        var parsed = ParsedProperties(properties: known)
        // ADTS packets leave out their 7- or 9-byte headers: the byte count is theirs, as the packets say.
        if known.fileType == .adts, known.audioDataPacketCount == deliveredPackets {
            parsed.properties.audioDataByteCount = deliveredBytes
        }
        guard !parsing else {
            // The stream is busy: the running average of what it has delivered (exact once its counts are known).
            if let packets = known.audioDataPacketCount, packets > 0, let bytes = parsed.properties.audioDataByteCount {
                parsed.averageBytesPerPacket = Double(bytes) / Double(packets)
            } else if deliveredPackets > 0 {
                parsed.averageBytesPerPacket = Double(deliveredBytes) / Double(deliveredPackets)
            }
            return parsed
        }
        parsed.averageBytesPerPacket = stream.averageBytesPerPacket?.value
        let stream = self.stream
        parsed.packetToByte = { stream.packetToByte($0) }
        parsed.byteToPacket = { stream.byteToPacket($0) }
        return parsed
    }
}

/// The status of an afkit error: its four-character code, which Apple's codes share (`typ?`, `fmt?`, `dta?`,
/// `pck?`, `nope`, ...); afkit's own (`eof!`, `lim!`, `io!!`) pass as they are.
func status(of error: any Error) -> OSStatus {
    guard let error = error as? AudioFileError else { return fourCharacterStatus("wht?") }
    switch error.code {
    case "eof!": return fourCharacterStatus("dta?")
    default: return OSStatus(bitPattern: error.code.rawValue)
    }
}

/// Opens a parser: properties go to `inPropertyListenerProc`, packets to `inPacketsProc`, both with
/// `inClientData`; `inFileTypeHint` (0: none) breaks ties between containers the bytes allow.
@discardableResult
public func AudioFileStreamOpen(
    _ inClientData: UnsafeMutableRawPointer?, _ inPropertyListenerProc: @escaping AudioFileStream_PropertyListenerProc,
    _ inPacketsProc: @escaping AudioFileStream_PacketsProc, _ inFileTypeHint: AudioFileTypeID,
    _ outAudioFileStream: UnsafeMutablePointer<AudioFileStreamID?>
) -> OSStatus {
    let box = FileStreamBox(
        clientData: inClientData, listener: inPropertyListenerProc, packetsProc: inPacketsProc,
        hint: fileType(ofAppleID: inFileTypeHint))
    outAudioFileStream.pointee = AudioFileStreamID(Unmanaged.passRetained(box).toOpaque())
    return noErr
}

/// Parses the next `inDataByteSize` bytes, calling the listener and packets procedures as properties and
/// packets become known: a packet whose length its header or the container states is delivered in the parse that
/// completes it. With `.discontinuity` after ``AudioFileStreamSeek(_:_:_:_:)``, the bytes start where the seek
/// said; with no seek since the last parse the flag changes nothing: the bytes continue where the last ended, as
/// Apple's parser takes them (clients set it on every parse after ReadyToProducePackets). Zero bytes end the
/// stream: a last packet whose end only the end of the stream shows (an E-AC-3 frame, a FLAC frame where
/// STREAMINFO states no length) is delivered then, and the counts are settled.
@discardableResult
public func AudioFileStreamParseBytes(
    _ inAudioFileStream: AudioFileStreamID, _ inDataByteSize: UInt32, _ inData: UnsafeRawPointer?,
    _ inFlags: AudioFileStreamParseFlags
) -> OSStatus {
    let box = FileStreamBox.from(inAudioFileStream)
    guard !box.failed else { return kAudioFileStreamError_DiscontinuityCantRecover }
    guard !box.parsing else { return kAudioFileStreamError_IllegalOperation }
    box.parsing = true
    defer { box.parsing = false }
    do {
        guard inDataByteSize > 0, let inData else {
            try box.stream.finish { box.handle($0) }
            return noErr
        }
        let bytes = UnsafeRawBufferPointer(start: inData, count: Int(inDataByteSize))
        let flags: AudioFileStream.ParseFlags =
            inFlags.contains(.discontinuity) && box.seekPending ? .discontinuity : []
        box.seekPending = false
        try box.stream.parse(bytes, flags: flags) { box.handle($0) }
        return noErr
    } catch {
        box.failed = true
        return status(of: error)
    }
}

/// The byte offset to parse from to resume at packet `inPacketOffset`; `ioFlags` says whether it is estimated.
@discardableResult
public func AudioFileStreamSeek(
    _ inAudioFileStream: AudioFileStreamID, _ inPacketOffset: Int64, _ outDataByteOffset: UnsafeMutablePointer<Int64>,
    _ ioFlags: UnsafeMutablePointer<AudioFileStreamSeekFlags>
) -> OSStatus {
    let box = FileStreamBox.from(inAudioFileStream)
    guard !box.parsing else { return kAudioFileStreamError_IllegalOperation }
    do {
        let (offset, estimated) = try box.stream.seek(toPacket: inPacketOffset)
        // Apple's offset counts from the start of the audio data.
        outDataByteOffset.pointee = offset - (box.stream.properties.dataOffset ?? 0)
        ioFlags.pointee = estimated ? .offsetIsEstimated : []
        box.failed = false
        box.seekPending = true
        return noErr
    } catch {
        return status(of: error) == fourCharacterStatus("nope")
            ? kAudioFileStreamError_IllegalOperation : kAudioFileStreamError_InvalidPacketOffset
    }
}

/// The size of a property's value, and whether it can be set (none can).
@discardableResult
public func AudioFileStreamGetPropertyInfo(
    _ inAudioFileStream: AudioFileStreamID, _ inPropertyID: AudioFileStreamPropertyID,
    _ outPropertyDataSize: UnsafeMutablePointer<UInt32>?, _ outWritable: UnsafeMutablePointer<DarwinBoolean>?
) -> OSStatus {
    guard let value = FileStreamBox.from(inAudioFileStream).parsed.value(inPropertyID) else {
        return kAudioFileStreamError_UnsupportedProperty
    }
    outPropertyDataSize?.pointee = UInt32(value.size)
    outWritable?.pointee = false
    return noErr
}

/// A property's value, written to `outPropertyData` (`ioPropertyDataSize` bytes, set to those written).
@discardableResult
public func AudioFileStreamGetProperty(
    _ inAudioFileStream: AudioFileStreamID, _ inPropertyID: AudioFileStreamPropertyID,
    _ ioPropertyDataSize: UnsafeMutablePointer<UInt32>, _ outPropertyData: UnsafeMutableRawPointer
) -> OSStatus {
    guard let value = FileStreamBox.from(inAudioFileStream).parsed.value(inPropertyID) else {
        return kAudioFileStreamError_UnsupportedProperty
    }
    return value.write(into: outPropertyData, size: ioPropertyDataSize, badSize: kAudioFileStreamError_BadPropertySize)
}

/// Sets a property: afkit's parser takes none.
@discardableResult
public func AudioFileStreamSetProperty(
    _ inAudioFileStream: AudioFileStreamID, _ inPropertyID: AudioFileStreamPropertyID, _ inPropertyDataSize: UInt32,
    _ inPropertyData: UnsafeRawPointer
) -> OSStatus {
    kAudioFileStreamError_UnsupportedProperty
}

/// Closes the parser and frees it, calling neither procedure (clients close in `deinit`): every packet came in the
/// parse that completed it; a last one only the end of the stream shows comes with a zero-byte parse.
@discardableResult
public func AudioFileStreamClose(_ inAudioFileStream: AudioFileStreamID) -> OSStatus {
    Unmanaged<FileStreamBox>.fromOpaque(UnsafeRawPointer(inAudioFileStream)).release()
    return noErr
}
