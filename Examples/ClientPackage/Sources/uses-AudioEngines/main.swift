import AudioCodecs
import AudioEngines

// The field's engines registered: AudioEngines alone.
print("AudioEngines:", AudioCodecRegistry.standard.canDecode(.aac), AudioCodecRegistry.standard.hasEngines)
