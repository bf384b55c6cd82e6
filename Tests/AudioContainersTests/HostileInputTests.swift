import AudioContainers
import AudioFormats
import Testing

/// Malformed, truncated and lying files: typed errors with offsets, or an honest partial parse.
@Suite struct HostileInputTests {
    func parse(_ bytes: [UInt8], chunk: Int = 4096) -> StreamRecording { record(bytes, chunkSizes: [chunk]) }

    @Test(arguments: Fixture.all())
    func everyTruncationInsideTheHeaderIsAnError(_ fixture: Fixture) throws {
        let bytes = fixture.bytes
        let dataOffset = Int(fixture.ffprobe.int("firstPacketPosition") ?? 0)
        let isAIFF = fixture.relativePath.hasPrefix("aiff/")
        for length in 0..<dataOffset {
            let result = parse(Array(bytes[0..<length]))
            // An AIFF cut where a chunk ends after COMM is a whole file with no SSND: an empty sound.
            if isAIFF, result.error == nil, result.properties.dataFormat != nil {
                #expect(result.properties.audioDataPacketCount == 0, "cut at \(length)")
                #expect(result.properties.dataOffset == Int64(length), "cut at \(length)")
                continue
            }
            let error = try #require(result.error, "cut at \(length) of a \(dataOffset)-byte header")
            #expect(["eof!", "typ?"].contains(error.code.description), "cut at \(length): \(error)")
            if length >= 12 {
                #expect(error.code == "eof!", "cut at \(length): \(error)")
                #expect(error.offset != nil && error.offset! <= Int64(length), "cut at \(length): \(error)")
            }
        }
    }

    @Test(arguments: Fixture.all())
    func truncatedAudioCountsWholePacketsAndSaysSo(_ fixture: Fixture) throws {
        let bytes = fixture.bytes
        let dataOffset = Int(fixture.ffprobe.int("firstPacketPosition") ?? 0)
        let dataBytes = Int(fixture.ffprobe.int("packetBytes") ?? 0)
        let full = try #require(record(bytes, chunkSizes: [4096]).properties.audioDataPacketCount)
        let data = findChunk(bytes, "data", big: true, sizeWidth: 8, start: 8, pad: false) ?? 0
        let tableAfterData =
            fixture.relativePath.hasPrefix("caf/")
            && (findChunk(bytes, "pakt", big: true, sizeWidth: 8, start: 8, pad: false) ?? 0) > data
        for cut in [1, dataBytes / 3, dataBytes - 1] where cut > 0 && cut < dataBytes {
            let result = parse(Array(bytes[0..<dataOffset + cut]))
            if tableAfterData {
                // The packet table never arrived: the packets cannot be found.
                #expect(result.error?.code == "dta?")
                continue
            }
            #expect(result.error == nil, "cut \(cut) bytes into the audio")
            // A stream whose size says "to the end" cut on a packet boundary looks complete.
            if !fixture.relativePath.contains("stream-") {
                #expect(result.properties.isTruncated, "cut \(cut) bytes into the audio")
            }
            let packets = try #require(result.properties.audioDataPacketCount)
            #expect(packets < full)
            let delivered = result.events.filter { if case .packet = $0 { true } else { false } }.count
            #expect(Int64(delivered) == packets)
            // Whole packets only: the bytes handed out never run past the cut.
            #expect(result.payload.count <= cut)
        }
    }

    @Test func unknownBytesAreNotAnAudioFile() {
        let result = parse(Array("This is a text file, not audio at all.".utf8))
        #expect(result.error?.code == "typ?")
        #expect(result.error?.offset == 0)
        #expect(parse([]).error?.code == "typ?")
    }

    // MARK: WAV

    var wav: [UInt8] { Fixture.named("wav/pcm-s16-stereo.wav").bytes }
    var fmtBody: Int { (findChunk(wav, "fmt ", big: false, start: 12) ?? 0) + 8 }

    @Test func wavZeroChannels() {
        var bytes = wav
        bytes.put(UInt16(0), at: fmtBody + 2, big: false)
        let error = parse(bytes).error
        #expect(error?.code == "dta?")
        #expect(error?.offset == Int64(fmtBody + 2))
        #expect(error?.message.hasPrefix("wav: ") == true)
    }

    @Test func wavZeroSampleRate() {
        var bytes = wav
        bytes.put(UInt32(0), at: fmtBody + 4, big: false)
        #expect(parse(bytes).error?.code == "dta?")
    }

    @Test func wavImaBlockAlignZero() {
        var bytes = Fixture.named("wav/ima-adpcm-stereo.wav").bytes
        let body = (findChunk(bytes, "fmt ", big: false, start: 12) ?? 0) + 8
        bytes.put(UInt16(0), at: body + 12, big: false)
        let error = parse(bytes).error
        #expect(error?.code == "dta?")
        #expect(error?.offset == Int64(body + 12))
    }

