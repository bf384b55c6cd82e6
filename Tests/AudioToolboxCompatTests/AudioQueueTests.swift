// Programs that play streams with Audio Queue Services the way iOS streaming players do: a stream parsed with
// Audio File Stream Services, its packets copied into a few queue buffers with their descriptions, each buffer
// enqueued when full, the player waiting for a free buffer until the output callback hands one back. Headless, the
// queue renders offline (as Apple's AQOfflineRenderTest sample does), and what it renders is held to FFmpeg's
// decodes (Tests/Fixtures: the references the converter tests use, make-converter-fixtures.sh and the scripts it
// names).
#if canImport(AudioToolbox)
    import AudioToolbox
#else
    import AudioToolboxCompat
#endif
import Foundation
import Testing

/// A player's state: the stream's format, the queue and its buffers (which are in use), the buffer being filled,
/// and what the queue rendered. Where a thread of its own renders (as Apple's queue plays on a thread of its own),
/// what both threads touch (which buffers are in use, whether the queue runs, the first failure) is read and written
/// holding `condition` or `failureLock`; the rest belongs to one thread, and is read by the other after `finished`.
final class QueuePlayer: @unchecked Sendable {
    static let bufferCount = 3
    static let maximumPacketDescriptions = 512

    var bufferSize = 16384
    /// Frames asked of each offline render.
    var framesPerRender: UInt32 = 1500
    var renderFormat: (AudioStreamBasicDescription) -> AudioStreamBasicDescription
    var volume: Float32 = 1
    /// Whether the stream's magic cookie is given to the queue.
    var setsCookie = true

    var format = AudioStreamBasicDescription()
    var primingFrames = 0
    var queue: AudioQueueRef?
    var buffers: [AudioQueueBufferRef] = []
    var inUse: [Bool] = []
    var fillIndex = 0
    var bytesFilled = 0
    var packetsFilled = 0
    var descriptions = [AudioStreamPacketDescription](
        repeating: AudioStreamPacketDescription(), count: QueuePlayer.maximumPacketDescriptions)
    var started = false
    /// Packets the stream delivered (those with descriptions).
    var packetCount = 0
    var isRunning = false
    var runningChanges: [UInt32] = []
    var output: [UInt8] = []
    var renderBuffer: AudioQueueBufferRef?
    var time = AudioTimeStamp()
    /// Whether a thread of its own renders: the player then waits on `condition` for a free buffer.
    var rendersOnAThread = false
    let condition = NSCondition()
    /// The queue played all it was given and stopped; the render thread has kept all it rendered and ended.
    var finished = false
    var renderThreadEnded = false
    let failureLock = NSLock()
    private var firstFailure: (String, OSStatus)?
    /// The first status that went wrong, with what was being done.
    var failure: (String, OSStatus)? {
        failureLock.lock()
        defer { failureLock.unlock() }
        return firstFailure
    }

    init(renderFormat: @escaping (AudioStreamBasicDescription) -> AudioStreamBasicDescription) {
        self.renderFormat = renderFormat
    }

    func check(_ status: OSStatus, _ what: String) {
        failureLock.lock()
        defer { failureLock.unlock() }
        if status != noErr && firstFailure == nil { firstFailure = (what, status) }
    }

    var packetsVary: Bool { format.mBytesPerPacket == 0 }
}

/// The output callback: the buffer is free again.
func queuePlayerOutput(_ userData: UnsafeMutableRawPointer?, _ queue: AudioQueueRef, _ buffer: AudioQueueBufferRef) {
    guard let userData else { return }
    let player = Unmanaged<QueuePlayer>.fromOpaque(userData).takeUnretainedValue()
    player.condition.lock()
    defer { player.condition.unlock() }
    if let index = player.buffers.firstIndex(of: buffer) { player.inUse[index] = false }
    player.condition.broadcast()
}

/// The IsRunning listener: the queue started, or played all it was given and stopped.
func queuePlayerRunningChanged(_ userData: UnsafeMutableRawPointer?, _ queue: AudioQueueRef, _ id: AudioQueuePropertyID)
{
    guard let userData else { return }
    let player = Unmanaged<QueuePlayer>.fromOpaque(userData).takeUnretainedValue()
    var running: UInt32 = 0
    var size = UInt32(MemoryLayout<UInt32>.size)
    player.check(AudioQueueGetProperty(queue, id, &running, &size), "get IsRunning")
    player.condition.lock()
    defer { player.condition.unlock() }
    player.isRunning = running != 0
    player.runningChanges.append(running)
    if running == 0 { player.finished = true }
    player.condition.broadcast()
}

/// The stream's property listener: once packets can come, the queue is made for the stream's format and cookie,
/// set to render offline, and given its buffers.
func queuePlayerStreamProperty(
    _ clientData: UnsafeMutableRawPointer, _ stream: AudioFileStreamID, _ id: AudioFileStreamPropertyID,
    _ flags: UnsafeMutablePointer<AudioFileStreamPropertyFlags>
) {
    let player = Unmanaged<QueuePlayer>.fromOpaque(clientData).takeUnretainedValue()
    guard id == kAudioFileStreamProperty_ReadyToProducePackets, player.queue == nil else { return }
    guard let format = streamProperty(stream, kAudioFileStreamProperty_DataFormat, AudioStreamBasicDescription())
    else { return player.check(kAudioFileStreamError_ValueUnknown, "data format") }
    player.format = format
    let table = streamProperty(stream, kAudioFileStreamProperty_PacketTableInfo, AudioFilePacketTableInfo())
    player.primingFrames = Int(table?.mPrimingFrames ?? 0)
    var streamFormat = format
    var queue: AudioQueueRef?
    player.check(
        AudioQueueNewOutput(
            &streamFormat, queuePlayerOutput, clientData, CFRunLoopGetCurrent(), CFRunLoopMode.commonModes.rawValue, 0,
            &queue), "new output")
    guard let queue else { return }
    player.queue = queue
    var cookieSize: UInt32 = 0
    var writable: DarwinBoolean = false
    if player.setsCookie,
        AudioFileStreamGetPropertyInfo(stream, kAudioFileStreamProperty_MagicCookieData, &cookieSize, &writable)
            == noErr, cookieSize > 0
    {
        let cookie = UnsafeMutableRawPointer.allocate(byteCount: Int(cookieSize), alignment: 8)
        defer { cookie.deallocate() }
        player.check(
            AudioFileStreamGetProperty(stream, kAudioFileStreamProperty_MagicCookieData, &cookieSize, cookie), "cookie")
        player.check(AudioQueueSetProperty(queue, kAudioQueueProperty_MagicCookie, cookie, cookieSize), "set cookie")
        // The queue gives the cookie back as it was set.
        var size: UInt32 = 0
        player.check(AudioQueueGetPropertySize(queue, kAudioQueueProperty_MagicCookie, &size), "cookie size")
        var copy = [UInt8](repeating: 0, count: Int(size))
        player.check(AudioQueueGetProperty(queue, kAudioQueueProperty_MagicCookie, &copy, &size), "get cookie")
        let same = copy == Array(UnsafeRawBufferPointer(start: cookie, count: Int(cookieSize)))
        player.check(same ? noErr : kAudioQueueErr_InvalidPropertyValue, "cookie given back")
    }
    for _ in 0..<QueuePlayer.bufferCount {
        var buffer: AudioQueueBufferRef?
        player.check(AudioQueueAllocateBuffer(queue, UInt32(player.bufferSize), &buffer), "allocate")
        if let buffer {
            player.buffers.append(buffer)
            player.inUse.append(false)
        }
    }
    player.check(
        AudioQueueAddPropertyListener(queue, kAudioQueueProperty_IsRunning, queuePlayerRunningChanged, clientData),
        "listener")
    var render = player.renderFormat(format)
    player.check(AudioQueueSetOfflineRenderFormat(queue, &render, nil), "offline render format")
    var renderBuffer: AudioQueueBufferRef?
    player.check(
        AudioQueueAllocateBuffer(queue, player.framesPerRender * render.mBytesPerFrame, &renderBuffer), "render buffer")
    player.renderBuffer = renderBuffer
    player.check(AudioQueueSetParameter(queue, kAudioQueueParam_Volume, player.volume), "volume")
    player.time.mFlags = .sampleTimeValid
}

