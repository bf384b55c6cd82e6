import AudioCodecs
import AudioEngines
import AudioFormats

// Audio Converter Services (AudioConverter.h) over afkit's codec registry, channel mixer and resampler: a
// converter decodes any format afkit decodes to linear PCM, converts linear PCM to linear PCM (rate, channels,
// integer or float, depth, byte order, interleaving), and encodes linear PCM to any format afkit encodes.

/// A converter made by ``AudioConverterNew(_:_:_:)``.
public typealias AudioConverterRef = OpaquePointer
/// A property of a converter (`kAudioConverter...`).
public typealias AudioConverterPropertyID = UInt32
/// A four-character code as Apple's C headers type it (a plain 32-bit integer).
public typealias OSType = UInt32

/// Supplies input to ``AudioConverterFillComplexBuffer(_:_:_:_:_:_:)``: the converter, the packets it asks for
/// (set to the packets given, 0 at the end of the input), the buffers to point at them, where to point at their
/// descriptions (for formats whose packets vary), and the caller's data. A non-zero status with no packets
/// means "no data now": the converter returns that status and what it made, and resumes on the next call.
/// (Apple's is a C function pointer; a Swift function or a closure that captures nothing, as such code passes,
/// is taken as it is.)
public typealias AudioConverterComplexInputDataProc =
    (
        AudioConverterRef, UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<AudioBufferList>,
        UnsafeMutablePointer<UnsafeMutablePointer<AudioStreamPacketDescription>?>?, UnsafeMutableRawPointer?
    ) -> OSStatus

/// Apple's AudioConverterPrimeInfo: frames of input a converter needs before the first output frame and after
/// the last (`kAudioConverterPrimeInfo`).
public struct AudioConverterPrimeInfo: Hashable, Sendable, BitwiseCopyable {
    /// Apple's `leadingFrames` field.
    public var leadingFrames: UInt32
    /// Apple's `trailingFrames` field.
    public var trailingFrames: UInt32

    /// Every field zero.
    public init() { self.init(leadingFrames: 0, trailingFrames: 0) }

    /// Counts of the fields given.
    public init(leadingFrames: UInt32, trailingFrames: UInt32) {
        self.leadingFrames = leadingFrames
        self.trailingFrames = trailingFrames
    }
}

/// Apple's AudioClassDescription: a codec by kind, format and maker (``AudioConverterNewSpecific(_:_:_:_:_:)``).
public struct AudioClassDescription: Hashable, Sendable, BitwiseCopyable {
    /// Apple's `mType` field (`kAudioDecoderComponentType`, `kAudioEncoderComponentType`).
    public var mType: OSType
    /// Apple's `mSubType` field: the format ID.
    public var mSubType: OSType
    /// Apple's `mManufacturer` field.
    public var mManufacturer: OSType

    /// Every field zero.
    public init() { self.init(mType: 0, mSubType: 0, mManufacturer: 0) }

    /// A description of the fields given.
    public init(mType: OSType, mSubType: OSType, mManufacturer: OSType) {
        self.mType = mType
        self.mSubType = mSubType
        self.mManufacturer = mManufacturer
    }
}

// MARK: - Result codes (AudioConverter.h)

