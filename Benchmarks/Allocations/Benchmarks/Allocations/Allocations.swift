import AudioCodecs
import AudioContainers
import AudioConversion
import AudioDecoding
import AudioFormats
import Benchmark
import Foundation

/// The committed fixtures, three folders up from here.
let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/Fixtures").path

/// A stream of `megabytes`: a file's packets repeated (MPEG frames carry their headers, so they stand
/// alone; the file's Info frame and tags are left out), or, for ADTS, whose packets are the payloads
/// without their headers, the whole file repeated.
func repeatedStream(_ path: String, megabytes: Int, wholeFile: Bool) throws -> [UInt8] {
    let bytes: [UInt8]
    if wholeFile {
        bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    } else {
        let file = try AudioFile(path: path)
        bytes = try file.readPackets(from: 0, count: Int(file.packetCount)).bytes
    }
    var stream: [UInt8] = []
    stream.reserveCapacity(megabytes << 20 + bytes.count)
    while stream.count < megabytes << 20 { stream += bytes }
    return stream
}

/// A FLAC stream of `megabytes`: a file's metadata, then its frames again and again, each renumbered
/// (its coded number, header CRC-8 and frame CRC-16 made anew), so the parser takes every one.
func repeatedFLAC(_ path: String, megabytes: Int) throws -> [UInt8] {
    let file = try AudioFile(path: path)
    let whole = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    let first = Int(try file.packetDescription(0).startOffset)
    var stream = Array(whole[0..<first])
    stream.reserveCapacity(megabytes << 20 + whole.count)
    var number: UInt64 = 0
    while stream.count < megabytes << 20 {
        for packet in 0..<file.packetCount - 1 {
            let description = try file.packetDescription(packet)
            let frame = whole[
                Int(description.startOffset)..<Int(description.startOffset) + Int(description.dataByteSize)]
            guard let header = frame.withUnsafeBytes({ FLACFrameHeader($0) }) else { continue }
            // Sync and codes, the new number in UTF-8's scheme, the block size and rate fields, CRC-8;
            // the subframes; CRC-16.
            let start = frame.startIndex
            let numberLength = codedNumberLength(frame[start + 4])
            var bytes = Array(frame[start..<start + 4]) + codedNumber(number)
            bytes += frame[(start + 4 + numberLength)..<(start + header.length - 1)]
            bytes.append(bytes.withUnsafeBytes { FLACChecksum.crc8($0) })
            bytes += frame[(start + header.length)..<(frame.endIndex - 2)]
            let crc = bytes.withUnsafeBytes { FLACChecksum.crc16($0) }
            bytes += [UInt8(crc >> 8), UInt8(crc & 0xFF)]
            stream += bytes
            number += 1
        }
    }
    return stream
}

/// An Ogg stream of `megabytes`: a file's header pages, then its audio pages again and again, each
/// renumbered (sequence and granule carried on, the end-of-stream flag cleared, its CRC-32 made anew),
/// so the parser takes every page as the stream's next.
func repeatedOgg(_ path: String, megabytes: Int, headerPages: Int) throws -> [UInt8] {
    let whole = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    var pages: [[UInt8]] = []
    var offset = 0
    while offset + 27 <= whole.count {
        let segments = Int(whole[offset + 26])
        let body = whole[(offset + 27)..<(offset + 27 + segments)].reduce(0) { $0 + Int($1) }
        let length = 27 + segments + body
        pages.append(Array(whole[offset..<offset + length]))
        offset += length
    }
    let table = CRCTables.slicing(polynomial: UInt32(0x04C1_1DB7), count: 1)
    func granule(_ page: [UInt8]) -> Int64 {
        (6..<14).reversed().reduce(Int64(0)) { $0 << 8 | Int64(page[$1]) }
    }
    var stream = pages[0..<headerPages].flatMap { $0 }
    stream.reserveCapacity(megabytes << 20 + whole.count)
    let audio = Array(pages[headerPages...])
    let cycle = audio.compactMap { granule($0) >= 0 ? granule($0) : nil }.max() ?? 0
    var sequence = UInt32(headerPages)
    var round: Int64 = 0
    while stream.count < megabytes << 20 {
        for page in audio {
            var page = page
            page[5] &= ~0x04
            let position = granule(page) < 0 ? -1 : granule(page) + round * cycle
            for index in 0..<8 { page[6 + index] = UInt8(truncatingIfNeeded: position >> (8 * index)) }
            for index in 0..<4 { page[18 + index] = UInt8(truncatingIfNeeded: sequence >> (8 * index)) }
            for index in 22..<26 { page[index] = 0 }
            let crc = page.reduce(UInt32(0)) { $0 << 8 ^ table[Int(UInt8($0 >> 24) ^ $1)] }
            for index in 0..<4 { page[22 + index] = UInt8(truncatingIfNeeded: crc >> (8 * index)) }
            stream += page
            sequence += 1
        }
        round += 1
    }
    return stream
}

/// Bytes of a coded frame number whose first byte is `lead`.
func codedNumberLength(_ lead: UInt8) -> Int {
    lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : lead < 0xF8 ? 4 : lead < 0xFC ? 5 : 6
}

/// A frame number coded as FLAC codes it (UTF-8's scheme).
func codedNumber(_ value: UInt64) -> [UInt8] {
    if value < 0x80 { return [UInt8(value)] }
    var bytes: [UInt8] = []
    var rest = value
    var limit: UInt64 = 0x3F
    var lead: UInt8 = 0xC0
    while true {
        bytes.insert(0x80 | UInt8(rest & 0x3F), at: 0)
        rest >>= 6
        limit >>= 1
        if rest <= limit { break }
        lead = lead >> 1 | 0x80
    }
    return [lead | UInt8(rest)] + bytes
}

