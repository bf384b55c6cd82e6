// Programs written against Apple's AudioToolbox, in its C style, as iOS code uses it: they build unchanged
// against Apple's framework and, on Linux, against AudioToolboxCompat; here they are held to FFmpeg's packet
// counts and decodes (Tests/Fixtures/library, make-library-fixtures.sh).
#if canImport(AudioToolbox)
    import AudioToolbox
#else
    import AudioToolboxCompat
#endif
import Foundation
import Testing

let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/library")

/// ffprobe's packet count of each fixture.
let ffprobePackets: [String: Int] = {
    let text = (try? String(contentsOf: library.appendingPathComponent("ffprobe-packets.txt"), encoding: .utf8)) ?? ""
    return Dictionary(
        uniqueKeysWithValues: text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            return parts.count == 2 ? (String(parts[0]), Int(parts[1]) ?? -1) : nil
        })
}()

// MARK: Audio File Services: the reading loop of Apple's audio-queue playback example

struct FileReadResult {
    var format = AudioStreamBasicDescription()
    var packets = 0
    var bytes = 0
    var described = 0
}

func readEveryPacket(of url: URL) -> FileReadResult? {
    var result = FileReadResult()
    var fileID: AudioFileID?
    guard AudioFileOpenURL(url as CFURL, .readPermission, 0, &fileID) == noErr, let audioFile = fileID else {
        return nil
    }
    defer { AudioFileClose(audioFile) }
    var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
    guard AudioFileGetProperty(audioFile, kAudioFilePropertyDataFormat, &size, &result.format) == noErr else {
        return nil
    }
    var maxPacketSize: UInt32 = 0
    size = UInt32(MemoryLayout<UInt32>.size)
    guard AudioFileGetProperty(audioFile, kAudioFilePropertyPacketSizeUpperBound, &size, &maxPacketSize) == noErr else {
        return nil
    }
    let bufferByteSize = 0x5000
    let packetsPerRead = bufferByteSize / Int(max(maxPacketSize, 1))
    let isVBR = result.format.mBytesPerPacket == 0 || result.format.mFramesPerPacket == 0
    var descriptions = [AudioStreamPacketDescription](repeating: AudioStreamPacketDescription(), count: packetsPerRead)
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferByteSize, alignment: 16)
    defer { buffer.deallocate() }
    var currentPacket: Int64 = 0
    while true {
        var numBytes = UInt32(bufferByteSize)
        var numPackets = UInt32(packetsPerRead)
        let status = AudioFileReadPacketData(
            audioFile, false, &numBytes, &descriptions, currentPacket, &numPackets, buffer)
        guard status == noErr else { return nil }
        if numPackets == 0 { break }
        if isVBR {
            result.described += descriptions[0..<Int(numPackets)].filter { $0.mDataByteSize > 0 }.count
        }
        result.bytes += Int(numBytes)
        result.packets += Int(numPackets)
        currentPacket += Int64(numPackets)
    }
    return result
}

// MARK: Audio File Stream Services: "Parsing Streamed Audio"

final class StreamClient {
    var format: AudioStreamBasicDescription?
    var cookie: [UInt8] = []
    var packets = 0
    var bytes = 0
    var describedBytes = 0
}

func parseStream(_ data: [UInt8], chunkSize: Int, typeHint: AudioFileTypeID) -> StreamClient? {
    let client = StreamClient()
    let listener: AudioFileStream_PropertyListenerProc = { clientData, streamID, propertyID, _ in
        let client = Unmanaged<StreamClient>.fromOpaque(clientData).takeUnretainedValue()
        guard propertyID == kAudioFileStreamProperty_ReadyToProducePackets else { return }
        var format = AudioStreamBasicDescription()
        var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        if AudioFileStreamGetProperty(streamID, kAudioFileStreamProperty_DataFormat, &size, &format) == noErr {
            client.format = format
        }
        var cookieSize: UInt32 = 0
        var writable: DarwinBoolean = false
        if AudioFileStreamGetPropertyInfo(streamID, kAudioFileStreamProperty_MagicCookieData, &cookieSize, &writable)
            == noErr
        {
            var cookie = [UInt8](repeating: 0, count: Int(cookieSize))
            if AudioFileStreamGetProperty(streamID, kAudioFileStreamProperty_MagicCookieData, &cookieSize, &cookie)
                == noErr
            {
                client.cookie = cookie
            }
        }
    }
    let packetsProc: AudioFileStream_PacketsProc = { clientData, numberBytes, numberPackets, _, descriptions in
        let client = Unmanaged<StreamClient>.fromOpaque(clientData).takeUnretainedValue()
        client.packets += Int(numberPackets)
        client.bytes += Int(numberBytes)
        if let descriptions {
            for index in 0..<Int(numberPackets) { client.describedBytes += Int(descriptions[index].mDataByteSize) }
        }
    }
    var streamID: AudioFileStreamID?
    let clientData = Unmanaged.passUnretained(client).toOpaque()
    guard AudioFileStreamOpen(clientData, listener, packetsProc, typeHint, &streamID) == noErr, let stream = streamID
    else { return nil }
    var offset = 0
    while offset < data.count {
        let count = min(chunkSize, data.count - offset)
        let status = data[offset..<offset + count].withUnsafeBytes { chunk in
            AudioFileStreamParseBytes(stream, UInt32(count), chunk.baseAddress, [])
        }
        guard status == noErr else { return nil }
        offset += count
    }
    AudioFileStreamClose(stream)
    return client
}