/// Renders once, keeping what the queue gives; returns the frames rendered.
@discardableResult
func renderOnce(_ player: QueuePlayer) -> Int {
    guard let queue = player.queue, let buffer = player.renderBuffer else { return 0 }
    let status = AudioQueueOfflineRender(queue, &player.time, buffer, player.framesPerRender)
    player.check(status, "offline render")
    let bytes = Int(buffer.pointee.mAudioDataByteSize)
    player.output += UnsafeRawBufferPointer(start: buffer.pointee.mAudioData, count: bytes)
    let frames = bytes / Int(player.renderFormat(player.format).mBytesPerFrame)
    player.time.mSampleTime += Float64(frames)
    return status == noErr ? frames : 0
}

/// Enqueues the buffer being filled, starts the queue after the first, and waits (rendering) for the next buffer
/// to be free.
func enqueueFilledBuffer(_ player: QueuePlayer) {
    guard let queue = player.queue, player.bytesFilled > 0 else { return }
    let buffer = player.buffers[player.fillIndex]
    // As AudioStreamer does, the buffer is marked in use and enqueued holding the lock the output callback takes.
    player.condition.lock()
    player.inUse[player.fillIndex] = true
    buffer.pointee.mAudioDataByteSize = UInt32(player.bytesFilled)
    let status = player.descriptions.withUnsafeBufferPointer {
        player.packetsVary
            ? AudioQueueEnqueueBuffer(queue, buffer, UInt32(player.packetsFilled), $0.baseAddress)
            : AudioQueueEnqueueBuffer(queue, buffer, 0, nil)
    }
    player.condition.unlock()
    player.check(status, "enqueue")
    if !player.started {
        player.check(AudioQueueStart(queue, nil), "start")
        player.condition.lock()
        player.started = true
        player.condition.unlock()
        // Apple's sample renders 0 frames first; the frames asked are given here from the start.
        if !player.rendersOnAThread { renderOnce(player) }
    }
    player.fillIndex = (player.fillIndex + 1) % player.buffers.count
    player.bytesFilled = 0
    player.packetsFilled = 0
    waitForFreeBuffer(player)
}

/// Waits until the buffer to fill next is free: for the render thread to hand it back, or (with none) rendering
/// until the queue hands one back.
func waitForFreeBuffer(_ player: QueuePlayer) {
    guard player.rendersOnAThread else {
        var attempts = 0
        while player.inUse[player.fillIndex] && player.failure == nil {
            attempts += 1
            if renderOnce(player) == 0 && attempts > 1000 { return player.check(kAudioQueueErr_BufferEmpty, "wait") }
        }
        return
    }
    player.condition.lock()
    defer { player.condition.unlock() }
    while player.inUse[player.fillIndex] && player.failure == nil {
        if !player.condition.wait(until: Date(timeIntervalSinceNow: 30)) {
            return player.check(kAudioQueueErr_BufferEmpty, "wait for the render thread")
        }
    }
}

/// The render thread: renders once the queue has started, until it has played everything and stopped.
func renderUntilFinished(_ player: QueuePlayer) {
    while true {
        player.condition.lock()
        let (started, finished) = (player.started, player.finished)
        player.condition.unlock()
        if finished || player.failure != nil { break }
        if !started || renderOnce(player) == 0 { Thread.sleep(forTimeInterval: 0.0002) }
    }
    player.condition.lock()
    player.renderThreadEnded = true
    player.condition.broadcast()
    player.condition.unlock()
}

/// The packets callback: each packet copied into the buffer being filled with its description (constant packets
/// in runs), the buffer enqueued when the next would not fit.
func queuePlayerPackets(
    _ clientData: UnsafeMutableRawPointer, _ numberBytes: UInt32, _ numberPackets: UInt32, _ data: UnsafeRawPointer,
    _ packetDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?
) {
    let player = Unmanaged<QueuePlayer>.fromOpaque(clientData).takeUnretainedValue()
    guard player.queue != nil, player.failure == nil else { return }
    guard let packetDescriptions else {
        // Constant packets: as many whole ones at a time as the buffer has room for.
        let packetSize = max(1, Int(player.format.mBytesPerPacket))
        var offset = 0
        while offset < Int(numberBytes) && player.failure == nil {
            let room = (player.bufferSize - player.bytesFilled) / packetSize * packetSize
            if room == 0 {
                enqueueFilledBuffer(player)
                continue
            }
            let count = min(room, Int(numberBytes) - offset)
            let buffer = player.buffers[player.fillIndex]
            (buffer.pointee.mAudioData + player.bytesFilled).copyMemory(from: data + offset, byteCount: count)
            player.bytesFilled += count
            offset += count
        }
        return
    }
    for index in 0..<Int(numberPackets) where player.failure == nil {
        let packet = packetDescriptions[index]
        let size = Int(packet.mDataByteSize)
        if player.bytesFilled + size > player.bufferSize { enqueueFilledBuffer(player) }
        let buffer = player.buffers[player.fillIndex]
        (buffer.pointee.mAudioData + player.bytesFilled).copyMemory(
            from: data + Int(packet.mStartOffset), byteCount: size)
        player.descriptions[player.packetsFilled] = AudioStreamPacketDescription(
            mStartOffset: Int64(player.bytesFilled), mVariableFramesInPacket: packet.mVariableFramesInPacket,
            mDataByteSize: packet.mDataByteSize)
        player.bytesFilled += size
        player.packetsFilled += 1
        player.packetCount += 1
        if player.packetsFilled == QueuePlayer.maximumPacketDescriptions { enqueueFilledBuffer(player) }
    }
}

