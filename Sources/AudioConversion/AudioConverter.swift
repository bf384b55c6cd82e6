import AudioCodecs
import AudioContainers
import AudioFormats

/// How to convert: the output container and data format, rate, channels and engines.
public struct ConversionSettings: Sendable {
    /// The output container; `nil`: from the output file's extension.
    public var fileType: FileType?
    /// The output data format; `nil`: 16-bit PCM in the container's byte order.
    public var dataFormat: DataFormatSpecifier?
    /// The output rate (`-d FORMAT@RATE`); `nil`: the source's.
    public var sampleRate: Double?
    /// The output channels (`-c N`); `nil`: the source's.
    public var channels: Int?
    public var resampler: ResamplerChoice = .soxr
    public var imaQuality: IMAEncodingQuality = .best
    /// Refuse (or, with `trimToMaximum`, cut) sources longer than this many seconds.
    public var maximumSeconds: Double?
    public var trimToMaximum = false
    /// A note written into the output's metadata (the batch runner records its preset there).
    public var encodingNote: String?
    /// Music: AAC is passed through untouched into CAF; anything else becomes MP3 at this bitrate
    /// (kbit/s) when the output is an `.mp3` file.
    public var musicBitrate: Int?

    public init() {}
}

/// Apple's preferred formats, by name.
public enum Preset: String, CaseIterable, Sendable {
    /// A system sound: CAF, 16-bit PCM, 30 s or less.
    case systemSound = "system-sound"
    /// A game sound effect played with many others: CAF, IMA4, mono, 22.05 kHz.
    case sfx
    /// CAF with 16-bit little-endian PCM.
    case pcm
    /// Music: AAC passed through untouched from ADTS into CAF (cookie and packet table kept), or MP3
    /// through LAME at 192 kbit/s for an `.mp3` output.
    case music

    public var settings: ConversionSettings {
        var settings = ConversionSettings()
        settings.fileType = .caf
        switch self {
        case .systemSound:
            settings.dataFormat = DataFormatSpecifier("LEI16")
            settings.maximumSeconds = 30
        case .sfx:
            settings.dataFormat = DataFormatSpecifier("ima4")
            settings.sampleRate = 22050
            settings.channels = 1
        case .pcm:
            settings.dataFormat = DataFormatSpecifier("LEI16")
        case .music:
            settings.fileType = nil
            settings.musicBitrate = 192
        }
        return settings
    }
}

/// What a conversion wrote.
public struct ConversionResult: Sendable {
    public var outputPath: String
    public var format: StreamDescription
    public var fileType: FileType
    /// Valid frames written (the decoded length equals it exactly, remainder frames recorded).
    public var frameCount: Int64
}

/// Decode → channel mix → resample → encode → write, streaming in bounded memory.
public enum AudioConverter {
    /// Converts `input` to `output`. The output appears complete or not at all: it is written to a hidden
    /// file in the same folder and renamed into place; on any failure nothing is left behind.
    @discardableResult
    public static func convert(input: String, output: String, settings: ConversionSettings) throws -> ConversionResult {
        if let bitrate = settings.musicBitrate {
            if output.lowercased().hasSuffix(".mp3") { return try encodeMP3(input: input, output: output, bitrate: bitrate) }
            if let source = try? AudioFile(path: input), source.dataFormat.formatID == .aac {
                return try passThroughAAC(source, output: output)
            }
        }
        guard var fileType = settings.fileType ?? FileType(outputPath: output) else {
            throw AudioFileError.unsupportedFileType(
                "convert: cannot tell the output type from '\(output)'; name it .caf, .aif, .aifc or .wav, or give -f", offset: nil)
        }
        let source = try SourceReader(path: input)
        let rate = settings.dataFormat?.sampleRate ?? settings.sampleRate ?? source.sampleRate
        let channels = settings.channels ?? source.channels
        guard channels >= 1 && channels <= 64 else {
            throw AudioFileError.unsupportedDataFormat("convert: \(channels) output channels", offset: nil)
        }
        let specifier = settings.dataFormat ?? DataFormatSpecifier(fileType == .aiff ? "BEI16" : "LEI16")
        guard let specifier else { throw AudioFileError.illegalOperation("convert: no data format") }
        let format = specifier.streamDescription(sampleRate: rate, channels: UInt32(channels))

        var limitFrames: Int64?
        if let maximum = settings.maximumSeconds, let frames = source.frameCount {
            let allowed = Int64((maximum * source.sampleRate).rounded(.down))
            if frames > allowed {
                guard settings.trimToMaximum else {
                    throw AudioFileError.limitExceeded(
                        "convert: '\(input)' lasts \(Double(frames) / source.sampleRate) s; the limit is \(maximum) s "
                            + "(trim it, or convert with --trim)", offset: nil)
                }
                limitFrames = allowed
            }
        }

        var options = AudioFileWriterOptions()
        options.metadata = source.metadata.filter { ["title", "artist", "album", "comments", "copyright", "year", "genre"].contains($0.key) }
        if let note = settings.encodingNote { options.metadata["encoding application"] = note }
        if fileType == .aiff || fileType == .aifc {
            options.markers = source.markers.map { marker in
                var moved = marker
                moved.framePosition = Int64(saturating: Double(marker.framePosition) * rate / source.sampleRate)
                return moved
            }
        }
        if let frames = source.frameCount {
            options.estimatedDataByteCount =
                Int64(saturating: Double(frames) * rate / source.sampleRate * Double(max(format.bytesPerFrame, 2)))
        }

        let temporary = temporaryPath(beside: output)
        let writer: AudioFileWriter
        do {
            writer = try AudioFileWriter(path: temporary, fileType: fileType, format: format, options: options)
        } catch let error as AudioFileError where error.code == "fmt?" && fileType == .aiff && settings.fileType == nil {
            // A `.aif` name with data plain AIFF cannot hold (little-endian, float, IMA4, G.711): AIFF-C.
            fileType = .aifc
            writer = try AudioFileWriter(path: temporary, fileType: fileType, format: format, options: options)
        }
        do {
            let frames = try run(source, to: writer, format: format, settings: settings, limit: limitFrames)
            try renameFile(temporary, to: output)
            return ConversionResult(outputPath: output, format: format, fileType: fileType, frameCount: frames)
        } catch {
            writer.cancel()
            throw error
        }
    }

