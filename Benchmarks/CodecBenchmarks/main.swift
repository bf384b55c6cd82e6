// In-process codec throughput for `make bench`: prints one JSON object per measurement.
// Usage: afkit-codec-benchmarks IMA4.caf SOURCE.wav SEARCH_SECONDS
import AudioCodecs
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import CSoxr
import Foundation

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
    print(
        "{\"name\": \"\(name)\", \"samples\": \(samples), \"seconds\": \(seconds), \"samplesPerSecond\": \(Double(samples) / seconds)\(extra)}"
    )
}

let arguments = CommandLine.arguments

/// `decoders FILE...`: each compressed file's packets decoded by afkit's engine for the format and by
/// libavcodec's, one JSON line per engine and file (speed), then both over every file in the folders
/// given after `--corpus` (robustness: packets decoded, packets refused).
if arguments.count >= 3 && arguments[1] == "decoders" {
    let split = arguments.firstIndex(of: "--corpus") ?? arguments.count
    func engines(_ file: AudioFile) throws -> [(String, () throws -> any AudioDecoder)] {
        let format = file.dataFormat
        let cookie = file.properties.magicCookie
        switch format.formatID {
        case .aac:
            let config = cookie.flatMap(AudioSpecificConfig.audioSpecificConfig(inCookie:))
            return [
                ("libfaad2", { try FAADDecoder(format: format, magicCookie: cookie ?? []) }),
                (
                    "libavcodec aac",
                    {
                        try LibavcodecDecoder(
                            codec: "aac", format: format, extradata: config,
                            maximumFramesPerPacket: 2048)
                    }
                ),
            ]
        case .mpegLayer3, .mpegLayer2, .mpegLayer1:
            return [
                ("libmp3lame hip", { try MP3Decoder(format: format) }),
                (
                    "libavcodec mp3float",
                    {
                        try LibavcodecDecoder(
                            codec: format.formatID == .mpegLayer3 ? "mp3float" : "mp2float",
                            format: format, extradata: nil, maximumFramesPerPacket: 1152)
                    }
                ),
            ]
        default: return []
        }
    }
    func decodeAll(_ file: AudioFile, _ make: () throws -> any AudioDecoder) throws -> (frames: Int, refused: Int) {
        var decoder = try make()
        var output: [Float] = []
        var frames = 0
        var refused = 0
        var next: Int64 = 0
        while next < file.packetCount {
            let (bytes, descriptions) = try file.readPackets(from: next, count: 256)
            if descriptions.isEmpty { break }
            output.removeAll(keepingCapacity: true)
            do {
                frames += try bytes.withUnsafeBytes { raw in
                    try descriptions.withUnsafeBufferPointer {
                        try decoder.decode(raw, packetCount: descriptions.count, descriptions: $0, appendingTo: &output)
                    }
                }
            } catch {
                // Decode the run packet by packet to count the ones refused.
                for (index, description) in descriptions.enumerated() {
                    output.removeAll(keepingCapacity: true)
                    var single = description
                    do {
                        frames += try bytes.withUnsafeBytes { raw in
                            try withUnsafePointer(to: &single) {
                                try decoder.decode(
                                    raw, packetCount: 1, descriptions: UnsafeBufferPointer(start: $0, count: 1),
                                    appendingTo: &output)
                            }
                        }
                    } catch { refused += 1 }
                    _ = index
                }
            }
            next += Int64(descriptions.count)
        }
        return (frames, refused)
    }
    if arguments[2] == "--compare" {
        // The two engines' first frames of one file, as JSON arrays, to check their alignment.
        let file = try AudioFile(path: arguments[3])
        for (engine, make) in try engines(file) {
            var decoder = try make()
            var output: [Float] = []
            let (bytes, descriptions) = try file.readPackets(from: 0, count: 8)
            _ = try bytes.withUnsafeBytes { raw in
                try descriptions.withUnsafeBufferPointer {
                    try decoder.decode(raw, packetCount: descriptions.count, descriptions: $0, appendingTo: &output)
                }
            }
            print("{\"engine\": \"\(engine)\", \"samples\": \(output)}")
        }
        exit(0)
    }
    for path in arguments[2..<split] {
        let file = try AudioFile(path: path)
        for (engine, make) in try engines(file) {
            var result = (frames: 0, refused: 0)
            let seconds = try measure { result = try decodeAll(file, make) }
            report(
                "decode \(file.dataFormat.formatID) \(engine)",
                samples: result.frames * Int(file.dataFormat.channelsPerFrame),
                seconds: seconds, extra: ", \"refused\": \(result.refused)")
        }
    }
    if split < arguments.count {
        var tally: [String: (files: Int, failed: Int, refused: Int)] = [:]
        for folder in arguments[(split + 1)...] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                guard let file = try? AudioFile(path: folder + "/" + name), let choices = try? engines(file) else {
                    continue
                }
                for (engine, make) in choices {
                    var entry = tally[engine] ?? (0, 0, 0)
                    entry.files += 1
                    if let result = try? decodeAll(file, make) {
                        entry.refused += result.refused
                    } else {
                        entry.failed += 1
                    }
                    tally[engine] = entry
                }
            }
        }
        for (engine, entry) in tally.sorted(by: { $0.key < $1.key }) {
            print(
                "{\"name\": \"robustness \(engine)\", \"files\": \(entry.files), \"failed\": \(entry.failed), \"refusedPackets\": \(entry.refused)}"
            )
        }
    }
    exit(0)
}

