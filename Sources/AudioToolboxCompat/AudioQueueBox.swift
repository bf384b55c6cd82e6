import AudioCodecs
import AudioFormats
import Foundation
import Synchronization

// The engine behind Audio Queue Services (AudioQueueServices.swift): what a playback queue holds (its buffers, the
// buffers enqueued, the PCM decoded and not yet rendered) and how it decodes them, through an Audio Converter from
// the queue's format to the offline render format, one enqueued buffer at a time.

/// The state behind an ``AudioQueueRef``. Every call on a queue holds its lock, so the state is never touched by
/// two threads at once; the lock is let go while the queue calls the client (``callOut(_:)``), so a callback may
/// call the queue again and a player may call it from another thread while holding a lock its callback takes,
/// as players written for Apple's queue (whose callbacks come from a thread of its own) do.
final class AudioQueueBox: @unchecked Sendable {
    /// Whom the queue hands consumed buffers to.
    enum Callback {
        case function(AudioQueueOutputCallback, UnsafeMutableRawPointer?)
        case block(AudioQueueOutputCallbackBlock)
    }

    /// A buffer enqueued, with its packet descriptions copied and what is to be done with its frames.
    struct Enqueued {
        var buffer: AudioQueueBufferRef
        var descriptions: [AudioStreamPacketDescription]
        var trimAtStart = 0
        var trimAtEnd = 0
        var parameters: [AudioQueueParameterEvent] = []
    }

    /// What is queued: buffers, and the end of a stream (``AudioQueueFlush(_:)``), after which the decoder gives
    /// what it holds and starts afresh.
    enum Entry {
        case buffer(Enqueued)
        case endOfStream
    }

    enum RunState { case stopped, running, paused }

    struct Listener {
        var property: AudioQueuePropertyID
        var proc: AudioQueuePropertyListenerProc
        var userData: UnsafeMutableRawPointer?
    }

    /// The queues not disposed of, by address: a call on any other reference is answered, never followed.
    private static let live = Mutex<[UInt: AudioQueueBox]>([:])

    let lock = NSRecursiveLock()
    /// How many times the calling thread holds `lock` (read and written holding it).
    var lockDepth = 0
    let format: AudioStreamBasicDescription
    let callback: Callback

    /// The buffers allocated and not freed.
    var buffers: Set<AudioQueueBufferRef> = []
    var entries: [Entry] = []
    var cookie: [UInt8]?
    var state = RunState.stopped
    /// Whether the queue was started and not stopped since (its time runs).
    var isStarted = false
    /// Whether the queue stops once what is queued is rendered (``AudioQueueStop(_:_:)`` not immediate).
    var stopsWhenRendered = false
    /// Whether buffers are being handed back (reset, stop): enqueueing then is refused, as Apple's queue does.
    var isReturningBuffers = false
    /// How many times the buffers were handed back (a decoding under way stops when this changes).
    var resets = 0
    var isDisposed = false

    // Offline render.
    var renderFormat: AudioStreamBasicDescription?
    var renderLayout: PCMLayout?
    var converter: AudioConverterRef?
    /// PCM decoded in the render format and not yet rendered, from `readyStart` on.
    var ready: [UInt8] = []
    var readyStart = 0
    /// Frames rendered since the queue started.
    var renderedFrames = 0
    /// What the converter's input callback hands over next, and the descriptions it handed last (kept until it asks
    /// again, as Apple's converter requires).
    var handing: Enqueued?
    var handedDescriptions: [AudioStreamPacketDescription] = []
    /// Whether the input callback says the stream has ended (so the converter gives what it holds).
    var inputEnds = false
    var converterError: OSStatus = noErr

    // Parameters, metering, listeners.
    var parameters: [AudioQueueParameterID: AudioQueueParameterValue] = [:]
    var volume: Float { parameters[kAudioQueueParam_Volume] ?? 1 }
    var meteringEnabled = false
    var levels: [AudioQueueLevelMeterState] = []
    var samples: [Float] = []
    /// Parameters enqueued with buffers, and where in `ready` (a byte offset) the buffer's frames begin.
    var scheduled: [(offset: Int, events: [AudioQueueParameterEvent])] = []
    var listeners: [Listener] = []

    init(format: AudioStreamBasicDescription, callback: Callback) {
        self.format = format
        self.callback = callback
    }

