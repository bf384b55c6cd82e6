import AudioFormats
import Dispatch
import Foundation

// Audio Queue Services (AudioQueue.h) for playback, over the decoders of Audio Converter Services: a queue takes
// buffers of linear PCM or of any format afkit decodes, and renders them offline (AudioQueueSetOfflineRenderFormat,
// AudioQueueOfflineRender) to linear PCM, as Apple's queue does for export. There is no output device: a queue
// starts only in offline mode (otherwise AudioQueueStart answers kAudioQueueErr_InvalidDevice, Apple's "the audio
// hardware device could not be located").
//
// Threading: the output callback is called within the call that consumes a buffer (AudioQueueOfflineRender,
// AudioQueuePrime) or returns it (AudioQueueStop, AudioQueueReset), on the calling thread, whatever run loop or
// dispatch queue was named; property listeners are called likewise within the call that changes the property.
// Each queue serializes its calls with a lock of its own, let go while it calls the client, so a queue may be
// called from any thread: from its callbacks, and from a player's other threads while a callback runs (a render
// thread standing for Apple's own).

/// A playback queue made by ``AudioQueueNewOutput(_:_:_:_:_:_:_:)``.
public typealias AudioQueueRef = OpaquePointer
/// A queue's timeline (``AudioQueueCreateTimeline(_:_:)``).
public typealias AudioQueueTimelineRef = OpaquePointer
/// A property of a queue (`kAudioQueueProperty_...`).
public typealias AudioQueuePropertyID = UInt32
/// A parameter of a queue (`kAudioQueueParam_...`).
public typealias AudioQueueParameterID = UInt32
/// A parameter's value.
public typealias AudioQueueParameterValue = Float32

/// Apple's AudioQueueBuffer: a buffer a queue allocated, its bytes and packet descriptions at fixed addresses.
public struct AudioQueueBuffer {
    /// Apple's `mAudioDataBytesCapacity` field: the bytes `mAudioData` holds.
    public let mAudioDataBytesCapacity: UInt32
    /// Apple's `mAudioData` field.
    public let mAudioData: UnsafeMutableRawPointer
    /// Apple's `mAudioDataByteSize` field: the bytes of audio in the buffer.
    public var mAudioDataByteSize: UInt32
    /// Apple's `mUserData` field, the client's.
    public var mUserData: UnsafeMutableRawPointer?
    /// Apple's `mPacketDescriptionCapacity` field.
    public let mPacketDescriptionCapacity: UInt32
    /// Apple's `mPacketDescriptions` field (buffers of ``AudioQueueAllocateBufferWithPacketDescriptions(_:_:_:_:)``).
    public let mPacketDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?
    /// Apple's `mPacketDescriptionCount` field.
    public var mPacketDescriptionCount: UInt32

    /// A buffer of the fields given.
    public init(
        mAudioDataBytesCapacity: UInt32, mAudioData: UnsafeMutableRawPointer, mAudioDataByteSize: UInt32,
        mUserData: UnsafeMutableRawPointer?, mPacketDescriptionCapacity: UInt32,
        mPacketDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?, mPacketDescriptionCount: UInt32
    ) {
        self.mAudioDataBytesCapacity = mAudioDataBytesCapacity
        self.mAudioData = mAudioData
        self.mAudioDataByteSize = mAudioDataByteSize
        self.mUserData = mUserData
        self.mPacketDescriptionCapacity = mPacketDescriptionCapacity
        self.mPacketDescriptions = mPacketDescriptions
        self.mPacketDescriptionCount = mPacketDescriptionCount
    }
}

/// A buffer of a queue.
public typealias AudioQueueBufferRef = UnsafeMutablePointer<AudioQueueBuffer>

/// Called when the queue has consumed a buffer, which is the client's to fill again: the client's data, the
/// queue, the buffer. (Apple's is a C function pointer; a Swift function or a closure that captures nothing, as
/// such code passes, is taken as it is.)
public typealias AudioQueueOutputCallback = (UnsafeMutableRawPointer?, AudioQueueRef, AudioQueueBufferRef) -> Void
/// The block form of ``AudioQueueOutputCallback`` (``AudioQueueNewOutputWithDispatchQueue(_:_:_:_:_:)``).
public typealias AudioQueueOutputCallbackBlock = (AudioQueueRef, AudioQueueBufferRef) -> Void
/// Called when a property changes: the client's data, the queue, the property. A C function pointer, as Apple's
/// is: ``AudioQueueRemovePropertyListener(_:_:_:_:)`` finds a listener by its function and data, as Apple's does.
public typealias AudioQueuePropertyListenerProc =
    @convention(c) (UnsafeMutableRawPointer?, AudioQueueRef, AudioQueuePropertyID) -> Void

