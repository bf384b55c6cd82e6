// What a Swift program does with afkit's products, checked as it runs (`make prove-client`): the library
// validator finds a quiet MP3 too quiet; ExtendedAudioFile reads AAC as 16-bit mono at 22.05 kHz as FFmpeg
// does, and seeks to a frame in AAC, MP3, Opus and FLAC and reads what FFmpeg decodes there (exactly, for
// FLAC). Its argument: the folder of Tests/Fixtures/library.
import AudioFileKit
import Foundation

let folder = CommandLine.arguments.dropFirst().first ?? "Tests/Fixtures/library"
var failures = 0

@MainActor func check(_ condition: Bool, _ what: String) {
    print((condition ? "ok      " : "FAILED  ") + what)
    if !condition { failures += 1 }
}

func int16(_ path: String) throws -> [Int16] {
    try Data(contentsOf: URL(fileURLWithPath: path)).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}

func snr(_ reference: [Int16], _ measured: [Int16]) -> Double {
    var signal = 0.0
    var noise = 0.0
    for index in 0..<min(reference.count, measured.count) {
        signal += Double(reference[index]) * Double(reference[index])
        noise += pow(Double(reference[index]) - Double(measured[index]), 2)
    }
    return noise == 0 ? .infinity : 10 * log10(signal / noise)
}

func int16Format(_ rate: Double, _ channels: UInt32) -> StreamDescription {
    .linearPCM(sampleRate: rate, channels: channels, bitsPerChannel: 16)
}

// The validator made with every engine finds the loudness; the bare one says what it could not check.
let quiet = folder + "/quiet-speech.mp3"
let standard = AssetValidator(standard: .music).validate(path: quiet)
check(
    standard.violations.contains { $0.rule == "loudness" }, "AssetValidator(standard:) finds the quiet MP3's loudness")
let bare = AssetValidator(profile: .music).validate(path: quiet)
check(bare.unchecked.contains { $0.rule == "loudness" }, "AssetValidator(profile:) lists loudness as not checked")

// AAC read as 16-bit mono at 22.05 kHz.
let aac = try ExtendedAudioFile(readingPath: folder + "/stereo.m4a")
try aac.setClientDataFormat(int16Format(22050, 1))
var bytes: [UInt8] = []
var mono: [UInt8] = []
while try aac.read(maximumFrames: 4096, into: &bytes) > 0 { mono += bytes }
let ours = mono.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
let reference = try int16(folder + "/stereo.m4a.mono22k.s16")
check(
    ours.count == 33075 && snr(reference, ours) > 25,
    "AAC as 16-bit mono 22.05 kHz: \(snr(reference, ours)) dB from FFmpeg's")

// Seeks to frame 30000.
for name in ["stereo.m4a", "stereo.mp3", "stereo.opus", "stereo.flac"] {
    let file = try ExtendedAudioFile(readingPath: folder + "/" + name)
    try file.setClientDataFormat(int16Format(file.fileDataFormat.sampleRate, 2))
    try file.seek(toFrame: 30000)
    var read: [UInt8] = []
    while read.count < 4096 * 4, try file.read(maximumFrames: 4096 - read.count / 4, into: &bytes) > 0 { read += bytes }
    let samples = read.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    let expected = try int16(folder + "/" + name + ".at30000.s16")
    if name.hasSuffix(".flac") {
        check(samples == expected, "\(name): frame 30000 on, exactly FFmpeg's")
    } else {
        check(
            samples.count == expected.count && snr(expected, samples) > 30,
            "\(name): frame 30000 on, \(snr(expected, samples)) dB from FFmpeg's")
    }
}
exit(failures == 0 ? 0 : 1)
