// Programs that decode, convert and encode with Audio Converter Services the way iOS streaming players do: a
// stream parsed with Audio File Stream Services, its packets queued, a converter pulling them through an input
// callback that says "no data yet" when the queue runs dry. Held to FFmpeg's decodes (Tests/Fixtures/library,
// codecs, afkit-outputs and converter; make-converter-fixtures.sh) and to independent computations.
#if canImport(AudioToolbox)
    import AudioToolbox
#else
    import AudioToolboxCompat
#endif
import Foundation
import Testing

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

/// The status a player's input callback returns when its queue is empty but the stream goes on.
let noDataYet: OSStatus = 0x6E6F_6461  // 'noda'

/// Interleaved PCM of `channels` channels at `sampleRate`: signed 16-bit integers, or 32-bit integers or floats.
func pcmFormat(
    sampleRate: Double, channels: UInt32, bits: UInt32 = 16, float: Bool = false, nonInterleaved: Bool = false
)
    -> AudioStreamBasicDescription
{
    let bytes = bits / 8
    var flags = (float ? kAudioFormatFlagIsFloat : kAudioFormatFlagIsSignedInteger) | kAudioFormatFlagIsPacked
    if nonInterleaved { flags |= kAudioFormatFlagIsNonInterleaved }
    let frameBytes = nonInterleaved ? bytes : bytes * channels
    return AudioStreamBasicDescription(
        mSampleRate: sampleRate, mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags, mBytesPerPacket: frameBytes,
        mFramesPerPacket: 1, mBytesPerFrame: frameBytes, mChannelsPerFrame: channels, mBitsPerChannel: bits,
        mReserved: 0)
}

// MARK: A streaming player: parse, queue packets, decode through a converter

/// A player's state: what the parser said, the packets it queued, and the decoded samples.
final class StreamingPlayer {
    var format: AudioStreamBasicDescription?
    var cookie: [UInt8]?
    var primingFrames = 0
    /// Queued packets, each with its description (offset 0 in its own bytes).
    var queue: [([UInt8], AudioStreamPacketDescription)] = []
    var queueStart = 0
    /// The stream has ended: an empty queue is the end, not a pause.
    var finished = false
    /// The packets handed to the converter, kept until it asks again (Apple's contract).
    var handed: [UInt8] = []
    var handedDescriptions: [AudioStreamPacketDescription] = []
    /// Packets handed per callback, and whether every other callback says "no data yet" first.
    var packetsPerCallback = 1
    var pausesEveryOtherCall = false
    var callCount = 0
    var converter: AudioConverterRef?
    /// The decoded bytes: interleaved, or one plane a channel.
    var planes: [[UInt8]] = []
    var output: [UInt8] {
        get { planes.first ?? [] }
        set { planes = [newValue] }
    }
    var outputFormat = AudioStreamBasicDescription()
    var lastStatus: OSStatus = 0
    /// Whether the stream's magic cookie is given to the converter.
    var setsCookie = true
    /// The status the callback returns with the packets it hands over (AudioStreaming's player returns a
    /// status of its own, "processed", with each packet, and takes it as "go on").
    var statusWithPackets: OSStatus = noErr
    /// Whether "no data yet" leaves the packet count as the converter asked (the buffers pointed nowhere).
    var leavesCountOnPause = false
}

/// The property listener: the data format, the cookie and the priming when the parser is ready.
func playerListener(
    _ clientData: UnsafeMutableRawPointer, _ streamID: AudioFileStreamID, _ propertyID: AudioFileStreamPropertyID,
    _ flags: UnsafeMutablePointer<AudioFileStreamPropertyFlags>
) {
    let player = Unmanaged<StreamingPlayer>.fromOpaque(clientData).takeUnretainedValue()
    guard propertyID == kAudioFileStreamProperty_ReadyToProducePackets else { return }
    player.format = streamProperty(streamID, kAudioFileStreamProperty_DataFormat, AudioStreamBasicDescription())
    let table = streamProperty(streamID, kAudioFileStreamProperty_PacketTableInfo, AudioFilePacketTableInfo())
    player.primingFrames = Int(table?.mPrimingFrames ?? 0)
    var cookieSize: UInt32 = 0
    guard AudioFileStreamGetPropertyInfo(streamID, kAudioFileStreamProperty_MagicCookieData, &cookieSize, nil) == noErr
    else { return }
    var cookie = [UInt8](repeating: 0, count: Int(cookieSize))
    let status = AudioFileStreamGetProperty(streamID, kAudioFileStreamProperty_MagicCookieData, &cookieSize, &cookie)
    player.cookie = status == noErr ? cookie : nil
}

/// A stream's property of a fixed size, or `nil` where the parser has none.
func streamProperty<Value: BitwiseCopyable>(
    _ stream: AudioFileStreamID, _ id: AudioFileStreamPropertyID, _ empty: Value
) -> Value? {
    var value = empty
    var size = UInt32(MemoryLayout<Value>.size)
    let status = withUnsafeMutableBytes(of: &value) { bytes in
        bytes.baseAddress.map { AudioFileStreamGetProperty(stream, id, &size, $0) }
            ?? kAudioFileStreamError_BadPropertySize
    }
    return status == noErr ? value : nil
}

/// The packets callback: each packet copied into the queue with its description.
func playerPackets(
    _ clientData: UnsafeMutableRawPointer, _ numberBytes: UInt32, _ numberPackets: UInt32, _ data: UnsafeRawPointer,
    _ descriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?
) {
    let player = Unmanaged<StreamingPlayer>.fromOpaque(clientData).takeUnretainedValue()
    let bytes = data.assumingMemoryBound(to: UInt8.self)
    for index in 0..<Int(numberPackets) {
        var description = AudioStreamPacketDescription()
        if let descriptions {
            description = descriptions[index]
        } else if let format = player.format, format.mBytesPerPacket > 0 {
            description = AudioStreamPacketDescription(
                mStartOffset: Int64(index) * Int64(format.mBytesPerPacket), mVariableFramesInPacket: 0,
                mDataByteSize: format.mBytesPerPacket)
        } else {
            description.mDataByteSize = numberBytes
        }
        let start = Int(description.mStartOffset)
        let packet = Array(UnsafeBufferPointer(start: bytes + start, count: Int(description.mDataByteSize)))
        description.mStartOffset = 0
        player.queue.append((packet, description))
    }
}

