// Streaming clients written as real iOS players are: one never closes its parser (nor parses zero bytes), one sets
// the discontinuity flag on every parse after ReadyToProducePackets, one reads the bit rate and the packet-size
// bound in its listener. Each is held to ffprobe's packet count at every chunking, before the end of input.
#if canImport(AudioToolbox)
    import AudioToolbox
#else
    import AudioToolboxCompat
#endif
import Foundation
import Testing

/// ffprobe's packet count of a stream fixture (its sidecar) or of a library file (ffprobe-packets.txt).
private func referencePackets(_ name: String) throws -> Int {
    // A FLAC stream whose last frame ends in sync-like bytes (make-world-class-fixtures.sh): ffprobe counts 3.
    if name == "world-classes/flac-false-sync-at-end.flac" { return 3 }
    // The framed fixtures' `.packets` lists (make-framed-fixtures.sh): ffprobe's packets, a line each.
    if name.hasPrefix("framed/") {
        let list = try String(contentsOf: fixtures.appendingPathComponent(name + ".packets"), encoding: .utf8)
        return list.split(separator: "\n").count
    }
    if let count = ffprobePackets[(name as NSString).lastPathComponent], name.hasPrefix("library/") { return count }
    let sidecar = try Data(contentsOf: fixtures.appendingPathComponent(name + ".json"))
    let json = try #require(try JSONSerialization.jsonObject(with: sidecar) as? [String: Any])
    return try #require(json["ffprobePackets"] as? [Any]).count
}

/// What a player's callbacks saw.
private final class Player {
    var ready = false
    var setsDiscontinuityAfterReady = false
    var packets = 0
    var bytes = 0
    var bitRateInListener: UInt32?
    var upperBoundInListener: UInt32?
    var validFramesInListener: Int64?
    /// Properties announced that could not be read in the listener.
    var unreadable: [AudioFileStreamPropertyID] = []
    var propertiesAfterClose = 0
}

private func play(_ name: String, chunkSize: Int, discontinuityAfterReady: Bool = false) throws -> (
    Player, AudioFileStreamID
) {
    let data = Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
    let player = Player()
    player.setsDiscontinuityAfterReady = discontinuityAfterReady
    let listener: AudioFileStream_PropertyListenerProc = { clientData, streamID, propertyID, _ in
        let player = Unmanaged<Player>.fromOpaque(clientData).takeUnretainedValue()
        player.propertiesAfterClose += 1
        var size: UInt32 = 0
        var writable: DarwinBoolean = false
        if AudioFileStreamGetPropertyInfo(streamID, propertyID, &size, &writable) != noErr {
            player.unreadable.append(propertyID)
        }
        switch propertyID {
        case kAudioFileStreamProperty_ReadyToProducePackets:
            player.ready = true
        case kAudioFileStreamProperty_BitRate:
            var rate: UInt32 = 0
            var size = UInt32(MemoryLayout<UInt32>.size)
            if AudioFileStreamGetProperty(streamID, propertyID, &size, &rate) == noErr {
                player.bitRateInListener = rate
            }
        case kAudioFileStreamProperty_PacketSizeUpperBound:
            var bound: UInt32 = 0
            var size = UInt32(MemoryLayout<UInt32>.size)
            if AudioFileStreamGetProperty(streamID, propertyID, &size, &bound) == noErr {
                player.upperBoundInListener = bound
            }
        case kAudioFileStreamProperty_PacketTableInfo:
            var table = AudioFilePacketTableInfo()
            var size = UInt32(MemoryLayout<AudioFilePacketTableInfo>.size)
            if AudioFileStreamGetProperty(streamID, propertyID, &size, &table) == noErr {
                player.validFramesInListener = table.mNumberValidFrames
            }
        default: break
        }
    }
    let packetsProc: AudioFileStream_PacketsProc = { clientData, numberBytes, numberPackets, _, _ in
        let player = Unmanaged<Player>.fromOpaque(clientData).takeUnretainedValue()
        player.packets += Int(numberPackets)
        player.bytes += Int(numberBytes)
    }
    var streamID: AudioFileStreamID?
    let clientData = Unmanaged.passUnretained(player).toOpaque()
    guard AudioFileStreamOpen(clientData, listener, packetsProc, 0, &streamID) == noErr, let stream = streamID else {
        throw CompatTestError("AudioFileStreamOpen failed")
    }
    var offset = 0
    while offset < data.count {
        let count = min(chunkSize, data.count - offset)
        let flags: AudioFileStreamParseFlags =
            player.setsDiscontinuityAfterReady && player.ready ? .discontinuity : []
        let status = data[offset..<offset + count].withUnsafeBytes { chunk in
            AudioFileStreamParseBytes(stream, UInt32(count), chunk.baseAddress, flags)
        }
        guard status == noErr else { throw CompatTestError("AudioFileStreamParseBytes: \(status) at \(offset)") }
        offset += count
    }
    player.propertiesAfterClose = 0
    return (player, stream)
}