/// `encode IN.wav OUT.caf [fast|search]`: IMA4 in CAF with the remainder in 'pakt' (for fixtures).
/// `parse FILE...`: each file, held in memory, through `AudioFileStream` in 4 KiB chunks (every packet
/// handed out, moov-last MP4 answered by its seek request), beside a `memchr` scan of the same bytes for a
/// byte they do not hold: the memory-speed ceiling. One JSON line per file, bytes per second.
if arguments.count >= 3 && arguments[1] == "parse" {
    for path in arguments.dropFirst(2) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var packets: Int64 = 0
        var runs = 0
        let parse = try measure(runs: 5) {
            var stream = AudioFileStream(requestsSeeks: true)
            packets = 0
            runs = 0
            try bytes.withUnsafeBytes { all in
                var offset = 0
                var jumped = false
                while offset < all.count {
                    let end = min(offset + 4096, all.count)
                    var seek: Int64?
                    try stream.parse(
                        UnsafeRawBufferPointer(rebasing: all[offset..<end]), flags: jumped ? .discontinuity : [],
                        streamOffset: jumped ? Int64(offset) : nil
                    ) { event in
                        switch event {
                        case .packets(let run):
                            packets += Int64(run.count)
                            runs += 1
                        case .seekRequested(let target): seek = target
                        default: break
                        }
                    }
                    // A moov-last MP4 asks for the bytes after mdat, then for the first packet again.
                    jumped = seek != nil
                    offset = seek.map { Int($0) } ?? end
                }
            }
            try stream.finish()
        }
        // The ceiling: memchr through every byte for the file's rarest byte value, counting each.
        var histogram = [Int](repeating: 0, count: 256)
        for byte in bytes { histogram[Int(byte)] += 1 }
        let rarest = Int32(histogram.indices.min { histogram[$0] < histogram[$1] } ?? 0)
        var found = 0
        let scan = measure(runs: 5) {
            bytes.withUnsafeBytes { all in
                found = 0
                guard var cursor = all.baseAddress else { return }
                var left = all.count
                while left > 0, let hit = memchr(cursor, rarest, left) {
                    found += 1
                    let passed = cursor.distance(to: UnsafeRawPointer(hit)) + 1
                    cursor += passed
                    left -= passed
                }
            }
        }
        print(
            "{\"name\": \"parse\", \"file\": \"\(path)\", \"bytes\": \(bytes.count), \"packets\": \(packets), \"runs\": \(runs), "
                + "\"parseBytesPerSecond\": \(Double(bytes.count) / parse), \"memchrBytesPerSecond\": \(Double(bytes.count) / scan), "
                + "\"memchrFound\": \(found)}")
    }
    exit(0)
}