    var reference: AudioQueueRef { AudioQueueRef(Unmanaged.passUnretained(self).toOpaque()) }

    // MARK: Making, finding, disposing

    /// Makes a queue of `format` if afkit decodes it (checked by making a converter from it to floats).
    static func make(
        _ format: AudioStreamBasicDescription, callback: Callback, into outAQ: UnsafeMutablePointer<AudioQueueRef?>
    ) -> OSStatus {
        outAQ.pointee = nil
        let isPCM = format.mFormatID == kAudioFormatLinearPCM
        guard !isPCM || format.mFormatFlags & kAudioFormatFlagIsNonInterleaved == 0 || format.mChannelsPerFrame == 1
        else { return kAudioFormatUnsupportedDataFormatError }
        var source = format
        var probe = AudioStreamBasicDescription(
            mSampleRate: format.mSampleRate, mFormatID: kAudioFormatLinearPCM,
            mFormatFlags: kAudioFormatFlagsNativeFloatPacked, mBytesPerPacket: 4 * format.mChannelsPerFrame,
            mFramesPerPacket: 1, mBytesPerFrame: 4 * format.mChannelsPerFrame,
            mChannelsPerFrame: format.mChannelsPerFrame, mBitsPerChannel: 32, mReserved: 0)
        var made: AudioConverterRef?
        guard AudioConverterNew(&source, &probe, &made) == noErr, let made else {
            return kAudioFormatUnsupportedDataFormatError
        }
        AudioConverterDispose(made)
        let box = AudioQueueBox(format: format, callback: callback)
        let reference = box.reference
        live.withLock { $0[UInt(bitPattern: reference)] = box }
        outAQ.pointee = reference
        return noErr
    }

    /// Runs `body` on the queue `reference` names, holding its lock; ``kAudio_ParamError`` where it names none.
    static func with(_ reference: AudioQueueRef, _ body: (AudioQueueBox) -> OSStatus) -> OSStatus {
        guard let box = live.withLock({ $0[UInt(bitPattern: reference)] }) else { return kAudio_ParamError }
        box.lock.lock()
        box.lockDepth += 1
        defer {
            box.lockDepth -= 1
            box.lock.unlock()
        }
        guard !box.isDisposed else { return kAudio_ParamError }
        return body(box)
    }

    /// Disposes of the queue at once. In offline mode nothing could render what is enqueued once disposal has begun
    /// (the queue takes no more calls), so a disposal that waits for the buffers is done at once too.
    func dispose(immediately: Bool) -> OSStatus {
        isDisposed = true
        let reference = reference
        _ = Self.live.withLock { $0.removeValue(forKey: UInt(bitPattern: reference)) }
        if let converter { AudioConverterDispose(converter) }
        converter = nil
        entries.removeAll()
        handing = nil
        for buffer in buffers { Self.deallocate(buffer) }
        buffers.removeAll()
        return noErr
    }

    // MARK: Buffers

    func allocateBuffer(
        bytes: Int, descriptions: Int, into outBuffer: UnsafeMutablePointer<AudioQueueBufferRef?>
    ) -> OSStatus {
        // A gigabyte a buffer at most (Apple's guidance is 16 to 64 KB): a size is never trusted to allocate.
        guard bytes <= 1 << 30, descriptions <= 1 << 20 else { return kAudio_ParamError }
        let data = UnsafeMutableRawPointer.allocate(byteCount: max(1, bytes), alignment: 16)
        var packetDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?
        if descriptions > 0 {
            let made = UnsafeMutablePointer<AudioStreamPacketDescription>.allocate(capacity: descriptions)
            made.initialize(repeating: AudioStreamPacketDescription(), count: descriptions)
            packetDescriptions = made
        }
        let buffer = AudioQueueBufferRef.allocate(capacity: 1)
        buffer.initialize(
            to: AudioQueueBuffer(
                mAudioDataBytesCapacity: UInt32(bytes), mAudioData: data, mAudioDataByteSize: 0, mUserData: nil,
                mPacketDescriptionCapacity: UInt32(descriptions), mPacketDescriptions: packetDescriptions,
                mPacketDescriptionCount: 0))
        buffers.insert(buffer)
        outBuffer.pointee = buffer
        return noErr
    }

