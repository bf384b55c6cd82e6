import AudioContainers
import AudioEngines
import AudioFormats
import Foundation
import Testing

/// AU files afkit writes, read back by libsndfile in-process: every encoding AU holds, its header's sizes and its
/// annotation, and the formats it refuses.
@Suite struct AUWriterTests {
    /// A scratch path that is removed when `body` returns.
    private func withScratchAU(_ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("afkit-au-\(UUID().uuidString).au")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    /// Big-endian bytes of integers `width` bytes wide.
    private func bigEndian(_ values: [Int64], width: Int) -> [UInt8] {
        values.flatMap { value in (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
    }

    /// A stereo ramp of `frames` frames at full scale for `bits`, left rising and right falling.
    private func ramp(bits: Int, frames: Int) -> [Int64] {
        let top = (Int64(1) << (bits - 1)) - 1
        return (0..<frames).flatMap { frame -> [Int64] in
            let value = -top + (2 * top * Int64(frame)) / Int64(frames - 1)
            return [value, -value]
        }
    }

    @Test(arguments: [
        (8, SoundFileFormat.pcmS8), (16, SoundFileFormat.pcm16), (24, SoundFileFormat.pcm24),
        (32, SoundFileFormat.pcm32),
    ])
    func integersReadBackInLibsndfile(bits: Int, subtype: Int32) throws {
        try withScratchAU { path in
            let values = ramp(bits: bits, frames: 1000)
            let format = StreamDescription.linearPCM(
                sampleRate: 44100, channels: 2, bitsPerChannel: UInt32(bits), isBigEndian: true, signed8: true)
            let writer = try AudioFileWriter(path: path, fileType: .au, format: format)
            try writer.writePackets(bigEndian(values, width: bits / 8))
            try writer.close()

            let file = try SoundFile(path: path)
            #expect(file.info.majorFormat == SoundFileFormat.au)
            #expect(file.info.subtype == subtype)
            #expect(file.info.sampleRate == 44100)
            #expect(file.info.channels == 2)
            #expect(file.info.frames == 1000)
            // libsndfile scales every integer to the full 32-bit range.
            #expect(try file.readInt32() == values.map { Int32(truncatingIfNeeded: $0 << (32 - bits)) })
        }
    }

    @Test func floatsAndDoublesReadBackInLibsndfile() throws {
        let samples = (0..<480).map { sin(Double($0) * 2 * .pi * 1000 / 48000) * 0.75 }
        try withScratchAU { path in
            let writer = try AudioFileWriter(
                path: path, fileType: .au,
                format: .linearPCM(sampleRate: 48000, channels: 1, bitsPerChannel: 32, isFloat: true, isBigEndian: true)
            )
            try writer.writePackets(samples.flatMap { withUnsafeBytes(of: Float($0).bitPattern.bigEndian, Array.init) })
            try writer.close()
            let file = try SoundFile(path: path)
            #expect(file.info.majorFormat == SoundFileFormat.au)
            #expect(file.info.subtype == SoundFileFormat.float)
            #expect(try file.readFloat() == samples.map { Float($0) })
        }
        try withScratchAU { path in
            let writer = try AudioFileWriter(
                path: path, fileType: .au,
                format: .linearPCM(sampleRate: 48000, channels: 1, bitsPerChannel: 64, isFloat: true, isBigEndian: true)
            )
            try writer.writePackets(samples.flatMap { withUnsafeBytes(of: $0.bitPattern.bigEndian, Array.init) })
            try writer.close()
            let file = try SoundFile(path: path)
            #expect(file.info.subtype == SoundFileFormat.double)
            #expect(try file.readDouble() == samples)
        }
    }

    /// Every G.711 code, labelled so libsndfile decodes it as the law it is: u-law 0x80 is +32124 and 0xFF is 0;
    /// A-law 0xAA is +32256 and 0xD5 is +8.
    @Test func ulawAndAlawReadBackInLibsndfile() throws {
        let codes = (0...255).map(UInt8.init)
        let laws: [(FourCharCode, Int32, [(code: Int, value: Int32)])] = [
            (.ulaw, SoundFileFormat.ulaw, [(0x80, 32124), (0x00, -32124), (0xFF, 0)]),
            (.alaw, SoundFileFormat.alaw, [(0xAA, 32256), (0x2A, -32256), (0xD5, 8)]),
        ]
        for (formatID, subtype, checks) in laws {
            try withScratchAU { path in
                let format = StreamDescription.g711(formatID, sampleRate: 8000, channels: 1)
                let writer = try AudioFileWriter(path: path, fileType: .au, format: format)
                try writer.writePackets(codes)
                try writer.close()
                let file = try SoundFile(path: path)
                #expect(file.info.majorFormat == SoundFileFormat.au)
                #expect(file.info.subtype == subtype)
                #expect(file.info.frames == 256)
                let decoded = try file.readInt32()
                for (code, value) in checks { #expect(decoded[code] == value << 16) }
            }
        }
    }

    /// The header: `.snd`, the data's offset after an annotation of at least 8 NUL-padded bytes, its final size
    /// (0xFFFFFFFF while the file is open), encoding 3, the rate and the channels; the tags as FFmpeg's
    /// `Key=value` lines.
    @Test func headerSizesAndAnnotation() throws {
        try withScratchAU { path in
            var options = AudioFileWriterOptions()
            options.metadata = ["title": "Sine", "artist": "afkit"]
            let writer = try AudioFileWriter(
                path: path, fileType: .au,
                format: .linearPCM(sampleRate: 22050, channels: 1, bitsPerChannel: 16, isBigEndian: true),
                options: options)
            try writer.writePackets([UInt8](repeating: 0x12, count: 200))
            let open = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(Array(open[8..<12]) == [0xFF, 0xFF, 0xFF, 0xFF])
            try writer.close()
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let annotation = Array("Title=Sine\nArtist=afkit".utf8)
            let offset = 24 + (annotation.count / 8 + 1) * 8
            #expect(
                Array(bytes[0..<24]) == Array(".snd".utf8) + bigEndian([Int64(offset), 200, 3, 22050, 1], width: 4))
            #expect(Array(bytes[24..<24 + annotation.count]) == annotation)
            #expect(bytes[24 + annotation.count..<offset].allSatisfy { $0 == 0 })
            #expect(bytes.count == offset + 200)
            let file = try SoundFile(path: path)
            #expect(file.info.frames == 100)
            #expect(try file.readInt32().allSatisfy { $0 == 0x1212 << 16 })
        }
        try withScratchAU { path in
            let writer = try AudioFileWriter(
                path: path, fileType: .au,
                format: .linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 16, isBigEndian: true))
            try writer.close()
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(
                bytes == Array(".snd".utf8) + bigEndian([32, 0, 3, 8000, 1], width: 4) + [UInt8](repeating: 0, count: 8)
            )
        }
    }

    /// What AU cannot hold is refused before anything is written: little-endian PCM wider than a byte, unsigned
    /// 8-bit samples, little-endian floats, other codecs and rates with a fraction.
    @Test func refusesWhatAUCannotHold() throws {
        let refused: [StreamDescription] = [
            .linearPCM(sampleRate: 44100, channels: 2, bitsPerChannel: 16),
            .linearPCM(sampleRate: 44100, channels: 2, bitsPerChannel: 8),
            .linearPCM(sampleRate: 44100, channels: 2, bitsPerChannel: 32, isFloat: true),
            .appleIMA4(sampleRate: 44100, channels: 2),
            .linearPCM(sampleRate: 44100.5, channels: 2, bitsPerChannel: 16, isBigEndian: true),
        ]
        for format in refused {
            #expect(throws: AudioFileError.self) { try AudioFileWriter.check(format, in: .au, magicCookie: nil) }
        }
        try withScratchAU { path in
            #expect(throws: AudioFileError.self) {
                try AudioFileWriter(
                    path: path, fileType: .au, format: .linearPCM(sampleRate: 44100, channels: 2, bitsPerChannel: 24))
            }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }
}