/// Apple's AudioQueueParameterEvent: a parameter and its value.
public struct AudioQueueParameterEvent: Hashable, Sendable, BitwiseCopyable {
    /// Apple's `mID` field.
    public var mID: AudioQueueParameterID
    /// Apple's `mValue` field.
    public var mValue: AudioQueueParameterValue

    /// Every field zero.
    public init() { self.init(mID: 0, mValue: 0) }

    /// An event of the fields given.
    public init(mID: AudioQueueParameterID, mValue: AudioQueueParameterValue) {
        self.mID = mID
        self.mValue = mValue
    }
}

/// Apple's AudioQueueLevelMeterState: one channel's levels (`kAudioQueueProperty_CurrentLevelMeter`).
public struct AudioQueueLevelMeterState: Hashable, Sendable, BitwiseCopyable {
    /// Apple's `mAveragePower` field (the RMS level of the last buffer rendered).
    public var mAveragePower: Float32
    /// Apple's `mPeakPower` field.
    public var mPeakPower: Float32

    /// Levels of the fields given.
    public init(mAveragePower: Float32, mPeakPower: Float32) {
        (self.mAveragePower, self.mPeakPower) = (mAveragePower, mPeakPower)
    }

    /// Every field zero.
    public init() { self.init(mAveragePower: 0, mPeakPower: 0) }
}

#if !canImport(Darwin)
    /// Core Foundation's run loop, as Apple's functions take it: on Linux, Foundation's `RunLoop`.
    public typealias CFRunLoop = RunLoop

    /// The current thread's run loop.
    public func CFRunLoopGetCurrent() -> CFRunLoop { RunLoop.current }
    /// The main thread's run loop.
    public func CFRunLoopGetMain() -> CFRunLoop { RunLoop.main }

    /// A run-loop mode, as Swift names Core Foundation's.
    public struct CFRunLoopMode: RawRepresentable, Hashable {
        /// The mode's name.
        public var rawValue: CFString
        /// The mode named `rawValue`.
        public init(rawValue: CFString) { self.rawValue = rawValue }
        /// The common modes (`kCFRunLoopCommonModes`).
        public static var commonModes: CFRunLoopMode { CFRunLoopMode(rawValue: "kCFRunLoopCommonModes" as NSString) }
        /// The default mode (`kCFRunLoopDefaultMode`).
        public static var defaultMode: CFRunLoopMode { CFRunLoopMode(rawValue: "kCFRunLoopDefaultMode" as NSString) }
    }
#endif

// MARK: - Result codes (AudioQueue.h)