    static func deallocate(_ buffer: AudioQueueBufferRef) {
        buffer.pointee.mAudioData.deallocate()
        buffer.pointee.mPacketDescriptions?.deallocate()
        buffer.deinitialize(count: 1)
        buffer.deallocate()
    }

    /// Whether `buffer` is waiting in the queue or being decoded.
    func isEnqueued(_ buffer: AudioQueueBufferRef) -> Bool {
        handing?.buffer == buffer
            || entries.contains {
                if case .buffer(let enqueued) = $0 { return enqueued.buffer == buffer }
                return false
            }
    }

    func freeBuffer(_ buffer: AudioQueueBufferRef) -> OSStatus {
        guard buffers.contains(buffer) else { return kAudioQueueErr_InvalidBuffer }
        guard !isEnqueued(buffer) else { return kAudioQueueErr_BufferInQueue }
        buffers.remove(buffer)
        Self.deallocate(buffer)
        return noErr
    }

    func enqueue(
        _ buffer: AudioQueueBufferRef, descriptionCount: Int,
        descriptions: UnsafePointer<AudioStreamPacketDescription>?,
        trim: (start: Int, end: Int) = (0, 0), parameters: [AudioQueueParameterEvent] = []
    ) -> OSStatus {
        // The buffer's fields are read only once it is known to be one of this queue's.
        guard buffers.contains(buffer) else { return kAudioQueueErr_InvalidBuffer }
        guard !isReturningBuffers else { return kAudioQueueErr_EnqueueDuringReset }
        guard !isEnqueued(buffer) else { return kAudioQueueErr_BufferEnqueuedTwice }
        let size = Int(buffer.pointee.mAudioDataByteSize)
        guard size > 0 else { return kAudioQueueErr_BufferEmpty }
        guard size <= Int(buffer.pointee.mAudioDataBytesCapacity) else { return kAudio_ParamError }
        var given: UnsafeBufferPointer<AudioStreamPacketDescription>?
        if let descriptions, descriptionCount > 0 {
            given = UnsafeBufferPointer(start: descriptions, count: descriptionCount)
        } else if descriptionCount > 0 {
            return kAudio_ParamError
        } else if let own = buffer.pointee.mPacketDescriptions, buffer.pointee.mPacketDescriptionCount > 0 {
            // None given: the buffer's own, as Apple's queue reads them.
            guard buffer.pointee.mPacketDescriptionCount <= buffer.pointee.mPacketDescriptionCapacity else {
                return kAudio_ParamError
            }
            given = UnsafeBufferPointer(start: own, count: Int(buffer.pointee.mPacketDescriptionCount))
        }
        let copied = given.map(Array.init) ?? []
        // Packets that vary need descriptions; every description lies inside the bytes given.
        let isPCM = format.mFormatID == kAudioFormatLinearPCM
        guard isPCM || format.mBytesPerPacket > 0 || !copied.isEmpty else { return kAudio_ParamError }
        guard
            copied.allSatisfy({
                $0.mStartOffset >= 0 && $0.mStartOffset <= Int64(size) - Int64($0.mDataByteSize)
            })
        else { return kAudio_ParamError }
        entries.append(
            .buffer(
                Enqueued(
                    buffer: buffer, descriptions: isPCM ? [] : copied, trimAtStart: trim.start, trimAtEnd: trim.end,
                    parameters: parameters)))
        return noErr
    }

    /// Hands a consumed buffer back to the client.
    func giveBack(_ buffer: AudioQueueBufferRef) {
        let reference = reference
        switch callback {
        case .function(let proc, let userData): callOut { proc(userData, reference, buffer) }
        case .block(let block): callOut { block(reference, buffer) }
        }
    }

    /// Calls the client with the lock let go (as often as this thread holds it), and takes it again. The state may
    /// have changed meanwhile: callers read it afresh.
    func callOut(_ call: () -> Void) {
        let depth = lockDepth
        lockDepth = 0
        for _ in 0..<depth { lock.unlock() }
        call()
        for _ in 0..<depth { lock.lock() }
        lockDepth = depth
    }