if arguments.count >= 4 && arguments[1] == "encode" {
    let source = try AudioFile(path: arguments[2])
    let pcm = try source.readAudioBytes()
    let samples: [Int16] = pcm.withUnsafeBytes { raw in
        (0..<pcm.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
    }
    var encoder = AppleIMA4Encoder(
        format: source.dataFormat, quality: arguments.count > 4 && arguments[4] == "fast" ? .fast : .best)
    var packets: [UInt8] = []
    _ = samples.withUnsafeBufferPointer { encoder.encode(int16: $0, into: &packets) }
    let (_, remainder) = try encoder.finish(into: &packets)
    let writer = try AudioFileWriter(path: arguments[3], fileType: .caf, format: encoder.destinationFormat)
    try writer.writePackets(packets)
    let frames = Int64(packets.count / Int(encoder.destinationFormat.bytesPerPacket)) * 64
    try writer.close(
        packetTableInfo: PacketTableInfo(
            validFrames: frames - Int64(remainder), primingFrames: 0,
            remainderFrames: Int32(remainder)))
    exit(0)
}

if arguments.count >= 3 && arguments[1] == "converge" {
    for name in ["speech", "music", "noise"] {
        let file = try AudioFile(path: arguments[2] + "/\(name).wav")
        let bytes = try file.readAudioBytes()
        let input: [Int16] = bytes.withUnsafeBytes { raw in
            (0..<bytes.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
        func encode(_ from: Int) -> [UInt8] {
            var encoder = AppleIMA4Encoder(format: file.dataFormat, quality: .balanced)
            var packets: [UInt8] = []
            _ = input[(from * 64)...].withUnsafeBufferPointer { encoder.encode(int16: $0, into: &packets) }
            _ = try? encoder.finish(into: &packets)
            return packets
        }
        let whole = encode(0)
        var lags: [Int] = []
        for start in stride(from: 50, to: input.count / 64 - 100, by: 37) {
            let part = encode(start)
            // The first packet from which every packet agrees.
            var agree = part.count / 34
            while agree > 0
                && part[(agree - 1) * 34..<agree * 34] == whole[(start + agree - 1) * 34..<(start + agree) * 34]
            { agree -= 1 }
            lags.append(agree)
        }
        print(name, lags.sorted())
    }
    exit(0)
}

/// `search-speed SIGNALS_DIR WIDTH [RUNS]`: the IMA4 search alone on the test signals, best of RUNS
/// (default 5), in nanoseconds a sample (for perf and for comparing formulations).
if arguments.count >= 4 && arguments[1] == "search-speed", let width = Int(arguments[3]) {
    let runs = arguments.count >= 5 ? Int(arguments[4]) ?? 5 : 5
    for name in ["speech", "music", "noise"] {
        let file = try AudioFile(path: arguments[2] + "/\(name).wav")
        let bytes = try file.readAudioBytes()
        let input: [Int16] = bytes.withUnsafeBytes { raw in
            (0..<bytes.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
        var best = Double.infinity
        for _ in 0..<runs {
            var encoder = AppleIMA4Encoder(format: file.dataFormat, quality: .search(width: width))
            var packets: [UInt8] = []
            packets.reserveCapacity(input.count)
            let clock = ContinuousClock.now
            _ = input.withUnsafeBufferPointer { encoder.encode(int16: $0, into: &packets) }
            _ = try encoder.finish(into: &packets)
            let elapsed = ContinuousClock.now - clock
            best = min(best, Double(elapsed.components.attoseconds) / 1e9 + Double(elapsed.components.seconds) * 1e9)
        }
        print("\(name): \(Int(best / Double(input.count))) ns a sample")
    }
    exit(0)
}

/// `snr SIGNALS_DIR [WIDTH...]`: SNR and segmental SNR of afkit's encoders on the test signals (fast,
/// balanced, best, and searches of the widths given).
if arguments.count >= 3 && arguments[1] == "snr" {
    func samples(_ path: String) throws -> ([Int16], StreamDescription) {
        let file = try AudioFile(path: path)
        let bytes = try file.readAudioBytes()
        return (
            bytes.withUnsafeBytes { raw in
                (0..<bytes.count / 2).map {
                    Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))
                }
            }, file.dataFormat
        )
    }
    func snr(_ reference: [Int16], _ decoded: [Int16], frame: Int?) -> Double {
        var values: [Double] = []
        let length = frame ?? reference.count
        var start = 0
        while start + length <= reference.count {
            var signal = 0.0, noise = 0.0
            for index in start..<start + length {
                let r = Double(reference[index]), e = r - Double(decoded[index])
                signal += r * r
                noise += e * e
            }
            if signal > 0 {
                values.append(frame == nil ? 10 * log10(signal / noise) : min(max(10 * log10(signal / noise), -10), 60))
            }
            start += length
        }
        return values.reduce(0, +) / Double(max(values.count, 1))
    }
    for name in ["speech", "music", "noise"] {
        let (input, format) = try samples(arguments[2] + "/\(name).wav")
        // Further searches to measure: `snr DIR 4 16` adds "ima4 width 4" and "ima4 width 16".
        let widths = arguments.dropFirst(3).compactMap(Int.init).map {
            ("width \($0)", IMAEncodingQuality.search(width: $0))
        }
        for (label, quality) in [("fast", IMAEncodingQuality.fast), ("balanced", .balanced), ("search", .best)] + widths
        {
            var encoder = AppleIMA4Encoder(format: format, quality: quality)
            var packets: [UInt8] = []
            let clock = ContinuousClock.now
            _ = input.withUnsafeBufferPointer { encoder.encode(int16: $0, into: &packets) }
            _ = try encoder.finish(into: &packets)
            let elapsed = ContinuousClock.now - clock
            let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
            var decoder = AppleIMA4Decoder(format: encoder.destinationFormat)
            var decoded: [Int16] = []
            _ = try decoder.decode(packets, packetCount: packets.count / 34, appendingTo: &decoded)
            print(
                "{\"encodeMilliseconds\": \(milliseconds), \"name\": \"ima4 \(label)\", \"signal\": \"\(name)\", \"snr\": \(snr(input, decoded, frame: nil)), \"segmentalSNR\": \(snr(input, decoded, frame: Int(format.sampleRate) / 50))}"
            )

            let wav = IMAADPCMWAVE.format(sampleRate: format.sampleRate, channels: 1)
            var wavEncoder = try IMAADPCMWAVEEncoder(format: wav, quality: quality)
            var blocks: [UInt8] = []
            _ = input.withUnsafeBufferPointer { wavEncoder.encode(int16: $0, into: &blocks) }
            _ = try wavEncoder.finish(into: &blocks)
            for (decoderName, reconstruction) in [
                ("reference decoder", IMA.Reconstruction.shiftAndAdd), ("FFmpeg's decoder", .multiply),
            ] {
                var wavDecoder = try IMAADPCMWAVEDecoder(format: wav, reconstruction: reconstruction)
                var output = [Float]()
                _ = try wavDecoder.decode(
                    blocks, packetCount: blocks.count / Int(wav.bytesPerPacket), appendingTo: &output)
                let decodedWAV = output.map { Int16(($0 * 32768).rounded()) }
                print(
                    "{\"name\": \"wav ima-adpcm \(label), \(decoderName)\", \"signal\": \"\(name)\", \"snr\": \(snr(input, decodedWAV, frame: nil)), \"segmentalSNR\": \(snr(input, decodedWAV, frame: Int(format.sampleRate) / 50))}"
                )
            }
        }
    }
    exit(0)
}

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
        try decoded.withUnsafeMutableBufferPointer {
            try decoder.decode(raw, packetCount: Int(ima4.packetCount), into: $0)
        }
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
for (label, quality, seconds) in [
    ("ima4 encode fast", IMAEncodingQuality.fast, 0.0), ("ima4 encode search", .best, searchSeconds),
] {
    let count =
        seconds > 0
        ? min(samples.count, Int(seconds * source.dataFormat.sampleRate) * Int(sourceChannels)) : samples.count
    var output: [UInt8] = []
    output.reserveCapacity(count)
    let time = measure(runs: seconds > 0 ? 1 : 3) {
        output.removeAll(keepingCapacity: true)
        var encoder = AppleIMA4Encoder(
            format: .appleIMA4(sampleRate: source.dataFormat.sampleRate, channels: sourceChannels),
            quality: quality)
        _ = samples[0..<count].withUnsafeBufferPointer { encoder.encode(int16: $0, into: &output) }
    }
    report(label, samples: count, seconds: time)
}

// Resampling 44.1 → 22.05 kHz stereo at very high quality: afkit's stage (the converter's 8192-frame
// blocks through its soxr wrapper, appending to an array) against libsoxr driven directly with the same
// blocks into a preallocated buffer: what the wrapper costs.
let floats = samples.map { Float($0) * (1 / 32768) }
let resampleFrames = floats.count / 2
var resampled: [Float] = []
resampled.reserveCapacity(resampleFrames + 1024)
let stageTime = try measure {
    resampled.removeAll(keepingCapacity: true)
    let resampler = try SoxrResampler(from: 44100, to: 22050, channels: 2)
    try floats.withUnsafeBufferPointer { buffer in
        var start = 0
        while start < resampleFrames {
            let count = min(8192, resampleFrames - start)
            try resampler.process(
                UnsafeBufferPointer(rebasing: buffer[start * 2..<(start + count) * 2]), frames: count, into: &resampled)
            start += count
        }
    }
    try resampler.finish(into: &resampled)
}
report("resample soxr stage", samples: floats.count, seconds: stageTime)
var direct = [Float](repeating: 0, count: resampleFrames + 8192)
let directTime = measure {
    var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
    var quality = soxr_quality_spec(UInt(SOXR_28_BITQ), 0)
    let handle = soxr_create(44100, 22050, 2, nil, &io, &quality, nil)
    var made = 0
    floats.withUnsafeBufferPointer { input in
        direct.withUnsafeMutableBufferPointer { output in
            guard let inBase = input.baseAddress, let outBase = output.baseAddress else { return }
            var start = 0
            while start < resampleFrames {
                let count = min(8192, resampleFrames - start)
                var used = 0
                var produced = 0
                _ = soxr_process(
                    handle, inBase + start * 2, count, &used, outBase + made * 2, output.count / 2 - made, &produced)
                made += produced
                start += used
            }
            var produced = 0
            var used = 0
            _ = soxr_process(handle, nil, 0, &used, outBase + made * 2, output.count / 2 - made, &produced)
        }
    }
    soxr_delete(handle)
}
report("resample soxr direct", samples: floats.count, seconds: directTime)