/// Apple's `kAudioQueueErr_InvalidBuffer`: the buffer is not one of the queue's.
public var kAudioQueueErr_InvalidBuffer: OSStatus { -66687 }
/// Apple's `kAudioQueueErr_BufferEmpty`: a buffer enqueued holds no bytes.
public var kAudioQueueErr_BufferEmpty: OSStatus { -66686 }
/// Apple's `kAudioQueueErr_DisposalPending`: the queue is being disposed of.
public var kAudioQueueErr_DisposalPending: OSStatus { -66685 }
/// Apple's `kAudioQueueErr_InvalidProperty`.
public var kAudioQueueErr_InvalidProperty: OSStatus { -66684 }
/// Apple's `kAudioQueueErr_InvalidPropertySize`.
public var kAudioQueueErr_InvalidPropertySize: OSStatus { -66683 }
/// Apple's `kAudioQueueErr_InvalidParameter`.
public var kAudioQueueErr_InvalidParameter: OSStatus { -66682 }
/// Apple's `kAudioQueueErr_CannotStart`.
public var kAudioQueueErr_CannotStart: OSStatus { -66681 }
/// Apple's `kAudioQueueErr_InvalidDevice`: no output device (a queue not in offline mode, here).
public var kAudioQueueErr_InvalidDevice: OSStatus { -66680 }
/// Apple's `kAudioQueueErr_BufferInQueue`: an enqueued buffer cannot be freed.
public var kAudioQueueErr_BufferInQueue: OSStatus { -66679 }
/// Apple's `kAudioQueueErr_InvalidRunState`.
public var kAudioQueueErr_InvalidRunState: OSStatus { -66678 }
/// Apple's `kAudioQueueErr_InvalidQueueType`.
public var kAudioQueueErr_InvalidQueueType: OSStatus { -66677 }
/// Apple's `kAudioQueueErr_Permissions`.
public var kAudioQueueErr_Permissions: OSStatus { -66676 }
/// Apple's `kAudioQueueErr_InvalidPropertyValue`.
public var kAudioQueueErr_InvalidPropertyValue: OSStatus { -66675 }
/// Apple's `kAudioQueueErr_PrimeTimedOut`.
public var kAudioQueueErr_PrimeTimedOut: OSStatus { -66674 }
/// Apple's `kAudioQueueErr_CodecNotFound`.
public var kAudioQueueErr_CodecNotFound: OSStatus { -66673 }
/// Apple's `kAudioQueueErr_InvalidCodecAccess`.
public var kAudioQueueErr_InvalidCodecAccess: OSStatus { -66672 }
/// Apple's `kAudioQueueErr_QueueInvalidated`.
public var kAudioQueueErr_QueueInvalidated: OSStatus { -66671 }
/// Apple's `kAudioQueueErr_TooManyTaps`.
public var kAudioQueueErr_TooManyTaps: OSStatus { -66670 }
/// Apple's `kAudioQueueErr_InvalidTapContext`.
public var kAudioQueueErr_InvalidTapContext: OSStatus { -66669 }
/// Apple's `kAudioQueueErr_RecordUnderrun`.
public var kAudioQueueErr_RecordUnderrun: OSStatus { -66668 }
/// Apple's `kAudioQueueErr_InvalidTapType`.
public var kAudioQueueErr_InvalidTapType: OSStatus { -66667 }
/// Apple's `kAudioQueueErr_BufferEnqueuedTwice`: the buffer is in the queue already.
public var kAudioQueueErr_BufferEnqueuedTwice: OSStatus { -66666 }
/// Apple's `kAudioQueueErr_CannotStartYet`.
public var kAudioQueueErr_CannotStartYet: OSStatus { -66665 }
/// Apple's `kAudioQueueErr_EnqueueDuringReset`: a buffer enqueued while the queue returns its buffers (reset,
/// stop or dispose).
public var kAudioQueueErr_EnqueueDuringReset: OSStatus { -66632 }
/// Apple's `kAudioQueueErr_InvalidOfflineMode`: the call needs offline mode, or the other way round.
public var kAudioQueueErr_InvalidOfflineMode: OSStatus { -66626 }

// MARK: - Properties and parameters (AudioQueue.h)