    /// Hands every buffer waiting back, unplayed (enqueueing meanwhile is refused), and forgets what the decoder
    /// holds and what was decoded.
    func returnBuffers() {
        isReturningBuffers = true
        resets += 1
        defer { isReturningBuffers = false }
        let waiting = entries
        entries.removeAll()
        if let converter { AudioConverterReset(converter) }
        ready.removeAll()
        readyStart = 0
        scheduled.removeAll()
        for case .buffer(let enqueued) in waiting where !isDisposed { giveBack(enqueued.buffer) }
    }

    // MARK: Running

    func start() -> OSStatus {
        guard renderFormat != nil else { return kAudioQueueErr_InvalidDevice }
        if !isStarted {
            renderedFrames = 0
            isStarted = true
        }
        setRunState(.running)
        return noErr
    }

    func pause() -> OSStatus {
        if state == .running { setRunState(.paused) }
        return noErr
    }

    /// Stops at once, or once what is queued is rendered: a stop that waits flushes the decoder first, as Apple's
    /// does, and where nothing but the end of a stream is queued the decoder gives what it holds now.
    func stop(immediately: Bool) -> OSStatus {
        guard state != .stopped else { return noErr }
        guard !immediately else {
            stopNow()
            return noErr
        }
        appendEndOfStream()
        if entries.allSatisfy({ if case .endOfStream = $0 { true } else { false } }) {
            entries.removeAll()
            _ = drainConverter()
        }
        if isEmpty && entries.isEmpty { stopNow() } else { stopsWhenRendered = true }
        return noErr
    }

    func stopNow() {
        stopsWhenRendered = false
        returnBuffers()
        isStarted = false
        setRunState(.stopped)
    }

    func flush() -> OSStatus {
        appendEndOfStream()
        return noErr
    }

    func reset() -> OSStatus {
        returnBuffers()
        if stopsWhenRendered && state != .stopped { stopNow() }
        return noErr
    }

    func appendEndOfStream() {
        if case .endOfStream = entries.last { return }
        entries.append(.endOfStream)
    }

    /// Nothing waits to be decoded or rendered.
    var isEmpty: Bool {
        readyStart == ready.count
            && entries.allSatisfy {
                if case .endOfStream = $0 { return true }
                return false
            }
    }

    func setRunState(_ newState: RunState) {
        let wasRunning = state == .running
        state = newState
        guard wasRunning != (newState == .running) else { return }
        for listener in listeners where listener.property == kAudioQueueProperty_IsRunning && !isDisposed {
            let reference = reference
            callOut { listener.proc(listener.userData, reference, kAudioQueueProperty_IsRunning) }
        }
    }

    // MARK: Offline render

    func setOfflineRenderFormat(_ format: AudioStreamBasicDescription?) -> OSStatus {
        guard state == .stopped else { return kAudioQueueErr_InvalidRunState }
        if let converter { AudioConverterDispose(converter) }
        converter = nil
        ready.removeAll()
        readyStart = 0
        scheduled.removeAll()
        guard var format else {
            renderFormat = nil
            renderLayout = nil
            return noErr
        }
        let interleaved = format.mFormatFlags & kAudioFormatFlagIsNonInterleaved == 0 || format.mChannelsPerFrame == 1
        guard format.mFormatID == kAudioFormatLinearPCM, interleaved, format.mBytesPerFrame > 0,
            let layout = try? PCMLayout(format.streamDescription)
        else { return kAudioFormatUnsupportedDataFormatError }
        var source = self.format
        var made: AudioConverterRef?
        let status = AudioConverterNew(&source, &format, &made)
        guard status == noErr, let made else { return status == noErr ? kAudioQueueErr_CodecNotFound : status }
        converter = made
        renderFormat = format
        renderLayout = layout
        return applyCookie()
    }

    /// Gives the converter the magic cookie (before it has decoded anything). Linear PCM has no use for one: a
    /// cookie set on a queue of it is kept and not used.
    func applyCookie() -> OSStatus {
        guard let converter, var cookie, !cookie.isEmpty, format.mFormatID != kAudioFormatLinearPCM else {
            return noErr
        }
        return AudioConverterSetProperty(
            converter, kAudioConverterDecompressionMagicCookie, UInt32(cookie.count), &cookie)
    }

    var bytesPerRenderFrame: Int { Int(renderFormat?.mBytesPerFrame ?? 1) }
    var readyFrames: Int { (ready.count - readyStart) / max(1, bytesPerRenderFrame) }