/// Apple's `kAudioConverterErr_FormatNotSupported` result code.
public var kAudioConverterErr_FormatNotSupported: OSStatus { fourCharacterStatus("fmt?") }
/// Apple's `kAudioConverterErr_OperationNotSupported` result code.
public var kAudioConverterErr_OperationNotSupported: OSStatus { 0x6F70_3F3F }  // 'op??'
/// Apple's `kAudioConverterErr_PropertyNotSupported` result code.
public var kAudioConverterErr_PropertyNotSupported: OSStatus { fourCharacterStatus("prop") }
/// Apple's `kAudioConverterErr_InvalidInputSize` result code.
public var kAudioConverterErr_InvalidInputSize: OSStatus { fourCharacterStatus("insz") }
/// Apple's `kAudioConverterErr_InvalidOutputSize` result code.
public var kAudioConverterErr_InvalidOutputSize: OSStatus { fourCharacterStatus("otsz") }
/// Apple's `kAudioConverterErr_UnspecifiedError` result code.
public var kAudioConverterErr_UnspecifiedError: OSStatus { fourCharacterStatus("what") }
/// Apple's `kAudioConverterErr_BadPropertySizeError` result code.
public var kAudioConverterErr_BadPropertySizeError: OSStatus { fourCharacterStatus("!siz") }
/// Apple's `kAudioConverterErr_RequiresPacketDescriptionsError` result code.
public var kAudioConverterErr_RequiresPacketDescriptionsError: OSStatus { fourCharacterStatus("!pkd") }
/// Apple's `kAudioConverterErr_InputSampleRateOutOfRange` result code.
public var kAudioConverterErr_InputSampleRateOutOfRange: OSStatus { fourCharacterStatus("!isr") }
/// Apple's `kAudioConverterErr_OutputSampleRateOutOfRange` result code.
public var kAudioConverterErr_OutputSampleRateOutOfRange: OSStatus { fourCharacterStatus("!osr") }
/// Apple's `kAudioConverterErr_HardwareInUse` result code.
public var kAudioConverterErr_HardwareInUse: OSStatus { fourCharacterStatus("hwiu") }
/// Apple's `kAudioConverterErr_NoHardwarePermission` result code.
public var kAudioConverterErr_NoHardwarePermission: OSStatus { fourCharacterStatus("perm") }
/// Apple's `kAudioCodecBadDataError` result code (AudioCodec.h): a decoder refused the packets it was given.
public var kAudioCodecBadDataError: OSStatus { fourCharacterStatus("bada") }

// MARK: - Properties (AudioConverter.h)

/// A property ID of its four characters.
@inlinable func converterProperty(_ code: StaticString) -> AudioConverterPropertyID { FourCharCode(code).rawValue }

/// Apple's `kAudioConverterPropertyMinimumInputBufferSize`.
public var kAudioConverterPropertyMinimumInputBufferSize: AudioConverterPropertyID { converterProperty("mibs") }
/// Apple's `kAudioConverterPropertyMinimumOutputBufferSize`.
public var kAudioConverterPropertyMinimumOutputBufferSize: AudioConverterPropertyID { converterProperty("mobs") }
/// Apple's `kAudioConverterPropertyMaximumInputPacketSize`.
public var kAudioConverterPropertyMaximumInputPacketSize: AudioConverterPropertyID { converterProperty("xips") }
/// Apple's `kAudioConverterPropertyMaximumOutputPacketSize`.
public var kAudioConverterPropertyMaximumOutputPacketSize: AudioConverterPropertyID { converterProperty("xops") }
/// Apple's `kAudioConverterPropertyCalculateInputBufferSize`.
public var kAudioConverterPropertyCalculateInputBufferSize: AudioConverterPropertyID { converterProperty("cibs") }
/// Apple's `kAudioConverterPropertyCalculateOutputBufferSize`.
public var kAudioConverterPropertyCalculateOutputBufferSize: AudioConverterPropertyID { converterProperty("cobs") }
/// Apple's `kAudioConverterSampleRateConverterComplexity`.
public var kAudioConverterSampleRateConverterComplexity: AudioConverterPropertyID { converterProperty("srca") }
/// Apple's `kAudioConverterSampleRateConverterQuality`.
public var kAudioConverterSampleRateConverterQuality: AudioConverterPropertyID { converterProperty("srcq") }
/// Apple's `kAudioConverterCodecQuality`.
public var kAudioConverterCodecQuality: AudioConverterPropertyID { converterProperty("cdqu") }
/// Apple's `kAudioConverterPrimeMethod`.
public var kAudioConverterPrimeMethod: AudioConverterPropertyID { converterProperty("prmm") }
/// Apple's `kAudioConverterPrimeInfo`.
public var kAudioConverterPrimeInfo: AudioConverterPropertyID { converterProperty("prim") }
/// Apple's `kAudioConverterChannelMap`.
public var kAudioConverterChannelMap: AudioConverterPropertyID { converterProperty("chmp") }
/// Apple's `kAudioConverterInputChannelLayout` (afkit's converter maps channels by `kAudioConverterChannelMap`; it
/// answers "property not supported").
public var kAudioConverterInputChannelLayout: AudioConverterPropertyID { converterProperty("icl ") }
/// Apple's `kAudioConverterOutputChannelLayout` (as the input's: "property not supported").
public var kAudioConverterOutputChannelLayout: AudioConverterPropertyID { converterProperty("ocl ") }
/// Apple's `kAudioConverterDecompressionMagicCookie`.
public var kAudioConverterDecompressionMagicCookie: AudioConverterPropertyID { converterProperty("dmgc") }
/// Apple's `kAudioConverterCompressionMagicCookie`.
public var kAudioConverterCompressionMagicCookie: AudioConverterPropertyID { converterProperty("cmgc") }
/// Apple's `kAudioConverterEncodeBitRate`.
public var kAudioConverterEncodeBitRate: AudioConverterPropertyID { converterProperty("brat") }
/// Apple's `kAudioConverterCurrentOutputStreamDescription`.
public var kAudioConverterCurrentOutputStreamDescription: AudioConverterPropertyID { converterProperty("acod") }
/// Apple's `kAudioConverterCurrentInputStreamDescription`.
public var kAudioConverterCurrentInputStreamDescription: AudioConverterPropertyID { converterProperty("acid") }
/// Apple's `kAudioConverterPropertyBitDepthHint`.
public var kAudioConverterPropertyBitDepthHint: AudioConverterPropertyID { converterProperty("acbd") }
/// Apple's `kAudioConverterPropertyCanResumeFromInterruption`.
public var kAudioConverterPropertyCanResumeFromInterruption: AudioConverterPropertyID { converterProperty("crfi") }