/// The converter's input callback: the next packets with their descriptions; "no data yet" when the queue is
/// empty and the stream goes on; no packets and no error at the end.
func playerInput(
    _ converter: AudioConverterRef, _ ioNumberDataPackets: UnsafeMutablePointer<UInt32>,
    _ ioData: UnsafeMutablePointer<AudioBufferList>,
    _ outDescriptions: UnsafeMutablePointer<UnsafeMutablePointer<AudioStreamPacketDescription>?>?,
    _ userData: UnsafeMutableRawPointer?
) -> OSStatus {
    guard let userData else { return kAudioConverterErr_UnspecifiedError }
    let player = Unmanaged<StreamingPlayer>.fromOpaque(userData).takeUnretainedValue()
    player.callCount += 1
    let available = player.queue.count - player.queueStart
    if available == 0 || (player.pausesEveryOtherCall && player.callCount % 2 == 0) {
        // SwiftAudioPlayer's callback leaves the count as asked when it says "not enough data".
        let ended = available == 0 && player.finished
        if ended || !player.leavesCountOnPause { ioNumberDataPackets.pointee = 0 }
        return ended ? noErr : noDataYet
    }
    let count = min(available, player.packetsPerCallback)
    player.handed.removeAll()
    player.handedDescriptions.removeAll()
    for (packet, description) in player.queue[player.queueStart..<player.queueStart + count] {
        var moved = description
        moved.mStartOffset += Int64(player.handed.count)
        player.handedDescriptions.append(moved)
        player.handed += packet
    }
    player.queueStart += count
    ioData.pointee.mNumberBuffers = 1
    ioData.pointee.mBuffers.mDataByteSize = UInt32(player.handed.count)
    ioData.pointee.mBuffers.mData = player.handed.withUnsafeMutableBytes { $0.baseAddress }
    outDescriptions?.pointee = player.handedDescriptions.withUnsafeMutableBufferPointer { $0.baseAddress }
    ioNumberDataPackets.pointee = UInt32(count)
    return player.statusWithPackets
}

/// Decodes what the queue holds until the callback says "no data yet" or the stream ends; returns the last status.
@discardableResult
func decodeQueued(_ player: StreamingPlayer) -> OSStatus {
    guard let converter = player.converter else { return kAudioConverterErr_UnspecifiedError }
    let framesPerCall = 1000
    let format = player.outputFormat
    // One buffer of interleaved frames, or one a channel.
    let buffers = format.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0 ? Int(format.mChannelsPerFrame) : 1
    let bytesPerFrame = Int(format.mBytesPerFrame)
    if player.planes.count < buffers { player.planes = Array(repeating: [], count: buffers) }
    var memory = [UInt8](repeating: 0, count: framesPerCall * bytesPerFrame * buffers)
    let list = AudioBufferList.allocate(maximumBuffers: buffers)
    defer { list.unsafeMutablePointer.deallocate() }
    while true {
        var frames = UInt32(framesPerCall)
        let status = memory.withUnsafeMutableBytes { raw -> OSStatus in
            for index in 0..<buffers {
                list[index] = AudioBuffer(
                    mNumberChannels: buffers == 1 ? format.mChannelsPerFrame : 1,
                    mDataByteSize: UInt32(framesPerCall * bytesPerFrame),
                    mData: raw.baseAddress.map { $0 + index * framesPerCall * bytesPerFrame })
            }
            return AudioConverterFillComplexBuffer(
                converter, playerInput, Unmanaged.passUnretained(player).toOpaque(), &frames, list.unsafeMutablePointer,
                nil)
        }
        let written = Int(frames) * bytesPerFrame
        for index in 0..<buffers {
            #expect(Int(list[index].mDataByteSize) == written)
            let start = index * framesPerCall * bytesPerFrame
            player.planes[index] += memory[start..<start + written]
        }
        player.lastStatus = status
        if status != noErr && status != player.statusWithPackets { return status }
        if frames == 0 && status == noErr { return noErr }
    }
}

/// Plays a file as a stream: parsed `chunkSize` bytes at a time, decoded after each chunk to `output` PCM.
func playStream(
    _ data: [UInt8], chunkSize: Int, output: (AudioStreamBasicDescription) -> AudioStreamBasicDescription,
    configure: (StreamingPlayer) -> Void = { _ in }
) -> StreamingPlayer? {
    let player = StreamingPlayer()
    configure(player)
    let clientData = Unmanaged.passUnretained(player).toOpaque()
    var streamID: AudioFileStreamID?
    guard AudioFileStreamOpen(clientData, playerListener, playerPackets, 0, &streamID) == noErr, let stream = streamID
    else { return nil }
    defer { if let converter = player.converter { AudioConverterDispose(converter) } }
    var offset = 0
    while offset < data.count {
        let count = min(chunkSize, data.count - offset)
        let status = data[offset..<offset + count].withUnsafeBytes {
            AudioFileStreamParseBytes(stream, UInt32(count), $0.baseAddress, [])
        }
        guard status == noErr else { return nil }
        offset += count
        if player.converter == nil, var format = player.format {
            var destination = output(format)
            var converter: AudioConverterRef?
            guard AudioConverterNew(&format, &destination, &converter) == noErr, let converter else { return nil }
            if var cookie = player.cookie, player.setsCookie {
                guard
                    AudioConverterSetProperty(
                        converter, kAudioConverterDecompressionMagicCookie, UInt32(cookie.count), &cookie) == noErr
                else { return nil }
            }
            player.converter = converter
            player.outputFormat = destination
        }
        if player.converter != nil {
            let status = decodeQueued(player)
            guard status == noDataYet else { return nil }
        }
    }
    // Every packet came in the parse that completed it: closing delivers nothing more.
    AudioFileStreamClose(stream)
    player.finished = true
    var status = noDataYet
    for _ in 0..<10_000 where status == noDataYet { status = decodeQueued(player) }
    guard status == noErr else { return nil }
    return player
}

func interleavedInt16(_ format: AudioStreamBasicDescription) -> AudioStreamBasicDescription {
    pcmFormat(sampleRate: format.mSampleRate, channels: format.mChannelsPerFrame)
}

func samples<T>(_ bytes: [UInt8], as type: T.Type) -> [T] {
    bytes.withUnsafeBytes { Array($0.bindMemory(to: T.self)) }
}

func fileSamples<T>(_ path: String, as type: T.Type) throws -> [T] {
    samples(Array(try Data(contentsOf: fixtures.appendingPathComponent(path))), as: type)
}

/// Signal-to-noise ratio of `test` against `reference`, in dB.
func snr(_ test: ArraySlice<Int16>, _ reference: ArraySlice<Int16>) -> Double {
    var signal = 0.0
    var noise = 0.0
    for (a, b) in zip(test, reference) {
        signal += Double(b) * Double(b)
        noise += (Double(a) - Double(b)) * (Double(a) - Double(b))
    }
    return noise == 0 ? .infinity : 10 * log10(signal / noise)
}

/// Linear PCM frames handed to a converter a run at a time (16-bit stereo unless said).
final class PCMFeeder {
    var bytes: [UInt8]
    let bytesPerFrame: Int
    var next = 0
    let framesPerCall: Int
    /// Whether every other call says "no data yet" first (a live source between captures).
    var pausesEveryOtherCall = false
    var calls = 0
    init(bytes: [UInt8], bytesPerFrame: Int, framesPerCall: Int) {
        self.bytes = bytes
        self.bytesPerFrame = bytesPerFrame
        self.framesPerCall = framesPerCall
    }
    convenience init(_ samples: [Int16], framesPerCall: Int) {
        self.init(bytes: samples.withUnsafeBytes { Array($0) }, bytesPerFrame: 4, framesPerCall: framesPerCall)
    }
}

