import AudioContainers

// A file parsed: AudioContainers alone, which links no codec library.
let path = CommandLine.arguments.dropFirst().first ?? ""
let file = try AudioFile(path: path)
print("AudioContainers:", file.packetCount, "packets of", file.dataFormat.summary)