/// Apple's `kAudioConverterQuality_Max`.
public var kAudioConverterQuality_Max: UInt32 { 0x7F }
/// Apple's `kAudioConverterQuality_High`.
public var kAudioConverterQuality_High: UInt32 { 0x60 }
/// Apple's `kAudioConverterQuality_Medium`.
public var kAudioConverterQuality_Medium: UInt32 { 0x40 }
/// Apple's `kAudioConverterQuality_Low`.
public var kAudioConverterQuality_Low: UInt32 { 0x20 }
/// Apple's `kAudioConverterQuality_Min`.
public var kAudioConverterQuality_Min: UInt32 { 0 }
/// Apple's `kAudioConverterSampleRateConverterComplexity_Linear`.
public var kAudioConverterSampleRateConverterComplexity_Linear: UInt32 { FourCharCode("line").rawValue }
/// Apple's `kAudioConverterSampleRateConverterComplexity_Normal`.
public var kAudioConverterSampleRateConverterComplexity_Normal: UInt32 { FourCharCode("norm").rawValue }
/// Apple's `kAudioConverterSampleRateConverterComplexity_Mastering`.
public var kAudioConverterSampleRateConverterComplexity_Mastering: UInt32 { FourCharCode("bats").rawValue }
/// Apple's `kAudioDecoderComponentType`.
public var kAudioDecoderComponentType: OSType { FourCharCode("adec").rawValue }
/// Apple's `kAudioEncoderComponentType`.
public var kAudioEncoderComponentType: OSType { FourCharCode("aenc").rawValue }
/// Apple's `kAppleSoftwareAudioCodecManufacturer`.
public var kAppleSoftwareAudioCodecManufacturer: OSType { FourCharCode("appl").rawValue }
/// Apple's `kAppleHardwareAudioCodecManufacturer`.
public var kAppleHardwareAudioCodecManufacturer: OSType { FourCharCode("aphw").rawValue }
/// Apple's `kConverterPrimeMethod_Pre`.
public var kConverterPrimeMethod_Pre: UInt32 { 0 }
/// Apple's `kConverterPrimeMethod_Normal`.
public var kConverterPrimeMethod_Normal: UInt32 { 1 }
/// Apple's `kConverterPrimeMethod_None`.
public var kConverterPrimeMethod_None: UInt32 { 2 }

// MARK: - Functions