private struct CompatTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@Suite struct StreamClientTests {
    static let streams = [
        "library/stereo.mp3", "library/stereo.m4a", "library/stereo.flac", "library/stereo.opus",
        "adts/aac-lc-44k-stereo.aac", "adts/aac-lc-8k-mono.aac", "mp3/lame-cbr128-stereo-44k.mp3",
        "mp3/lame-vbr-v5.mp3", "mp3/lame-id3v1-id3v2.mp3", "world-classes/flac-false-sync-at-end.flac",
        "framed/stereo-44k.ac3", "framed/surround-5.1.eac3", "framed/speech.amr", "framed/stereo.loas",
    ]

    /// A player that never closes its parser and never parses zero bytes gets every packet ffprobe counts by the
    /// time the last byte is parsed; closing it then calls neither procedure.
    @Test(arguments: streams)
    func everyPacketArrivesWithTheLastByte(_ name: String) throws {
        let expected = try referencePackets(name)
        let size = try Data(contentsOf: fixtures.appendingPathComponent(name)).count
        for chunkSize in [1, 333, 4096, size] {
            let (player, stream) = try play(name, chunkSize: chunkSize)
            #expect(player.packets == expected, "\(name) in chunks of \(chunkSize)")
            #expect(player.unreadable.isEmpty, "\(name): announced but unreadable \(player.unreadable)")
            let before = player.packets
            AudioFileStreamClose(stream)
            #expect(player.packets == before && player.propertiesAfterClose == 0, "Close calls back")
        }
    }

    /// The discontinuity flag on every parse after ReadyToProducePackets, with no seek, loses nothing: the bytes
    /// continue where the last parse ended (a pattern of real players).
    @Test(arguments: streams)
    func theDiscontinuityFlagWithoutASeekLosesNothing(_ name: String) throws {
        let expected = try referencePackets(name)
        for chunkSize in [333, 4096] {
            let (player, stream) = try play(name, chunkSize: chunkSize, discontinuityAfterReady: true)
            defer { AudioFileStreamClose(stream) }
            #expect(player.packets == expected, "\(name) in chunks of \(chunkSize)")
        }
    }

    /// The bit rate and the packet-size bound are readable in the listener when announced: constant-rate MP3 says
    /// its header's 128000; the bound, with the format, is at least every packet delivered.
    @Test func propertiesAreReadableWhenAnnounced() throws {
        let (mp3, mp3Stream) = try play("mp3/lame-cbr128-stereo-44k.mp3", chunkSize: 4096)
        defer { AudioFileStreamClose(mp3Stream) }
        #expect(mp3.bitRateInListener == 128_000)
        let bound = try #require(mp3.upperBoundInListener)
        var largest: UInt32 = 0
        var size = UInt32(MemoryLayout<UInt32>.size)
        #expect(AudioFileStreamParseBytes(mp3Stream, 0, nil, []) == noErr)
        #expect(
            AudioFileStreamGetProperty(mp3Stream, kAudioFileStreamProperty_MaximumPacketSize, &size, &largest) == noErr)
        #expect(bound >= largest && largest > 0)

