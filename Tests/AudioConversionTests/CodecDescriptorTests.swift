import AudioCodecs
import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import Foundation
import Testing

/// One truth for every codec: each codec the registry decodes or encodes is described once (its name, whether
/// it loses anything, the options it takes, the depths it stores), and the plan, the encoders and the messages
/// ask the description.
@Suite struct CodecDescriptorTests {
    @Test func everyRegisteredCodecIsDescribed() {
        let registry = AudioCodecRegistry.standard
        let undescribed = registry.decodedFormats.union(registry.encodedFormats).filter {
            registry.descriptor(for: $0) == nil
        }
        #expect(undescribed.isEmpty, "no descriptor for \(undescribed.map(\.description).sorted())")
        #expect(Set(CodecDescriptor.all.map(\.formatID)).count == CodecDescriptor.all.count, "a codec described twice")
        // The encoders' options: what `-b`, `-q` and `-s` are said to apply to.
        #expect(registry.encodedCodecs(taking: .bitRate) == ["AAC", "MP3", "Opus", "Vorbis"])
        #expect(registry.encodedCodecs(taking: .quality) == ["AAC", "MP3", "FLAC", "Opus", "Vorbis"])
        #expect(registry.encodedCodecs(taking: .strategy) == ["AAC", "MP3", "Opus", "Vorbis"])
    }

    /// Lossless codecs of integers store a source at the least depth they hold that keeps it: FLAC 4 to 24
    /// bits, Apple Lossless 16, 20, 24 or 32; floating point at 24. Lossy codecs store no depth.
    @Test func storedDepths() {
        let flac = CodecDescriptor.flac
        let alac = CodecDescriptor.appleLossless
        let cases: [(CodecDescriptor, Int?, Bool, Int?)] = [
            (flac, 3, false, 4), (flac, 16, false, 16), (flac, 20, false, 20), (flac, 32, false, 24),
            (flac, nil, false, 16), (flac, 32, true, 24),
            (alac, 8, false, 16), (alac, 17, false, 20), (alac, 24, false, 24), (alac, 28, false, 32),
            (alac, 32, true, 24),
        ]
        for (codec, bits, isFloat, stored) in cases {
            #expect(
                codec.storedDepth(forSourceBits: bits, isFloat: isFloat) == stored,
                "\(codec.name) of \(String(describing: bits)) bits\(isFloat ? ", float" : "")")
        }
        #expect(CodecDescriptor.of(.aac)?.storedDepth(forSourceBits: 24, isFloat: false) == nil)
        #expect(CodecDescriptor.isLossless(.flac) && CodecDescriptor.isLossless(.lpcm))
        #expect(!CodecDescriptor.isLossless(.opus) && !CodecDescriptor.isLossless("zzzz"))
    }

    /// An option the output's codec does not take is said, naming the codecs that take it.
    @Test func anOptionTheCodecDoesNotTakeIsSaid() throws {
        let folder = try Folder()
        var conversion = settings("flac")
        conversion.bitRate = 128_000
        conversion.strategy = .constant
        let result = try AudioConverter.convert(
            input: fixtures + "/signals/music.wav", output: folder.path + "/a.flac", settings: conversion)
        #expect(
            result.notes.contains("-b applies to AAC, MP3, Opus and Vorbis; the output is FLAC ('flac'): not used"),
            "\(result.notes)")
        #expect(
            result.notes.contains("-s applies to AAC, MP3, Opus and Vorbis; the output is FLAC ('flac'): not used"),
            "\(result.notes)")
        #expect(!result.notes.contains { $0.hasPrefix("-q") })
    }

    /// An encoder's limits are checked where the registry makes it, once, for every caller: a library user
    /// gets ``EncoderSettingsError``, the converter a usage error before anything is written.
    @Test func limitsAreCheckedWhereTheEncoderIsMade() throws {
        let registry = AudioCodecRegistry.standard
        let source = StreamDescription.linearPCM(sampleRate: 44100, channels: 2, bitsPerChannel: 16)
        var aac = EncoderSettings(
            format: StreamDescription(
                sampleRate: 44100, formatID: .aac, bytesPerPacket: 0, framesPerPacket: 1024, bytesPerFrame: 0,
                channelsPerFrame: 2, bitsPerChannel: 0), sourceFormat: source)
        aac.bitRate = 2_000_000
        #expect {
            _ = try registry.encoder(aac)
        } throws: { error in
            "\(error)".contains("-b 2000000: AAC at 44100 Hz with 2 channels takes 16000 to")
                && error is EncoderSettingsError
        }
        aac.bitRate = nil
        aac.quality = 200
        #expect(throws: EncoderSettingsError.self) { _ = try registry.encoder(aac) }
        var opus = aac
        opus.quality = nil
        opus.format.formatID = .opus
        opus.format.framesPerPacket = 960
        #expect {
            _ = try registry.encoder(opus)
        } throws: { error in
            "\(error)".contains("Opus cannot hold 44100 Hz; it holds 48000 Hz")
        }

        let folder = try Folder()
        var conversion = settings(".mp3")
        conversion.bitRate = 500_000
        let output = folder.path + "/a.mp3"
        #expect {
            try AudioConverter.convert(input: fixtures + "/signals/music.wav", output: output, settings: conversion)
        } throws: { error in
            error is ConversionUsageError
                && "\(error)".contains("-b 500000: MP3 at 22050 Hz with 1 channel takes 8000 to 160000")
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