/// Makes a converter from `inSourceFormat` to `inDestinationFormat`: any format afkit decodes to linear PCM,
/// linear PCM to linear PCM (any rate, channels, sample type, byte order, interleaving), or linear PCM to any
/// format afkit encodes. Other pairs are `kAudioConverterErr_FormatNotSupported`.
@discardableResult
public func AudioConverterNew(
    _ inSourceFormat: UnsafePointer<AudioStreamBasicDescription>,
    _ inDestinationFormat: UnsafePointer<AudioStreamBasicDescription>,
    _ outAudioConverter: UnsafeMutablePointer<AudioConverterRef?>
) -> OSStatus {
    let source = inSourceFormat.pointee
    let destination = inDestinationFormat.pointee
    let registry = AudioCodecRegistry.standard
    let pcmIn = source.mFormatID == kAudioFormatLinearPCM
    let pcmOut = destination.mFormatID == kAudioFormatLinearPCM
    // Compressed to compressed is two conversions; channels as many as a channel layout names (a description
    // that states more is not believed).
    guard pcmIn || pcmOut, (1...64).contains(source.mChannelsPerFrame), (1...64).contains(destination.mChannelsPerFrame)
    else {
        return kAudioConverterErr_FormatNotSupported
    }
    guard source.mSampleRate > 0, source.mSampleRate.isFinite else {
        return kAudioConverterErr_InputSampleRateOutOfRange
    }
    guard destination.mSampleRate > 0, destination.mSampleRate.isFinite else {
        return kAudioConverterErr_OutputSampleRateOutOfRange
    }
    // A packet of more than a million frames is no codec's (FLAC's largest is 65,535).
    if !pcmIn && (!registry.canDecode(FourCharCode(rawValue: source.mFormatID)) || source.mFramesPerPacket > 1 << 20) {
        return kAudioConverterErr_FormatNotSupported
    }
    if !pcmOut && !registry.canEncode(FourCharCode(rawValue: destination.mFormatID)) {
        return kAudioConverterErr_FormatNotSupported
    }
    guard (try? ResamplerChoice.checkRatio(from: source.mSampleRate, to: destination.mSampleRate)) != nil else {
        return kAudioConverterErr_OutputSampleRateOutOfRange
    }
    do {
        let box = try ConverterBox(input: source, output: destination)
        if !pcmOut {
            // The encoder's settings are checked now (a rate or channel count it cannot hold).
            try box.configure()
        }
        outAudioConverter.pointee = AudioConverterRef(Unmanaged.passRetained(box).toOpaque())
        return noErr
    } catch {
        return kAudioConverterErr_FormatNotSupported
    }
}

/// Makes a converter as ``AudioConverterNew(_:_:_:)`` does: afkit has one codec a format, whichever class is
/// named.
@discardableResult
public func AudioConverterNewSpecific(
    _ inSourceFormat: UnsafePointer<AudioStreamBasicDescription>,
    _ inDestinationFormat: UnsafePointer<AudioStreamBasicDescription>, _ inNumberClassDescriptions: UInt32,
    _ inClassDescriptions: UnsafePointer<AudioClassDescription>,
    _ outAudioConverter: UnsafeMutablePointer<AudioConverterRef?>
) -> OSStatus {
    AudioConverterNew(inSourceFormat, inDestinationFormat, outAudioConverter)
}

/// Frees a converter.
@discardableResult
public func AudioConverterDispose(_ inAudioConverter: AudioConverterRef) -> OSStatus {
    Unmanaged<ConverterBox>.fromOpaque(UnsafeRawPointer(inAudioConverter)).release()
    return noErr
}

/// Forgets the frames and packets the converter holds and its codecs' state (after a seek, or to start a new
/// stream after the end of one); the properties set stay.
@discardableResult
public func AudioConverterReset(_ inAudioConverter: AudioConverterRef) -> OSStatus {
    ConverterBox.from(inAudioConverter).reset()
    return noErr
}

/// Fills `outOutputData` with up to `*ioOutputDataPacketSize` packets (frames, for linear PCM) made from the
/// input `inInputDataProc` supplies, setting the count made and each buffer's `mDataByteSize`; for packets that
/// vary, their descriptions go to `outPacketDescription`. When the proc returns a non-zero status with no
/// packets, the call returns that status with what it made, and the next call resumes where this one stopped.
@discardableResult
public func AudioConverterFillComplexBuffer(
    _ inAudioConverter: AudioConverterRef, _ inInputDataProc: AudioConverterComplexInputDataProc,
    _ inInputDataProcUserData: UnsafeMutableRawPointer?, _ ioOutputDataPacketSize: UnsafeMutablePointer<UInt32>,
    _ outOutputData: UnsafeMutablePointer<AudioBufferList>,
    _ outPacketDescription: UnsafeMutablePointer<AudioStreamPacketDescription>?
) -> OSStatus {
    ConverterBox.from(inAudioConverter).fill(
        inInputDataProc, inInputDataProcUserData, ioOutputDataPacketSize, outOutputData, outPacketDescription)
}