    /// The pipeline; returns the valid frames written.
    private static func run(_ source: SourceReader, to writer: AudioFileWriter, format: StreamDescription,
        settings: ConversionSettings, limit: Int64?) throws -> Int64
    {
        let outChannels = Int(format.channelsPerFrame)
        let mixer = ChannelMixer(from: source.channels, to: outChannels)
        let resampler = format.sampleRate == source.sampleRate
            ? nil : try settings.resampler.make(from: source.sampleRate, to: format.sampleRate, channels: outChannels)
        if resampler == nil, mixer.isIdentity, let from = source.linearPCMLayout, format.isLinearPCM,
            let to = try? PCMLayout(format), PCM.transcodesExactly(from: from, to: to)
        {
            return try transcode(source, from: from, to: writer, layout: to, limit: limit)
        }
        var encoder = try makeEncoder(format, source: source.format, settings: settings)
        var block: [Float] = []
        var mixed: [Float] = []
        var resampled: [Float] = []
        var bytes: [UInt8] = []
        var inputFrames: Int64 = 0
        var outputFrames: Int64 = 0
        var expected: Int64 { Int64(saturating: Double(inputFrames) * format.sampleRate / source.sampleRate) }

        func emit(_ samples: [Float], final: Bool) throws {
            // Exactly the expected length: resamplers may give a frame or two more or less at the end.
            var count = samples.count / outChannels
            if final { count = Int(min(Int64(count), expected - outputFrames)) }
            guard count > 0 else { return }
            bytes.removeAll(keepingCapacity: true)
            _ = try samples.withUnsafeBufferPointer { buffer in
                try encoder.encode(UnsafeBufferPointer(rebasing: buffer[0..<count * outChannels]), into: &bytes)
            }
            try writer.writePackets(bytes)
            outputFrames += Int64(count)
        }

        while true {
            block.removeAll(keepingCapacity: true)
            var want = 8192
            if let limit { want = Int(min(Int64(want), limit - inputFrames)) }
            let frames = want > 0 ? try source.read(maximum: want, into: &block) : 0
            if frames == 0 { break }
            inputFrames += Int64(frames)
            if !mixer.isIdentity {
                mixed.removeAll(keepingCapacity: true)
                block.withUnsafeBufferPointer { mixer.mix($0, frames: frames, into: &mixed) }
            }
            let channelled = mixer.isIdentity ? block : mixed
            if let resampler {
                resampled.removeAll(keepingCapacity: true)
                try channelled.withUnsafeBufferPointer { try resampler.process($0, frames: frames, into: &resampled) }
                let room = Int(expected - outputFrames)
                if resampled.count / outChannels > room { resampled.removeLast(resampled.count - room * outChannels) }
                try emit(resampled, final: false)
            } else {
                try emit(channelled, final: false)
            }
        }
        if let resampler {
            resampled.removeAll(keepingCapacity: true)
            try resampler.finish(into: &resampled)
            try emit(resampled, final: true)
            if outputFrames < expected {
                // Pad the last frames the filter did not give back with silence.
                try emit([Float](repeating: 0, count: Int(expected - outputFrames) * outChannels), final: true)
            }
        }
        bytes.removeAll(keepingCapacity: true)
        let (_, remainder) = try encoder.finish(into: &bytes)
        if !bytes.isEmpty { try writer.writePackets(bytes) }
        let table: PacketTableInfo? = remainder > 0 || format.formatID == .imaADPCMWAVE || format.formatID == .ima4
            ? PacketTableInfo(validFrames: outputFrames, primingFrames: 0, remainderFrames: Int32(remainder)) : nil
        try writer.close(packetTableInfo: table)
        return outputFrames
    }