/// The input callback of a ``PCMFeeder``: at most the frames asked for, no more than its run; none at the end.
var feedPCM: AudioConverterComplexInputDataProc {
    { _, ioPackets, ioData, _, userData in
        guard let userData else { return kAudioConverterErr_UnspecifiedError }
        let feeder = Unmanaged<PCMFeeder>.fromOpaque(userData).takeUnretainedValue()
        feeder.calls += 1
        if feeder.pausesEveryOtherCall && feeder.calls % 2 == 0 {
            ioPackets.pointee = 0
            return noDataYet
        }
        let count = min(
            Int(ioPackets.pointee), feeder.framesPerCall, feeder.bytes.count / feeder.bytesPerFrame - feeder.next)
        ioData.pointee.mBuffers.mData = feeder.bytes.withUnsafeMutableBytes {
            $0.baseAddress.map { $0 + feeder.next * feeder.bytesPerFrame }
        }
        ioData.pointee.mBuffers.mDataByteSize = UInt32(count * feeder.bytesPerFrame)
        ioPackets.pointee = UInt32(count)
        feeder.next += count
        return noErr
    }
}

/// One FillComplexBuffer call taking its input from `feeder`, into `buffer` as the one buffer of `channels`
/// channels: `packets` asked for in, made out; packet descriptions to `descriptions` where given.
func fill(
    _ converter: AudioConverterRef, from feeder: PCMFeeder, into buffer: inout [UInt8], channels: UInt32,
    packets: inout UInt32, descriptions: UnsafeMutablePointer<AudioStreamPacketDescription>? = nil
) -> OSStatus {
    buffer.withUnsafeMutableBytes { raw in
        var list = AudioBufferList(
            mNumberBuffers: 1,
            mBuffers: AudioBuffer(mNumberChannels: channels, mDataByteSize: UInt32(raw.count), mData: raw.baseAddress))
        return AudioConverterFillComplexBuffer(
            converter, feedPCM, Unmanaged.passUnretained(feeder).toOpaque(), &packets, &list, descriptions)
    }
}

@Suite struct AudioConverterTests {
    /// A player decoding lossless streams to 16-bit PCM gives FFmpeg's samples, every one, whatever the chunking.
    @Test(arguments: [
        ("afkit-outputs/speech-alac.m4a", "afkit-outputs/speech-alac.m4a.ffmpeg.s16le"),
        ("codecs/music-ima4.caf", "codecs/music-ima4.caf.s16le"),
        ("codecs/music-alaw.caf", "codecs/music-alaw.caf.s16le"),
        ("codecs/noise-ulaw.aifc", "codecs/noise-ulaw.aifc.s16le"),
        ("aiff/pcm-s16-stereo.aiff", "converter/pcm-s16-stereo.aiff.s16le"),
        ("codecs/music-ima-adpcm.wav", "codecs/music-ima-adpcm.wav.s16le"),
    ])
    func losslessStreamsDecodeToFFmpegsSamples(_ name: String, _ referenceName: String) throws {
        let data = Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
        let reference = try fileSamples(referenceName, as: Int16.self)
        for chunkSize in [997, 8192] {
            let player = try #require(playStream(data, chunkSize: chunkSize, output: interleavedInt16))
            let decoded = samples(player.output, as: Int16.self)
            #expect(decoded.count == reference.count, "\(name) in chunks of \(chunkSize)")
            #expect(decoded == reference, "\(name) in chunks of \(chunkSize)")
        }
    }

    /// The same for FLAC (the library's stereo file), over the window FFmpeg's reference holds.
    @Test func flacStreamDecodesToFFmpegsSamples() throws {
        let data = Array(try Data(contentsOf: fixtures.appendingPathComponent("library/stereo.flac")))
        let reference = try fileSamples("library/stereo.flac.at30000.s16", as: Int16.self)
        let player = try #require(playStream(data, chunkSize: 4096, output: interleavedInt16))
        let decoded = samples(player.output, as: Int16.self)
        #expect(decoded.count == 66150 * 2)
        #expect(Array(decoded[60000..<60000 + reference.count]) == reference)
    }