    @Test func wavDataSizeLargerThanFile() throws {
        var bytes = wav
        let data = try #require(findChunk(bytes, "data", big: false, start: 12))
        bytes.put(UInt32(0x7FFF_FFF0), at: data + 4, big: false)
        let result = parse(bytes, chunk: 1000)
        #expect(result.error == nil)
        #expect(result.properties.isTruncated)
        let frames = (bytes.count - data - 8) / 4
        #expect(result.properties.audioDataPacketCount == Int64(frames))
        // The file API sees the same.
        let properties = try parseFile(bytes)
        #expect(properties.isTruncated)
        #expect(properties.audioDataPacketCount == Int64(frames))
    }

    @Test func wavFormatChunkOf4GiBInATinyFile() {
        var bytes = Array(wav[0..<40])
        bytes.put(UInt32(0xFFFF_FFF0), at: 16, big: false)
        let error = parse(bytes).error
        // Never allocated: rejected by the limit on format chunks, at the chunk.
        #expect(error?.code == "lim!")
        #expect(error?.offset == 12)
    }

    @Test func wavUnknownChunksBeforeFormatAndOddPadding() throws {
        // RIFF, an odd-sized unknown chunk (padded), an odd 'data' before a trailing LIST.
        var bytes: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)
        bytes += Array("zzzz".utf8) + [3, 0, 0, 0, 1, 2, 3, 0]
        bytes += Array("fmt ".utf8) + [16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1F, 0, 0, 0x40, 0x1F, 0, 0, 1, 0, 8, 0]
        bytes += Array("data".utf8) + [5, 0, 0, 0, 10, 20, 30, 40, 50, 0]
        bytes +=
            Array("LIST".utf8) + [16, 0, 0, 0] + Array("INFO".utf8) + Array("INAM".utf8) + [4, 0, 0, 0]
            + Array("Hey".utf8) + [0]
        bytes.put(UInt32(bytes.count - 8), at: 4, big: false)
        for chunk in [1, 5, bytes.count] {
            let result = parse(bytes, chunk: chunk)
            #expect(result.error == nil)
            #expect(result.payload == [10, 20, 30, 40, 50])
            #expect(result.properties.dataOffset == 56)
            #expect(result.properties.infoDictionary["title"] == "Hey")
            #expect(result.properties.trace.records.contains { $0.chunk == "zzzz" && $0.note.contains("unknown") })
        }
    }

    @Test func wavDataBeforeFormatIsRetainedAndReplayed() throws {
        var bytes: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)
        bytes += Array("data".utf8) + [4, 0, 0, 0, 1, 2, 3, 4]
        bytes += Array("fmt ".utf8) + [16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1F, 0, 0, 0x80, 0x3E, 0, 0, 2, 0, 16, 0]
        bytes.put(UInt32(bytes.count - 8), at: 4, big: false)
        for chunk in [1, bytes.count] {
            let result = parse(bytes, chunk: chunk)
            #expect(result.error == nil)
            #expect(result.payload == [1, 2, 3, 4])
            #expect(result.properties.audioDataPacketCount == 2)
        }
        #expect(try parseFile(bytes).audioDataPacketCount == 2)
    }

    @Test func wavRetainedAudioIsBounded() {
        var bytes: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)
        bytes += Array("data".utf8) + [0, 4, 0, 0] + [UInt8](repeating: 0, count: 1024)
        var limits = ParserLimits()
        limits.maximumRetainedAudioBytes = 100
        let result = record(bytes, chunkSizes: [64], limits: limits)
        #expect(result.error?.code == "lim!")
    }

    // MARK: AIFF

    var aiff: [UInt8] { Fixture.named("aiff/pcm-s16-stereo.aiff").bytes }
    var commBody: Int { (findChunk(aiff, "COMM", big: true, start: 12) ?? 0) + 8 }

    @Test func aiffZeroChannelsAndZeroBits() {
        var bytes = aiff
        bytes.put(Int16(0), at: commBody, big: true)
        #expect(parse(bytes).error?.code == "dta?")
        bytes = aiff
        bytes.put(Int16(0), at: commBody + 6, big: true)
        let error = parse(bytes).error
        #expect(error?.code == "dta?")
        #expect(error?.message.contains("0-bit") == true)
    }

    @Test(arguments: [
        (UInt16(0x7FFF), UInt64(0)), (0x7FFF, 0xC000_0000_0000_0000), (0xC00E, 0xAC44_0000_0000_0000),
        (0, 0),
    ])
    func aiffImpossibleRates(_ exponent: UInt16, _ mantissa: UInt64) {
        var bytes = aiff
        bytes.put(exponent, at: commBody + 8, big: true)
        bytes.put(mantissa, at: commBody + 10, big: true)
        let error = parse(bytes).error
        #expect(error?.code == "dta?", "exponent \(exponent)")
        #expect(error?.offset != nil)
    }

    /// Any finite rate above 0 is a rate, as Apple reads them: 0.01 Hz and 2^257 Hz included.
    @Test(arguments: [(UInt16(0x3FF8), UInt64(0xA3D7_0A3D_70A3_D70A)), (0x4100, 0x8000_0000_0000_0000)])
    func aiffAnyFiniteRate(_ exponent: UInt16, _ mantissa: UInt64) throws {
        var bytes = aiff
        bytes.put(exponent, at: commBody + 8, big: true)
        bytes.put(mantissa, at: commBody + 10, big: true)
        let properties = try parseFile(bytes)
        let rate = try #require(properties.dataFormat?.sampleRate)
        #expect(rate > 0 && rate.isFinite)
        if exponent == 0x3FF8 { #expect(abs(rate - 0.01) < 1e-12) }
        #expect(properties.audioDataPacketCount == 1103)
    }

    /// The audio is what SSND holds: COMM's count neither cuts it short nor stretches it, and the
    /// disagreement is a warning.
    @Test(arguments: [UInt32(100), 5000])
    func aiffCommonFramesDisagreeingWithTheSound(_ frames: UInt32) throws {
        var bytes = aiff
        bytes.put(frames, at: commBody + 2, big: true)
        let properties = try parseFile(bytes)
        #expect(properties.audioDataPacketCount == 1103)
        #expect(properties.validFrameCount == 1103)
        #expect(!properties.isTruncated)
        #expect(properties.warnings.first?.contains("'COMM' counts \(frames) frames; 'SSND' holds 1103") == true)
    }

    /// SSND before COMM gives what SSND after COMM gives; COMM without SSND is an empty sound.
    @Test func aiffChunkOrderAndMissingSound() throws {
        let bytes = aiff
        let comm = commBody - 8
        let commSize = 8 + 18
        let ssnd = comm + commSize
        let swapped = Array(bytes[0..<12]) + Array(bytes[ssnd...]) + Array(bytes[comm..<ssnd])
        let before = try parseFile(swapped)
        let after = try parseFile(bytes)
        #expect(before.audioDataPacketCount == after.audioDataPacketCount)
        #expect(before.audioDataByteCount == after.audioDataByteCount)
        #expect(before.validFrameCount == after.validFrameCount)
        for chunkSize in [1, 7, 4096] {
            let streamed = record(swapped, chunkSizes: [chunkSize])
            #expect(streamed.error == nil)
            #expect(streamed.properties.audioDataPacketCount == after.audioDataPacketCount, "chunks of \(chunkSize)")
        }
        var empty = Array(bytes[0..<ssnd])
        empty.put(UInt32(empty.count - 8), at: 4, big: true)
        let silent = try parseFile(empty)
        #expect(silent.audioDataPacketCount == 0)
        #expect(silent.validFrameCount == 0)
        #expect(silent.dataOffset == Int64(empty.count))
    }

    // MARK: CAF

    var caf: [UInt8] { Fixture.named("caf/pcm-s16le-stereo.caf").bytes }

    @Test func cafZeroChannelsNaNRateAndNegativeRate() {
        var bytes = caf
        bytes.put(UInt32(0), at: 20 + 24, big: true)
        #expect(parse(bytes).error?.code == "dta?")
        for rate in [Double.nan, -44100, .infinity, 0] {
            bytes = caf
            bytes.put(rate.bitPattern, at: 20, big: true)
            let error = parse(bytes).error
            #expect(error?.code == "dta?", "rate \(rate)")
            #expect(error?.offset == 20)
        }
    }

    @Test func cafFirstChunkMustBeDescription() {
        var bytes = caf
        bytes.replaceSubrange(8..<12, with: Array("free".utf8))
        let error = parse(bytes).error
        #expect(error?.code == "dta?")
        #expect(error?.offset == 8)
    }

    @Test func cafPacketTableClaimingHugeCountIsRejectedBeforeAllocating() throws {
        var bytes = Fixture.named("caf/sndfile-alac16.caf").bytes
        let pakt = try #require(findChunk(bytes, "pakt", big: true, sizeWidth: 8, start: 8, pad: false))
        bytes.put(Int64(1) << 40, at: pakt + 12, big: true)
        let error = parse(bytes).error
        #expect(error?.code == "chk?")
        #expect(error?.offset == Int64(pakt))
    }

    @Test func cafPacketTableLargerThanData() throws {
        var bytes = Fixture.named("caf/sndfile-alac16.caf").bytes
        let data = try #require(findChunk(bytes, "data", big: true, sizeWidth: 8, start: 8, pad: false))
        let pakt = try #require(findChunk(bytes, "pakt", big: true, sizeWidth: 8, start: 8, pad: false))
        try #require(pakt < data)
        // Shrink 'data' so the table's packets no longer fit: the table is larger than the data.
        bytes.put(Int64(100), at: data + 4, big: true)
        let error = parse(bytes).error
        #expect(error?.code == "chk?")
    }

    @Test func cafPacketTableAfterDataIsBufferedInStreams() throws {
        // Move 'pakt' after 'data' (as a writer that finishes the table last would).
        let original = Fixture.named("caf/sndfile-alac16.caf").bytes
        let pakt = try #require(findChunk(original, "pakt", big: true, sizeWidth: 8, start: 8, pad: false))
        let paktSize = Int(original[pakt + 4..<pakt + 12].reduce(0) { $0 << 8 | UInt64($1) }) + 12
        let paktBytes = Array(original[pakt..<pakt + paktSize])
        let data = try #require(findChunk(original, "data", big: true, sizeWidth: 8, start: 8, pad: false))
        let dataEnd = data + 12 + Int(original[data + 4..<data + 12].reduce(0) { $0 << 8 | UInt64($1) })
        var bytes = original
        bytes.insert(contentsOf: paktBytes, at: dataEnd)
        bytes.removeSubrange(pakt..<pakt + paktSize)
        let reference = record(original, chunkSizes: [4096])
        for chunk in [1, 100, bytes.count] {
            let moved = record(bytes, chunkSizes: [chunk])
            #expect(moved.error == nil)
            #expect(crc32(moved.payload) == crc32(reference.payload) && moved.payload.count == reference.payload.count)
            #expect(moved.properties.packetTableInfo == reference.properties.packetTableInfo)
        }
        let file = try parseFile(bytes)
        #expect(file.audioDataPacketCount == reference.properties.audioDataPacketCount)
        // And a stream gives up past its limit.
        var limits = ParserLimits()
        limits.maximumRetainedAudioBytes = 1000
        #expect(record(bytes, chunkSizes: [512], limits: limits).error?.code == "lim!")
    }

    @Test func cafVariablePacketsWithoutTable() throws {
        var bytes = Fixture.named("caf/sndfile-alac16.caf").bytes
        let pakt = try #require(findChunk(bytes, "pakt", big: true, sizeWidth: 8, start: 8, pad: false))
        bytes.replaceSubrange(pakt..<pakt + 4, with: Array("zzzz".utf8))
        let error = parse(bytes).error
        #expect(error?.code == "dta?")
        #expect(error?.message.contains("packet table") == true)
    }

    @Test func cafNegativeChunkSize() {
        var bytes = caf
        bytes.put(Int64(-5), at: 12, big: true)
        let error = parse(bytes).error
        #expect(error?.code == "chk?")
        #expect(error?.offset == 12)
    }

    /// Random damage never traps or hangs, and whole and byte-by-byte parses agree.
    @Test(arguments: Fixture.all().filter { $0.bytes.count < 3000 })
    func randomDamage(_ fixture: Fixture) {
        var random = SplitMix64(seed: 0xAF_C0DE ^ UInt64(fixture.bytes.count))
        for _ in 0..<20 {
            var bytes = fixture.bytes
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let index = Int.random(in: 0..<min(bytes.count, 256), using: &random)
                bytes[index] = UInt8.random(in: 0...255, using: &random)
            }
            let whole = record(bytes, chunkSizes: [bytes.count])
            let drip = record(bytes, chunkSizes: [1, 2, 5])
            #expect(whole.error == drip.error)
            #expect(whole.events == drip.events)
        }
    }

    func parseFile(_ bytes: [UInt8]) throws -> StreamProperties {
        let path = "/tmp/afkit-hostile-\(UInt32.random(in: 0...UInt32.max)).bin"
        let fd = fopen(path, "wb")
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, fd) }
        fclose(fd)
        defer { remove(path) }
        return try AudioFile(path: path).properties
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension HostileInputTests {
    @Test func riffThatIsNotWAVE() {
        var bytes: [UInt8] = Array("RIFF".utf8) + [100, 0, 0, 0] + Array("AVI LIST".utf8)
        bytes += [UInt8](repeating: 0, count: 100)
        let error = parse(bytes).error
        #expect(error?.code == "typ?")
        #expect(error?.offset == 0)
    }
}