/// Apple's `kAudioQueueProperty_IsRunning` (UInt32, read only; listeners hear it change).
public var kAudioQueueProperty_IsRunning: AudioQueuePropertyID { FourCharCode("aqrn").rawValue }
/// Apple's `kAudioQueueDeviceProperty_SampleRate`.
public var kAudioQueueDeviceProperty_SampleRate: AudioQueuePropertyID { FourCharCode("aqsr").rawValue }
/// Apple's `kAudioQueueDeviceProperty_NumberChannels`.
public var kAudioQueueDeviceProperty_NumberChannels: AudioQueuePropertyID { FourCharCode("aqdc").rawValue }
/// Apple's `kAudioQueueProperty_CurrentDevice`.
public var kAudioQueueProperty_CurrentDevice: AudioQueuePropertyID { FourCharCode("aqcd").rawValue }
/// Apple's `kAudioQueueProperty_MagicCookie` (bytes, read and write).
public var kAudioQueueProperty_MagicCookie: AudioQueuePropertyID { FourCharCode("aqmc").rawValue }
/// Apple's `kAudioQueueProperty_MaximumOutputPacketSize`.
public var kAudioQueueProperty_MaximumOutputPacketSize: AudioQueuePropertyID { FourCharCode("xops").rawValue }
/// Apple's `kAudioQueueProperty_StreamDescription` (AudioStreamBasicDescription, read only).
public var kAudioQueueProperty_StreamDescription: AudioQueuePropertyID { FourCharCode("aqft").rawValue }
/// Apple's `kAudioQueueProperty_ChannelLayout`.
public var kAudioQueueProperty_ChannelLayout: AudioQueuePropertyID { FourCharCode("aqcl").rawValue }
/// Apple's `kAudioQueueProperty_EnableLevelMetering` (UInt32, read and write).
public var kAudioQueueProperty_EnableLevelMetering: AudioQueuePropertyID { FourCharCode("aqme").rawValue }
/// Apple's `kAudioQueueProperty_CurrentLevelMeter` (an AudioQueueLevelMeterState a channel, linear, read only).
public var kAudioQueueProperty_CurrentLevelMeter: AudioQueuePropertyID { FourCharCode("aqmv").rawValue }
/// Apple's `kAudioQueueProperty_CurrentLevelMeterDB` (the same in decibels).
public var kAudioQueueProperty_CurrentLevelMeterDB: AudioQueuePropertyID { FourCharCode("aqmd").rawValue }
/// Apple's `kAudioQueueProperty_DecodeBufferSizeFrames`.
public var kAudioQueueProperty_DecodeBufferSizeFrames: AudioQueuePropertyID { FourCharCode("dcbf").rawValue }
/// Apple's `kAudioQueueProperty_ConverterError` (Int32, read only: the decoder's last error).
public var kAudioQueueProperty_ConverterError: AudioQueuePropertyID { FourCharCode("qcve").rawValue }
/// Apple's `kAudioQueueProperty_EnableTimePitch`.
public var kAudioQueueProperty_EnableTimePitch: AudioQueuePropertyID { FourCharCode("q_tp").rawValue }
/// Apple's `kAudioQueueProperty_TimePitchAlgorithm`.
public var kAudioQueueProperty_TimePitchAlgorithm: AudioQueuePropertyID { FourCharCode("qtpa").rawValue }
/// Apple's `kAudioQueueProperty_TimePitchBypass`.
public var kAudioQueueProperty_TimePitchBypass: AudioQueuePropertyID { FourCharCode("qtpb").rawValue }

/// Apple's `kAudioQueueParam_Volume` (0 to 1; applied to what the offline render gives).
public var kAudioQueueParam_Volume: AudioQueueParameterID { 1 }
/// Apple's `kAudioQueueParam_PlayRate` (kept, not applied).
public var kAudioQueueParam_PlayRate: AudioQueueParameterID { 2 }
/// Apple's `kAudioQueueParam_Pitch` (kept, not applied).
public var kAudioQueueParam_Pitch: AudioQueueParameterID { 3 }
/// Apple's `kAudioQueueParam_VolumeRampTime` (kept, not applied: a new volume applies from the next render).
public var kAudioQueueParam_VolumeRampTime: AudioQueueParameterID { 4 }
/// Apple's `kAudioQueueParam_Pan` (kept, not applied).
public var kAudioQueueParam_Pan: AudioQueueParameterID { 13 }

// MARK: - Making and disposing of queues

/// Makes a playback queue of `inFormat` (interleaved linear PCM, or any format afkit decodes; others are
/// `kAudioFormatUnsupportedDataFormatError`). `inCallbackProc` gets each buffer the queue has consumed, within the
/// call that consumed it (the run loop and mode are not used: see the threading note above).
@discardableResult
public func AudioQueueNewOutput(
    _ inFormat: UnsafePointer<AudioStreamBasicDescription>, _ inCallbackProc: @escaping AudioQueueOutputCallback,
    _ inUserData: UnsafeMutableRawPointer?, _ inCallbackRunLoop: CFRunLoop?, _ inCallbackRunLoopMode: CFString?,
    _ inFlags: UInt32, _ outAQ: UnsafeMutablePointer<AudioQueueRef?>
) -> OSStatus {
    AudioQueueBox.make(inFormat.pointee, callback: .function(inCallbackProc, inUserData), into: outAQ)
}