// MARK: Extended Audio File Services: a client format, then a file written

func readInt16(_ url: URL, sampleRate: Double, channels: UInt32) -> [Int16]? {
    var fileRef: ExtAudioFileRef?
    guard ExtAudioFileOpenURL(url as CFURL, &fileRef) == noErr, let file = fileRef else { return nil }
    defer { ExtAudioFileDispose(file) }
    var client = AudioStreamBasicDescription(
        mSampleRate: sampleRate, mFormatID: kAudioFormatLinearPCM,
        mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, mBytesPerPacket: 2 * channels,
        mFramesPerPacket: 1, mBytesPerFrame: 2 * channels, mChannelsPerFrame: channels, mBitsPerChannel: 16,
        mReserved: 0)
    let size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
    guard ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, size, &client) == noErr else {
        return nil
    }
    var samples: [Int16] = []
    var buffer = [Int16](repeating: 0, count: 4096 * Int(channels))
    while true {
        var frames = UInt32(4096)
        let status = buffer.withUnsafeMutableBytes { raw -> OSStatus in
            var list = AudioBufferList(
                mNumberBuffers: 1,
                mBuffers: AudioBuffer(
                    mNumberChannels: channels, mDataByteSize: UInt32(raw.count), mData: raw.baseAddress))
            return ExtAudioFileRead(file, &frames, &list)
        }
        guard status == noErr else { return nil }
        if frames == 0 { break }
        samples += buffer[0..<Int(frames) * Int(channels)]
    }
    return samples
}

func writeAAC(_ samples: [Int16], to url: URL, sampleRate: Double) -> OSStatus {
    var format = AudioStreamBasicDescription()
    format.mSampleRate = sampleRate
    format.mFormatID = kAudioFormatMPEG4AAC
    format.mChannelsPerFrame = 1
    var fileRef: ExtAudioFileRef?
    var status = ExtAudioFileCreateWithURL(
        url as CFURL, kAudioFileM4AType, &format, nil, AudioFileFlags.eraseFile.rawValue, &fileRef)
    guard status == noErr, let file = fileRef else { return status }
    var client = AudioStreamBasicDescription(
        mSampleRate: sampleRate, mFormatID: kAudioFormatLinearPCM,
        mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, mBytesPerPacket: 2,
        mFramesPerPacket: 1, mBytesPerFrame: 2, mChannelsPerFrame: 1, mBitsPerChannel: 16, mReserved: 0)
    status = ExtAudioFileSetProperty(
        file, kExtAudioFileProperty_ClientDataFormat, UInt32(MemoryLayout<AudioStreamBasicDescription>.size), &client)
    guard status == noErr else { return status }
    var copy = samples
    status = copy.withUnsafeMutableBytes { raw -> OSStatus in
        var list = AudioBufferList(
            mNumberBuffers: 1,
            mBuffers: AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(raw.count), mData: raw.baseAddress))
        return ExtAudioFileWrite(file, UInt32(samples.count), &list)
    }
    guard status == noErr else { return status }
    return ExtAudioFileDispose(file)
}

@Suite struct AppleStyleTests {
    static let files = ["stereo.m4a", "stereo.mp3", "stereo.opus", "stereo.flac"]

    @Test(arguments: files)
    func audioFileServicesReadFFprobesPackets(_ name: String) throws {
        let result = try #require(readEveryPacket(of: library.appendingPathComponent(name)))
        #expect(result.packets == ffprobePackets[name])
        #expect(result.format.mChannelsPerFrame == 2)
        #expect(result.described == result.packets)
    }