/// The push parser over `bytes` in 4 KiB chunks, as a network client feeds it; returns the packets.
func parse(_ bytes: [UInt8]) throws -> Int {
    var stream = AudioFileStream()
    var packets = 0
    try bytes.withUnsafeBytes { all in
        var offset = 0
        while offset < all.count {
            let end = min(offset + 4096, all.count)
            try stream.parse(UnsafeRawBufferPointer(rebasing: all[offset..<end])) { event in
                if case .packets(let run) = event { packets += run.count }
            }
            offset = end
        }
    }
    try stream.finish()
    return packets
}

/// The benchmark's inputs, which must load: a failure stops the run saying why.
func loaded<T>(_ what: String, _ body: () throws -> T) -> T {
    do { return try body() } catch { fatalError("\(what): \(error)") }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.mallocCountTotal, .wallClock], warmupIterations: 0, maxDuration: .seconds(30), maxIterations: 1)

    // Parsing: the count must not grow with the stream (no allocation per packet).
    for (name, path, wholeFile) in [
        ("MP3", "mp3/lame-cbr128-stereo-44k.mp3", false), ("ADTS", "adts/aac-lc-44k-stereo.aac", true),
    ] {
        for megabytes in [20, 200] {
            let bytes = loaded(path) {
                try repeatedStream(fixtures + "/" + path, megabytes: megabytes, wholeFile: wholeFile)
            }
            Benchmark("parse \(name) \(megabytes) MB") { benchmark in
                blackHole(try parse(bytes))
            }
        }
    }

    // FLAC: frames found by their sync and checked by their CRCs, one packet each.
    for megabytes in [20, 200] {
        let bytes = loaded("flac/stereo-tags.flac") {
            try repeatedFLAC(fixtures + "/flac/stereo-tags.flac", megabytes: megabytes)
        }
        Benchmark("parse FLAC \(megabytes) MB") { benchmark in
            // Every renumbered frame is taken (about 5 KB each): a stream the parser skipped would prove nothing.
            let packets = try parse(bytes)
            guard packets > megabytes * 150 else { fatalError("FLAC: only \(packets) frames parsed") }
            blackHole(packets)
        }
    }

    // Ogg Opus: pages checked by their CRC-32, packets joined across them, one packet each.
    for megabytes in [20, 200] {
        let bytes = loaded("ogg/opusenc-stereo.opus") {
            try repeatedOgg(fixtures + "/ogg/opusenc-stereo.opus", megabytes: megabytes, headerPages: 2)
        }
        Benchmark("parse Ogg Opus \(megabytes) MB") { benchmark in
            // Every renumbered page is taken (20 ms packets of about 420 bytes).
            let packets = try parse(bytes)
            guard packets > megabytes * 2000 else { fatalError("Ogg: only \(packets) packets parsed") }
            blackHole(packets)
        }
    }

    // Ogg Vorbis and Opus decoded from a file through the reader (the route `convert` takes): packets read
    // into the reader's own storage, decoded by libavcodec into the reader's room, delivered into the
    // caller's block. libavcodec references each packet it is sent (one allocation a packet, inside
    // libavcodec: `avcodec_send_packet` cannot be given a packet without), so the gate allows exactly that:
    // allocations beyond one a packet must not grow with the input.
    for (name, path, headerPages) in [
        ("Vorbis", "ogg/oggenc-stereo.ogg", 2), ("Opus", "ogg/opusenc-stereo.opus", 2),
    ] {
        for megabytes in [1, 8] {
            let file = loaded(path) { () -> String in
                let stream = try repeatedOgg(fixtures + "/" + path, megabytes: megabytes, headerPages: headerPages)
                let output = NSTemporaryDirectory() + "afkit-allocations-\(name)-\(megabytes).ogg"
                try Data(stream).write(to: URL(fileURLWithPath: output))
                return output
            }
            let packets = loaded(file) { try AudioFile(path: file).packetCount }
            Benchmark("decode Ogg \(name) \(megabytes) MB \(packets) packets") { benchmark in
                let reader = try SourceReader(path: file)
                var block: [Float] = []
                block.reserveCapacity(8192 * 2)
                var frames = 0
                while true {
                    block.removeAll(keepingCapacity: true)
                    let read = try reader.read(maximum: 4096, into: &block)
                    if read == 0 { break }
                    frames += read
                }
                blackHole(frames)
            }
        }
    }

    // IMA4 decoding into a buffer the caller owns: no allocation per block.
    let ima4 = loaded("ima4-stereo.caf") { try AudioFile(path: fixtures + "/caf/ima4-stereo.caf") }
    let (block, _) = loaded("ima4-stereo.caf") { try ima4.readPackets(from: 0, count: Int(ima4.packetCount)) }
    for packetCount in [100_000, 1_000_000] {
        var packets: [UInt8] = []
        while packets.count < packetCount * block.count / Int(ima4.packetCount) { packets += block }
        let count = packets.count / Int(ima4.dataFormat.bytesPerPacket)
        var output = [Int16](repeating: 0, count: count * 64 * Int(ima4.dataFormat.channelsPerFrame))
        Benchmark("decode IMA4 \(count) packets") { benchmark in
            var decoder = AppleIMA4Decoder(format: ima4.dataFormat)
            try packets.withUnsafeBytes { raw in
                try output.withUnsafeMutableBufferPointer { _ = try decoder.decode(raw, packetCount: count, into: $0) }
            }
            blackHole(output[0])
        }
    }
}