/// Makes a playback queue as ``AudioQueueNewOutput(_:_:_:_:_:_:_:)`` does, whose block gets each buffer consumed,
/// within the call that consumed it (not on `inCallbackDispatchQueue`: see the threading note above).
@discardableResult
public func AudioQueueNewOutputWithDispatchQueue(
    _ outAQ: UnsafeMutablePointer<AudioQueueRef?>, _ inFormat: UnsafePointer<AudioStreamBasicDescription>,
    _ inFlags: UInt32, _ inCallbackDispatchQueue: DispatchQueue,
    _ inCallbackBlock: @escaping AudioQueueOutputCallbackBlock
) -> OSStatus {
    AudioQueueBox.make(inFormat.pointee, callback: .block(inCallbackBlock), into: outAQ)
}

/// Disposes of a queue and its buffers, with no more callbacks; every later call on it answers ``kAudio_ParamError``
/// (its reference is checked, never followed). At once even where `inImmediate` is false: Apple's queue then plays
/// what is enqueued first, but offline nothing could render it, as the queue takes no more calls.
@discardableResult
public func AudioQueueDispose(_ inAQ: AudioQueueRef, _ inImmediate: Bool) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.dispose(immediately: inImmediate) }
}

// MARK: - Buffers

/// Allocates a buffer of `inBufferByteSize` bytes, empty.
@discardableResult
public func AudioQueueAllocateBuffer(
    _ inAQ: AudioQueueRef, _ inBufferByteSize: UInt32, _ outBuffer: UnsafeMutablePointer<AudioQueueBufferRef?>
) -> OSStatus {
    AudioQueueAllocateBufferWithPacketDescriptions(inAQ, inBufferByteSize, 0, outBuffer)
}

/// Allocates a buffer of `inBufferByteSize` bytes with room for `inNumberPacketDescriptions` packet descriptions.
@discardableResult
public func AudioQueueAllocateBufferWithPacketDescriptions(
    _ inAQ: AudioQueueRef, _ inBufferByteSize: UInt32, _ inNumberPacketDescriptions: UInt32,
    _ outBuffer: UnsafeMutablePointer<AudioQueueBufferRef?>
) -> OSStatus {
    AudioQueueBox.with(inAQ) {
        $0.allocateBuffer(bytes: Int(inBufferByteSize), descriptions: Int(inNumberPacketDescriptions), into: outBuffer)
    }
}

/// Frees a buffer that is not enqueued (``kAudioQueueErr_BufferInQueue`` otherwise).
@discardableResult
public func AudioQueueFreeBuffer(_ inAQ: AudioQueueRef, _ inBuffer: AudioQueueBufferRef) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.freeBuffer(inBuffer) }
}

/// Enqueues a buffer's `mAudioDataByteSize` bytes to be played: whole packets, described by `inPacketDescs` where
/// they vary (or, with none given, by the buffer's own `mPacketDescriptions`).
@discardableResult
public func AudioQueueEnqueueBuffer(
    _ inAQ: AudioQueueRef, _ inBuffer: AudioQueueBufferRef, _ inNumPacketDescs: UInt32,
    _ inPacketDescs: UnsafePointer<AudioStreamPacketDescription>?
) -> OSStatus {
    AudioQueueBox.with(inAQ) {
        $0.enqueue(inBuffer, descriptionCount: Int(inNumPacketDescs), descriptions: inPacketDescs)
    }
}

/// Enqueues a buffer as ``AudioQueueEnqueueBuffer(_:_:_:_:)`` does, with frames trimmed from the start and end of
/// what it decodes to and parameter values that apply from its first frame rendered. The start time asked is not used
/// (the buffer plays after those before it), and the actual start time is reported as not known (no valid field).
@discardableResult
public func AudioQueueEnqueueBufferWithParameters(
    _ inAQ: AudioQueueRef, _ inBuffer: AudioQueueBufferRef, _ inNumPacketDescs: UInt32,
    _ inPacketDescs: UnsafePointer<AudioStreamPacketDescription>?, _ inTrimFramesAtStart: UInt32,
    _ inTrimFramesAtEnd: UInt32, _ inNumParamValues: UInt32, _ inParamValues: UnsafePointer<AudioQueueParameterEvent>?,
    _ inStartTime: UnsafePointer<AudioTimeStamp>?, _ outActualStartTime: UnsafeMutablePointer<AudioTimeStamp>?
) -> OSStatus {
    outActualStartTime?.pointee = AudioTimeStamp()
    let events = inParamValues.map { Array(UnsafeBufferPointer(start: $0, count: Int(inNumParamValues))) } ?? []
    return AudioQueueBox.with(inAQ) {
        $0.enqueue(
            inBuffer, descriptionCount: Int(inNumPacketDescs), descriptions: inPacketDescs,
            trim: (Int(inTrimFramesAtStart), Int(inTrimFramesAtEnd)), parameters: events)
    }
}

