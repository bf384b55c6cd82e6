import FileAccess

// A path's parts: FileAccess alone.
print("FileAccess:", pathParts("/tmp/take.wav").extension)
