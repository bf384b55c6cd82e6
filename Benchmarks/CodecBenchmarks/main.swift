// In-process codec throughput for `make bench`: prints one JSON object per measurement.
// Usage: afkit-codec-benchmarks IMA4.caf SOURCE.wav SEARCH_SECONDS
import AudioCodecs
import AudioContainers
import AudioFormats

#if canImport(Glibc)
import Glibc
#endif

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Best of `runs` timings of `body`.
func measure(runs: Int = 3, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<runs {
        let start = now()
        try body()
        best = min(best, now() - start)
    }
    return best
}

func report(_ name: String, samples: Int, seconds: Double, extra: String = "") {
    print("{\"name\": \"\(name)\", \"samples\": \(samples), \"seconds\": \(seconds), \"samplesPerSecond\": \(Double(samples) / seconds)\(extra)}")
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, let searchSeconds = Double(arguments[3]) else {
    print("usage: afkit-codec-benchmarks IMA4.caf SOURCE.wav SEARCH_SECONDS")
    exit(2)
}

// IMA4 decode of a whole file, packets already in memory.
let ima4 = try AudioFile(path: arguments[1])
let (packets, _) = try ima4.readPackets(from: 0, count: Int(ima4.packetCount))
let channels = Int(ima4.dataFormat.channelsPerFrame)
var decoded = [Int16](repeating: 0, count: Int(ima4.packetCount) * 64 * channels)
let decodeTime = try measure {
    var decoder = AppleIMA4Decoder(format: ima4.dataFormat)
    _ = try packets.withUnsafeBytes { raw in
        try decoded.withUnsafeMutableBufferPointer { try decoder.decode(raw, packetCount: Int(ima4.packetCount), into: $0) }
    }
}
report("ima4 decode", samples: decoded.count, seconds: decodeTime)

// IMA4 encode of the source, fast and search.
let source = try AudioFile(path: arguments[2])
let pcm = try source.readAudioBytes()
let samples: [Int16] = pcm.withUnsafeBytes { raw in
    (0..<pcm.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
}
let sourceChannels = source.dataFormat.channelsPerFrame
for (label, quality, seconds) in [("ima4 encode fast", IMAEncodingQuality.fast, 0.0), ("ima4 encode search", .best, searchSeconds)] {
    let count = seconds > 0 ? min(samples.count, Int(seconds * source.dataFormat.sampleRate) * Int(sourceChannels)) : samples.count
    var output: [UInt8] = []
    output.reserveCapacity(count)
    let time = measure(runs: seconds > 0 ? 1 : 3) {
        output.removeAll(keepingCapacity: true)
        var encoder = AppleIMA4Encoder(format: .appleIMA4(sampleRate: source.dataFormat.sampleRate, channels: sourceChannels),
            quality: quality)
        _ = samples[0..<count].withUnsafeBufferPointer { encoder.encode(int16: $0, into: &output) }
    }
    report(label, samples: count, seconds: time)
}
