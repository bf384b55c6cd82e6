import AudioCodecs
import AudioContainers
import AudioFormats
import Foundation
import Testing

enum CodecFixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// The files FFmpeg decoded, from `codecs/manifest.json`.
    static var decoded: [String] {
        let data = (try? Data(contentsOf: root.appendingPathComponent("codecs/manifest.json"))) ?? Data()
        let entries = (try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]) ?? []
        return entries.compactMap { $0["file"] as? String }
    }

    /// FFmpeg's decode of a fixture, interleaved 16-bit samples.
    static func ffmpegDecode(_ name: String) -> [Int16] {
        let data = (try? Data(contentsOf: root.appendingPathComponent("codecs/\(name).s16le"))) ?? Data()
        return data.withUnsafeBytes { raw in
            (0..<data.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
    }

    /// A test signal's 16-bit samples.
    static func signal(_ name: String) throws -> (samples: [Int16], format: StreamDescription) {
        let file = try AudioFile(path: path("signals/\(name).wav"))
        let bytes = try file.readAudioBytes()
        let samples = bytes.withUnsafeBytes { raw in
            (0..<bytes.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
        return (samples, file.dataFormat)
    }

    /// The committed SNRs of the reference encoders on a signal.
    static func referenceSNR(_ signal: String, _ encoder: String) -> (snr: Double, segmental: Double) {
        let data = (try? Data(contentsOf: root.appendingPathComponent("signals/reference-snr.json"))) ?? Data()
        let all = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        let entry = ((all[signal] as? [String: Any])?["encoders"] as? [String: Any])?[encoder] as? [String: Any]
        return ((entry?["snr"] as? Double) ?? .infinity, (entry?["segmentalSNR"] as? Double) ?? .infinity)
    }
}

/// Decodes a whole file with afkit's decoder for its format, to 16-bit samples.
func decodeToInt16(_ path: String) throws -> [Int16] {
    let file = try AudioFile(path: path)
    let (bytes, _) = try file.readPackets(from: 0, count: Int(file.packetCount))
    let channels = Int(file.dataFormat.channelsPerFrame)
    var output = [Int16](
        repeating: 0, count: Int(file.packetCount) * Int(max(file.dataFormat.framesPerPacket, 1)) * channels)
    let frames = try bytes.withUnsafeBytes { raw in
        try output.withUnsafeMutableBufferPointer { buffer -> Int in
            switch file.dataFormat.formatID {
            case .ima4:
                var decoder = AppleIMA4Decoder(format: file.dataFormat)
                return try decoder.decode(raw, packetCount: Int(file.packetCount), into: buffer)
            case .imaADPCMWAVE:
                var decoder = try IMAADPCMWAVEDecoder(format: file.dataFormat)
                return try decoder.decode(raw, packetCount: Int(file.packetCount), into: buffer)
            default:
                return try G711Decoder(format: file.dataFormat).decode(
                    raw, packetCount: Int(file.packetCount), into: buffer)
            }
        }
    }
    output.removeLast(output.count - frames * channels)
    return output
}

/// Signal-to-noise ratio in dB of `decoded` against `reference`.
func signalToNoise(_ reference: [Int16], _ decoded: [Int16]) -> Double {
    var signal = 0.0
    var noise = 0.0
    for index in 0..<min(reference.count, decoded.count) {
        let r = Double(reference[index])
        let e = r - Double(decoded[index])
        signal += r * r
        noise += e * e
    }
    return noise == 0 ? .infinity : 10 * log10(signal / noise)
}

/// Segmental SNR over frames of `frame` samples, each clamped to -10...60 dB (the usual convention).
func segmentalSignalToNoise(_ reference: [Int16], _ decoded: [Int16], frame: Int) -> Double {
    var values: [Double] = []
    var start = 0
    while start + frame <= min(reference.count, decoded.count) {
        var signal = 0.0
        var noise = 0.0
        for index in start..<start + frame {
            let r = Double(reference[index])
            let e = r - Double(decoded[index])
            signal += r * r
            noise += e * e
        }
        if signal > 0 { values.append(min(max(noise == 0 ? 100 : 10 * log10(signal / noise), -10), 60)) }
        start += frame
    }
    return values.reduce(0, +) / Double(max(values.count, 1))
}
