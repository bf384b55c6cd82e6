// Audio File Services writing, as iOS file utilities and converters write it: open a source, read its packets,
// create a file, give it the cookie and the packet table, write the packets, close. Each file written is read
// back through Audio File Services (the same packets, description and packet table); libsndfile reads the
// PCM and ALAC ones back in AudioConversionTests/CompatWrittenFileTests.swift.
#if canImport(AudioToolbox)
    import AudioToolbox
#else
    import AudioToolboxCompat
#endif
import Testing

/// A fresh folder for the files a test writes.
func scratchFolder() -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("afkit-compat-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// What a file holds, as a client reads it with Audio File Services.
struct FilePackets {
    var format = AudioStreamBasicDescription()
    var cookie: [UInt8] = []
    var packetTable: AudioFilePacketTableInfo?
    var packets: [[UInt8]] = []
}

/// Every packet of the file at `url`, with its format, cookie and packet table.
func readPackets(_ url: URL) -> FilePackets? {
    var fileID: AudioFileID?
    guard AudioFileOpenURL(url as CFURL, .readPermission, 0, &fileID) == noErr, let file = fileID else { return nil }
    defer { AudioFileClose(file) }
    var result = FilePackets()
    var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
    guard AudioFileGetProperty(file, kAudioFilePropertyDataFormat, &size, &result.format) == noErr else { return nil }
    var cookieSize: UInt32 = 0
    if AudioFileGetPropertyInfo(file, kAudioFilePropertyMagicCookieData, &cookieSize, nil) == noErr, cookieSize > 0 {
        result.cookie = [UInt8](repeating: 0, count: Int(cookieSize))
        guard AudioFileGetProperty(file, kAudioFilePropertyMagicCookieData, &cookieSize, &result.cookie) == noErr
        else { return nil }
    }
    var table = AudioFilePacketTableInfo()
    size = UInt32(MemoryLayout<AudioFilePacketTableInfo>.size)
    if AudioFileGetProperty(file, kAudioFilePropertyPacketTableInfo, &size, &table) == noErr {
        result.packetTable = table
    }
    var maximum: UInt32 = 0
    size = 4
    guard AudioFileGetProperty(file, kAudioFilePropertyPacketSizeUpperBound, &size, &maximum) == noErr else {
        return nil
    }
    let packetsPerRead = 64
    var buffer = [UInt8](repeating: 0, count: packetsPerRead * Int(max(maximum, 1)))
    var descriptions = [AudioStreamPacketDescription](repeating: .init(), count: packetsPerRead)
    var packet: Int64 = 0
    while true {
        var bytes = UInt32(buffer.count)
        var count = UInt32(packetsPerRead)
        guard AudioFileReadPacketData(file, false, &bytes, &descriptions, packet, &count, &buffer) == noErr else {
            return nil
        }
        if count == 0 { break }
        for index in 0..<Int(count) {
            if result.format.mBytesPerPacket > 0 {
                let size = Int(result.format.mBytesPerPacket)
                result.packets.append(Array(buffer[index * size..<(index + 1) * size]))
            } else {
                let start = Int(descriptions[index].mStartOffset)
                result.packets.append(Array(buffer[start..<start + Int(descriptions[index].mDataByteSize)]))
            }
        }
        packet += Int64(count)
    }
    return result
}

/// Copies the packets of `source` into a new file of `fileType` at `destination`, as a packet-copying converter
/// does: the cookie before the packets, the packet table after them. Returns the first call that failed.
@discardableResult
func copyPackets(from source: URL, to destination: URL, fileType: AudioFileTypeID) -> OSStatus {
    var sourceID: AudioFileID?
    var status = AudioFileOpenURL(source as CFURL, .readPermission, 0, &sourceID)
    guard status == noErr, let sourceFile = sourceID else { return status }
    defer { AudioFileClose(sourceFile) }
    var format = AudioStreamBasicDescription()
    var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
    status = AudioFileGetProperty(sourceFile, kAudioFilePropertyDataFormat, &size, &format)
    guard status == noErr else { return status }

    var destinationID: AudioFileID?
    status = AudioFileCreateWithURL(destination as CFURL, fileType, &format, .eraseFile, &destinationID)
    guard status == noErr, let destinationFile = destinationID else { return status }

    // The cookie, where the source has one and the destination takes one.
    var cookieSize: UInt32 = 0
    var willEatTheCookie: UInt32 = 0
    if AudioFileGetPropertyInfo(sourceFile, kAudioFilePropertyMagicCookieData, &cookieSize, nil) == noErr,
        cookieSize > 0,
        AudioFileGetPropertyInfo(destinationFile, kAudioFilePropertyMagicCookieData, nil, &willEatTheCookie) == noErr,
        willEatTheCookie != 0
    {
        var cookie = [UInt8](repeating: 0, count: Int(cookieSize))
        status = AudioFileGetProperty(sourceFile, kAudioFilePropertyMagicCookieData, &cookieSize, &cookie)
        guard status == noErr else { return status }
        status = AudioFileSetProperty(destinationFile, kAudioFilePropertyMagicCookieData, cookieSize, cookie)
        guard status == noErr else { return status }
    }

    var maximumPacketSize: UInt32 = 0
    size = 4
    status = AudioFileGetProperty(sourceFile, kAudioFilePropertyPacketSizeUpperBound, &size, &maximumPacketSize)
    guard status == noErr else { return status }
    let packetsPerRead: UInt32 = 100
    let bufferSize = Int(packetsPerRead * max(maximumPacketSize, 1))
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 16)
    defer { buffer.deallocate() }
    var descriptions = [AudioStreamPacketDescription](repeating: .init(), count: Int(packetsPerRead))
    var packet: Int64 = 0
    while true {
        var bytes = UInt32(bufferSize)
        var count = packetsPerRead
        status = AudioFileReadPacketData(sourceFile, false, &bytes, &descriptions, packet, &count, buffer)
        guard status == noErr else { return status }
        if count == 0 { break }
        if format.mBytesPerPacket == 0 || format.mFramesPerPacket == 0 {
            status = AudioFileWritePackets(destinationFile, false, bytes, descriptions, packet, &count, buffer)
        } else {
            status = AudioFileWritePackets(destinationFile, false, bytes, nil, packet, &count, buffer)
        }
        guard status == noErr else { return status }
        packet += Int64(count)
    }

    // Priming and remainder, where the source states them and the destination records them.
    var table = AudioFilePacketTableInfo()
    size = UInt32(MemoryLayout<AudioFilePacketTableInfo>.size)
    var takesTable: UInt32 = 0
    if AudioFileGetProperty(sourceFile, kAudioFilePropertyPacketTableInfo, &size, &table) == noErr,
        table.mPrimingFrames != 0 || table.mRemainderFrames != 0,
        AudioFileGetPropertyInfo(destinationFile, kAudioFilePropertyPacketTableInfo, nil, &takesTable) == noErr,
        takesTable != 0
    {
        status = AudioFileSetProperty(destinationFile, kAudioFilePropertyPacketTableInfo, size, &table)
        guard status == noErr else { return status }
    }
    return AudioFileClose(destinationFile)
}