/// Plays a file as a stream of `chunkSize`-byte reads through an audio queue rendering offline; at the end of the
/// stream the last buffer is enqueued, the queue flushed and stopped once it has played everything, and rendered
/// until it says it is no longer running.
func playThroughQueue(
    _ data: [UInt8], chunkSize: Int,
    renderFormat: @escaping (AudioStreamBasicDescription) -> AudioStreamBasicDescription,
    configure: (QueuePlayer) -> Void = { _ in }
) -> QueuePlayer {
    let player = QueuePlayer(renderFormat: renderFormat)
    configure(player)
    if player.rendersOnAThread { Thread { renderUntilFinished(player) }.start() }
    let clientData = Unmanaged.passUnretained(player).toOpaque()
    var streamID: AudioFileStreamID?
    player.check(
        AudioFileStreamOpen(clientData, queuePlayerStreamProperty, queuePlayerPackets, 0, &streamID), "open stream")
    guard let stream = streamID else { return player }
    var offset = 0
    while offset < data.count && player.failure == nil {
        let count = min(chunkSize, data.count - offset)
        let status = data[offset..<offset + count].withUnsafeBytes {
            AudioFileStreamParseBytes(stream, UInt32(count), $0.baseAddress, [])
        }
        player.check(status, "parse")
        offset += count
    }
    // The end of the stream: a parse of no bytes settles a last packet only the end shows.
    player.check(AudioFileStreamParseBytes(stream, 0, nil, []), "parse the end")
    AudioFileStreamClose(stream)
    guard let queue = player.queue, player.failure == nil else {
        player.check(kAudio_ParamError, "no queue")  // (which ends a render thread)
        return player
    }
    enqueueFilledBuffer(player)
    player.check(AudioQueueFlush(queue), "flush")
    player.check(AudioQueueStop(queue, false), "stop")
    if player.rendersOnAThread {
        player.condition.lock()
        while !player.renderThreadEnded {
            if !player.condition.wait(until: Date(timeIntervalSinceNow: 30)) {
                player.check(kAudioQueueErr_InvalidRunState, "wait for the end")
                break
            }
        }
        player.condition.unlock()
    }
    var renders = 0
    while player.isRunning && !player.rendersOnAThread && player.failure == nil && renders < 100_000 {
        renderOnce(player)
        renders += 1
    }
    player.check(AudioQueueDispose(queue, true), "dispose")
    return player
}

/// 16-bit interleaved PCM of a stream's rate and channels.
func int16Render(_ format: AudioStreamBasicDescription) -> AudioStreamBasicDescription {
    pcmFormat(sampleRate: format.mSampleRate, channels: format.mChannelsPerFrame)
}

/// 32-bit float interleaved PCM of a stream's rate and channels.
func float32Render(_ format: AudioStreamBasicDescription) -> AudioStreamBasicDescription {
    pcmFormat(sampleRate: format.mSampleRate, channels: format.mChannelsPerFrame, bits: 32, float: true)
}

func fixtureBytes(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: queueFixtures.appendingPathComponent(name)))
}

private let queueFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

@Suite struct AudioQueueTests {
    /// A player streaming lossless formats through a queue rendering 16-bit PCM gives FFmpeg's samples, every one,
    /// the queue's own decoding (big-endian PCM, ALAC with its cookie, IMA4, µ-law, A-law) doing the work; and the
    /// queue says it started and, after the last frame, that it stopped.
    @Test(arguments: [
        ("aiff/pcm-s16-stereo.aiff", "converter/pcm-s16-stereo.aiff.s16le"),
        ("afkit-outputs/speech-alac.m4a", "afkit-outputs/speech-alac.m4a.ffmpeg.s16le"),
        ("codecs/speech-ima4-stereo.aifc", "codecs/speech-ima4-stereo.aifc.s16le"),
        ("codecs/speech-ulaw.wav", "codecs/speech-ulaw.wav.s16le"),
        ("codecs/music-alaw.caf", "codecs/music-alaw.caf.s16le"),
    ])
    func losslessStreamsRenderToFFmpegsSamples(_ name: String, _ referenceName: String) throws {
        let reference = try fileSamples(referenceName, as: Int16.self)
        let player = playThroughQueue(try fixtureBytes(name), chunkSize: 3000, renderFormat: int16Render)
        #expect(player.failure == nil, "\(name): \(String(describing: player.failure))")
        let rendered = samples(player.output, as: Int16.self)
        #expect(rendered.count == reference.count, "\(name)")
        #expect(rendered == reference, "\(name)")
        #expect(player.runningChanges == [1, 0], "\(name)")
        #expect(player.time.mSampleTime == Float64(reference.count) / Float64(player.format.mChannelsPerFrame))
    }

    /// FLAC (the library's stereo file), over the window FFmpeg's reference holds.
    @Test func flacStreamRendersToFFmpegsSamples() throws {
        let reference = try fileSamples("library/stereo.flac.at30000.s16", as: Int16.self)
        let player = playThroughQueue(
            try fixtureBytes("library/stereo.flac"), chunkSize: 4096, renderFormat: int16Render)
        #expect(player.failure == nil, "\(String(describing: player.failure))")
        let rendered = samples(player.output, as: Int16.self)
        #expect(rendered.count == 66150 * 2)
        try #require(rendered.count >= 60000 + reference.count)
        #expect(Array(rendered[60000..<60000 + reference.count]) == reference)
    }

    /// Rendering to 32-bit floats gives the 16-bit decode's samples over 32,768, exactly.
    @Test func rendersToFloat32() throws {
        let reference = try fileSamples("afkit-outputs/speech-alac.m4a.ffmpeg.s16le", as: Int16.self)
        let player = playThroughQueue(
            try fixtureBytes("afkit-outputs/speech-alac.m4a"), chunkSize: 5000, renderFormat: float32Render)
        #expect(player.failure == nil)
        let rendered = samples(player.output, as: Float.self)
        #expect(rendered.count == reference.count)
        #expect(zip(rendered, reference).allSatisfy { $0 == Float($1) / 32768 })
    }

    /// Lossy streams render to FFmpeg's samples within a stated SNR: the queue plays every frame the codec decodes,
    /// so the stream's priming comes before FFmpeg's gapless frame 30,000.
    @Test(arguments: ["stereo.m4a", "stereo.mp3", "stereo.opus"])
    func lossyStreamsRenderWithinSNR(_ name: String) throws {
        let reference = try fileSamples("library/\(name).at30000.s16", as: Int16.self)
        let player = playThroughQueue(try fixtureBytes("library/\(name)"), chunkSize: 2048, renderFormat: int16Render)
        #expect(player.failure == nil, "\(name): \(String(describing: player.failure))")
        let rendered = samples(player.output, as: Int16.self)
        let start = (30000 + player.primingFrames) * 2
        try #require(rendered.count >= start + reference.count)
        let ratio = snr(rendered[start..<start + reference.count], reference[...])
        #expect(ratio > 60, "\(name): \(ratio) dB")
    }

    /// The other codecs a player meets play through the queue to every frame FFmpeg's decoder gives (an MP4's edit
    /// list ignored), within the converter's stated 60 dB: HE-AAC v2 in both signallings, AC-3, E-AC-3, AMR-NB,
    /// AMR-WB, Vorbis, MPEG-1 Layer II and AAC in LOAS (references by make-converter-fixtures.sh).
    @Test(arguments: [
        "framed/speech-wb.amr", "framed/speech.amr", "framed/stereo.eac3", "framed/stereo-44k.ac3",
        "framed/stereo.loas", "mp3/ffmpeg-mp2-48k.mp2", "ogg/oggenc-stereo.ogg",
        "world-classes/heaac-v2-backward-compatible.m4a", "world-classes/heaac-v2-explicit.m4a",
    ])
    func otherCodecsRenderWithinSNR(_ path: String) throws {
        let reference = try fileSamples(
            "converter/\(URL(fileURLWithPath: path).lastPathComponent).s16le", as: Int16.self)
        let player = playThroughQueue(try fixtureBytes(path), chunkSize: 900, renderFormat: int16Render)
        #expect(player.failure == nil, "\(path): \(String(describing: player.failure))")
        let rendered = samples(player.output, as: Int16.self)
        try #require(rendered.count >= reference.count, "\(path): \(rendered.count) samples")
        let ratio = snr(rendered[0..<reference.count], reference[...])
        #expect(ratio > 60, "\(path): \(ratio) dB")
    }