/// Converts `inNumberPCMFrames` frames of linear PCM from `inInputData`'s buffers to `outOutputData`'s, at the
/// same rate (a converter that resamples or codes is `kAudioConverterErr_OperationNotSupported`).
@discardableResult
public func AudioConverterConvertComplexBuffer(
    _ inAudioConverter: AudioConverterRef, _ inNumberPCMFrames: UInt32, _ inInputData: UnsafePointer<AudioBufferList>,
    _ outOutputData: UnsafeMutablePointer<AudioBufferList>
) -> OSStatus {
    ConverterBox.from(inAudioConverter).convert(
        frames: Int(inNumberPCMFrames),
        from: UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: inInputData)),
        to: UnsafeMutableAudioBufferListPointer(outOutputData))
}

/// Converts interleaved linear PCM in one buffer to interleaved linear PCM in another, at the same rate:
/// `inInputDataSize` bytes in, `*ioOutputDataSize` bytes of room out (set to the bytes written).
@discardableResult
public func AudioConverterConvertBuffer(
    _ inAudioConverter: AudioConverterRef, _ inInputDataSize: UInt32, _ inInputData: UnsafeRawPointer,
    _ ioOutputDataSize: UnsafeMutablePointer<UInt32>, _ outOutputData: UnsafeMutableRawPointer
) -> OSStatus {
    let box = ConverterBox.from(inAudioConverter)
    guard let inputLayout = box.inputLayout, let outputLayout = box.outputLayout,
        !inputLayout.isNonInterleaved, !outputLayout.isNonInterleaved
    else { return kAudioConverterErr_OperationNotSupported }
    guard inputLayout.bytesPerFrame > 0, Int(inInputDataSize) % inputLayout.bytesPerFrame == 0 else {
        return kAudioConverterErr_InvalidInputSize
    }
    let frames = Int(inInputDataSize) / inputLayout.bytesPerFrame
    guard Int(ioOutputDataSize.pointee) >= frames * outputLayout.bytesPerFrame else {
        return kAudioConverterErr_InvalidOutputSize
    }
    var input = AudioBufferList(
        mNumberBuffers: 1,
        mBuffers: AudioBuffer(
            mNumberChannels: UInt32(inputLayout.channels), mDataByteSize: inInputDataSize,
            mData: UnsafeMutableRawPointer(mutating: inInputData)))
    var output = AudioBufferList(
        mNumberBuffers: 1,
        mBuffers: AudioBuffer(
            mNumberChannels: UInt32(outputLayout.channels), mDataByteSize: ioOutputDataSize.pointee,
            mData: outOutputData))
    let status = AudioConverterConvertComplexBuffer(inAudioConverter, UInt32(frames), &input, &output)
    if status == noErr { ioOutputDataSize.pointee = output.mBuffers.mDataByteSize }
    return status
}

/// The size of a property's value, and whether it can be set.
@discardableResult
public func AudioConverterGetPropertyInfo(
    _ inAudioConverter: AudioConverterRef, _ inPropertyID: AudioConverterPropertyID,
    _ outSize: UnsafeMutablePointer<UInt32>?, _ outWritable: UnsafeMutablePointer<DarwinBoolean>?
) -> OSStatus {
    ConverterBox.from(inAudioConverter).describe(inPropertyID, size: outSize, writable: outWritable)
}

/// A property's value, written to `outPropertyData` (`*ioPropertyDataSize` bytes, set to those written).
@discardableResult
public func AudioConverterGetProperty(
    _ inAudioConverter: AudioConverterRef, _ inPropertyID: AudioConverterPropertyID,
    _ ioPropertyDataSize: UnsafeMutablePointer<UInt32>, _ outPropertyData: UnsafeMutableRawPointer
) -> OSStatus {
    ConverterBox.from(inAudioConverter).get(inPropertyID, size: ioPropertyDataSize, into: outPropertyData)
}

/// Sets a property: the magic cookie to decode with, the bit rate and quality to encode with, the resampler's
/// quality and complexity, the channel map, the prime method and info.
@discardableResult
public func AudioConverterSetProperty(
    _ inAudioConverter: AudioConverterRef, _ inPropertyID: AudioConverterPropertyID, _ inPropertyDataSize: UInt32,
    _ inPropertyData: UnsafeRawPointer
) -> OSStatus {
    ConverterBox.from(inAudioConverter).set(inPropertyID, size: Int(inPropertyDataSize), data: inPropertyData)
}
