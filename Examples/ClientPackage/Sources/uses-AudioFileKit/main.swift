import AudioFileKit

// Everything in one import.
let path = CommandLine.arguments.dropFirst().first ?? ""
print("AudioFileKit:", try AudioFile(path: path).packetCount, AudioCodecRegistry.standard.hasEngines)
