import AudioContainers
import AudioEngines
import AudioFormats
import AudioToolboxCompat
import Foundation
import Testing

// Files written through AudioToolboxCompat's Audio File Services, read back by libsndfile in-process (the
// compat test target has no C library of its own), and its global info held to the container registry.

/// Writes every packet of the fixture at `source` (read with afkit's reader) into a `fileType` file at
/// `destination` through Audio File Services, cookie and packet table included, in one call each.
func writeThroughCompat(_ source: String, to destination: String, fileType: AudioFileTypeID) throws -> OSStatus {
    let file = try AudioFile(path: fixtures + "/" + source)
    let (bytes, packets) = try file.readPackets(from: 0, count: Int(file.packetCount))
    var format = AudioStreamBasicDescription(
        mSampleRate: file.dataFormat.sampleRate, mFormatID: file.dataFormat.formatID.rawValue,
        mFormatFlags: file.dataFormat.formatFlags.rawValue, mBytesPerPacket: file.dataFormat.bytesPerPacket,
        mFramesPerPacket: file.dataFormat.framesPerPacket, mBytesPerFrame: file.dataFormat.bytesPerFrame,
        mChannelsPerFrame: file.dataFormat.channelsPerFrame, mBitsPerChannel: file.dataFormat.bitsPerChannel,
        mReserved: 0)
    if let cookie = file.properties.magicCookie {
        // What the cookie says (FFmpeg's CAF leaves ALAC's source-depth flags 0; libsndfile needs them).
        var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        let status = AudioFormatGetProperty(
            kAudioFormatProperty_FormatInfo, UInt32(cookie.count), cookie, &size, &format)
        guard status == noErr else { return status }
    }
    var created: AudioFileID?
    let url = URL(fileURLWithPath: destination)
    var status = AudioFileCreateWithURL(url as CFURL, fileType, &format, .eraseFile, &created)
    guard status == noErr, let written = created else { return status }
    if let cookie = file.properties.magicCookie {
        status = AudioFileSetProperty(written, kAudioFilePropertyMagicCookieData, UInt32(cookie.count), cookie)
        guard status == noErr else { return status }
    }
    var count = UInt32(packets.count)
    let descriptions = packets.map {
        AudioStreamPacketDescription(
            mStartOffset: $0.startOffset, mVariableFramesInPacket: $0.variableFramesInPacket,
            mDataByteSize: $0.dataByteSize)
    }
    status = AudioFileWritePackets(written, false, UInt32(bytes.count), descriptions, 0, &count, bytes)
    guard status == noErr else { return status }
    if let table = file.properties.packetTableInfo, table.primingFrames != 0 || table.remainderFrames != 0 {
        var info = AudioFilePacketTableInfo(
            mNumberValidFrames: table.validFrames, mPrimingFrames: table.primingFrames,
            mRemainderFrames: table.remainderFrames)
        status = AudioFileSetProperty(
            written, kAudioFilePropertyPacketTableInfo, UInt32(MemoryLayout<AudioFilePacketTableInfo>.size), &info)
        guard status == noErr else { return status }
    }
    return AudioFileClose(written)
}

@Suite struct CompatWrittenFileTests {
    /// Sources, the type written, and the file libsndfile reads the expected samples from: the source itself, or
    /// for FFmpeg's ALAC CAF (whose cookie, in 'frma' and 'alac' atoms, libsndfile does not read) libsndfile's
    /// ALAC of the same signal (make-fixtures.py makes both from one source).
    @Test(arguments: [
        ("wav/pcm-s16-stereo.wav", "caf", nil), ("wav/pcm-s16-stereo.wav", "wav", nil),
        ("wav/pcm-s24-stereo.wav", "caf", nil), ("aiff/pcm-s16-stereo.aiff", "aiff", nil),
        ("aiff/pcm-s24-mono.aiff", "aiff", nil), ("caf/sndfile-alac16.caf", "caf", nil),
        ("caf/alac-stereo.caf", "caf", "caf/sndfile-alac16.caf"),
    ])
    func libsndfileReadsTheSamples(_ source: String, _ type: String, _ reference: String?) throws {
        let folder = try Folder()
        let output = folder.path + "/written." + type
        let fileType = try #require(FileType(outputPath: output)?.fileTypeID.rawValue)
        #expect(try writeThroughCompat(source, to: output, fileType: fileType) == noErr)
        let expected = try SoundFile(path: fixtures + "/" + (reference ?? source))
        let written = try SoundFile(path: output)
        #expect(written.info.frames == expected.info.frames)
        #expect(written.info.channels == expected.info.channels)
        #expect(written.info.sampleRate == expected.info.sampleRate)
        #expect(try written.readInt32() == expected.readInt32())
    }

    @Test func globalInfoIsTheRegistrys() throws {
        func codes(_ property: AudioFilePropertyID) -> Set<UInt32> {
            var size: UInt32 = 0
            guard AudioFileGetGlobalInfoSize(property, 0, nil, &size) == noErr else { return [] }
            var values = [UInt32](repeating: 0, count: Int(size) / 4)
            guard AudioFileGetGlobalInfo(property, 0, nil, &size, &values) == noErr else { return [] }
            return Set(values)
        }
        #expect(codes(kAudioFileGlobalInfo_ReadableTypes) == Set(ContainerRegistry.all.map(\.fileTypeID.rawValue)))
        #expect(codes(kAudioFileGlobalInfo_WritableTypes) == Set(ContainerRegistry.written.map(\.fileTypeID.rawValue)))
        for descriptor in ContainerRegistry.all {
            // A type code two descriptors share (none today) answers for the first.
            guard
                ContainerRegistry.all.first(where: { $0.fileTypeID == descriptor.fileTypeID })?.fileType
                    == descriptor.fileType
            else { continue }
            var type = descriptor.fileTypeID.rawValue
            var name: Unmanaged<CFString>?
            var size = UInt32(MemoryLayout<CFString>.size)
            #expect(AudioFileGetGlobalInfo(kAudioFileGlobalInfo_FileTypeName, 4, &type, &size, &name) == noErr)
            #expect(name?.takeRetainedValue() as String? == descriptor.name)
            var extensions: Unmanaged<CFArray>?
            #expect(
                AudioFileGetGlobalInfo(kAudioFileGlobalInfo_ExtensionsForType, 4, &type, &size, &extensions) == noErr)
            #expect(extensions?.takeRetainedValue() as? [String] == descriptor.fileType.extensionsInOrder)
            // Each format a writable type lists is one its writer takes.
            guard descriptor.isWritten else { continue }
            var formatsSize: UInt32 = 0
            #expect(
                AudioFileGetGlobalInfoSize(kAudioFileGlobalInfo_AvailableFormatIDs, 4, &type, &formatsSize) == noErr)
            #expect(formatsSize > 0)
        }
    }
}
