import Foundation
import LoopbackServers
import Testing

/// `afkit waveform` against BBC audiowaveform's published data format (version 2): the header fields, and
/// min/max pairs per point computed here, independently, from the file's stored 16-bit samples.
@Suite struct WaveformCommandTests {
    /// The fixture's frames as 16-bit integers, read from its data as stored.
    static func frames(_ path: String) throws -> [[Int]] {
        try decodedFloats(Command.fixtures + "/" + path, channels: 2).map { $0.map { Int(($0 * 32768).rounded()) } }
    }

    /// Min/max per point of `zoom` frames, the last partial point included.
    static func expected(_ values: [Int], zoom: Int, bits: Int) -> [[Int]] {
        stride(from: 0, to: values.count, by: zoom).map { start in
            let point = values[start..<min(start + zoom, values.count)]
            let pair = [point.min() ?? 0, point.max() ?? 0]
            return bits == 8 ? pair.map { $0 >> 8 } : pair
        }
    }

    @Test func jsonOfTheChannelsMean() throws {
        let folder = try Loopback.temporaryFolder("waveform")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = "wav/pcm-s16-stereo.wav"
        let result = try Command.run(["waveform", source, "-o", folder + "/w.json", "--zoom", "100"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/w.json")))
                as? [String: Any])
        let frames = try Self.frames(source)
        #expect(object["version"] as? Int == 2)
        #expect(object["channels"] as? Int == 1)
        #expect(object["sample_rate"] as? Int == 22050)
        #expect(object["samples_per_pixel"] as? Int == 100)
        #expect(object["bits"] as? Int == 16)
        #expect(object["length"] as? Int == (frames.count + 99) / 100)
        let mean = frames.map { Int((Double($0[0] + $0[1]) / 2).rounded()) }
        #expect(object["data"] as? [Int] == Self.expected(mean, zoom: 100, bits: 16).flatMap { $0 })
    }

    @Test func datOfEachChannelAt8Bits() throws {
        let folder = try Loopback.temporaryFolder("waveform")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = "wav/pcm-s16-stereo.wav"
        let result = try Command.run([
            "waveform", source, "-o", folder + "/w.dat", "--pixels-per-second", "441", "--bits", "8",
            "--split-channels",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/w.dat")))
        func int32(_ offset: Int) -> Int {
            Int(
                Int32(
                    bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
                        | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24))
        }
        let frames = try Self.frames(source)
        let zoom = 22050 / 441
        let length = (frames.count + zoom - 1) / zoom
        let header: [Int] = [int32(0), int32(4), int32(8), int32(12), int32(16), int32(20)]
        #expect(header == [2, 1, 22050, zoom, length, 2])
        #expect(bytes.count == 24 + length * 2 * 2)
        let left = Self.expected(frames.map { $0[0] }, zoom: zoom, bits: 8)
        let right = Self.expected(frames.map { $0[1] }, zoom: zoom, bits: 8)
        let values = bytes[24...].map { Int(Int8(bitPattern: $0)) }
        #expect(values == zip(left, right).flatMap { $0 + $1 })
    }

    @Test func picturesAndBadValuesAreUsageErrors() throws {
        for arguments in [
            ["-o", "/tmp/w.png"], ["-o", "/tmp/w.json", "--bits", "12"], ["-o", "/tmp/w.json", "--zoom", "0"],
            ["-o", "/tmp/w.json", "--zoom", "10", "--pixels-per-second", "10"],
        ] {
            let result = try Command.run(["waveform", "wav/pcm-s16-stereo.wav"] + arguments)
            #expect(result.status == 2, "\(arguments)")
        }
    }
}
