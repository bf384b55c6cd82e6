import AudioCodecs
import AudioEngines
import AudioFormats
import Testing

/// Every engine's refusal path releases what it made exactly once: a configuration the C library refuses is
/// an error, never a double free (libfaad2 refusing an AAC SSR or xHE-AAC configuration aborted the process).
@Suite struct EngineRefusalTests {
    /// Every two-byte AudioSpecificConfig (object types 0-31, every rate index and channel configuration):
    /// libfaad2 takes it or refuses it, and the process lives either way.
    @Test func everyAudioSpecificConfigLibfaadRefusesIsAnError() throws {
        let format = StreamDescription(
            sampleRate: 44100, formatID: .aac, bytesPerPacket: 0, framesPerPacket: 1024, bytesPerFrame: 0,
            channelsPerFrame: 2, bitsPerChannel: 0)
        var refused = 0
        var taken = 0
        for objectType in 0..<31 {
            for rateIndex in 0..<16 {
                for channels in 0..<8 {
                    let bits = objectType << 11 | rateIndex << 7 | channels << 3
                    let config = [UInt8(bits >> 8), UInt8(bits & 0xFF)]
                    do {
                        _ = try FAADDecoder(format: format, magicCookie: config)
                        taken += 1
                    } catch {
                        refused += 1
                    }
                }
            }
        }
        // SSR (3) and the object types libfaad2 does not decode are among the refused; AAC-LC is taken.
        #expect(refused > 0 && taken > 0)
        let ssr: [UInt8] = [0x1A, 0x10]
        #expect(throws: AudioFileError.self) {
            _ = try FAADDecoder(format: format, magicCookie: ssr)
        }
        // xHE-AAC (object type 42, escaped).
        #expect(throws: AudioFileError.self) {
            _ = try FAADDecoder(format: format, magicCookie: [0xF9, 0x46, 0x10, 0x00])
        }
    }

    /// libsamplerate refuses a ratio past 256: an error, the converter's state never freed twice.
    @Test func aResampleRatioLibsamplerateRefusesIsAnError() {
        for (input, output) in [(8000.0, 8_000_000.0), (8_000_000.0, 8000.0)] {
            #expect(throws: AudioFileError.self) {
                _ = try SampleRateResampler(from: input, to: output, channels: 2)
            }
        }
        #expect((try? SampleRateResampler(from: 48000, to: 44100, channels: 2)) != nil)
    }
}

/// Magic cookies as real writers wrap them are read as Apple's decoder reads them.
@Suite struct CookieWrappingTests {
    static let config: [UInt8] = [
        0, 0, 16, 0, 0, 16, 40, 10, 14, 2, 0, 255, 0, 0, 64, 4, 0, 21, 136, 128, 0, 0, 172, 68,
    ]

    /// FFmpeg's CAF cookie (a `frma` atom holding the tag `alac`, then the `alac` atom), libavcodec's extradata,
    /// a QuickTime `wave` atom, and the bare config all give the same ALACSpecificConfig.
    @Test func appleLosslessConfigInEveryWrapping() {
        let atom = AppleLossless.atom(Self.config)
        let frma: [UInt8] = [0, 0, 0, 12] + Array("frmaalac".utf8)
        let terminator: [UInt8] = [0, 0, 0, 8, 0, 0, 0, 0]
        let wave =
            [0, 0, 0, UInt8(8 + frma.count + atom.count + terminator.count)] + Array("wave".utf8) + frma + atom
            + terminator
        for cookie in [Self.config, atom, frma + atom, frma + atom + terminator, wave] {
            #expect(AppleLossless.specificConfig(inCookie: cookie) == Self.config, "\(cookie)")
        }
        for cookie in [frma, Array(atom.prefix(30)), [0, 0, 0, 0] + atom] {
            #expect(AppleLossless.specificConfig(inCookie: cookie) == nil, "\(cookie)")
        }
    }
}