        // A VBR stream's rate is its Xing header's (bytes over its frames' duration), not its first frame's: within
        // 2 % of what its packets hold over their duration. LAME's tag counts its valid frames from the start: the
        // source's, as the fixture's sidecar records them.
        let (vbr, vbrStream) = try play("mp3/lame-vbr-v5.mp3", chunkSize: 4096)
        defer { AudioFileStreamClose(vbrStream) }
        let heard = Double(vbr.bytes) * 8 * 44100 / Double(vbr.packets * 1152)
        let said = Double(try #require(vbr.bitRateInListener))
        #expect(abs(said - heard) / heard < 0.02, "said \(said), the packets hold \(heard)")
        let sidecar = try Data(contentsOf: fixtures.appendingPathComponent("mp3/lame-cbr128-stereo-44k.mp3.json"))
        let source = try #require(
            (try JSONSerialization.jsonObject(with: sidecar) as? [String: Any])?["sourceFrames"] as? Int)
        #expect(mp3.validFramesInListener == Int64(source))

        let (adts, adtsStream) = try play("adts/aac-lc-44k-stereo.aac", chunkSize: 4096)
        defer { AudioFileStreamClose(adtsStream) }
        #expect(adts.upperBoundInListener.map { $0 >= 768 * 2 } == true)
        // The byte count agrees with the packets, which leave out the ADTS headers.
        #expect(AudioFileStreamParseBytes(adtsStream, 0, nil, []) == noErr)
        var bytes: UInt64 = 0
        size = UInt32(MemoryLayout<UInt64>.size)
        #expect(
            AudioFileStreamGetProperty(adtsStream, kAudioFileStreamProperty_AudioDataByteCount, &size, &bytes) == noErr)
        #expect(bytes == UInt64(adts.bytes))
    }
    /// Ogg, which Apple's parser does not read, comes as Apple documents formats whose packets vary in frames
    /// ("such as Ogg Vorbis": `mFramesPerPacket` 0), each packet's frames in its description's
    /// `mVariableFramesInPacket`: together the stream's frames, as its packet table states them.
    @Test(arguments: ["library/stereo.opus", "ogg/oggenc-stereo.ogg"])
    func oggPacketsCarryTheirFrames(_ name: String) throws {
        final class Frames {
            var format: AudioStreamBasicDescription?
            var frames: [UInt32] = []
        }
        let seen = Frames()
        let listener: AudioFileStream_PropertyListenerProc = { clientData, streamID, propertyID, _ in
            guard propertyID == kAudioFileStreamProperty_DataFormat else { return }
            var format = AudioStreamBasicDescription()
            var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
            if AudioFileStreamGetProperty(streamID, propertyID, &size, &format) == noErr {
                Unmanaged<Frames>.fromOpaque(clientData).takeUnretainedValue().format = format
            }
        }
        let packetsProc: AudioFileStream_PacketsProc = { clientData, _, numberPackets, _, descriptions in
            let seen = Unmanaged<Frames>.fromOpaque(clientData).takeUnretainedValue()
            for index in 0..<Int(numberPackets) {
                seen.frames.append(descriptions?[index].mVariableFramesInPacket ?? 0)
            }
        }
        var streamID: AudioFileStreamID?
        #expect(
            AudioFileStreamOpen(Unmanaged.passUnretained(seen).toOpaque(), listener, packetsProc, 0, &streamID) == noErr
        )
        let stream = try #require(streamID)
        defer { AudioFileStreamClose(stream) }
        let data = try Data(contentsOf: fixtures.appendingPathComponent(name))
        let status = data.withUnsafeBytes { AudioFileStreamParseBytes(stream, UInt32($0.count), $0.baseAddress, []) }
        #expect(status == noErr)
        #expect(AudioFileStreamParseBytes(stream, 0, nil, []) == noErr)
        #expect(seen.format?.mFramesPerPacket == 0)
        // (Vorbis's first audio packet only primes the overlap: 0 frames.)
        #expect(!seen.frames.isEmpty && seen.frames.dropFirst().allSatisfy { $0 > 0 }, "\(seen.frames.prefix(4))")
        var table = AudioFilePacketTableInfo()
        var size = UInt32(MemoryLayout<AudioFilePacketTableInfo>.size)
        #expect(AudioFileStreamGetProperty(stream, kAudioFileStreamProperty_PacketTableInfo, &size, &table) == noErr)
        let total = table.mNumberValidFrames + Int64(table.mPrimingFrames) + Int64(table.mRemainderFrames)
        #expect(seen.frames.reduce(Int64(0)) { $0 + Int64($1) } == total)
    }
}
