import AudioCodecs
import AudioContainers
import AudioConversion
import AudioFormats
import Testing

/// Encodes a signal to IMA4 and decodes it with afkit's decoder (bit-exact with FFmpeg's).
func ima4RoundTrip(_ samples: [Int16], channels: UInt32, quality: IMAEncodingQuality) throws
    -> (decoded: [Int16], packets: [UInt8], remainder: Int)
{
    var encoder = AppleIMA4Encoder(format: .appleIMA4(sampleRate: 22050, channels: channels), quality: quality)
    var packets: [UInt8] = []
    // Uneven pieces, to prove partial packets carry over between calls.
    var index = 0
    var piece = 1
    while index < samples.count {
        let end = min(samples.count, index + piece * Int(channels))
        _ = samples[index..<end].withUnsafeBufferPointer { encoder.encode(int16: $0, into: &packets) }
        index = end
        piece = piece * 3 % 997 + 1
    }
    let (_, remainder) = try encoder.finish(into: &packets)
    var decoder = AppleIMA4Decoder(format: encoder.destinationFormat)
    var decoded: [Int16] = []
    _ = try decoder.decode(packets, packetCount: packets.count / (34 * Int(channels)), appendingTo: &decoded)
    return (decoded, packets, remainder)
}

@Suite struct AppleIMA4EncoderTests {
    static let signals = ["speech", "music", "noise"]

    @Test(arguments: signals)
    func searchBeatsFFmpegTrellisAndSoX(_ name: String) throws {
        let (samples, _) = try CodecFixtures.signal(name)
        let (decoded, _, remainder) = try ima4RoundTrip(samples, channels: 1, quality: .best)
        // Gapless: the padding is exactly what the remainder says.
        #expect(decoded.count - remainder == samples.count)
        let snr = signalToNoise(samples, decoded)
        let segmental = segmentalSignalToNoise(samples, decoded, frame: 441)
        let trellis = CodecFixtures.referenceSNR(name, "ffmpeg adpcm_ima_qt -trellis 8")
        let sox = CodecFixtures.referenceSNR(name, "sox ima-adpcm")
        let plain = CodecFixtures.referenceSNR(name, "ffmpeg adpcm_ima_qt")
        print("ima4 search \(name): SNR \(snr) dB, segmental \(segmental) dB (FFmpeg trellis \(trellis.snr), SoX \(sox.snr), FFmpeg \(plain.snr))")
        #expect(snr > trellis.snr)
        #expect(snr > sox.snr)
        #expect(snr > plain.snr)
        #expect(segmental > trellis.segmental)
    }

    @Test(arguments: signals)
    func fastBeatsFFmpegsDefault(_ name: String) throws {
        let (samples, _) = try CodecFixtures.signal(name)
        let (decoded, _, remainder) = try ima4RoundTrip(samples, channels: 1, quality: .fast)
        #expect(decoded.count - remainder == samples.count)
        let snr = signalToNoise(samples, decoded)
        let plain = CodecFixtures.referenceSNR(name, "ffmpeg adpcm_ima_qt")
        print("ima4 fast \(name): SNR \(snr) dB (FFmpeg default \(plain.snr))")
        #expect(snr >= plain.snr - 0.5)
    }
}