    /// AAC in ADTS has no magic cookie: the queue decodes from the stream description alone.
    @Test func adtsRendersWithoutACookie() throws {
        let reference = try fileSamples("converter/aac-lc-44k-stereo.aac.s16le", as: Int16.self)
        let player = playThroughQueue(
            try fixtureBytes("adts/aac-lc-44k-stereo.aac"), chunkSize: 3000, renderFormat: int16Render)
        #expect(player.failure == nil)
        let rendered = samples(player.output, as: Int16.self)
        try #require(rendered.count >= reference.count)
        #expect(snr(rendered[0..<reference.count], reference[...]) > 60)
    }

    /// A render format of another rate: the queue resamples (the library's AAC at 48 kHz, against FFmpeg's decode
    /// resampled by libsoxr at the converter's precision), every frame of every packet.
    @Test func rendersAtAnotherRate() throws {
        let reference = try fileSamples("converter/stereo.m4a.48k.s16le", as: Int16.self)
        let player = playThroughQueue(try fixtureBytes("library/stereo.m4a"), chunkSize: 3000) {
            pcmFormat(sampleRate: 48000, channels: $0.mChannelsPerFrame)
        }
        #expect(player.failure == nil)
        let rendered = samples(player.output, as: Int16.self)
        // Every frame of every packet, at 48 kHz: the resampler's last frames come with the stop that waits.
        #expect(abs(rendered.count / 2 - Int((Double(player.packetCount * 1024) * 48000 / 44100).rounded())) <= 1)
        try #require(rendered.count >= reference.count)
        #expect(snr(rendered[0..<reference.count], reference[...]) > 60)
    }

    /// The volume parameter scales what the queue renders: at 0.5, floats are exactly half, 16-bit samples half
    /// to the nearest.
    @Test func halfVolumeHalvesTheSamples() throws {
        let reference = try fileSamples("afkit-outputs/speech-alac.m4a.ffmpeg.s16le", as: Int16.self)
        let data = try fixtureBytes("afkit-outputs/speech-alac.m4a")
        let floats = playThroughQueue(data, chunkSize: 4096, renderFormat: float32Render) { $0.volume = 0.5 }
        let rendered = samples(floats.output, as: Float.self)
        #expect(rendered.count == reference.count)
        #expect(zip(rendered, reference).allSatisfy { $0 == Float($1) / 65536 })
        let integers = playThroughQueue(data, chunkSize: 4096, renderFormat: int16Render) { $0.volume = 0.5 }
        let halved = samples(integers.output, as: Int16.self)
        #expect(halved.count == reference.count)
        #expect(zip(halved, reference).allSatisfy { abs(2 * Int($0) - Int($1)) <= 1 })
        #expect(halved != reference)
    }
}

// MARK: A queue of linear PCM made by hand: errors, buffers handed back, priming, trimming, time and levels

/// What a queue's callback and listener saw.
final class QueueLog {
    var returned: [AudioQueueBufferRef] = []
    /// Whether the callback enqueues each buffer again at once, and what that answered.
    var enqueuesAgain = false
    var enqueueAnswers: [OSStatus] = []
    var runningChanges = 0
}

func logReturnedBuffer(_ userData: UnsafeMutableRawPointer?, _ queue: AudioQueueRef, _ buffer: AudioQueueBufferRef) {
    guard let userData else { return }
    let log = Unmanaged<QueueLog>.fromOpaque(userData).takeUnretainedValue()
    log.returned.append(buffer)
    if log.enqueuesAgain { log.enqueueAnswers.append(AudioQueueEnqueueBuffer(queue, buffer, 0, nil)) }
}

func logRunningChange(_ userData: UnsafeMutableRawPointer?, _ queue: AudioQueueRef, _ id: AudioQueuePropertyID) {
    guard let userData else { return }
    Unmanaged<QueueLog>.fromOpaque(userData).takeUnretainedValue().runningChanges += 1
}

/// A queue of 16-bit stereo PCM at 44.1 kHz, rendering the same format offline where asked, logging to `log`.
func makePCMQueue(_ log: QueueLog, offline: Bool = true) throws -> AudioQueueRef {
    var format = pcmFormat(sampleRate: 44100, channels: 2)
    var made: AudioQueueRef?
    let userData = Unmanaged.passUnretained(log).toOpaque()
    try #require(AudioQueueNewOutput(&format, logReturnedBuffer, userData, nil, nil, 0, &made) == noErr)
    let queue = try #require(made)
    try #require(
        AudioQueueAddPropertyListener(queue, kAudioQueueProperty_IsRunning, logRunningChange, userData) == noErr)
    if offline { try #require(AudioQueueSetOfflineRenderFormat(queue, &format, nil) == noErr) }
    return queue
}

/// A buffer of `queue` holding `frames` stereo frames of a ramp starting at `first` (left n, right -n).
func pcmBuffer(_ queue: AudioQueueRef, frames: Int, first: Int = 0) throws -> AudioQueueBufferRef {
    var made: AudioQueueBufferRef?
    try #require(AudioQueueAllocateBuffer(queue, UInt32(frames * 4), &made) == noErr)
    let buffer = try #require(made)
    let samples = buffer.pointee.mAudioData.bindMemory(to: Int16.self, capacity: frames * 2)
    for frame in 0..<frames {
        samples[2 * frame] = Int16(truncatingIfNeeded: first + frame)
        samples[2 * frame + 1] = Int16(truncatingIfNeeded: -(first + frame))
    }
    buffer.pointee.mAudioDataByteSize = UInt32(frames * 4)
    return buffer
}

/// One offline render of up to `frames` frames into `buffer`: its status and the samples.
func render(_ queue: AudioQueueRef, _ buffer: AudioQueueBufferRef, frames: UInt32) -> (OSStatus, [Int16]) {
    var time = AudioTimeStamp()
    time.mFlags = .sampleTimeValid
    let status = AudioQueueOfflineRender(queue, &time, buffer, frames)
    let count = Int(buffer.pointee.mAudioDataByteSize) / 2
    return (
        status,
        Array(
            UnsafeBufferPointer(
                start: buffer.pointee.mAudioData.bindMemory(to: Int16.self, capacity: count), count: count))
    )
}

func ramp(_ frames: Range<Int>) -> [Int16] {
    frames.flatMap { [Int16(truncatingIfNeeded: $0), Int16(truncatingIfNeeded: -$0)] }
}