    /// Non-interleaved 32-bit floats (AVAudioEngine's standard format), one buffer a channel: each the 16-bit
    /// decode's samples over 32,768, exactly.
    @Test func decodesToNonInterleavedFloat() throws {
        let data = Array(try Data(contentsOf: fixtures.appendingPathComponent("afkit-outputs/speech-alac.m4a")))
        let int16 = try #require(playStream(data, chunkSize: 4096, output: interleavedInt16))
        let planar = try #require(
            playStream(data, chunkSize: 4096) {
                pcmFormat(
                    sampleRate: $0.mSampleRate, channels: $0.mChannelsPerFrame, bits: 32, float: true,
                    nonInterleaved: true)
            })
        let reference = samples(int16.output, as: Int16.self)
        let channels = Int(try #require(int16.format).mChannelsPerFrame)
        #expect(planar.planes.count == channels)
        for channel in 0..<channels {
            let plane = samples(planar.planes[channel], as: Float.self)
            #expect(plane.count * channels == reference.count)
            #expect(
                plane.indices.allSatisfy { plane[$0] == Float(reference[$0 * channels + channel]) / 32768 },
                "channel \(channel)")
        }
    }

    /// 24-bit PCM to 32-bit integers: FFmpeg's words, exactly.
    @Test func pcm24StreamDecodesToThirtyTwoBitWords() throws {
        let data = Array(try Data(contentsOf: fixtures.appendingPathComponent("caf/pcm-s24le-stereo.caf")))
        let reference = try fileSamples("converter/pcm-s24le-stereo.caf.s32le", as: Int32.self)
        let player = try #require(
            playStream(data, chunkSize: 1000) { pcmFormat(sampleRate: $0.mSampleRate, channels: 2, bits: 32) })
        #expect(samples(player.output, as: Int32.self) == reference)
    }

    /// Lossy streams decode to FFmpeg's samples within a stated SNR: the converter gives every frame the codec
    /// decodes, so the stream's priming (its packet table info) comes before FFmpeg's gapless frame 30,000.
    @Test(arguments: [("stereo.m4a", 60.0), ("stereo.mp3", 60.0), ("stereo.opus", 60.0)])
    func lossyStreamsDecodeWithinSNR(_ name: String, _ minimumSNR: Double) throws {
        let data = Array(try Data(contentsOf: fixtures.appendingPathComponent("library/\(name)")))
        let reference = try fileSamples("library/\(name).at30000.s16", as: Int16.self)
        let player = try #require(playStream(data, chunkSize: 2048, output: interleavedInt16))
        let decoded = samples(player.output, as: Int16.self)
        let start = (30000 + player.primingFrames) * 2
        try #require(decoded.count >= start + reference.count)
        let ratio = snr(decoded[start..<start + reference.count], reference[...])
        print("\(name): priming \(player.primingFrames), SNR \(ratio) dB")
        #expect(ratio > minimumSNR, "\(name): \(ratio) dB")
    }

    /// The other codecs a player meets decode to every frame FFmpeg's decoder gives (an MP4's edit list ignored),
    /// within a stated SNR: HE-AAC v2 in both signallings, AC-3, E-AC-3, AMR-NB, AMR-WB, Vorbis, MPEG-1 Layer II,
    /// AAC in LOAS, GSM 6.10 and MACE 3:1 (the references of the last two by make-aifc-fixtures.py).
    @Test(arguments: [
        "world-classes/heaac-v2-explicit.m4a", "world-classes/heaac-v2-backward-compatible.m4a",
        "framed/stereo-44k.ac3", "framed/stereo.eac3", "framed/speech.amr", "framed/speech-wb.amr",
        "ogg/oggenc-stereo.ogg", "mp3/ffmpeg-mp2-48k.mp2", "framed/stereo.loas", "aifc-codecs/gsm-sndfile.aifc",
        "aifc-codecs/mac3-assembled.aifc",
    ])
    func otherCodecsDecodeWithinSNR(_ name: String) throws {
        let data = Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
        let file = URL(fileURLWithPath: name).lastPathComponent
        let referenceName = name.hasPrefix("aifc-codecs/") ? "\(name).s16le" : "converter/\(file).s16le"
        let reference = try fileSamples(referenceName, as: Int16.self)
        let player = try #require(playStream(data, chunkSize: 700, output: interleavedInt16))
        let decoded = samples(player.output, as: Int16.self)
        let format = try #require(player.format)
        try #require(decoded.count >= reference.count, "\(name): \(decoded.count) samples, \(format)")
        let ratio = snr(decoded[0..<reference.count], reference[...])
        print("\(name): \(format.mSampleRate) Hz, \(format.mChannelsPerFrame) channels, SNR \(ratio) dB")
        #expect(ratio > 60, "\(name): \(ratio) dB")
    }

    /// Decoding and resampling in one converter, as a player with a fixed 48 kHz output asks: the AAC stream's
    /// every frame at 48 kHz within a stated SNR of FFmpeg's decode resampled by libsoxr at the same precision.
    @Test func decodesAndResamplesInOneConverter() throws {
        let data = Array(try Data(contentsOf: fixtures.appendingPathComponent("library/stereo.m4a")))
        let reference = try fileSamples("converter/stereo.m4a.48k.s16le", as: Int16.self)
        let player = try #require(
            playStream(data, chunkSize: 3000) { pcmFormat(sampleRate: 48000, channels: $0.mChannelsPerFrame) })
        let decoded = samples(player.output, as: Int16.self)
        // 1,024 frames a packet at 44.1 kHz, every one, at 48 kHz.
        let packets = player.queue.count
        #expect(abs(decoded.count / 2 - Int((Double(packets * 1024) * 48000 / 44100).rounded())) <= 1)
        try #require(decoded.count >= reference.count)
        let ratio = snr(decoded[0..<reference.count], reference[...])
        print("AAC decoded at 48 kHz: SNR \(ratio) dB")
        #expect(ratio > 60)
    }

    /// A mono stream decoded to stereo plays on both sides: each channel is FFmpeg's mono decode.
    @Test func monoStreamFillsBothSidesOfStereo() throws {
        let data = Array(try Data(contentsOf: fixtures.appendingPathComponent("framed/speech.amr")))
        let reference = try fileSamples("converter/speech.amr.s16le", as: Int16.self)
        let player = try #require(
            playStream(data, chunkSize: 500) { pcmFormat(sampleRate: $0.mSampleRate, channels: 2) })
        let decoded = samples(player.output, as: Int16.self)
        try #require(decoded.count >= reference.count * 2)
        #expect(
            reference.indices.allSatisfy { decoded[2 * $0] == reference[$0] && decoded[2 * $0 + 1] == reference[$0] })
    }

    /// AAC in ADTS has no magic cookie: the converter configures its decoder from the stream description.
    @Test func adtsDecodesWithoutACookie() throws {
        let data = Array(try Data(contentsOf: fixtures.appendingPathComponent("adts/aac-lc-44k-stereo.aac")))
        let reference = try fileSamples("converter/aac-lc-44k-stereo.aac.s16le", as: Int16.self)
        let player = try #require(
            playStream(data, chunkSize: 3000, output: interleavedInt16) { player in player.setsCookie = false })
        let decoded = samples(player.output, as: Int16.self)
        try #require(decoded.count >= reference.count)
        let ratio = snr(decoded[0..<reference.count], reference[...])
        print("ADTS without a cookie: SNR \(ratio) dB")
        #expect(ratio > 60)
    }

    /// The pause contract: a callback that says "no data yet" every other call, handing three packets at a time,
    /// gives exactly the samples of one that hands one packet at a time and never pauses.
    @Test(arguments: ["library/stereo.m4a", "library/stereo.mp3", "library/stereo.opus", "codecs/music-ima4.caf"])
    func pausingNeverChangesTheSamples(_ name: String) throws {
        let data = Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
        let steady = try #require(playStream(data, chunkSize: 4096, output: interleavedInt16))
        let pausing = try #require(
            playStream(data, chunkSize: 1500, output: interleavedInt16) { player in
                player.pausesEveryOtherCall = true
                player.packetsPerCallback = 3
            })
        let processed = try #require(
            playStream(data, chunkSize: 5000, output: interleavedInt16) { player in
                player.statusWithPackets = 0x7072_6364  // 'prcd'
            })
        let leaving = try #require(
            playStream(data, chunkSize: 2500, output: interleavedInt16) { player in
                player.pausesEveryOtherCall = true
                player.leavesCountOnPause = true
            })
        #expect(leaving.output == steady.output, "\(name)")
        #expect(!steady.output.isEmpty)
        #expect(pausing.output == steady.output, "\(name)")
        #expect(processed.output == steady.output, "\(name)")
    }

    /// Reset forgets the decoder's state and what the converter holds: the stream fed again from its first
    /// packet gives the same first output.
    @Test func resetThenRefeedingGivesTheSameFirstOutput() throws {
        let data = Array(try Data(contentsOf: fixtures.appendingPathComponent("library/stereo.m4a")))
        let player = try #require(playStream(data, chunkSize: data.count, output: interleavedInt16))
        let first = player.output
        // A new converter over the queue, reset part way through and fed again from the first packet.
        var source = try #require(player.format)
        var destination = interleavedInt16(source)
        var converter: AudioConverterRef?
        try #require(AudioConverterNew(&source, &destination, &converter) == noErr)
        let made = try #require(converter)
        defer { AudioConverterDispose(made) }
        var cookie = try #require(player.cookie)
        #expect(
            AudioConverterSetProperty(made, kAudioConverterDecompressionMagicCookie, UInt32(cookie.count), &cookie)
                == noErr)
        player.converter = made
        player.output = []
        player.queueStart = 0
        player.finished = false
        let queued = player.queue
        player.queue = Array(queued.prefix(7))
        #expect(decodeQueued(player) == noDataYet)
        #expect(!player.output.isEmpty)
        #expect(AudioConverterReset(made) == noErr)
        player.output = []
        player.queue = queued
        player.queueStart = 0
        player.finished = true
        #expect(decodeQueued(player) == noErr)
        player.converter = nil
        #expect(player.output == first)
    }

    /// Apple's codes: a pair afkit cannot convert, a property of the wrong size, one the converter has not,
    /// a conversion ConvertBuffer cannot make; with Apple's values.
    @Test func errorsAreApplesCodes() throws {
        #expect(kAudioConverterErr_FormatNotSupported == 0x666D_743F)
        #expect(kAudioConverterErr_OperationNotSupported == 0x6F70_3F3F)
        #expect(kAudioConverterErr_PropertyNotSupported == 0x7072_6F70)
        #expect(kAudioConverterErr_InvalidInputSize == 0x696E_737A)
        #expect(kAudioConverterErr_InvalidOutputSize == 0x6F74_737A)
        #expect(kAudioConverterErr_UnspecifiedError == 0x7768_6174)
        #expect(kAudioConverterErr_BadPropertySizeError == 0x2173_697A)
        #expect(kAudioConverterErr_RequiresPacketDescriptionsError == 0x2170_6B64)
        #expect(kAudioConverterDecompressionMagicCookie == 0x646D_6763)
        #expect(kAudioConverterCurrentOutputStreamDescription == 0x6163_6F64)
        #expect(kAudioConverterPrimeInfo == 0x7072_696D)

        var aac = AudioStreamBasicDescription()
        aac.mSampleRate = 44100
        aac.mFormatID = kAudioFormatMPEG4AAC
        aac.mFramesPerPacket = 1024
        aac.mChannelsPerFrame = 2
        var mp3 = aac
        mp3.mFormatID = kAudioFormatMPEGLayer3
        mp3.mFramesPerPacket = 1152
        var converter: AudioConverterRef?
        #expect(AudioConverterNew(&aac, &mp3, &converter) == kAudioConverterErr_FormatNotSupported)
        var pcm = pcmFormat(sampleRate: 44100, channels: 2)
        var unknown = aac
        unknown.mFormatID = 0x7A7A_7A7A  // 'zzzz'
        #expect(AudioConverterNew(&pcm, &unknown, &converter) == kAudioConverterErr_FormatNotSupported)
        #expect(AudioConverterNew(&unknown, &pcm, &converter) == kAudioConverterErr_FormatNotSupported)

        // Descriptions no stream has: a packet of two billion frames, a thousand channels, no rate.
        var huge = aac
        huge.mFramesPerPacket = 1 << 31
        #expect(AudioConverterNew(&huge, &pcm, &converter) == kAudioConverterErr_FormatNotSupported)
        huge = aac
        huge.mChannelsPerFrame = 1000
        #expect(AudioConverterNew(&huge, &pcm, &converter) == kAudioConverterErr_FormatNotSupported)
        huge = aac
        huge.mSampleRate = 0
        #expect(AudioConverterNew(&huge, &pcm, &converter) == kAudioConverterErr_InputSampleRateOutOfRange)
        var badPCM = pcm
        badPCM.mBytesPerFrame = 3
        #expect(AudioConverterNew(&aac, &badPCM, &converter) == kAudioConverterErr_FormatNotSupported)

        // A converter of a named codec class, as players ask for Apple's software or hardware decoder.
        let manufacturer: OSType = kAppleSoftwareAudioCodecManufacturer
        var codec = AudioClassDescription(
            mType: kAudioDecoderComponentType, mSubType: kAudioFormatMPEG4AAC, mManufacturer: manufacturer)
        #expect(AudioConverterNewSpecific(&aac, &pcm, 1, &codec, &converter) == noErr)
        AudioConverterDispose(try #require(converter))

        #expect(AudioConverterNew(&aac, &pcm, &converter) == noErr)
        let decoder = try #require(converter)
        defer { AudioConverterDispose(decoder) }
        var format = AudioStreamBasicDescription()
        var size: UInt32 = 4
        #expect(
            AudioConverterGetProperty(decoder, kAudioConverterCurrentInputStreamDescription, &size, &format)
                == kAudioConverterErr_BadPropertySizeError)
        size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        #expect(
            AudioConverterGetProperty(decoder, kAudioConverterCurrentInputStreamDescription, &size, &format) == noErr)
        #expect(format == aac)
        #expect(
            AudioConverterGetProperty(decoder, kAudioConverterCurrentOutputStreamDescription, &size, &format) == noErr)
        #expect(format == pcm)
        var bitRate: UInt32 = 128_000
        #expect(
            AudioConverterSetProperty(decoder, kAudioConverterEncodeBitRate, 4, &bitRate)
                == kAudioConverterErr_PropertyNotSupported)
        var value: UInt32 = 0
        size = 4
        #expect(
            AudioConverterGetProperty(decoder, 0x7A7A_7A7A, &size, &value) == kAudioConverterErr_PropertyNotSupported)
        var writable: DarwinBoolean = false
        #expect(
            AudioConverterGetPropertyInfo(decoder, kAudioConverterDecompressionMagicCookie, &size, &writable) == noErr)
        #expect(size == 0 && writable.boolValue)  // none set yet
        var quality = kAudioConverterQuality_Max
        #expect(
            AudioConverterSetProperty(decoder, kAudioConverterCodecQuality, 2, &quality)
                == kAudioConverterErr_BadPropertySizeError)
        size = 4
        #expect(
            AudioConverterGetProperty(decoder, kAudioConverterPropertyMaximumOutputPacketSize, &size, &value) == noErr)
        #expect(value == 4)
        // Buffer sizes are calculated between formats of constant packets, not for AAC's.
        value = 4096
        #expect(
            AudioConverterGetProperty(decoder, kAudioConverterPropertyCalculateInputBufferSize, &size, &value)
                == kAudioConverterErr_PropertyNotSupported)
        // ConvertBuffer converts linear PCM at one rate; a decoder is not that.
        var input = [UInt8](repeating: 0, count: 16)
        var output = [UInt8](repeating: 0, count: 64)
        var outputSize = UInt32(output.count)
        #expect(
            AudioConverterConvertBuffer(decoder, 16, &input, &outputSize, &output)
                == kAudioConverterErr_OperationNotSupported)
        // A resampling PCM converter is not that either, and an odd byte count is no whole frame.
        var rate48 = pcmFormat(sampleRate: 48000, channels: 2)
        #expect(AudioConverterNew(&pcm, &rate48, &converter) == noErr)
        let resampling = try #require(converter)
        #expect(
            AudioConverterConvertBuffer(resampling, 16, &input, &outputSize, &output)
                == kAudioConverterErr_OperationNotSupported)
        // 4,096 bytes of 16-bit stereo at 44.1 kHz (1,024 frames) are 1,114.6 frames at 48 kHz: 1,115 whole.
        var bytes: UInt32 = 4096
        size = 4
        #expect(
            AudioConverterGetProperty(resampling, kAudioConverterPropertyCalculateOutputBufferSize, &size, &bytes)
                == noErr)
        #expect(bytes == 1115 * 4)
        bytes = 1115 * 4
        #expect(
            AudioConverterGetProperty(resampling, kAudioConverterPropertyCalculateInputBufferSize, &size, &bytes)
                == noErr)
        #expect(bytes == 1025 * 4)
        AudioConverterDispose(resampling)
        var float = pcmFormat(sampleRate: 44100, channels: 2, bits: 32, float: true)
        #expect(AudioConverterNew(&pcm, &float, &converter) == noErr)
        let plain = try #require(converter)
        #expect(
            AudioConverterConvertBuffer(plain, 15, &input, &outputSize, &output) == kAudioConverterErr_InvalidInputSize)
        outputSize = 8
        #expect(
            AudioConverterConvertBuffer(plain, 16, &input, &outputSize, &output) == kAudioConverterErr_InvalidOutputSize
        )
        AudioConverterDispose(plain)
    }

    // MARK: Linear PCM to linear PCM

    /// ConvertBuffer: 16-bit stereo to 32-bit float mono at one rate is each frame's first channel over 32,768
    /// (Apple's default channel map drops the inputs past the outputs); with the channel map [1], the second.
    @Test func convertBufferMapsChannelsToFloatMono() throws {
        var source = pcmFormat(sampleRate: 44100, channels: 2)
        var destination = pcmFormat(sampleRate: 44100, channels: 1, bits: 32, float: true)
        var converter: AudioConverterRef?
        try #require(AudioConverterNew(&source, &destination, &converter) == noErr)
        let made = try #require(converter)
        defer { AudioConverterDispose(made) }
        var input: [Int16] = (0..<2000).map { Int16(truncatingIfNeeded: $0 &* 7919 &+ ($0 % 2 == 0 ? -32768 : 123)) }
        var output = [Float](repeating: .nan, count: 1000)
        var outputSize = UInt32(output.count * 4)
        #expect(AudioConverterConvertBuffer(made, UInt32(input.count * 2), &input, &outputSize, &output) == noErr)
        #expect(outputSize == 4000)
        #expect((0..<1000).allSatisfy { output[$0] == Float(input[2 * $0]) / 32768 })
        var map: [Int32] = [-1]
        var size: UInt32 = 4
        #expect(AudioConverterGetProperty(made, kAudioConverterChannelMap, &size, &map) == noErr)
        #expect(map == [0])
        var right: [Int32] = [1]
        #expect(AudioConverterSetProperty(made, kAudioConverterChannelMap, 4, &right) == noErr)
        #expect(
            AudioConverterSetProperty(made, kAudioConverterChannelMap, 8, &right)
                == kAudioConverterErr_BadPropertySizeError)
        outputSize = UInt32(output.count * 4)
        #expect(AudioConverterConvertBuffer(made, UInt32(input.count * 2), &input, &outputSize, &output) == noErr)
        #expect((0..<1000).allSatisfy { output[$0] == Float(input[2 * $0 + 1]) / 32768 })
    }

    /// ConvertComplexBuffer: interleaved 16-bit to non-interleaved big-endian 32-bit integers (each sample
    /// shifted up 16 bits) and back to interleaved 16-bit, the samples unchanged.
    @Test func convertComplexBufferInterleavesAndSwapsBytes() throws {
        var source = pcmFormat(sampleRate: 8000, channels: 2)
        var planar = pcmFormat(sampleRate: 8000, channels: 2, bits: 32, nonInterleaved: true)
        planar.mFormatFlags |= kAudioFormatFlagIsBigEndian
        var there: AudioConverterRef?
        var back: AudioConverterRef?
        try #require(AudioConverterNew(&source, &planar, &there) == noErr)
        try #require(AudioConverterNew(&planar, &source, &back) == noErr)
        let toPlanar = try #require(there)
        let toInterleaved = try #require(back)
        defer {
            AudioConverterDispose(toPlanar)
            AudioConverterDispose(toInterleaved)
        }
        let frames = 500
        var input: [Int16] = (0..<frames * 2).map { Int16(truncatingIfNeeded: $0 &* 40503) }
        var left = [UInt32](repeating: 0, count: frames)
        var right = [UInt32](repeating: 0, count: frames)
        var again = [Int16](repeating: 0, count: frames * 2)
        let list = AudioBufferList.allocate(maximumBuffers: 2)
        defer { list.unsafeMutablePointer.deallocate() }
        input.withUnsafeMutableBytes { inputBytes in
            left.withUnsafeMutableBytes { leftBytes in
                right.withUnsafeMutableBytes { rightBytes in
                    var interleaved = AudioBufferList(
                        mNumberBuffers: 1,
                        mBuffers: AudioBuffer(
                            mNumberChannels: 2, mDataByteSize: UInt32(inputBytes.count), mData: inputBytes.baseAddress))
                    list[0] = AudioBuffer(
                        mNumberChannels: 1, mDataByteSize: UInt32(leftBytes.count), mData: leftBytes.baseAddress)
                    list[1] = AudioBuffer(
                        mNumberChannels: 1, mDataByteSize: UInt32(rightBytes.count), mData: rightBytes.baseAddress)
                    #expect(
                        AudioConverterConvertComplexBuffer(
                            toPlanar, UInt32(frames), &interleaved, list.unsafeMutablePointer)
                            == noErr)
                }
            }
        }
        for frame in 0..<frames {
            #expect(Int32(bitPattern: UInt32(bigEndian: left[frame])) == Int32(input[2 * frame]) << 16)
            #expect(Int32(bitPattern: UInt32(bigEndian: right[frame])) == Int32(input[2 * frame + 1]) << 16)
        }
        again.withUnsafeMutableBytes { againBytes in
            var interleaved = AudioBufferList(
                mNumberBuffers: 1,
                mBuffers: AudioBuffer(
                    mNumberChannels: 2, mDataByteSize: UInt32(againBytes.count), mData: againBytes.baseAddress))
            #expect(
                AudioConverterConvertComplexBuffer(toInterleaved, UInt32(frames), list.unsafePointer, &interleaved)
                    == noErr)
            #expect(interleaved.mBuffers.mDataByteSize == UInt32(frames * 4))
        }
        #expect(again == input)
    }

    /// FillComplexBuffer at one rate keeps every bit of 32-bit integers (little-endian to big-endian), which
    /// Float32 would not.
    @Test func fillComplexBufferKeepsThirtyTwoBitWords() throws {
        var source = pcmFormat(sampleRate: 96000, channels: 2, bits: 32)
        var destination = source
        destination.mFormatFlags |= kAudioFormatFlagIsBigEndian
        var converter: AudioConverterRef?
        try #require(AudioConverterNew(&source, &destination, &converter) == noErr)
        let made = try #require(converter)
        defer { AudioConverterDispose(made) }
        let words: [Int32] = (0..<20000).map { Int32(truncatingIfNeeded: $0 &* 1_103_515_245 &+ 12345) }
        let feeder = PCMFeeder(bytes: words.withUnsafeBytes { Array($0) }, bytesPerFrame: 8, framesPerCall: 333)
        var output = [UInt8](repeating: 0, count: words.count * 4)
        var frames = UInt32(words.count / 2)
        #expect(fill(made, from: feeder, into: &output, channels: 2, packets: &frames) == noErr)
        #expect(frames == UInt32(words.count / 2))
        #expect(samples(output, as: UInt32.self).map { Int32(bitPattern: UInt32(bigEndian: $0)) } == words)
    }

    /// FillComplexBuffer resamples: two tones in 16-bit stereo at 44.1 kHz become the first channel's tone in 32-bit
    /// float mono at 48 kHz (Apple's default channel map), as computed here from its formula, to better than 70 dB.
    @Test func fillComplexBufferResamplesAndMapsChannels() throws {
        var source = pcmFormat(sampleRate: 44100, channels: 2)
        var destination = pcmFormat(sampleRate: 48000, channels: 1, bits: 32, float: true)
        var converter: AudioConverterRef?
        try #require(AudioConverterNew(&source, &destination, &converter) == noErr)
        let made = try #require(converter)
        defer { AudioConverterDispose(made) }
        let frames = 44100
        let tone = { (frequency: Double, time: Double) in 0.5 * sin(2 * Double.pi * frequency * time) }
        let input: [Int16] = (0..<frames).flatMap { frame -> [Int16] in
            let time = Double(frame) / 44100
            return [Int16((tone(440, time) * 32767).rounded()), Int16((tone(1000, time) * 32767).rounded())]
        }
        let feeder = PCMFeeder(input, framesPerCall: 777)
        var output: [Float] = []
        var buffer = [UInt8](repeating: 0, count: 1024 * 4)
        while true {
            var packets: UInt32 = 1024
            #expect(fill(made, from: feeder, into: &buffer, channels: 1, packets: &packets) == noErr)
            if packets == 0 { break }
            output += samples(Array(buffer[0..<Int(packets) * 4]), as: Float.self)
        }
        #expect(output.count == 48000)
        var signal = 0.0
        var noise = 0.0
        for frame in 200..<47800 {
            let time = Double(frame) / 48000
            let expected = tone(440, time) * 32767 / 32768
            signal += expected * expected
            noise += (Double(output[frame]) - expected) * (Double(output[frame]) - expected)
        }
        let ratio = 10 * log10(signal / noise)
        print("44.1 kHz stereo to 48 kHz mono: \(ratio) dB")
        #expect(ratio > 70)
    }

    // MARK: Encoding

    /// Linear PCM to every format afkit encodes, through FillComplexBuffer with packet descriptions; the packets
    /// decoded back by a second converter: ALAC and FLAC give the source's samples exactly, the others come within
    /// a stated SNR of it once the priming the encoder reports (kAudioConverterPrimeInfo) is skipped.
    @Test(arguments: [
        ("alac", kAudioFormatAppleLossless, 44100.0, Double.infinity),
        ("flac", kAudioFormatFLAC, 44100, .infinity),
        ("aac ", kAudioFormatMPEG4AAC, 44100, 20),
        ("opus", kAudioFormatOpus, 48000, 15),
        ("ima4", kAudioFormatAppleIMA4, 44100, 20),
    ])
    func encodesAndDecodesBack(_ name: String, _ formatID: AudioFormatID, _ rate: Double, _ minimumSNR: Double) throws {
        let frames = Int(rate)
        let source: [Int16] = (0..<frames).flatMap { frame -> [Int16] in
            let time = Double(frame) / rate
            let left = 0.3 * sin(2 * Double.pi * 330 * time) + 0.2 * sin(2 * Double.pi * 2500 * time)
            let right = 0.4 * sin(2 * Double.pi * 523 * time + 1)
            return [Int16((left * 32767).rounded()), Int16((right * 32767).rounded())]
        }
        var pcm = pcmFormat(sampleRate: rate, channels: 2)
        var encoded = AudioStreamBasicDescription()
        encoded.mSampleRate = rate
        encoded.mFormatID = formatID
        encoded.mChannelsPerFrame = 2
        if formatID == kAudioFormatAppleLossless { encoded.mFormatFlags = kAppleLosslessFormatFlag_16BitSourceData }
        var converter: AudioConverterRef?
        try #require(AudioConverterNew(&pcm, &encoded, &converter) == noErr)
        let encoder = try #require(converter)
        defer { AudioConverterDispose(encoder) }
        if formatID == kAudioFormatMPEG4AAC {
            var bitRate: UInt32 = 128_000
            #expect(AudioConverterSetProperty(encoder, kAudioConverterEncodeBitRate, 4, &bitRate) == noErr)
        }
        var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        #expect(
            AudioConverterGetProperty(encoder, kAudioConverterCurrentOutputStreamDescription, &size, &encoded) == noErr)
        #expect(encoded.mFramesPerPacket > 0)
        var maximumPacketSize: UInt32 = 0
        size = 4
        #expect(
            AudioConverterGetProperty(
                encoder, kAudioConverterPropertyMaximumOutputPacketSize, &size, &maximumPacketSize)
                == noErr)
        #expect(maximumPacketSize > 0)

        let feeder = PCMFeeder(source, framesPerCall: 1000)
        // The packets, as a writer keeps them: bytes and descriptions.
        var packets: [([UInt8], AudioStreamPacketDescription)] = []
        var buffer = [UInt8](repeating: 0, count: Int(maximumPacketSize) * 4)
        var descriptions = [AudioStreamPacketDescription](repeating: AudioStreamPacketDescription(), count: 4)
        while true {
            var count: UInt32 = 4
            let status = fill(
                encoder, from: feeder, into: &buffer, channels: 2, packets: &count, descriptions: &descriptions)
            #expect(status == noErr)
            if count == 0 { break }
            // Packets of a constant size (IMA4) come without descriptions: they lie one after another.
            if encoded.mBytesPerPacket > 0 {
                for index in 0..<Int(count) {
                    descriptions[index] = AudioStreamPacketDescription(
                        mStartOffset: Int64(index) * Int64(encoded.mBytesPerPacket), mVariableFramesInPacket: 0,
                        mDataByteSize: encoded.mBytesPerPacket)
                }
            }
            for description in descriptions[0..<Int(count)] {
                let start = Int(description.mStartOffset)
                let packet = Array(buffer[start..<start + Int(description.mDataByteSize)])
                packets.append(
                    (
                        packet,
                        AudioStreamPacketDescription(
                            mStartOffset: 0, mVariableFramesInPacket: description.mVariableFramesInPacket,
                            mDataByteSize: description.mDataByteSize)
                    ))
            }
        }
        var prime = AudioConverterPrimeInfo()
        size = UInt32(MemoryLayout<AudioConverterPrimeInfo>.size)
        #expect(AudioConverterGetProperty(encoder, kAudioConverterPrimeInfo, &size, &prime) == noErr)
        // IMA4 has no cookie: its converter has no such property.
        var cookieSize: UInt32 = 0
        let hasCookie =
            AudioConverterGetPropertyInfo(encoder, kAudioConverterCompressionMagicCookie, &cookieSize, nil) == noErr
        #expect(hasCookie == (formatID != kAudioFormatAppleIMA4))
        var cookie = [UInt8](repeating: 0, count: Int(cookieSize))
        if hasCookie {
            #expect(
                AudioConverterGetProperty(encoder, kAudioConverterCompressionMagicCookie, &cookieSize, &cookie) == noErr
            )
        }
        let lossless = minimumSNR == .infinity
        let totalFrames = Int(prime.leadingFrames) + frames + Int(prime.trailingFrames)
        #expect(lossless || totalFrames == packets.count * Int(encoded.mFramesPerPacket))

        // Decoded back, as a player decodes a stream.
        let player = StreamingPlayer()
        player.queue = packets
        player.finished = true
        player.packetsPerCallback = 2
        var decoderConverter: AudioConverterRef?
        try #require(AudioConverterNew(&encoded, &pcm, &decoderConverter) == noErr)
        player.converter = decoderConverter
        player.outputFormat = pcm
        defer { if let decoderConverter { AudioConverterDispose(decoderConverter) } }
        if hasCookie {
            #expect(
                AudioConverterSetProperty(
                    try #require(decoderConverter), kAudioConverterDecompressionMagicCookie, cookieSize, &cookie)
                    == noErr)
        }
        #expect(decodeQueued(player) == noErr)
        let decoded = samples(player.output, as: Int16.self)
        if lossless {
            #expect(prime.leadingFrames == 0 && prime.trailingFrames == 0)
            #expect(decoded == source)
        } else {
            let start = Int(prime.leadingFrames) * 2
            try #require(decoded.count >= start + source.count)
            let ratio = snr(decoded[start..<start + source.count], source[...])
            print("\(name): priming \(prime.leadingFrames), remainder \(prime.trailingFrames), SNR \(ratio) dB")
            #expect(ratio > minimumSNR)
        }
    }

    /// A live encoder's loop: one AAC packet a call into a buffer of the largest packet's size, its source saying
    /// "no data yet" every other call; the packets are byte for byte those of a source that never pauses.
    @Test func pausingNeverChangesTheEncodedPackets() throws {
        let source: [Int16] = (0..<44100 * 2).map { Int16(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 20) / 4 }
        func encode(pausing: Bool) throws -> [[UInt8]] {
            var pcm = pcmFormat(sampleRate: 44100, channels: 2)
            var aac = AudioStreamBasicDescription()
            aac.mSampleRate = 44100
            aac.mFormatID = kAudioFormatMPEG4AAC
            aac.mChannelsPerFrame = 2
            var converter: AudioConverterRef?
            try #require(AudioConverterNew(&pcm, &aac, &converter) == noErr)
            let encoder = try #require(converter)
            defer { AudioConverterDispose(encoder) }
            var maximum: UInt32 = 0
            var size: UInt32 = 4
            #expect(
                AudioConverterGetProperty(encoder, kAudioConverterPropertyMaximumOutputPacketSize, &size, &maximum)
                    == noErr)
            let feeder = PCMFeeder(source, framesPerCall: 512)
            feeder.pausesEveryOtherCall = pausing
            var packets: [[UInt8]] = []
            var buffer = [UInt8](repeating: 0, count: Int(maximum))
            var description = AudioStreamPacketDescription()
            for _ in 0..<100_000 {
                var count: UInt32 = 1
                let status = fill(
                    encoder, from: feeder, into: &buffer, channels: 2, packets: &count, descriptions: &description)
                if count == 1 { packets.append(Array(buffer[0..<Int(description.mDataByteSize)])) }
                if status == noDataYet { continue }
                #expect(status == noErr)
                if count == 0 { break }
            }
            return packets
        }
        let steady = try encode(pausing: false)
        let pausing = try encode(pausing: true)
        #expect(steady.count == (1024 + 44100 + 1023) / 1024)
        #expect(pausing == steady)
    }

    // MARK: Hostile input

    /// Garbage packets given to every decoder the library's streams need return a status, never a trap; a
    /// description that points past the bytes given is kAudioConverterErr_InvalidInputSize.
    @Test(arguments: [
        "library/stereo.m4a", "library/stereo.mp3", "library/stereo.opus", "library/stereo.flac",
        "afkit-outputs/speech-alac.m4a", "codecs/music-ima4.caf",
    ])
    func garbagePacketsNeverTrap(_ name: String) throws {
        let data = Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
        let parsed = try #require(playStream(data, chunkSize: data.count, output: interleavedInt16))
        var format = try #require(parsed.format)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 29
        }
        for round in 0..<3 {
            let player = StreamingPlayer()
            player.finished = true
            player.packetsPerCallback = 3
            for _ in 0..<40 {
                // Sizes from none to 1,500 bytes, and frame counts that lie (up to a million).
                let size = format.mBytesPerPacket > 0 ? Int(format.mBytesPerPacket) : Int(next() % 1501)
                let packet = (0..<size).map { _ in UInt8(truncatingIfNeeded: next()) }
                let frames = next() % 3 == 0 ? UInt32(next() % 1_000_000) : 0
                player.queue.append(
                    (
                        packet,
                        AudioStreamPacketDescription(
                            mStartOffset: 0, mVariableFramesInPacket: frames, mDataByteSize: UInt32(size))
                    ))
            }
            var destination = interleavedInt16(format)
            var converter: AudioConverterRef?
            try #require(AudioConverterNew(&format, &destination, &converter) == noErr)
            let made = try #require(converter)
            defer { AudioConverterDispose(made) }
            if var cookie = parsed.cookie, round < 2 {
                #expect(
                    AudioConverterSetProperty(
                        made, kAudioConverterDecompressionMagicCookie, UInt32(cookie.count), &cookie)
                        == noErr)
            }
            player.converter = made
            player.outputFormat = destination
            // Every packet is taken: an error ends a call, and the next goes on with the packets after.
            var statuses: [OSStatus] = []
            var status = decodeQueued(player)
            for _ in 0..<100 where status != noErr {
                statuses.append(status)
                status = decodeQueued(player)
            }
            if round == 2 && parsed.cookie != nil && status == kAudioConverterErr_FormatNotSupported {
                // A codec that cannot be configured without its cookie (ALAC) says so at every call.
                #expect(Set(statuses) == [kAudioConverterErr_FormatNotSupported])
                continue
            }
            #expect(status == noErr)
            #expect(player.queueStart == player.queue.count)
            // Decoders that check their packets refuse them with Apple's bad-data code; MP3 and AAC conceal them
            // as silence (as players and FFmpeg do), IMA4 has no way to tell.
            #expect(Set(statuses).isSubset(of: [kAudioCodecBadDataError]))
            if name.hasSuffix(".flac") || name.hasSuffix("alac.m4a") { #expect(statuses.count > 0) }
            player.converter = nil
        }
        // A description past the bytes handed over.
        var destination = interleavedInt16(format)
        var converter: AudioConverterRef?
        try #require(AudioConverterNew(&format, &destination, &converter) == noErr)
        let made = try #require(converter)
        defer { AudioConverterDispose(made) }
        if var cookie = parsed.cookie {
            AudioConverterSetProperty(made, kAudioConverterDecompressionMagicCookie, UInt32(cookie.count), &cookie)
        }
        let player = StreamingPlayer()
        player.queue = [
            ([1, 2, 3, 4], AudioStreamPacketDescription(mStartOffset: 2, mVariableFramesInPacket: 0, mDataByteSize: 4))
        ]
        player.finished = true
        player.converter = made
        player.outputFormat = destination
        if format.mBytesPerPacket > 0 {
            // Part of a packet of a constant format.
            let half = Int(format.mBytesPerPacket) / 2
            player.queue = [
                (
                    [UInt8](repeating: 0x5A, count: half),
                    AudioStreamPacketDescription(
                        mStartOffset: 0, mVariableFramesInPacket: 0, mDataByteSize: UInt32(half))
                )
            ]
        }
        #expect(decodeQueued(player) == kAudioConverterErr_InvalidInputSize)
        player.converter = nil
    }
}
