import AudioContainers
import AudioFormats
import Foundation
import Testing

/// The committed fixtures: each audio file with a `NAME.json` sidecar saying how it was made
/// and what the reference tools read from it.
struct Fixture: CustomStringConvertible, Sendable {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    let relativePath: String
    var path: String { Fixture.root.appendingPathComponent(relativePath).path }
    var description: String { relativePath }

    static func all(in folders: [String] = ["wav", "aiff", "caf"]) -> [Fixture] {
        folders.flatMap { folder -> [Fixture] in
            let directory = root.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.filter { !$0.hasSuffix(".json") && names.contains($0 + ".json") }.sorted()
                .map { Fixture(relativePath: "\(folder)/\($0)") }
        }
    }

    static func named(_ relativePath: String) -> Fixture { Fixture(relativePath: relativePath) }

    var bytes: [UInt8] { (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? [] }

    var sidecar: [String: Any] {
        let data = (try? Data(contentsOf: URL(fileURLWithPath: path + ".json"))) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }
    var expected: [String: Any] { sidecar["expected"] as? [String: Any] ?? [:] }
    var ffprobe: [String: Any] { sidecar["ffprobe"] as? [String: Any] ?? [:] }
}

extension Dictionary where Key == String, Value == Any {
    func int(_ key: String) -> Int64? { (self[key] as? NSNumber)?.int64Value }
    func string(_ key: String) -> String? { self[key] as? String }
}

/// CRC-32 (IEEE 802.3, as zlib computes it).
func crc32(_ bytes: [UInt8]) -> UInt32 {
    var table = [UInt32](repeating: 0, count: 256)
    for index in 0..<256 {
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        table[index] = value
    }
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    return crc ^ 0xFFFF_FFFF
}

/// One stream event, flattened to single packets so that any chunking yields the same list.
enum RecordedEvent: Hashable, CustomStringConvertible {
    case property(StreamPropertyID)
    case packet(offset: Int64, size: Int, frames: UInt32)

    var description: String {
        switch self {
        case .property(let id): "property \(id)"
        case .packet(let offset, let size, let frames): "packet @\(offset) \(size) bytes \(frames) frames"
        }
    }
}

/// The result of streaming bytes through an `AudioFileStream`.
struct StreamRecording {
    var events: [RecordedEvent] = []
    var payload: [UInt8] = []
    var properties = StreamProperties()
    var error: AudioFileError?
    var seekRequests: [Int64] = []
}

/// Feeds `bytes` to a fresh stream parser in chunks of the given sizes (cycled), then finishes. With
/// `answeringSeeks`, the feeder honours the parser's seek requests as a client with range requests would
/// (each one is recorded as a `seekRequests` entry).
func record(
    _ bytes: [UInt8], chunkSizes: [Int], hint: FileType? = nil, limits: ParserLimits = ParserLimits(),
    answeringSeeks: Bool = false
) -> StreamRecording {
    var recording = StreamRecording()
    var stream = AudioFileStream(fileTypeHint: hint, limits: limits, requestsSeeks: answeringSeeks)
    var seek: Int64?
    let handler: (AudioFileStream.Event) -> Void = { event in
        switch event {
        case .propertyChanged(let id, _):
            recording.events.append(.property(id))
        case .packets(let packets):
            recording.payload.append(contentsOf: packets.bytes)
            if let descriptions = packets.descriptions {
                #expect(descriptions.count == packets.count)
                for description in descriptions {
                    recording.events.append(
                        .packet(
                            offset: packets.streamOffset + description.startOffset,
                            size: Int(description.dataByteSize), frames: description.variableFramesInPacket))
                }
            } else {
                let size = packets.bytes.count / max(packets.count, 1)
                #expect(size * packets.count == packets.bytes.count)
                for index in 0..<packets.count {
                    recording.events.append(
                        .packet(
                            offset: packets.streamOffset + Int64(index * size), size: size,
                            frames: 0))
                }
            }
        case .seekRequested(let offset):
            recording.seekRequests.append(offset)
            seek = offset
        }
    }
    do {
        var index = 0
        var turn = 0
        var flags: AudioFileStream.ParseFlags = []
        while index < bytes.count {
            let size = min(chunkSizes[turn % chunkSizes.count], bytes.count - index)
            turn += 1
            try bytes[index..<index + size].withUnsafeBytes { try stream.parse($0, flags: flags, handler) }
            flags = []
            index += size
            if let target = seek {
                #expect(recording.seekRequests.count < 8, "the parser keeps asking for seeks")
                guard recording.seekRequests.count < 8 else { break }
                index = Int(target)
                flags = .discontinuity
                seek = nil
            }
        }
        try stream.finish(handler)
    } catch let error as AudioFileError {
        recording.error = error
    } catch {
        Issue.record("unexpected error type: \(error)")
    }
    recording.properties = stream.properties
    return recording
}

/// A small deterministic generator for seeded random splits.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Finds a top-level chunk's header offset by a plain walk (independent of the parser under test).
func findChunk(_ bytes: [UInt8], _ id: String, big: Bool, sizeWidth: Int = 4, start: Int, pad: Bool = true) -> Int? {
    let target = Array(id.utf8)
    var offset = start
    while offset + 4 + sizeWidth <= bytes.count {
        if Array(bytes[offset..<offset + 4]) == target { return offset }
        var size: UInt64 = 0
        for index in 0..<sizeWidth {
            let byte = UInt64(bytes[offset + 4 + index])
            size |= big ? byte << UInt64(8 * (sizeWidth - 1 - index)) : byte << UInt64(8 * index)
        }
        guard size < UInt64(bytes.count) else { return nil }
        offset += 4 + sizeWidth + Int(size) + (pad && size % 2 == 1 ? 1 : 0)
    }
    return nil
}

extension Array where Element == UInt8 {
    mutating func put<T: FixedWidthInteger>(_ value: T, at offset: Int, big: Bool) {
        let ordered = big ? value.bigEndian : value.littleEndian
        Swift.withUnsafeBytes(of: ordered) { raw in
            for (index, byte) in raw.enumerated() { self[offset + index] = byte }
        }
    }
}

extension StreamRecording {
    /// The packets recorded: offset and size of each.
    var packetList: [(offset: Int64, size: Int)] {
        events.compactMap {
            if case .packet(let offset, let size, _) = $0 { return (offset, size) }
            return nil
        }
    }
}

/// The packets `ffprobe -show_entries packet=size,pos -of csv=p=0` listed (size, then position; lines
/// without a position, such as an attached picture's, left out) in a committed file.
func ffprobePackets(_ relativePath: String) throws -> [(offset: Int64, size: Int)] {
    let text = try String(contentsOfFile: Fixture.named(relativePath).path, encoding: .utf8)
    return text.split(separator: "\n").compactMap { line in
        let fields = line.split(separator: ",")
        guard fields.count >= 2, let size = Int(fields[0]), let offset = Int64(fields[1]) else { return nil }
        return (offset, size)
    }
}