// MARK: - Running

/// Starts the queue (or resumes it after a pause). Only in offline mode: without an offline render format there
/// is no device to play to, and the answer is ``kAudioQueueErr_InvalidDevice``. A start time is not used.
@discardableResult
public func AudioQueueStart(_ inAQ: AudioQueueRef, _ inStartTime: UnsafePointer<AudioTimeStamp>?) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.start() }
}

/// Decodes up to `inNumberOfFramesToPrepare` frames of what is enqueued, ready for the next render, and says how
/// many were prepared. Only in offline mode (``kAudioQueueErr_InvalidDevice`` otherwise).
@discardableResult
public func AudioQueuePrime(
    _ inAQ: AudioQueueRef, _ inNumberOfFramesToPrepare: UInt32,
    _ outNumberOfFramesPrepared: UnsafeMutablePointer<UInt32>?
) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.prime(frames: Int(inNumberOfFramesToPrepare), prepared: outNumberOfFramesPrepared) }
}

/// Stops the queue: immediately (the buffers enqueued return to the callback, unplayed), or (`inImmediate` false)
/// once what is enqueued has been rendered, the decoder flushed.
@discardableResult
public func AudioQueueStop(_ inAQ: AudioQueueRef, _ inImmediate: Bool) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.stop(immediately: inImmediate) }
}

/// Pauses the queue: renders give nothing until ``AudioQueueStart(_:_:)``; buffers and decoder state are kept.
@discardableResult
public func AudioQueuePause(_ inAQ: AudioQueueRef) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.pause() }
}

/// Says that the buffers enqueued so far end a stream: once they are rendered, the decoder gives what it holds
/// (a resampler's last frames) and starts afresh.
@discardableResult
public func AudioQueueFlush(_ inAQ: AudioQueueRef) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.flush() }
}

/// Returns the buffers enqueued to the callback, unplayed, and forgets the decoder's state and what it had
/// decoded; the queue keeps running.
@discardableResult
public func AudioQueueReset(_ inAQ: AudioQueueRef) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.reset() }
}

// MARK: - Offline render

/// Sets the linear PCM format (interleaved) the queue renders to, which puts it in offline mode, or with `nil`
/// takes it out of offline mode (the queue stopped). The channel layout is not used.
@discardableResult
public func AudioQueueSetOfflineRenderFormat(
    _ inAQ: AudioQueueRef, _ inFormat: UnsafePointer<AudioStreamBasicDescription>?,
    _ inLayout: UnsafePointer<AudioChannelLayout>?
) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.setOfflineRenderFormat(inFormat?.pointee) }
}

/// Renders up to `inNumberFrames` frames of what is enqueued into `ioBuffer` (one of the queue's buffers), in the
/// offline render format, setting its `mAudioDataByteSize`: fewer where less is enqueued (none once all is
/// rendered). Buffers consumed go to the output callback within this call, so the client can refill them. Only
/// `inTimestamp`'s sample time is Apple's to use; the queue counts the frames it renders itself
/// (``AudioQueueGetCurrentTime(_:_:_:_:)``).
@discardableResult
public func AudioQueueOfflineRender(
    _ inAQ: AudioQueueRef, _ inTimestamp: UnsafePointer<AudioTimeStamp>, _ ioBuffer: AudioQueueBufferRef,
    _ inNumberFrames: UInt32
) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.render(into: ioBuffer, frames: Int(inNumberFrames)) }
}

// MARK: - Properties, parameters and time

/// A property's value, written to `outData` (`*ioDataSize` bytes, set to those written).
@discardableResult
public func AudioQueueGetProperty(
    _ inAQ: AudioQueueRef, _ inID: AudioQueuePropertyID, _ outData: UnsafeMutableRawPointer,
    _ ioDataSize: UnsafeMutablePointer<UInt32>
) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.getProperty(inID, into: outData, size: ioDataSize) }
}

