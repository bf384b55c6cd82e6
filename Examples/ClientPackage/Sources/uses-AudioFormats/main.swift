import AudioFormats

// A format described and its length in seconds: AudioFormats alone.
let format = StreamDescription.linearPCM(sampleRate: 44100, channels: 2, bitsPerChannel: 16)
print("AudioFormats:", format.summary, formatSampleRate(48000.5))
