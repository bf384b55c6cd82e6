import AudioConversion

// A file read in a client format: AudioConversion alone.
let path = CommandLine.arguments.dropFirst().first ?? ""
let file = try ExtendedAudioFile(readingPath: path)
print("AudioConversion:", file.fileLengthFrames, "frames")
