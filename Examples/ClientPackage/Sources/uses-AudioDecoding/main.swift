import AudioCodecs
import AudioContainers
import AudioDecoding

// A file decoded with afkit's own decoders: AudioDecoding alone.
let path = CommandLine.arguments.dropFirst().first ?? ""
let reader = try SourceReader(path: path, registry: .builtIn)
var samples: [Float] = []
var frames = 0
while case let count = try reader.read(maximum: 4096, into: &samples), count > 0 { frames += count }
print("AudioDecoding:", frames, "frames")