/// Interleaved, packed, native-endian signed 16-bit linear PCM, as recorders describe it.
func int16PCM(rate: Float64, channels: UInt32) -> AudioStreamBasicDescription {
    AudioStreamBasicDescription(
        mSampleRate: rate, mFormatID: kAudioFormatLinearPCM,
        mFormatFlags: kLinearPCMFormatFlagIsSignedInteger | kLinearPCMFormatFlagIsPacked, mBytesPerPacket: 2 * channels,
        mFramesPerPacket: 1, mBytesPerFrame: 2 * channels, mChannelsPerFrame: channels, mBitsPerChannel: 16,
        mReserved: 0)
}

/// A new file of `fileType` for `format` at `url` (replacing one there), as a recorder makes it.
func createFile(_ url: URL, _ fileType: AudioFileTypeID, _ format: AudioStreamBasicDescription) -> AudioFileID? {
    var format = format
    var fileID: AudioFileID?
    let status = AudioFileCreateWithURL(url as CFURL, fileType, &format, .eraseFile, &fileID)
    #expect(status == noErr)
    return fileID
}

struct CopyCase: CustomStringConvertible, Sendable {
    let source: String
    let fileType: AudioFileTypeID
    let name: String
    /// Whether the destination records priming and remainder (so the table comes back).
    let keepsTable: Bool
    var description: String { "\(source) -> \(name)" }

    init(_ source: String, _ fileType: AudioFileTypeID, _ fileExtension: String, keepsTable: Bool = false) {
        self.source = source
        self.fileType = fileType
        name = "copy." + fileExtension
        self.keepsTable = keepsTable
    }
}

@Suite struct AudioFileWritingTests {
    static let cases = [
        CopyCase("wav/pcm-s16-stereo.wav", kAudioFileCAFType, "caf"),
        CopyCase("wav/pcm-s16-stereo.wav", kAudioFileWAVEType, "wav"),
        CopyCase("wav/pcm-s24-stereo.wav", kAudioFileWAVEType, "wav"),
        CopyCase("aiff/pcm-s16-stereo.aiff", kAudioFileAIFFType, "aiff"),
        CopyCase("aiff/pcm-s24-mono.aiff", kAudioFileCAFType, "caf"),
        CopyCase("caf/float32-stereo.caf", kAudioFileCAFType, "caf"),
        CopyCase("caf/ima4-stereo.caf", kAudioFileCAFType, "caf"),
        CopyCase("aiff/ima4-stereo.aifc", kAudioFileAIFCType, "aifc"),
        CopyCase("aiff/ulaw.aifc", kAudioFileAIFCType, "aifc"),
        CopyCase("wav/ima-adpcm-stereo.wav", kAudioFileWAVEType, "wav"),
        CopyCase("wav/alaw-stereo.wav", kAudioFileWAVEType, "wav"),
        CopyCase("wav/float32-stereo.wav", kAudioFileWAVEType, "wav"),
        CopyCase("caf/alac-stereo.caf", kAudioFileCAFType, "caf", keepsTable: true),
        CopyCase("caf/alac-stereo.caf", kAudioFileM4AType, "m4a", keepsTable: true),
        CopyCase("mp4/alac-mono-22k.m4a", kAudioFileCAFType, "caf", keepsTable: true),
        CopyCase("mp4/aac-faststart.m4a", kAudioFileM4AType, "m4a", keepsTable: true),
        CopyCase("mp4/aac-faststart.m4a", kAudioFileCAFType, "caf", keepsTable: true),
        CopyCase("mp4/aac-faststart.m4a", kAudioFileAAC_ADTSType, "aac"),
        CopyCase("adts/aac-lc-44k-stereo.aac", kAudioFileCAFType, "caf"),
        // (An MP3 file's priming and remainder live in the LAME tag frame afkit's encoder writes.)
        CopyCase("library/stereo.mp3", kAudioFileMP3Type, "mp3"),
        CopyCase("library/stereo.mp3", kAudioFileCAFType, "caf", keepsTable: true),
        CopyCase("library/stereo.flac", kAudioFileFLACType, "flac"),
        CopyCase("library/stereo.flac", kAudioFileCAFType, "caf"),
        // Ogg's type code as afkit's registry gives it ('OggS'; AudioFile.h names none).
        CopyCase("library/stereo.opus", 0x4F67_6753, "opus", keepsTable: true),
        CopyCase("library/stereo.opus", kAudioFileCAFType, "caf", keepsTable: true),
    ]