/// A property of a fixed size, or the status that refused it.
func queueProperty<Value: BitwiseCopyable>(_ queue: AudioQueueRef, _ id: AudioQueuePropertyID, _ empty: Value)
    -> Result<Value, QueueStatus>
{
    var value = empty
    var size = UInt32(MemoryLayout<Value>.size)
    let status = withUnsafeMutableBytes(of: &value) { bytes in
        bytes.baseAddress.map { AudioQueueGetProperty(queue, id, $0, &size) } ?? kAudio_ParamError
    }
    return status == noErr ? .success(value) : .failure(QueueStatus(status: status))
}

struct QueueStatus: Error, Equatable { var status: OSStatus }

extension AudioQueueTests {
    /// Without an offline render format there is no device: starting and priming answer kAudioQueueErr_InvalidDevice
    /// (Apple's "the audio hardware device could not be located"), rendering kAudioQueueErr_InvalidOfflineMode.
    @Test func aQueueWithoutARenderFormatHasNoDevice() throws {
        let log = QueueLog()
        let queue = try makePCMQueue(log, offline: false)
        defer { AudioQueueDispose(queue, true) }
        #expect(AudioQueueStart(queue, nil) == kAudioQueueErr_InvalidDevice)
        #expect(AudioQueuePrime(queue, 100, nil) == kAudioQueueErr_InvalidDevice)
        let output = try pcmBuffer(queue, frames: 10)
        #expect(render(queue, output, frames: 10).0 == kAudioQueueErr_InvalidOfflineMode)
        #expect(queueProperty(queue, kAudioQueueProperty_IsRunning, UInt32(7)) == .success(0))
        #expect(log.runningChanges == 0)
    }

    /// Calls a player gets wrong are answered with Apple's codes, never a trap: formats the queue cannot play,
    /// empty and foreign buffers, a buffer enqueued twice or freed while enqueued, packets without descriptions or
    /// described outside their bytes, unknown properties and parameters, and every call on a disposed queue.
    @Test func badCallsGetApplesCodes() throws {
        var unknown = AudioStreamBasicDescription(
            mSampleRate: 44100, mFormatID: 0x7A7A_7A7A, mFormatFlags: 0, mBytesPerPacket: 0, mFramesPerPacket: 1024,
            mBytesPerFrame: 0, mChannelsPerFrame: 2, mBitsPerChannel: 0, mReserved: 0)
        var refused: AudioQueueRef?
        #expect(
            AudioQueueNewOutput(&unknown, logReturnedBuffer, nil, nil, nil, 0, &refused)
                == kAudioFormatUnsupportedDataFormatError)
        #expect(refused == nil)
        var planar = pcmFormat(sampleRate: 44100, channels: 2, nonInterleaved: true)
        #expect(
            AudioQueueNewOutput(&planar, logReturnedBuffer, nil, nil, nil, 0, &refused)
                == kAudioFormatUnsupportedDataFormatError)

        let log = QueueLog()
        let queue = try makePCMQueue(log)
        let other = try makePCMQueue(QueueLog())
        defer { AudioQueueDispose(other, true) }
        var empty: AudioQueueBufferRef?
        try #require(AudioQueueAllocateBuffer(queue, 64, &empty) == noErr)
        #expect(AudioQueueEnqueueBuffer(queue, try #require(empty), 0, nil) == kAudioQueueErr_BufferEmpty)
        let foreign = try pcmBuffer(other, frames: 4)
        #expect(AudioQueueEnqueueBuffer(queue, foreign, 0, nil) == kAudioQueueErr_InvalidBuffer)
        #expect(AudioQueueFreeBuffer(queue, foreign) == kAudioQueueErr_InvalidBuffer)
        #expect(render(queue, foreign, frames: 4).0 == kAudioQueueErr_InvalidBuffer)
        let full = try pcmBuffer(queue, frames: 4)
        #expect(AudioQueueEnqueueBuffer(queue, full, 0, nil) == noErr)
        #expect(AudioQueueEnqueueBuffer(queue, full, 0, nil) == kAudioQueueErr_BufferEnqueuedTwice)
        #expect(AudioQueueFreeBuffer(queue, full) == kAudioQueueErr_BufferInQueue)
        #expect(render(queue, full, frames: 4).0 == kAudioQueueErr_BufferInQueue)
        #expect(render(queue, try #require(empty), frames: 4).0 == kAudioQueueErr_InvalidRunState)
        // A property or parameter the queue does not have, a size too small, a value that is read only.
        var parameter: AudioQueueParameterValue = 0
        #expect(AudioQueueGetParameter(queue, 99, &parameter) == kAudioQueueErr_InvalidParameter)
        #expect(AudioQueueSetParameter(queue, 99, 1) == kAudioQueueErr_InvalidParameter)
        var (value, size): (UInt32, UInt32) = (0, 2)
        #expect(AudioQueueGetProperty(queue, 0x7A7A_7A7A, &value, &size) == kAudioQueueErr_InvalidProperty)
        #expect(
            AudioQueueGetProperty(queue, kAudioQueueProperty_IsRunning, &value, &size)
                == kAudioQueueErr_InvalidPropertySize)
        #expect(
            AudioQueueSetProperty(queue, kAudioQueueProperty_IsRunning, &value, 4)
                == kAudioQueueErr_InvalidPropertyValue)
        var aac = AudioStreamBasicDescription(
            mSampleRate: 44100, mFormatID: kAudioFormatMPEG4AAC, mFormatFlags: 0, mBytesPerPacket: 0,
            mFramesPerPacket: 1024, mBytesPerFrame: 0, mChannelsPerFrame: 2, mBitsPerChannel: 0, mReserved: 0)
        #expect(AudioQueueSetOfflineRenderFormat(queue, &aac, nil) == kAudioFormatUnsupportedDataFormatError)

        // Packets that vary need descriptions, and each lies inside the bytes enqueued.
        var aacQueue: AudioQueueRef?
        try #require(AudioQueueNewOutput(&aac, logReturnedBuffer, nil, nil, nil, 0, &aacQueue) == noErr)
        let compressed = try #require(aacQueue)
        var packets: AudioQueueBufferRef?
        try #require(AudioQueueAllocateBufferWithPacketDescriptions(compressed, 100, 2, &packets) == noErr)
        let packetBuffer = try #require(packets)
        packetBuffer.pointee.mAudioDataByteSize = 100
        #expect(AudioQueueEnqueueBuffer(compressed, packetBuffer, 0, nil) == kAudio_ParamError)
        var outside = AudioStreamPacketDescription(mStartOffset: 60, mVariableFramesInPacket: 0, mDataByteSize: 50)
        #expect(AudioQueueEnqueueBuffer(compressed, packetBuffer, 1, &outside) == kAudio_ParamError)
        #expect(AudioQueueDispose(compressed, true) == noErr)

        // A disposed queue answers every call, and frees its buffers itself.
        #expect(AudioQueueDispose(queue, true) == noErr)
        #expect(AudioQueueEnqueueBuffer(queue, full, 0, nil) == kAudio_ParamError)
        #expect(AudioQueueStart(queue, nil) == kAudio_ParamError)
        #expect(AudioQueueGetProperty(queue, kAudioQueueProperty_IsRunning, &value, &size) == kAudio_ParamError)
        #expect(AudioQueueDispose(queue, true) == kAudio_ParamError)
        #expect(log.returned.isEmpty)
    }

    /// Reset and an immediate stop hand the enqueued buffers back to the callback in order, unplayed, refusing a
    /// buffer enqueued meanwhile (kAudioQueueErr_EnqueueDuringReset); the listener hears the queue start, pause, start again and
    /// stop; a paused queue renders nothing and keeps its buffers, and a stopped one renders nothing (kAudioQueueErr_InvalidRunState).
    @Test func resetAndStopHandBuffersBack() throws {
        let log = QueueLog()
        let queue = try makePCMQueue(log)
        defer { AudioQueueDispose(queue, true) }
        let first = try pcmBuffer(queue, frames: 100)
        let second = try pcmBuffer(queue, frames: 100, first: 100)
        let output = try pcmBuffer(queue, frames: 400)
        #expect(AudioQueueStart(queue, nil) == noErr)
        #expect(log.runningChanges == 1)
        #expect(AudioQueueEnqueueBuffer(queue, first, 0, nil) == noErr)
        #expect(AudioQueueEnqueueBuffer(queue, second, 0, nil) == noErr)
        // Paused, the queue renders nothing and keeps its buffers.
        #expect(AudioQueuePause(queue) == noErr)
        #expect(render(queue, output, frames: 400) == (noErr, []))
        #expect(log.returned.isEmpty)
        #expect(AudioQueueStart(queue, nil) == noErr)
        #expect(log.runningChanges == 3)
        log.enqueuesAgain = true
        #expect(AudioQueueReset(queue) == noErr)
        #expect(log.returned == [first, second])
        #expect(log.enqueueAnswers == [kAudioQueueErr_EnqueueDuringReset, kAudioQueueErr_EnqueueDuringReset])
        #expect(render(queue, output, frames: 400) == (noErr, []))
        log.enqueuesAgain = false
        #expect(AudioQueueEnqueueBuffer(queue, second, 0, nil) == noErr)
        #expect(AudioQueueStop(queue, true) == noErr)
        #expect(log.returned == [first, second, second])
        #expect(log.runningChanges == 4)
        #expect(render(queue, output, frames: 400).0 == kAudioQueueErr_InvalidRunState)
    }

    /// Priming decodes ahead (the buffer goes back to the callback before the queue starts); trimming drops frames
    /// from a buffer's start and end; the queue's time counts the frames rendered; a stop that waits ends once all
    /// is rendered; and the level meter measures the last render.
    @Test func primeTrimTimeAndLevels() throws {
        let log = QueueLog()
        let queue = try makePCMQueue(log)
        defer { AudioQueueDispose(queue, true) }
        let first = try pcmBuffer(queue, frames: 1000)
        let second = try pcmBuffer(queue, frames: 1000, first: 1000)
        let output = try pcmBuffer(queue, frames: 3000)
        #expect(AudioQueueEnqueueBuffer(queue, first, 0, nil) == noErr)
        #expect(
            AudioQueueEnqueueBufferWithParameters(queue, second, 0, nil, 100, 50, 0, nil, nil, nil) == noErr)
        var prepared: UInt32 = 0
        #expect(AudioQueuePrime(queue, 600, &prepared) == noErr)
        #expect(prepared == 600)
        #expect(log.returned == [first])
        var metering: UInt32 = 1
        #expect(AudioQueueSetProperty(queue, kAudioQueueProperty_EnableLevelMetering, &metering, 4) == noErr)
        #expect(AudioQueueStart(queue, nil) == noErr)
        #expect(render(queue, output, frames: 0) == (noErr, []))
        #expect(render(queue, output, frames: 700) == (noErr, ramp(0..<700)))
        var levels = [AudioQueueLevelMeterState](repeating: AudioQueueLevelMeterState(), count: 2)
        var size = UInt32(2 * MemoryLayout<AudioQueueLevelMeterState>.size)
        #expect(AudioQueueGetProperty(queue, kAudioQueueProperty_CurrentLevelMeter, &levels, &size) == noErr)
        #expect(levels.map(\.mPeakPower) == [699 / 32768, 699 / 32768])
        #expect(AudioQueueGetProperty(queue, kAudioQueueProperty_CurrentLevelMeterDB, &levels, &size) == noErr)
        #expect(levels.allSatisfy { abs($0.mPeakPower - 20 * log10(699 / 32768)) < 0.001 })
        var time = AudioTimeStamp()
        #expect(AudioQueueGetCurrentTime(queue, nil, &time, nil) == noErr)
        #expect(time.mSampleTime == 700 && time.mFlags == .sampleTimeValid)
        #expect(AudioQueueStop(queue, false) == noErr)
        #expect(render(queue, output, frames: 3000) == (noErr, ramp(700..<1000) + ramp(1100..<1950)))
        #expect(log.returned == [first, second])
        #expect(AudioQueueGetCurrentTime(queue, nil, &time, nil) == kAudioQueueErr_InvalidRunState)
        #expect(log.runningChanges == 2)
        #expect(
            queueProperty(queue, kAudioQueueProperty_StreamDescription, AudioStreamBasicDescription())
                == .success(pcmFormat(sampleRate: 44100, channels: 2)))
    }
}

