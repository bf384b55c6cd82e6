import AudioFormats
import StreamParsing

extension AU {
    /// The encoding code of a format, or `nil` where AU has none: big-endian signed integers of 1 to 4 bytes (an
    /// 8-bit sample signed, in either byte order), big-endian floats and doubles, u-law and A-law.
    static func encoding(for format: StreamDescription) -> UInt32? {
        let flags = format.formatFlags
        switch format.formatID {
        case .ulaw: return 1
        case .alaw: return 27
        case .lpcm:
            let channels = max(format.channelsPerFrame, 1)
            let width = format.bytesPerFrame / channels
            guard format.bytesPerFrame == width * channels else { return nil }
            if flags.contains(.isFloat) {
                guard flags.contains(.isBigEndian) else { return nil }
                return width == 4 ? 6 : width == 8 ? 7 : nil
            }
            // Samples that fill their bytes, or that stand at the top of them (20 bits in 3 bytes).
            guard (1...4).contains(width), flags.contains(.isSignedInteger),
                flags.contains(.isBigEndian) || width == 1,
                format.bitsPerChannel == width * 8 || flags.contains(.isAlignedHigh)
            else { return nil }
            return width + 1
        default: return nil
        }
    }

    /// The annotation's `Key=value` lines, as FFmpeg writes and reads them, for afkit's tag names.
    static let annotatedTags = [
        ("title", "Title"), ("artist", "Artist"), ("album", "Album"), ("track number", "Track"), ("genre", "Genre"),
    ]

    /// Header of an AU file: `.snd`, the data's offset, its size (0xFFFFFFFF while the file is open, or where it
    /// passes 32 bits), the encoding, the rate, the channels, then the annotation (the tags as FFmpeg writes them,
    /// NUL-padded to a multiple of 8 bytes, at least 8). Nothing follows the samples.
    package static func layout(format: StreamDescription, options: AudioFileWriterOptions, counts: WrittenCounts)
        throws -> ContainerLayout
    {
        guard let encoding = encoding(for: format) else {
            throw AudioFileError.unsupportedDataFormat(
                "au: AU holds big-endian linear PCM (8-bit signed), floats, u-law and A-law, not \(format.summary)",
                offset: nil)
        }
        let channels = format.channelsPerFrame
        guard format.sampleRate == format.sampleRate.rounded(), format.sampleRate >= 1,
            format.sampleRate <= Double(UInt32.max), channels > 0, channels <= 1024
        else {
            throw AudioFileError.unsupportedDataFormat(
                "au: an AU file needs a whole sample rate and 1 to 1024 channels, not \(format.summary)", offset: nil)
        }
        let lines = annotatedTags.compactMap { key, name in
            options.metadata[key].map { "\(name)=" + String($0.map { $0 == "\n" ? " " : $0 }) }
        }
        var annotation = Array(lines.joined(separator: "\n").utf8)
        // At least one NUL ends the text; the data starts on an 8-byte boundary.
        annotation += [UInt8](repeating: 0, count: 8 - annotation.count % 8)
        let size =
            counts.isProvisional || counts.dataByteCount >= Int64(UInt32.max)
            ? UInt32.max : UInt32(counts.dataByteCount)
        var header: [UInt8] = []
        header.appendFourCharCode(".snd")
        for field in [UInt32(24 + annotation.count), size, encoding, UInt32(format.sampleRate), channels] {
            header.appendInteger(field, endianness: .big)
        }
        header += annotation
        return ContainerLayout(header: header, trailer: [])
    }
}