    @Test(arguments: files)
    func audioFileStreamServicesParseFFprobesPackets(_ name: String) throws {
        let data = Array(try Data(contentsOf: library.appendingPathComponent(name)))
        let whole = try #require(readEveryPacket(of: library.appendingPathComponent(name)))
        for chunkSize in [1, 333, 4096, data.count] {
            let client = try #require(parseStream(data, chunkSize: chunkSize, typeHint: 0))
            #expect(client.packets == ffprobePackets[name], "\(name) in chunks of \(chunkSize)")
            #expect(client.format?.mFormatID == whole.format.mFormatID)
            #expect(client.format?.mSampleRate == whole.format.mSampleRate)
            #expect(client.describedBytes == client.bytes)
            #expect(client.bytes == whole.bytes)
            if name.hasSuffix(".m4a") || name.hasSuffix(".flac") || name.hasSuffix(".opus") {
                #expect(!client.cookie.isEmpty)
            }
        }
    }

    @Test func extendedAudioFileReadsInAClientFormatAndWrites() throws {
        let url = library.appendingPathComponent("stereo.m4a")
        let mono = try #require(readInt16(url, sampleRate: 22050, channels: 1))
        let reference = try Data(contentsOf: library.appendingPathComponent("stereo.m4a.mono22k.s16")).withUnsafeBytes {
            Array($0.bindMemory(to: Int16.self))
        }
        #expect(mono.count == 33075)
        var signal = 0.0
        var noise = 0.0
        for index in 0..<mono.count {
            signal += Double(reference[index]) * Double(reference[index])
            noise += pow(Double(reference[index]) - Double(mono[index]), 2)
        }
        #expect(10 * log10(signal / noise) > 25)
        // Written back as AAC, then read: every frame written, none more (the priming and padding recorded).
        let written = FileManager.default.temporaryDirectory.appendingPathComponent("afkit-compat-\(getpid()).m4a")
        defer { try? FileManager.default.removeItem(at: written) }
        #expect(writeAAC(mono, to: written, sampleRate: 22050) == noErr)
        let again = try #require(readInt16(written, sampleRate: 22050, channels: 1))
        #expect(again.count == mono.count)
        let file = try #require(readEveryPacket(of: written))
        #expect(file.format.mFormatID == kAudioFormatMPEG4AAC)
    }