    var currentSampleTime: Float64 {
        guard let renderFormat, renderFormat.mSampleRate > 0 else { return Float64(renderedFrames) }
        return Float64(renderedFrames) * format.mSampleRate / renderFormat.mSampleRate
    }

    func prime(frames: Int, prepared: UnsafeMutablePointer<UInt32>?) -> OSStatus {
        guard renderFormat != nil else { return kAudioQueueErr_InvalidDevice }
        let status = decode(untilReady: frames)
        prepared?.pointee = UInt32(clamping: min(frames, readyFrames))
        return status
    }

    func render(into buffer: AudioQueueBufferRef, frames: Int) -> OSStatus {
        guard buffers.contains(buffer) else { return kAudioQueueErr_InvalidBuffer }
        guard renderFormat != nil, let layout = renderLayout else { return kAudioQueueErr_InvalidOfflineMode }
        guard !isEnqueued(buffer) else { return kAudioQueueErr_BufferInQueue }
        guard state != .stopped else { return kAudioQueueErr_InvalidRunState }
        buffer.pointee.mAudioDataByteSize = 0
        buffer.pointee.mPacketDescriptionCount = 0
        guard state == .running else { return noErr }
        let room = min(frames, Int(buffer.pointee.mAudioDataBytesCapacity) / bytesPerRenderFrame)
        let status = decode(untilReady: room)
        // A callback (or another thread meanwhile) may have disposed of the queue or freed this buffer, or stopped
        // the queue.
        guard !isDisposed, buffers.contains(buffer) else { return status }
        guard state == .running else { return status }
        let count = min(room, readyFrames)
        let byteCount = count * bytesPerRenderFrame
        let output = UnsafeMutableRawBufferPointer(start: buffer.pointee.mAudioData, count: byteCount)
        ready.withUnsafeBytes { bytes in
            output.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[readyStart..<readyStart + byteCount]))
        }
        applyParameters(output, layout, from: readyStart)
        if meteringEnabled && count > 0 { measure(UnsafeRawBufferPointer(output), layout) }
        readyStart += byteCount
        if readyStart == ready.count || readyStart > 1 << 20 {
            ready.removeFirst(readyStart)
            for index in scheduled.indices { scheduled[index].offset -= readyStart }
            readyStart = 0
        }
        buffer.pointee.mAudioDataByteSize = UInt32(byteCount)
        renderedFrames += count
        if stopsWhenRendered && isEmpty && entries.isEmpty { stopNow() }
        return status
    }

    /// Decodes what is queued, a buffer at a time (each handed back to the client once decoded), until `frames`
    /// frames are ready or nothing more is queued.
    func decode(untilReady frames: Int) -> OSStatus {
        // A callback that resets, stops or disposes of the queue ends the decoding.
        let generation = resets
        while readyFrames < frames && !entries.isEmpty && !isDisposed && resets == generation {
            switch entries.removeFirst() {
            case .endOfStream:
                let status = drainConverter()
                guard status == noErr else { return status }
            case .buffer(let enqueued):
                // The buffer's parameters apply from its first frame rendered.
                if !enqueued.parameters.isEmpty { scheduled.append((ready.count, enqueued.parameters)) }
                let status = convert(enqueued)
                giveBack(enqueued.buffer)
                guard status == noErr else { return failed(status) }
            }
        }
        return noErr
    }

    /// At the end of a stream: what the converter holds (a resampler's last frames) into `ready`, and the
    /// converter afresh for what comes next.
    func drainConverter() -> OSStatus {
        guard renderFormat != nil else { return noErr }
        let status = convert(nil)
        if let converter { AudioConverterReset(converter) }
        return status == noErr ? noErr : failed(status)
    }

    func failed(_ status: OSStatus) -> OSStatus {
        converterError = status
        return status
    }

    /// What the converter's input callback says when the buffer handed over is all it has: the conversion pauses
    /// with every frame of that buffer made.
    static let bufferConsumed: OSStatus = fourCharacterStatus("aqbc")

    /// Decodes one buffer (or, for `nil`, what the converter holds at the end of a stream) into `ready`, trimming
    /// the frames the buffer asked trimmed.
    func convert(_ enqueued: Enqueued?) -> OSStatus {
        guard let converter else { return kAudioQueueErr_InvalidOfflineMode }
        handing = enqueued
        inputEnds = enqueued == nil
        defer {
            handing = nil
            inputEnds = false
        }
        let frameBytes = bytesPerRenderFrame
        let first = ready.count
        let chunk = 4096
        while true {
            let start = ready.count
            ready.append(contentsOf: repeatElement(0, count: chunk * frameBytes))
            var frames = UInt32(chunk)
            let status = ready.withUnsafeMutableBytes { bytes in
                var list = AudioBufferList(
                    mNumberBuffers: 1,
                    mBuffers: AudioBuffer(
                        mNumberChannels: renderFormat?.mChannelsPerFrame ?? 1,
                        mDataByteSize: UInt32(chunk * frameBytes),
                        mData: bytes.baseAddress.map { $0 + start }))
                return AudioConverterFillComplexBuffer(
                    converter, Self.supplyInput, Unmanaged.passUnretained(self).toOpaque(), &frames, &list, nil)
            }
            ready.removeLast((chunk - Int(frames)) * frameBytes)
            if status == Self.bufferConsumed { break }
            guard status == noErr else { return status }
            // At the end of a stream the converter has given all it holds once it gives nothing.
            if frames == 0 { break }
        }
        if let enqueued { trim(enqueued, from: first) }
        return noErr
    }

    /// Drops the frames a buffer asked trimmed from what it decoded to (`ready` from byte `first` on), counted in
    /// the queue's rate.
    func trim(_ enqueued: Enqueued, from first: Int) {
        guard enqueued.trimAtStart > 0 || enqueued.trimAtEnd > 0, let renderFormat else { return }
        let scale = format.mSampleRate > 0 ? renderFormat.mSampleRate / format.mSampleRate : 1
        let made = (ready.count - first) / bytesPerRenderFrame
        let atStart = min(made, Int((Double(enqueued.trimAtStart) * scale).rounded()))
        let atEnd = min(made - atStart, Int((Double(enqueued.trimAtEnd) * scale).rounded()))
        ready.removeLast(atEnd * bytesPerRenderFrame)
        ready.removeSubrange(first..<first + atStart * bytesPerRenderFrame)
    }

    /// The converter's input callback: the buffer being decoded, once; then "consumed" (or, at the end of a
    /// stream, no packets and no error).
    static var supplyInput: AudioConverterComplexInputDataProc {
        { _, ioPackets, ioData, outDescriptions, userData in
            userData.map {
                Unmanaged<AudioQueueBox>.fromOpaque($0).takeUnretainedValue().supply(ioPackets, ioData, outDescriptions)
            } ?? kAudioConverterErr_UnspecifiedError
        }
    }

    func supply(
        _ ioPackets: UnsafeMutablePointer<UInt32>, _ ioData: UnsafeMutablePointer<AudioBufferList>,
        _ outDescriptions: UnsafeMutablePointer<UnsafeMutablePointer<AudioStreamPacketDescription>?>?
    ) -> OSStatus {
        guard let enqueued = handing else {
            ioPackets.pointee = 0
            return inputEnds ? noErr : Self.bufferConsumed
        }
        handing = nil
        let buffer = enqueued.buffer.pointee
        // The size as it is now (a client may have changed it since), never past the buffer's bytes.
        let size = Int(min(buffer.mAudioDataByteSize, buffer.mAudioDataBytesCapacity))
        // Linear PCM counts frames; constant packets undescribed are counted by their size.
        let unit = format.mFormatID == kAudioFormatLinearPCM ? format.mBytesPerFrame : format.mBytesPerPacket
        let packets = enqueued.descriptions.isEmpty ? size / max(1, Int(unit)) : enqueued.descriptions.count
        handedDescriptions = enqueued.descriptions
        ioData.pointee.mNumberBuffers = 1
        ioData.pointee.mBuffers = AudioBuffer(
            mNumberChannels: format.mChannelsPerFrame, mDataByteSize: UInt32(size), mData: buffer.mAudioData)
        outDescriptions?.pointee =
            handedDescriptions.isEmpty
            ? nil : handedDescriptions.withUnsafeMutableBufferPointer { $0.baseAddress }
        ioPackets.pointee = UInt32(clamping: packets)
        return noErr
    }
}