extension AudioQueueTests {
    /// A queue made with a dispatch queue hands buffers back to its block, within the render that consumed them.
    @Test func dispatchQueueFormHandsBuffersToItsBlock() throws {
        var format = pcmFormat(sampleRate: 44100, channels: 2)
        let log = QueueLog()
        var made: AudioQueueRef?
        let status = AudioQueueNewOutputWithDispatchQueue(&made, &format, 0, DispatchQueue(label: "player")) {
            _, buffer in log.returned.append(buffer)
        }
        try #require(status == noErr)
        let queue = try #require(made)
        defer { AudioQueueDispose(queue, true) }
        #expect(AudioQueueSetOfflineRenderFormat(queue, &format, nil) == noErr)
        let input = try pcmBuffer(queue, frames: 300, first: 5)
        let output = try pcmBuffer(queue, frames: 300)
        #expect(AudioQueueEnqueueBuffer(queue, input, 0, nil) == noErr)
        #expect(AudioQueueStart(queue, nil) == noErr)
        #expect(render(queue, output, frames: 300) == (noErr, ramp(5..<305)))
        #expect(log.returned == [input])
    }

    /// A decoder that refuses what it is given: the render answers the converter's code, the queue's
    /// ConverterError property says it, and the buffer still goes back to the client.
    @Test func aDecoderErrorIsReportedAndTheBufferReturned() throws {
        var ima4 = AudioStreamBasicDescription(
            mSampleRate: 44100, mFormatID: kAudioFormatAppleIMA4, mFormatFlags: 0, mBytesPerPacket: 34,
            mFramesPerPacket: 64, mBytesPerFrame: 0, mChannelsPerFrame: 1, mBitsPerChannel: 0, mReserved: 0)
        let log = QueueLog()
        var made: AudioQueueRef?
        let userData = Unmanaged.passUnretained(log).toOpaque()
        try #require(AudioQueueNewOutput(&ima4, logReturnedBuffer, userData, nil, nil, 0, &made) == noErr)
        let queue = try #require(made)
        defer { AudioQueueDispose(queue, true) }
        var render16 = pcmFormat(sampleRate: 44100, channels: 1)
        #expect(AudioQueueSetOfflineRenderFormat(queue, &render16, nil) == noErr)
        var input: AudioQueueBufferRef?
        var output: AudioQueueBufferRef?
        try #require(AudioQueueAllocateBuffer(queue, 68, &input) == noErr)
        try #require(AudioQueueAllocateBuffer(queue, 4096, &output) == noErr)
        let buffer = try #require(input)
        buffer.pointee.mAudioData.initializeMemory(as: UInt8.self, repeating: 0, count: 68)
        buffer.pointee.mAudioDataByteSize = 68
        // Half an IMA4 packet, described as one.
        var half = AudioStreamPacketDescription(mStartOffset: 0, mVariableFramesInPacket: 0, mDataByteSize: 17)
        #expect(AudioQueueEnqueueBuffer(queue, buffer, 1, &half) == noErr)
        #expect(AudioQueueStart(queue, nil) == noErr)
        let (status, rendered) = render(queue, try #require(output), frames: 64)
        #expect(status == kAudioConverterErr_InvalidInputSize)
        #expect(rendered.isEmpty)
        #expect(queueProperty(queue, kAudioQueueProperty_ConverterError, Int32(0)) == .success(status))
        #expect(log.returned == [buffer])
    }
}

extension AudioQueueTests {
    /// A player whose queue renders on a thread of its own while the stream is parsed on another, the player
    /// enqueueing while holding the lock its output callback takes (as AudioStreamer does): the queue lets its lock
    /// go while it calls back, so neither thread waits for the other forever, and the samples are those rendered on
    /// one thread (FFmpeg's, for ALAC).
    @Test func aRenderThreadGivesTheSameSamples() throws {
        let reference = try fileSamples("afkit-outputs/speech-alac.m4a.ffmpeg.s16le", as: Int16.self)
        let threaded = playThroughQueue(
            try fixtureBytes("afkit-outputs/speech-alac.m4a"), chunkSize: 1000, renderFormat: int16Render
        ) { $0.rendersOnAThread = true }
        #expect(threaded.failure == nil, "\(String(describing: threaded.failure))")
        threaded.condition.lock()
        defer { threaded.condition.unlock() }
        #expect(samples(threaded.output, as: Int16.self) == reference)
        #expect(threaded.runningChanges == [1, 0])
        let data = try fixtureBytes("library/stereo.m4a")
        let aac = playThroughQueue(data, chunkSize: 1500, renderFormat: int16Render) { $0.rendersOnAThread = true }
        let steady = playThroughQueue(data, chunkSize: 1500, renderFormat: int16Render)
        aac.condition.lock()
        defer { aac.condition.unlock() }
        #expect(aac.failure == nil && steady.failure == nil)
        #expect(!aac.output.isEmpty && aac.output == steady.output)
    }
}

/// What two threads share in a test of the queue's lock: the queue and the buffers, handed between them, and the
/// semaphores they meet at.
final class Handshake: @unchecked Sendable {
    var queue: AudioQueueRef?
    var output: AudioQueueBufferRef?
    let inCallback = DispatchSemaphore(value: 0)
    let answered = DispatchSemaphore(value: 0)
    let rendered = DispatchSemaphore(value: 0)
    /// Whether the callback saw the other thread's call answered while it ran (set before `rendered`).
    var callbackSawAnswer = false
    var renderStatus: OSStatus = noErr
}

extension AudioQueueTests {
    /// Another thread may call the queue while its output callback runs on the render thread (the callback
    /// waits for that call to be answered): the queue does not hold its lock while it calls the client.
    @Test func anotherThreadMayCallTheQueueWhileItsCallbackRuns() throws {
        var format = pcmFormat(sampleRate: 44100, channels: 2)
        let handshake = Handshake()
        var made: AudioQueueRef?
        let status = AudioQueueNewOutputWithDispatchQueue(&made, &format, 0, DispatchQueue(label: "player")) { _, _ in
            handshake.inCallback.signal()
            handshake.callbackSawAnswer = handshake.answered.wait(timeout: .now() + 10) == .success
        }
        try #require(status == noErr)
        let queue = try #require(made)
        defer { AudioQueueDispose(queue, true) }
        #expect(AudioQueueSetOfflineRenderFormat(queue, &format, nil) == noErr)
        #expect(AudioQueueEnqueueBuffer(queue, try pcmBuffer(queue, frames: 100), 0, nil) == noErr)
        #expect(AudioQueueStart(queue, nil) == noErr)
        handshake.queue = queue
        handshake.output = try pcmBuffer(queue, frames: 100)
        Thread {
            if let queue = handshake.queue, let output = handshake.output {
                handshake.renderStatus = render(queue, output, frames: 100).0
            }
            handshake.rendered.signal()
        }.start()
        #expect(handshake.inCallback.wait(timeout: .now() + 10) == .success)
        #expect(queueProperty(queue, kAudioQueueProperty_IsRunning, UInt32(0)) == .success(1))
        handshake.answered.signal()
        #expect(handshake.rendered.wait(timeout: .now() + 20) == .success)
        #expect(handshake.callbackSawAnswer)
        #expect(handshake.renderStatus == noErr)
    }
}

extension AudioQueueTests {
    /// A stop that waits flushes the decoder, as Apple's does: with everything enqueued rendered, a queue that
    /// resamples still holds the resampler's last frames, and they come with the next render, which stops it.
    @Test func aStopThatWaitsGivesTheResamplersLastFrames() throws {
        let log = QueueLog()
        let queue = try makePCMQueue(log, offline: false)
        defer { AudioQueueDispose(queue, true) }
        var render48 = pcmFormat(sampleRate: 48000, channels: 2)
        #expect(AudioQueueSetOfflineRenderFormat(queue, &render48, nil) == noErr)
        let input = try pcmBuffer(queue, frames: 4410)
        let output = try pcmBuffer(queue, frames: 8000)
        #expect(AudioQueueEnqueueBuffer(queue, input, 0, nil) == noErr)
        #expect(AudioQueueStart(queue, nil) == noErr)
        var frames = 0
        var rendered = render(queue, output, frames: 8000)
        while rendered.0 == noErr && !rendered.1.isEmpty {
            frames += rendered.1.count / 2
            rendered = render(queue, output, frames: 8000)
        }
        #expect(frames < 4800)
        #expect(AudioQueueStop(queue, false) == noErr)
        #expect(queueProperty(queue, kAudioQueueProperty_IsRunning, UInt32(0)) == .success(1))
        rendered = render(queue, output, frames: 8000)
        #expect(rendered.0 == noErr)
        #expect(frames + rendered.1.count / 2 == 4800)
        #expect(queueProperty(queue, kAudioQueueProperty_IsRunning, UInt32(1)) == .success(0))
        #expect(log.runningChanges == 2)
    }
}

// MARK: Apple's offline render sample: a file read a buffer at a time in the output callback

/// The state of a client that renders a file offline as Apple's AQOfflineRenderTest does: the callback reads the
/// next packets into the buffer it is handed and enqueues it again, and at the end of the file flushes the queue.
final class FileRenderer {
    var file: AudioFileID?
    var nextPacket: Int64 = 0
    var packetsPerBuffer: UInt32 = 0
    var done = false
    var status: OSStatus = noErr
}

func fileRendererRefill(_ userData: UnsafeMutableRawPointer?, _ queue: AudioQueueRef, _ buffer: AudioQueueBufferRef) {
    guard let userData else { return }
    let renderer = Unmanaged<FileRenderer>.fromOpaque(userData).takeUnretainedValue()
    guard !renderer.done, let file = renderer.file else { return }
    var bytes = buffer.pointee.mAudioDataBytesCapacity
    var packets = renderer.packetsPerBuffer
    let read = AudioFileReadPacketData(
        file, false, &bytes, buffer.pointee.mPacketDescriptions, renderer.nextPacket, &packets,
        buffer.pointee.mAudioData)
    if read != noErr && read != kAudioFileEndOfFileError { renderer.status = read }
    guard packets > 0 else {
        renderer.done = true
        if renderer.status == noErr { renderer.status = AudioQueueFlush(queue) }
        return
    }
    buffer.pointee.mAudioDataByteSize = bytes
    buffer.pointee.mPacketDescriptionCount = packets
    renderer.nextPacket += Int64(packets)
    // No descriptions given: the queue reads the buffer's own.
    let enqueued = AudioQueueEnqueueBuffer(queue, buffer, 0, nil)
    if enqueued != noErr && renderer.status == noErr { renderer.status = enqueued }
}

extension AudioQueueTests {
    /// Apple's sample, in Swift: the buffers primed by calling the callback, a render of no frames first, then
    /// renders until the end, the callback refilling each buffer within the render that consumed it, so every
    /// render but the last gives all the frames asked; the samples are FFmpeg's.
    @Test func appleOfflineRenderSampleGivesFFmpegsSamples() throws {
        let reference = try fileSamples("afkit-outputs/speech-alac.m4a.ffmpeg.s16le", as: Int16.self)
        let renderer = FileRenderer()
        let url = queueFixtures.appendingPathComponent("afkit-outputs/speech-alac.m4a")
        try #require(AudioFileOpenURL(url as CFURL, .readPermission, 0, &renderer.file) == noErr)
        let file = try #require(renderer.file)
        defer { AudioFileClose(file) }
        var format = AudioStreamBasicDescription()
        var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        try #require(AudioFileGetProperty(file, kAudioFilePropertyDataFormat, &size, &format) == noErr)
        var maximumPacket: UInt32 = 0
        size = 4
        try #require(AudioFileGetProperty(file, kAudioFilePropertyPacketSizeUpperBound, &size, &maximumPacket) == noErr)
        let userData = Unmanaged.passUnretained(renderer).toOpaque()
        var made: AudioQueueRef?
        try #require(AudioQueueNewOutput(&format, fileRendererRefill, userData, nil, nil, 0, &made) == noErr)
        let queue = try #require(made)
        defer { AudioQueueDispose(queue, true) }
        var cookieSize: UInt32 = 0
        var writable: UInt32 = 0
        try #require(AudioFileGetPropertyInfo(file, kAudioFilePropertyMagicCookieData, &cookieSize, &writable) == noErr)
        var cookie = [UInt8](repeating: 0, count: Int(cookieSize))
        try #require(AudioFileGetProperty(file, kAudioFilePropertyMagicCookieData, &cookieSize, &cookie) == noErr)
        #expect(AudioQueueSetProperty(queue, kAudioQueueProperty_MagicCookie, cookie, cookieSize) == noErr)
        var captureFormat = pcmFormat(sampleRate: format.mSampleRate, channels: format.mChannelsPerFrame)
        #expect(AudioQueueSetOfflineRenderFormat(queue, &captureFormat, nil) == noErr)
        // Two small buffers of a few packets each, primed by calling the callback as the sample does.
        renderer.packetsPerBuffer = 4
        for _ in 0..<2 {
            var buffer: AudioQueueBufferRef?
            try #require(
                AudioQueueAllocateBufferWithPacketDescriptions(queue, 4 * maximumPacket, 4, &buffer) == noErr)
            fileRendererRefill(userData, queue, try #require(buffer))
        }
        var capture: AudioQueueBufferRef?
        let framesPerRender: UInt32 = 5000
        try #require(AudioQueueAllocateBuffer(queue, framesPerRender * captureFormat.mBytesPerFrame, &capture) == noErr)
        let output = try #require(capture)
        #expect(AudioQueueStart(queue, nil) == noErr)
        var time = AudioTimeStamp()
        time.mFlags = .sampleTimeValid
        #expect(AudioQueueOfflineRender(queue, &time, output, 0) == noErr)
        var rendered: [Int16] = []
        var shortRenders = 0
        while true {
            #expect(AudioQueueOfflineRender(queue, &time, output, framesPerRender) == noErr)
            let frames = Int(output.pointee.mAudioDataByteSize / captureFormat.mBytesPerFrame)
            rendered += UnsafeBufferPointer(
                start: output.pointee.mAudioData.bindMemory(to: Int16.self, capacity: frames * 2),
                count: frames * Int(captureFormat.mChannelsPerFrame))
            time.mSampleTime += Float64(frames)
            if frames < framesPerRender { shortRenders += 1 }
            if renderer.done && frames == 0 || renderer.status != noErr || shortRenders > 2 { break }
        }
        #expect(renderer.status == noErr)
        #expect(shortRenders == 2)  // the last frames, then none
        #expect(rendered == reference)
        #expect(AudioQueueStop(queue, true) == noErr)
    }
}

extension AudioQueueTests {
    /// A volume enqueued with a buffer takes effect at that buffer's first frame rendered: not when it is decoded
    /// ahead (primed), and not for the frames of the buffer before it.
    @Test func aParameterEnqueuedWithABufferAppliesFromItsFirstFrame() throws {
        let log = QueueLog()
        let queue = try makePCMQueue(log)
        defer { AudioQueueDispose(queue, true) }
        let first = try pcmBuffer(queue, frames: 500, first: 1000)
        let second = try pcmBuffer(queue, frames: 500, first: 1500)
        let output = try pcmBuffer(queue, frames: 1000)
        var half = AudioQueueParameterEvent(mID: kAudioQueueParam_Volume, mValue: 0.5)
        #expect(AudioQueueEnqueueBuffer(queue, first, 0, nil) == noErr)
        #expect(AudioQueueEnqueueBufferWithParameters(queue, second, 0, nil, 0, 0, 1, &half, nil, nil) == noErr)
        var prepared: UInt32 = 0
        #expect(AudioQueuePrime(queue, 1000, &prepared) == noErr && prepared == 1000)
        var volume: AudioQueueParameterValue = 0
        #expect(AudioQueueGetParameter(queue, kAudioQueueParam_Volume, &volume) == noErr && volume == 1)
        #expect(AudioQueueStart(queue, nil) == noErr)
        let (status, rendered) = render(queue, output, frames: 700)
        #expect(status == noErr)
        #expect(Array(rendered[0..<1000]) == ramp(1000..<1500))
        let expected = ramp(1500..<1700)
        #expect(rendered.count == 1400)
        #expect(zip(rendered[1000...], expected).allSatisfy { abs(2 * Int($0) - Int($1)) <= 1 })
        #expect(AudioQueueGetParameter(queue, kAudioQueueParam_Volume, &volume) == noErr && volume == 0.5)
    }
}