    @Test(arguments: cases)
    func copiedPacketsReadBackTheSame(_ copy: CopyCase) throws {
        let folder = scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = fixtures.appendingPathComponent(copy.source)
        let destination = folder.appendingPathComponent(copy.name)
        #expect(copyPackets(from: source, to: destination, fileType: copy.fileType) == noErr)
        let original = try #require(readPackets(source))
        let written = try #require(readPackets(destination))
        #expect(written.packets.count == original.packets.count)
        #expect(written.packets == original.packets)
        var expected = original.format
        if copy.fileType == kAudioFileM4AType, expected.mFormatID == kAudioFormatAppleLossless,
            expected.mFormatFlags == 0
        {
            // FFmpeg's CAF leaves ALAC's source-depth flags 0; an MP4 sample entry has no flags, and its reader
            // takes them from the config (16-bit, make-fixtures.py).
            expected.mFormatFlags = kAppleLosslessFormatFlag_16BitSourceData
        }
        #expect(written.format == expected)
        if copy.keepsTable, let table = original.packetTable {
            #expect(written.packetTable == table)
        }
        if original.format.mFormatID == kAudioFormatMPEG4AAC, copy.fileType == kAudioFileCAFType {
            // CAF's `kuki` holds AAC's ES descriptor (tag 3) around the AudioSpecificConfig the reader hands out, as
            // CAF's specification asks and FFmpeg reads it (a bare config was unreadable to FFmpeg and libsndfile).
            let bytes = Array(try Data(contentsOf: destination))
            let at = try #require((0..<bytes.count - 12).first { bytes[$0..<$0 + 4].elementsEqual("kuki".utf8) })
            let kuki = Array(bytes[(at + 12)...])
            #expect(kuki.first == 0x03)
            let config = original.cookie.first == 0x03 ? [] : original.cookie
            #expect(
                config.isEmpty
                    || (0..<kuki.count - config.count).contains { kuki[$0..<$0 + config.count].elementsEqual(config) })
        }
        if original.format.mFormatID == kAudioFormatAppleLossless {
            // Whatever wrapping the source's cookie had, the written one describes the same stream.
            var fromOriginal = original.format
            var fromWritten = written.format
            var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
            #expect(
                AudioFormatGetProperty(
                    kAudioFormatProperty_FormatInfo, UInt32(original.cookie.count), original.cookie, &size,
                    &fromOriginal) == noErr)
            #expect(
                AudioFormatGetProperty(
                    kAudioFormatProperty_FormatInfo, UInt32(written.cookie.count), written.cookie, &size, &fromWritten)
                    == noErr)
            #expect(fromWritten == fromOriginal)
        }
    }

    @Test func pcmWrittenWithWriteBytesReadsBack() throws {
        let folder = scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let format = int16PCM(rate: 8000, channels: 2)
        let url = folder.appendingPathComponent("bytes.wav")
        let file = try #require(createFile(url, kAudioFileWAVEType, format))
        let samples = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        // Three writes, two of them ending inside a frame.
        var offset: Int64 = 0
        for range in [0..<333, 333..<334, 334..<1000] {
            var count = UInt32(range.count)
            let chunk = Array(samples[range])
            #expect(AudioFileWriteBytes(file, false, offset, &count, chunk) == noErr)
            offset += Int64(count)
        }
        var packets: UInt64 = 0
        var size: UInt32 = 8
        #expect(AudioFileGetProperty(file, kAudioFilePropertyAudioDataPacketCount, &size, &packets) == noErr)
        #expect(packets == 250)
        #expect(AudioFileOptimize(file) == noErr)
        #expect(AudioFileClose(file) == noErr)
        let written = try #require(readPackets(url))
        #expect(written.packets.flatMap { $0 } == samples)
        #expect(written.format == format)
    }

    /// Priming and remainder set before the packets, as an encoder's client knows them up front: the valid
    /// frames are what the packets leave.
    @Test func packetTableSetBeforeThePacketsHolds() throws {
        let folder = scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try #require(readPackets(fixtures.appendingPathComponent("mp4/aac-faststart.m4a")))
        let url = folder.appendingPathComponent("early.caf")
        let file = try #require(createFile(url, kAudioFileCAFType, source.format))
        var table = AudioFilePacketTableInfo(mNumberValidFrames: 0, mPrimingFrames: 2112, mRemainderFrames: 100)
        let tableSize = UInt32(MemoryLayout<AudioFilePacketTableInfo>.size)
        #expect(AudioFileSetProperty(file, kAudioFilePropertyPacketTableInfo, tableSize, &table) == noErr)
        #expect(
            AudioFileSetProperty(file, kAudioFilePropertyMagicCookieData, UInt32(source.cookie.count), source.cookie)
                == noErr)
        var descriptions: [AudioStreamPacketDescription] = []
        var bytes: [UInt8] = []
        for packet in source.packets {
            descriptions.append(
                AudioStreamPacketDescription(
                    mStartOffset: Int64(bytes.count), mVariableFramesInPacket: 0, mDataByteSize: UInt32(packet.count)))
            bytes += packet
        }
        var count = UInt32(source.packets.count)
        #expect(AudioFileWritePackets(file, false, UInt32(bytes.count), descriptions, 0, &count, bytes) == noErr)
        var current = AudioFilePacketTableInfo()
        var size = tableSize
        #expect(AudioFileGetProperty(file, kAudioFilePropertyPacketTableInfo, &size, &current) == noErr)
        let frames = Int64(source.packets.count) * 1024
        #expect(current.mNumberValidFrames == frames - 2212)
        #expect(AudioFileClose(file) == noErr)
        #expect(try #require(readPackets(url)).packetTable == current)
    }

    /// A tone generator as Core Audio's tutorials write one: big-endian 16-bit AIFF, each sample written with
    /// its own AudioFileWriteBytes at its byte offset.
    @Test func toneWrittenSampleBySampleReadsBack() throws {
        let folder = scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var format = AudioStreamBasicDescription()
        format.mSampleRate = 8000
        format.mFormatID = kAudioFormatLinearPCM
        format.mFormatFlags = kAudioFormatFlagIsBigEndian | kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked
        format.mChannelsPerFrame = 1
        format.mFramesPerPacket = 1
        format.mBitsPerChannel = 16
        format.mBytesPerFrame = 2
        format.mBytesPerPacket = 2
        let url = folder.appendingPathComponent("440-sine.aif")
        var audioFile: AudioFileID?
        #expect(AudioFileCreateWithURL(url as CFURL, kAudioFileAIFFType, &format, .eraseFile, &audioFile) == noErr)
        let file = try #require(audioFile)
        var expected: [UInt8] = []
        for index in 0..<4000 {
            var sample = Int16(Double(Int16.max) * sin(2 * Double.pi * 440 * Double(index) / 8000)).bigEndian
            var bytesToWrite: UInt32 = 2
            #expect(AudioFileWriteBytes(file, false, Int64(index * 2), &bytesToWrite, &sample) == noErr)
            withUnsafeBytes(of: sample) { expected += $0 }
        }
        #expect(AudioFileClose(file) == noErr)
        let written = try #require(readPackets(url))
        #expect(written.format == format)
        #expect(written.packets.count == 4000)
        #expect(written.packets.flatMap { $0 } == expected)
    }

    @Test func channelLayoutAndInfoDictionaryAreWritten() throws {
        let folder = scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let format = int16PCM(rate: 48000, channels: 6)
        let url = folder.appendingPathComponent("surround.caf")
        let file = try #require(createFile(url, kAudioFileCAFType, format))
        var layout = AudioChannelLayout()
        layout.mChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A
        #expect(
            AudioFileSetProperty(
                file, kAudioFilePropertyChannelLayout, UInt32(MemoryLayout<AudioChannelLayout>.size), &layout) == noErr)
        var info = ["title": "Surround test", "artist": "afkit"] as CFDictionary
        #expect(
            AudioFileSetProperty(
                file, kAudioFilePropertyInfoDictionary, UInt32(MemoryLayout<CFDictionary>.size), &info) == noErr)
        let silence = [UInt8](repeating: 0, count: 12 * 480)
        var count: UInt32 = 480
        #expect(AudioFileWritePackets(file, false, UInt32(silence.count), nil, 0, &count, silence) == noErr)
        #expect(AudioFileClose(file) == noErr)

        var readID: AudioFileID?
        #expect(AudioFileOpenURL(url as CFURL, .readPermission, kAudioFileCAFType, &readID) == noErr)
        let read = try #require(readID)
        defer { AudioFileClose(read) }
        var readLayout = AudioChannelLayout()
        var size = UInt32(MemoryLayout<AudioChannelLayout>.size)
        #expect(AudioFileGetProperty(read, kAudioFilePropertyChannelLayout, &size, &readLayout) == noErr)
        #expect(readLayout.mChannelLayoutTag == kAudioChannelLayoutTag_MPEG_5_1_A)
        // A layout of descriptions comes back whole (the size asked first).
        let stereo = folder.appendingPathComponent("described.caf")
        let described = try #require(createFile(stereo, kAudioFileCAFType, int16PCM(rate: 8000, channels: 2)))
        let layoutSize = MemoryLayout<AudioChannelLayout>.size + MemoryLayout<AudioChannelDescription>.stride
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: layoutSize, alignment: 8)
        defer { bytes.deallocate() }
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: layoutSize)
        let offset = MemoryLayout<AudioChannelLayout>.offset(of: \AudioChannelLayout.mChannelDescriptions) ?? 12
        bytes.storeBytes(of: UInt32(2), toByteOffset: 8, as: UInt32.self)
        bytes.storeBytes(of: kAudioChannelLabel_Right, toByteOffset: offset, as: AudioChannelLabel.self)
        bytes.storeBytes(
            of: kAudioChannelLabel_Left, toByteOffset: offset + MemoryLayout<AudioChannelDescription>.stride,
            as: AudioChannelLabel.self)
        #expect(AudioFileSetProperty(described, kAudioFilePropertyChannelLayout, UInt32(layoutSize), bytes) == noErr)
        var frames = [UInt8](repeating: 0, count: 400)
        var frameCount: UInt32 = 100
        #expect(AudioFileWritePackets(described, false, 400, nil, 0, &frameCount, &frames) == noErr)
        #expect(AudioFileClose(described) == noErr)
        var swappedID: AudioFileID?
        #expect(AudioFileOpenURL(stereo as CFURL, .readPermission, 0, &swappedID) == noErr)
        let swapped = try #require(swappedID)
        defer { AudioFileClose(swapped) }
        var swappedSize: UInt32 = 0
        #expect(AudioFileGetPropertyInfo(swapped, kAudioFilePropertyChannelLayout, &swappedSize, nil) == noErr)
        #expect(Int(swappedSize) == layoutSize)
        let back = UnsafeMutableRawPointer.allocate(byteCount: Int(swappedSize), alignment: 8)
        defer { back.deallocate() }
        #expect(AudioFileGetProperty(swapped, kAudioFilePropertyChannelLayout, &swappedSize, back) == noErr)
        #expect(back.load(fromByteOffset: 8, as: UInt32.self) == 2)
        #expect(back.load(fromByteOffset: offset, as: AudioChannelLabel.self) == kAudioChannelLabel_Right)
        var dictionary: Unmanaged<CFDictionary>?
        size = UInt32(MemoryLayout<CFDictionary>.size)
        #expect(AudioFileGetProperty(read, kAudioFilePropertyInfoDictionary, &size, &dictionary) == noErr)
        let values = try #require(dictionary?.takeRetainedValue() as? [String: String])
        #expect(values[kAFInfoDictionary_Title] == "Surround test")
        #expect(values[kAFInfoDictionary_Artist] == "afkit")
        // As metadata tools ask it: the size and writability first, then into a dictionary variable.
        var dictionarySize: UInt32 = 0
        var isWritable: UInt32 = 1
        #expect(AudioFileGetPropertyInfo(read, kAudioFilePropertyInfoDictionary, &dictionarySize, &isWritable) == noErr)
        #expect(isWritable == 0)
        var tags: CFDictionary = [:] as CFDictionary
        #expect(AudioFileGetProperty(read, kAudioFilePropertyInfoDictionary, &dictionarySize, &tags) == noErr)
        #expect((tags as? [String: String])?["title"] == "Surround test")
    }

    @Test func ffmpegALACInCAFOpensInExtendedAudioFileServices() throws {
        var fileRef: ExtAudioFileRef?
        let url = fixtures.appendingPathComponent("caf/alac-stereo.caf")
        #expect(ExtAudioFileOpenURL(url as CFURL, &fileRef) == noErr)
        let file = try #require(fileRef)
        defer { ExtAudioFileDispose(file) }
        var client = int16PCM(rate: 44100, channels: 2)
        #expect(
            ExtAudioFileSetProperty(
                file, kExtAudioFileProperty_ClientDataFormat, UInt32(MemoryLayout<AudioStreamBasicDescription>.size),
                &client) == noErr)
        var frames: Int64 = 0
        var size: UInt32 = 8
        #expect(ExtAudioFileGetProperty(file, kExtAudioFileProperty_FileLengthFrames, &size, &frames) == noErr)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 4096 * 4, alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            var list = AudioBufferList(
                mNumberBuffers: 1, mBuffers: AudioBuffer(mNumberChannels: 2, mDataByteSize: 4096 * 4, mData: buffer))
            var count: UInt32 = 4096
            #expect(ExtAudioFileRead(file, &count, &list) == noErr)
            if count == 0 { break }
            total += Int64(count)
        }
        // FFmpeg's 'pakt' counts every frame of its three packets as valid (no remainder), as Apple's length
        // then says; the last packet decodes to the 0.2 s at 44.1 kHz make-fixtures.py encoded.
        #expect(frames == 3 * 4096)
        #expect(total == 8820)
    }

    // MARK: Files behind a client's callbacks (a file in memory, as an app hands one to a server)

    /// A file in memory, as the callbacks' client data.
    final class MemoryFile {
        var bytes: [UInt8] = []
    }

    static let read: AudioFile_ReadProc = { clientData, position, count, buffer, actual in
        let file = Unmanaged<MemoryFile>.fromOpaque(clientData).takeUnretainedValue()
        let start = min(Int(position), file.bytes.count)
        let end = min(start + Int(count), file.bytes.count)
        file.bytes[start..<end].withUnsafeBytes {
            if let base = $0.baseAddress { buffer.copyMemory(from: base, byteCount: $0.count) }
        }
        actual.pointee = UInt32(end - start)
        return noErr
    }
    static let write: AudioFile_WriteProc = { clientData, position, count, buffer, actual in
        let file = Unmanaged<MemoryFile>.fromOpaque(clientData).takeUnretainedValue()
        let end = Int(position) + Int(count)
        if file.bytes.count < end { file.bytes += [UInt8](repeating: 0, count: end - file.bytes.count) }
        file.bytes.replaceSubrange(Int(position)..<end, with: UnsafeRawBufferPointer(start: buffer, count: Int(count)))
        actual.pointee = count
        return noErr
    }
    static let getSize: AudioFile_GetSizeProc = { clientData in
        Int64(Unmanaged<MemoryFile>.fromOpaque(clientData).takeUnretainedValue().bytes.count)
    }
    static let setSize: AudioFile_SetSizeProc = { clientData, size in
        let file = Unmanaged<MemoryFile>.fromOpaque(clientData).takeUnretainedValue()
        file.bytes = Array(file.bytes.prefix(Int(size)))
        return noErr
    }

    @Test func filesBehindCallbacksAreReadAndWritten() throws {
        let source = MemoryFile()
        source.bytes = try [UInt8](Data(contentsOf: fixtures.appendingPathComponent("caf/alac-stereo.caf")))
        let sourceData = Unmanaged.passUnretained(source).toOpaque()
        var sourceID: AudioFileID?
        #expect(
            AudioFileOpenWithCallbacks(sourceData, Self.read, nil, Self.getSize, nil, kAudioFileCAFType, &sourceID)
                == noErr)
        let sourceFile = try #require(sourceID)
        defer { AudioFileClose(sourceFile) }
        var format = AudioStreamBasicDescription()
        var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        #expect(AudioFileGetProperty(sourceFile, kAudioFilePropertyDataFormat, &size, &format) == noErr)
        var bytes: UInt32 = 1 << 16
        var count: UInt32 = 16
        var descriptions = [AudioStreamPacketDescription](repeating: .init(), count: 16)
        var buffer = [UInt8](repeating: 0, count: Int(bytes))
        #expect(AudioFileReadPacketData(sourceFile, false, &bytes, &descriptions, 0, &count, &buffer) == noErr)
        #expect(count == 3)

        let destination = MemoryFile()
        let destinationData = Unmanaged.passUnretained(destination).toOpaque()
        var destinationID: AudioFileID?
        #expect(
            AudioFileInitializeWithCallbacks(
                destinationData, Self.read, Self.write, Self.getSize, Self.setSize, kAudioFileM4AType, &format, [],
                &destinationID) == noErr)
        let destinationFile = try #require(destinationID)
        let cookie = try #require(readPackets(fixtures.appendingPathComponent("caf/alac-stereo.caf"))?.cookie)
        #expect(
            AudioFileSetProperty(destinationFile, kAudioFilePropertyMagicCookieData, UInt32(cookie.count), cookie)
                == noErr)
        #expect(AudioFileWritePackets(destinationFile, false, bytes, descriptions, 0, &count, buffer) == noErr)
        #expect(AudioFileClose(destinationFile) == noErr)
        #expect(destination.bytes.count > Int(bytes))
        // The bytes the callbacks took are an M4A file holding the same packets.
        var writtenID: AudioFileID?
        #expect(
            AudioFileOpenWithCallbacks(destinationData, Self.read, nil, Self.getSize, nil, 0, &writtenID) == noErr)
        let written = try #require(writtenID)
        defer { AudioFileClose(written) }
        var type: AudioFileTypeID = 0
        size = 4
        #expect(AudioFileGetProperty(written, kAudioFilePropertyFileFormat, &size, &type) == noErr)
        #expect(type == kAudioFileM4AType)
        var again = [UInt8](repeating: 0, count: buffer.count)
        var againBytes = UInt32(again.count)
        var againCount: UInt32 = 16
        #expect(AudioFileReadPacketData(written, false, &againBytes, &descriptions, 0, &againCount, &again) == noErr)
        #expect(againCount == count)
        #expect(again.prefix(Int(againBytes)) == buffer.prefix(Int(bytes)))
    }

    // MARK: Refusals: Apple's codes, never a trap

    static func alacFormat(channels: UInt32) -> AudioStreamBasicDescription {
        AudioStreamBasicDescription(
            mSampleRate: 44100, mFormatID: kAudioFormatAppleLossless,
            mFormatFlags: kAppleLosslessFormatFlag_16BitSourceData,
            mBytesPerPacket: 0, mFramesPerPacket: 4096, mBytesPerFrame: 0, mChannelsPerFrame: channels,
            mBitsPerChannel: 0,
            mReserved: 0)
    }

    @Test func typesAndFormatsAWriterDoesNotHoldAreRefused() throws {
        let folder = scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("refused") as CFURL
        var fileID: AudioFileID?
        var alac = Self.alacFormat(channels: 2)
        #expect(
            AudioFileCreateWithURL(url, kAudioFileWAVEType, &alac, [], &fileID) == kAudioFileUnsupportedDataFormatError)
        #expect(
            AudioFileCreateWithURL(url, kAudioFileAIFFType, &alac, [], &fileID) == kAudioFileUnsupportedDataFormatError)
        // AU holds PCM, u-law and A-law only.
        #expect(
            AudioFileCreateWithURL(url, kAudioFileNextType, &alac, [], &fileID) == kAudioFileUnsupportedDataFormatError)
        #expect(AudioFileCreateWithURL(url, 0x7878_7878, &alac, [], &fileID) == kAudioFileUnsupportedFileTypeError)
        // Types afkit reads but does not write.
        for type in [kAudioFileAC3Type, kAudioFileAMRType, kAudioFileWave64Type] {
            #expect(AudioFileCreateWithURL(url, type, &alac, [], &fileID) == kAudioFileUnsupportedFileTypeError)
        }
        var noRate = Self.alacFormat(channels: 2)
        noRate.mSampleRate = 0
        #expect(
            AudioFileCreateWithURL(url, kAudioFileCAFType, &noRate, [], &fileID) == kAudioFileUnsupportedDataFormatError
        )
        // An existing file is replaced only with `.eraseFile`.
        let existing = folder.appendingPathComponent("existing.caf")
        #expect(FileManager.default.createFile(atPath: existing.path, contents: Data([1, 2, 3])))
        #expect(
            AudioFileCreateWithURL(existing as CFURL, kAudioFileCAFType, &alac, [], &fileID)
                == kAudioFilePermissionsError)
        #expect(FileManager.default.contents(atPath: existing.path) == Data([1, 2, 3]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["existing.caf"])
    }

    @Test func hostileWritesGetApplesCodes() throws {
        let folder = scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("hostile.caf")
        let file = try #require(createFile(url, kAudioFileCAFType, Self.alacFormat(channels: 1)))

        // Cookies that lie: one of two channels for a mono file, and bytes that are no ALAC config.
        let stereoCookie = try #require(readPackets(fixtures.appendingPathComponent("caf/alac-stereo.caf"))?.cookie)
        #expect(
            AudioFileSetProperty(file, kAudioFilePropertyMagicCookieData, UInt32(stereoCookie.count), stereoCookie)
                == kAudioFileUnsupportedDataFormatError)
        let garbage = [UInt8](repeating: 0xFF, count: 40)
        #expect(
            AudioFileSetProperty(file, kAudioFilePropertyMagicCookieData, UInt32(garbage.count), garbage)
                == kAudioFileInvalidChunkError)
        #expect(
            AudioFileSetProperty(file, kAudioFilePropertyMagicCookieData, 0, garbage) == kAudioFileBadPropertySizeError)
        let monoCookie = try #require(readPackets(fixtures.appendingPathComponent("mp4/alac-mono-22k.m4a"))?.cookie)
        var monoAt44k = monoCookie
        // The same config at 44.1 kHz (its rate field is the last four bytes, big-endian).
        monoAt44k.replaceSubrange(20..<24, with: [0, 0, 0xAC, 0x44])
        #expect(AudioFileSetProperty(file, kAudioFilePropertyMagicCookieData, 24, monoAt44k) == noErr)

        // Properties of the wrong size, and ones a file cannot take.
        var table = AudioFilePacketTableInfo(mNumberValidFrames: 10, mPrimingFrames: 0, mRemainderFrames: 0)
        #expect(
            AudioFileSetProperty(file, kAudioFilePropertyPacketTableInfo, 8, &table) == kAudioFileBadPropertySizeError)
        var layout = AudioChannelLayout()
        #expect(
            AudioFileSetProperty(file, kAudioFilePropertyChannelLayout, 4, &layout) == kAudioFileBadPropertySizeError)
        layout.mChannelLayoutTag = kAudioChannelLayoutTag_Stereo
        #expect(
            AudioFileSetProperty(
                file, kAudioFilePropertyChannelLayout, UInt32(MemoryLayout<AudioChannelLayout>.size), &layout)
                == kAudio_ParamError)
        // A count of descriptions the bytes do not hold.
        layout.mChannelLayoutTag = 0
        layout.mNumberChannelDescriptions = 1_000_000
        #expect(
            AudioFileSetProperty(
                file, kAudioFilePropertyChannelLayout, UInt32(MemoryLayout<AudioChannelLayout>.size), &layout)
                == kAudioFileBadPropertySizeError)
        var rate: Double = 8000
        #expect(
            AudioFileSetProperty(file, kAudioFilePropertyDataFormat, 8, &rate) == kAudioFileOperationNotSupportedError)
        #expect(AudioFileSetProperty(file, 0x7A7A_7A7A, 8, &rate) == kAudioFileUnsupportedPropertyError)

        // Packets: descriptions missing, reaching past the buffer, of no frames, or not the next packets.
        let bytes = [UInt8](repeating: 0, count: 100)
        var count: UInt32 = 1
        #expect(AudioFileWritePackets(file, false, 100, nil, 0, &count, bytes) == kAudio_ParamError)
        #expect(count == 0)
        var outside = [AudioStreamPacketDescription(mStartOffset: 90, mVariableFramesInPacket: 0, mDataByteSize: 20)]
        count = 1
        #expect(AudioFileWritePackets(file, false, 100, &outside, 0, &count, bytes) == kAudio_ParamError)
        var negative = [AudioStreamPacketDescription(mStartOffset: -4, mVariableFramesInPacket: 0, mDataByteSize: 4)]
        count = 1
        #expect(AudioFileWritePackets(file, false, 100, &negative, 0, &count, bytes) == kAudio_ParamError)
        var good = [AudioStreamPacketDescription(mStartOffset: 0, mVariableFramesInPacket: 0, mDataByteSize: 50)]
        count = 1
        #expect(AudioFileWritePackets(file, false, 100, &good, 5, &count, bytes) == kAudioFileInvalidPacketOffsetError)
        count = 1
        #expect(AudioFileWritePackets(file, false, 100, &good, 0, &count, bytes) == noErr)
        #expect(count == 1)
        // Bytes are for formats whose packets are all one size.
        var byteCount: UInt32 = 10
        #expect(AudioFileWriteBytes(file, false, 50, &byteCount, bytes) == kAudioFileOperationNotSupportedError)

        // A packet table whose frames are not the 4,096 written.
        table = AudioFilePacketTableInfo(mNumberValidFrames: 5000, mPrimingFrames: 0, mRemainderFrames: 0)
        var size = UInt32(MemoryLayout<AudioFilePacketTableInfo>.size)
        #expect(AudioFileSetProperty(file, kAudioFilePropertyPacketTableInfo, size, &table) == kAudio_ParamError)
        table = AudioFilePacketTableInfo(mNumberValidFrames: -1, mPrimingFrames: 4000, mRemainderFrames: 97)
        #expect(AudioFileSetProperty(file, kAudioFilePropertyPacketTableInfo, size, &table) == kAudio_ParamError)
        table = AudioFilePacketTableInfo(mNumberValidFrames: 4000, mPrimingFrames: 0, mRemainderFrames: 96)
        #expect(AudioFileSetProperty(file, kAudioFilePropertyPacketTableInfo, size, &table) == noErr)
        var readBack = AudioFilePacketTableInfo()
        #expect(AudioFileGetProperty(file, kAudioFilePropertyPacketTableInfo, &size, &readBack) == noErr)
        #expect(readBack == table)
        // Reading a file made for writing.
        var readBytes: UInt32 = 10
        var buffer = [UInt8](repeating: 0, count: 10)
        #expect(AudioFileReadBytes(file, false, 0, &readBytes, &buffer) == kAudioFilePermissionsError)
        #expect(AudioFileClose(file) == noErr)

        // Writing to a file opened for reading.
        var readID: AudioFileID?
        #expect(AudioFileOpenURL(url as CFURL, .readPermission, 0, &readID) == noErr)
        let read = try #require(readID)
        defer { AudioFileClose(read) }
        count = 1
        #expect(AudioFileWritePackets(read, false, 100, &good, 1, &count, bytes) == kAudioFilePermissionsError)
        size = UInt32(MemoryLayout<AudioFilePacketTableInfo>.size)
        #expect(AudioFileGetProperty(read, kAudioFilePropertyPacketTableInfo, &size, &readBack) == noErr)
        #expect(readBack == table)

        // Opened to read and write, as metadata tools open files: it reads; changing it is not done in place.
        var bothID: AudioFileID?
        #expect(AudioFileOpenURL(url as CFURL, .readWritePermission, 0, &bothID) == noErr)
        let both = try #require(bothID)
        defer { AudioFileClose(both) }
        #expect(AudioFileGetProperty(both, kAudioFilePropertyPacketTableInfo, &size, &readBack) == noErr)
        count = 1
        #expect(
            AudioFileWritePackets(both, false, 100, &good, 1, &count, bytes) == kAudioFileOperationNotSupportedError)
        #expect(
            AudioFileSetProperty(both, kAudioFilePropertyPacketTableInfo, size, &table)
                == kAudioFileOperationNotSupportedError)
        var writeOnlyID: AudioFileID?
        #expect(AudioFileOpenURL(url as CFURL, .writePermission, 0, &writeOnlyID) == kAudioFilePermissionsError)
    }

    @Test func aacCookieOfAnotherStreamIsRefused() throws {
        let folder = scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stereo = try #require(readPackets(fixtures.appendingPathComponent("mp4/aac-faststart.m4a")))
        let file = try #require(createFile(folder.appendingPathComponent("aac.caf"), kAudioFileCAFType, stereo.format))
        defer { AudioFileClose(file) }
        // make-mp4-fixtures.py: 22.05 kHz mono, where the file is 44.1 kHz stereo.
        let mono = try #require(cookie(of: "mp4/aac-mono-22k.m4a"))
        #expect(
            AudioFileSetProperty(file, kAudioFilePropertyMagicCookieData, UInt32(mono.count), mono)
                == kAudioFileUnsupportedDataFormatError)
        #expect(
            AudioFileSetProperty(file, kAudioFilePropertyMagicCookieData, UInt32(stereo.cookie.count), stereo.cookie)
                == noErr)
    }

    /// Descriptions of every kind, most of them wrong: each call is written or refused with kAudio_ParamError,
    /// and the file that results reads back with the packets written.
    @Test func randomDescriptionsNeverTrap() throws {
        let folder = scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("random.caf")
        let file = try #require(createFile(url, kAudioFileCAFType, Self.alacFormat(channels: 2)))
        var generator = SystemRandomNumberGenerator()
        let buffer = [UInt8](repeating: 0x5A, count: 256)
        let edges: [Int64] = [-1, 0, 1, 255, 256, 257, .max, .min, Int64(UInt32.max)]
        var written: Int64 = 0
        for _ in 0..<2000 {
            let start =
                Bool.random(using: &generator)
                ? edges.randomElement(using: &generator) ?? 0 : Int64.random(in: -8...300)
            let size = UInt32.random(in: 0...300, using: &generator)
            var descriptions = [
                AudioStreamPacketDescription(mStartOffset: start, mVariableFramesInPacket: 0, mDataByteSize: size)
            ]
            var count: UInt32 = 1
            let status = AudioFileWritePackets(file, false, 256, &descriptions, written, &count, buffer)
            let fits = start >= 0 && start <= 256 - Int64(size)
            #expect(status == (fits ? noErr : kAudio_ParamError))
            if status == noErr { written += 1 }
        }
        #expect(AudioFileClose(file) == noErr)
        #expect(try #require(readPackets(url)).packets.count == Int(written))
    }

    @Test func constantPacketsShortOfTheirBytesAreRefused() throws {
        let folder = scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("short.wav")
        let file = try #require(createFile(url, kAudioFileWAVEType, int16PCM(rate: 44100, channels: 2)))
        let bytes = [UInt8](repeating: 0, count: 10)
        var count: UInt32 = 3
        #expect(AudioFileWritePackets(file, false, 10, nil, 0, &count, bytes) == kAudio_ParamError)
        count = .max
        #expect(AudioFileWritePackets(file, false, 10, nil, 0, &count, bytes) == kAudio_ParamError)
        // WAV records no priming.
        var table = AudioFilePacketTableInfo(mNumberValidFrames: 0, mPrimingFrames: 2, mRemainderFrames: 0)
        #expect(
            AudioFileSetProperty(
                file, kAudioFilePropertyPacketTableInfo, UInt32(MemoryLayout<AudioFilePacketTableInfo>.size), &table)
                == kAudioFileUnsupportedPropertyError)
        // Bytes left short of a frame at the end are said, and no file is left.
        var byteCount: UInt32 = 6
        #expect(AudioFileWriteBytes(file, false, 0, &byteCount, bytes) == noErr)
        #expect(AudioFileClose(file) == kAudio_ParamError)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}