    /// Packet and frame translations for packets of varying frames (Opus), and the roll distance.
    @Test func translatesPacketsAndFrames() throws {
        var fileID: AudioFileID?
        let url = library.appendingPathComponent("stereo.opus")
        let file = try #require(AudioFileOpenURL(url as CFURL, .readPermission, 0, &fileID) == noErr ? fileID : nil)
        defer { AudioFileClose(file) }
        var info = AudioFilePacketTableInfo()
        var size = UInt32(MemoryLayout<AudioFilePacketTableInfo>.size)
        #expect(AudioFileGetProperty(file, kAudioFilePropertyPacketTableInfo, &size, &info) == noErr)
        var packets: UInt64 = 0
        size = UInt32(MemoryLayout<UInt64>.size)
        #expect(AudioFileGetProperty(file, kAudioFilePropertyAudioDataPacketCount, &size, &packets) == noErr)
        // The end of the last packet is every decoded frame: priming, valid and remainder.
        var translation = AudioFramePacketTranslation(mFrame: 0, mPacket: Int64(packets), mFrameOffsetInPacket: 0)
        size = UInt32(MemoryLayout<AudioFramePacketTranslation>.size)
        #expect(AudioFileGetProperty(file, kAudioFilePropertyPacketToFrame, &size, &translation) == noErr)
        #expect(
            translation.mFrame == info.mNumberValidFrames + Int64(info.mPrimingFrames) + Int64(info.mRemainderFrames))
        // Frame 30000 + priming lies in the packet PacketToFrame places around it.
        translation = AudioFramePacketTranslation(mFrame: 30000, mPacket: 0, mFrameOffsetInPacket: 0)
        #expect(AudioFileGetProperty(file, kAudioFilePropertyFrameToPacket, &size, &translation) == noErr)
        var back = AudioFramePacketTranslation(mFrame: 0, mPacket: translation.mPacket, mFrameOffsetInPacket: 0)
        #expect(AudioFileGetProperty(file, kAudioFilePropertyPacketToFrame, &size, &back) == noErr)
        #expect(back.mFrame + Int64(translation.mFrameOffsetInPacket) == 30000)
        var roll = AudioPacketRollDistanceTranslation(mPacket: 10, mRollDistance: 0)
        size = UInt32(MemoryLayout<AudioPacketRollDistanceTranslation>.size)
        #expect(AudioFileGetProperty(file, kAudioFilePropertyPacketToRollDistance, &size, &roll) == noErr)
        #expect(roll.mRollDistance == 1)
    }

    /// AudioFileReadPacketData writes the packets back to back and never past the bytes it is given, whatever
    /// lies between packets in the file (ADTS headers, junk in a damaged MP3).
    @Test(arguments: ["adts/aac-lc-44k-stereo.aac", "mp3/hostile-garbage-between-frames.mp3"])
    func readPacketDataStaysInItsBuffer(_ name: String) throws {
        let url = library.deletingLastPathComponent().appendingPathComponent(name)
        var fileID: AudioFileID?
        let file = try #require(AudioFileOpenURL(url as CFURL, .readPermission, 0, &fileID) == noErr ? fileID : nil)
        defer { AudioFileClose(file) }
        var packets: UInt64 = 0
        var size = UInt32(MemoryLayout<UInt64>.size)
        #expect(AudioFileGetProperty(file, kAudioFilePropertyAudioDataPacketCount, &size, &packets) == noErr)
        var start: Int64 = 0
        var total = 0
        while start < Int64(packets) {
            // First the sizes of the next five packets, then exactly that many bytes and a guard zone after.
            var descriptions = [AudioStreamPacketDescription](repeating: AudioStreamPacketDescription(), count: 5)
            var probeBytes = UInt32(1 << 20)
            var count = UInt32(5)
            var probe = [UInt8](repeating: 0, count: 1 << 20)
            #expect(AudioFileReadPacketData(file, false, &probeBytes, &descriptions, start, &count, &probe) == noErr)
            let exact = descriptions[0..<Int(count)].reduce(0) { $0 + Int($1.mDataByteSize) }
            #expect(Int(probeBytes) == exact)
            var buffer = [UInt8](repeating: 0xA5, count: exact + 64)
            var numBytes = UInt32(exact)
            var numPackets = count
            #expect(
                AudioFileReadPacketData(file, false, &numBytes, &descriptions, start, &numPackets, &buffer) == noErr)
            #expect(numPackets == count && Int(numBytes) == exact)
            #expect(
                buffer[exact...].allSatisfy { $0 == 0xA5 }, "\(name): bytes written past the buffer at packet \(start)")
            #expect(descriptions[0].mStartOffset == 0)
            total += exact
            start += Int64(count)
        }
        var byteCount: UInt64 = 0
        size = UInt32(MemoryLayout<UInt64>.size)
        #expect(AudioFileGetProperty(file, kAudioFilePropertyAudioDataByteCount, &size, &byteCount) == noErr)
        #expect(total > 0)
    }

    @Test func errorsAreApplesCodes() throws {
        var fileID: AudioFileID?
        let missing = URL(fileURLWithPath: "/nonexistent/take.caf")
        #expect(AudioFileOpenURL(missing as CFURL, .readPermission, 0, &fileID) == kAudioFileFileNotFoundError)
        let text = FileManager.default.temporaryDirectory.appendingPathComponent("afkit-compat-\(getpid()).txt")
        try Data("hello, this is no audio file at all\n".utf8).write(to: text)
        defer { try? FileManager.default.removeItem(at: text) }
        #expect(AudioFileOpenURL(text as CFURL, .readPermission, 0, &fileID) == kAudioFileUnsupportedFileTypeError)
        let opened = try #require(
            AudioFileOpenURL(library.appendingPathComponent("stereo.flac") as CFURL, .readPermission, 0, &fileID)
                == noErr ? fileID : nil)
        var size: UInt32 = 4
        var value: UInt32 = 0
        // Apple's 'rgls' (kAudioFilePropertyRegionList), which afkit does not answer.
        #expect(AudioFileGetProperty(opened, 0x7267_6C73, &size, &value) == kAudioFileUnsupportedPropertyError)
        // The info dictionary is a Core Foundation reference: a 4-byte buffer is the wrong size.
        #expect(
            AudioFileGetProperty(opened, kAudioFilePropertyInfoDictionary, &size, &value)
                == kAudioFileBadPropertySizeError)
        #expect(
            AudioFileGetProperty(opened, kAudioFilePropertyDataFormat, &size, &value) == kAudioFileBadPropertySizeError)
        AudioFileClose(opened)
    }
}
