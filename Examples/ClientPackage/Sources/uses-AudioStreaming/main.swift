import AudioStreaming

// An HTTP stream made (not fetched): AudioStreaming alone.
print("AudioStreaming:", String(describing: HTTPAudioStream.self))
