#if canImport(AudioToolbox)
    import AudioToolbox
#else
    import AudioToolboxCompat
#endif
import Foundation

// A file opened in AudioToolbox's C style.
let path = CommandLine.arguments.dropFirst().first ?? ""
var fileID: AudioFileID?
let status = AudioFileOpenURL(URL(fileURLWithPath: path) as CFURL, .readPermission, 0, &fileID)
print("AudioToolboxCompat:", status)
if let fileID { AudioFileClose(fileID) }
