import AudioCodecs
import AudioFormats

// IMA4 encoded and decoded: AudioCodecs alone.
var encoder = AppleIMA4Encoder(format: .appleIMA4(sampleRate: 8000, channels: 1), quality: .fast)
var bytes: [UInt8] = []
let samples = (0..<640).map { Float(($0 % 40) - 20) / 40 }
_ = try samples.withUnsafeBufferPointer { try encoder.encode($0, into: &bytes) }
print("AudioCodecs:", bytes.count, "bytes of IMA4")