/// Sets a property: the magic cookie, level metering.
@discardableResult
public func AudioQueueSetProperty(
    _ inAQ: AudioQueueRef, _ inID: AudioQueuePropertyID, _ inData: UnsafeRawPointer, _ inDataSize: UInt32
) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.setProperty(inID, UnsafeRawBufferPointer(start: inData, count: Int(inDataSize))) }
}

/// The size of a property's value.
@discardableResult
public func AudioQueueGetPropertySize(
    _ inAQ: AudioQueueRef, _ inID: AudioQueuePropertyID, _ outDataSize: UnsafeMutablePointer<UInt32>
) -> OSStatus {
    AudioQueueBox.with(inAQ) { box in
        guard let size = box.propertySize(inID) else { return kAudioQueueErr_InvalidProperty }
        outDataSize.pointee = UInt32(size)
        return noErr
    }
}

/// Adds a listener to a property's changes (``kAudioQueueProperty_IsRunning`` is the one that changes).
@discardableResult
public func AudioQueueAddPropertyListener(
    _ inAQ: AudioQueueRef, _ inID: AudioQueuePropertyID, _ inProc: AudioQueuePropertyListenerProc,
    _ inUserData: UnsafeMutableRawPointer?
) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.addListener(inID, inProc, inUserData) }
}

/// Removes the listener of that function and data.
@discardableResult
public func AudioQueueRemovePropertyListener(
    _ inAQ: AudioQueueRef,
    _ inID: AudioQueuePropertyID,
    _ inProc: AudioQueuePropertyListenerProc,
    _ inUserData: UnsafeMutableRawPointer?
) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.removeListener(inID, inProc, inUserData) }
}

/// A parameter's value (its default where none was set: volume 1, play rate 1, pitch 0, ramp time 0, pan 0).
@discardableResult
public func AudioQueueGetParameter(
    _ inAQ: AudioQueueRef, _ inParamID: AudioQueueParameterID,
    _ outValue: UnsafeMutablePointer<AudioQueueParameterValue>
) -> OSStatus {
    AudioQueueBox.with(inAQ) { box in
        guard let value = box.parameter(inParamID) else { return kAudioQueueErr_InvalidParameter }
        outValue.pointee = value
        return noErr
    }
}

/// Sets a parameter: the volume applies from the next render (clamped to 0...1); the others are kept.
@discardableResult
public func AudioQueueSetParameter(
    _ inAQ: AudioQueueRef, _ inParamID: AudioQueueParameterID, _ inValue: AudioQueueParameterValue
) -> OSStatus {
    AudioQueueBox.with(inAQ) { $0.setParameter(inParamID, inValue) }
}

/// The queue's time: the sample time (in the queue's format's rate) of what it has rendered since it started.
/// A timeline, where given, never reports a discontinuity.
@discardableResult
public func AudioQueueGetCurrentTime(
    _ inAQ: AudioQueueRef, _ inTimeline: AudioQueueTimelineRef?, _ outTimeStamp: UnsafeMutablePointer<AudioTimeStamp>?,
    _ outTimelineDiscontinuity: UnsafeMutablePointer<DarwinBoolean>?
) -> OSStatus {
    AudioQueueBox.with(inAQ) { box in
        guard box.isStarted else { return kAudioQueueErr_InvalidRunState }
        var time = AudioTimeStamp()
        time.mSampleTime = box.currentSampleTime
        time.mFlags = .sampleTimeValid
        outTimeStamp?.pointee = time
        outTimelineDiscontinuity?.pointee = false
        return noErr
    }
}

/// Makes a timeline for ``AudioQueueGetCurrentTime(_:_:_:_:)`` (the queue itself stands for it).
@discardableResult
public func AudioQueueCreateTimeline(
    _ inAQ: AudioQueueRef, _ outTimeline: UnsafeMutablePointer<AudioQueueTimelineRef?>
) -> OSStatus {
    AudioQueueBox.with(inAQ) { _ in
        outTimeline.pointee = inAQ
        return noErr
    }
}

/// Disposes of a timeline.
@discardableResult
public func AudioQueueDisposeTimeline(_ inAQ: AudioQueueRef, _ inTimeline: AudioQueueTimelineRef) -> OSStatus {
    AudioQueueBox.with(inAQ) { _ in noErr }
}