    /// Linear PCM to linear PCM that loses nothing (a byte order, a wider container): sample words
    /// rewritten straight from the file's bytes, never through Float32; returns the frames written.
    private static func transcode(_ source: SourceReader, from: PCMLayout, to writer: AudioFileWriter, layout: PCMLayout,
        limit: Int64?) throws -> Int64
    {
        var stored: [UInt8] = []
        var bytes: [UInt8] = []
        var frames: Int64 = 0
        while true {
            var want = 16384
            if let limit { want = Int(min(Int64(want), limit - frames)) }
            let count = want > 0 ? try source.readLinearPCM(maximum: want, into: &stored) : 0
            if count == 0 { break }
            let samples = count * source.channels
            bytes.removeAll(keepingCapacity: true)
            bytes.append(contentsOf: repeatElement(0, count: samples * layout.width))
            stored.withUnsafeBytes { input in
                bytes.withUnsafeMutableBytes { PCM.transcode(input, from, count: samples, to: layout, into: $0) }
            }
            try writer.writePackets(bytes)
            frames += Int64(count)
        }
        try writer.close(packetTableInfo: nil)
        return frames
    }

    /// Copies AAC packets untouched into CAF: the cookie as an ES descriptor, the packet table from the packets.
    private static func passThroughAAC(_ source: AudioFile, output: String) throws -> ConversionResult {
        var options = AudioFileWriterOptions()
        let cookie = source.properties.magicCookie ?? []
        options.magicCookie = cookie.first == 0x03 ? cookie : ADTS.elementaryStreamDescriptor(audioSpecificConfig: cookie)
        options.metadata = source.properties.infoDictionary
        let temporary = temporaryPath(beside: output)
        let writer = try AudioFileWriter(path: temporary, fileType: .caf, format: source.dataFormat, options: options)
        do {
            var start: Int64 = 0
            while start < source.packetCount {
                let (bytes, descriptions) = try source.readPackets(from: start, count: 256)
                // Descriptions are relative to the run's first byte; ADTS headers between packets are left out.
                var packed: [UInt8] = []
                var packedDescriptions: [PacketDescription] = []
                for description in descriptions {
                    let begin = Int(description.startOffset)
                    packedDescriptions.append(PacketDescription(startOffset: Int64(packed.count),
                        variableFramesInPacket: description.variableFramesInPacket, dataByteSize: description.dataByteSize))
                    packed += bytes[begin..<begin + Int(description.dataByteSize)]
                }
                try writer.writePackets(packed, descriptions: packedDescriptions)
                start += Int64(descriptions.count)
            }
            try writer.close(packetTableInfo: source.properties.packetTableInfo)
            try renameFile(temporary, to: output)
        } catch {
            writer.cancel()
            throw error
        }
        let frames = (try? AudioFileSummary(source.properties).frameCount) ?? 0
        return ConversionResult(outputPath: output, format: source.dataFormat, fileType: .caf, frameCount: frames)
    }

    /// Encodes any source to an MP3 file with LAME, gapless tag included.
    private static func encodeMP3(input: String, output: String, bitrate: Int) throws -> ConversionResult {
        let source = try SourceReader(path: input)
        let channels = min(source.channels, 2)
        let mixer = ChannelMixer(from: source.channels, to: channels)
        let encoder = try MP3FileEncoder(sampleRate: source.sampleRate, channels: channels, bitrate: bitrate)
        let temporary = temporaryPath(beside: output)
        let file = try WritableFileHandle(path: temporary)
        do {
            var block: [Float] = []
            var mixed: [Float] = []
            var frames: Int64 = 0
            while true {
                block.removeAll(keepingCapacity: true)
                let count = try source.read(maximum: 8192, into: &block)
                if count == 0 { break }
                frames += Int64(count)
                mixed.removeAll(keepingCapacity: true)
                block.withUnsafeBufferPointer { mixer.mix($0, frames: count, into: &mixed) }
                try file.append(try mixed.withUnsafeBufferPointer { try encoder.encode($0) })
            }
            let (tail, tag) = try encoder.finish()
            try file.append(tail[...])
            try file.write(tag, at: 0)
            try file.close()
            try renameFile(temporary, to: output)
            let format = StreamDescription(sampleRate: source.sampleRate, formatID: .mpegLayer3, bytesPerPacket: 0,
                framesPerPacket: source.sampleRate >= 32000 ? 1152 : 576, bytesPerFrame: 0, channelsPerFrame: UInt32(channels),
                bitsPerChannel: 0)
            return ConversionResult(outputPath: output, format: format, fileType: .mp3, frameCount: frames)
        } catch {
            try? file.close()
            removeFile(temporary)
            throw error
        }
    }

    private static func makeEncoder(_ format: StreamDescription, source: StreamDescription, settings: ConversionSettings)
        throws -> any AudioEncoder
    {
        switch format.formatID {
        case .lpcm: try PCMEncoder(format: format, convertingFrom: source)
        case .ima4: AppleIMA4Encoder(format: format, quality: settings.imaQuality)
        case .imaADPCMWAVE: try IMAADPCMWAVEEncoder(format: format, quality: settings.imaQuality)
        case .ulaw, .alaw: G711Encoder(format: format)
        default:
            throw AudioFileError.unsupportedDataFormat("convert: afkit does not encode '\(format.formatID)'", offset: nil)
        }
    }
}
