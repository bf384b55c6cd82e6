import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioEngines
import AudioFormats
import FileAccess

/// How to convert: the output container and data format, rate, channels and engines.
public struct ConversionSettings: Sendable {
    /// The output container; `nil`: from the output file's name (or the preset's default).
    public var fileType: FileType?
    /// The output data format; `nil`: 16-bit PCM in the container's byte order (AAC for `.m4a` and
    /// `.aac` names, MP3 for `.mp3`).
    public var dataFormat: DataFormatSpecifier?
    /// The output rate (`-d FORMAT@RATE`); `nil`: the source's.
    public var sampleRate: Double?
    /// The output channels (`-c N`); `nil`: the source's.
    public var channels: Int?
    /// At most this many output channels when `channels` is not given (a preset's limit).
    public var maximumChannels: Int?
    public var resampler: ResamplerChoice = .soxr
    public var imaQuality: IMAEncodingQuality = .best
    /// Bits per second for AAC and MP3 (`-b`).
    public var bitRate: Int?
    /// Codec quality, 0 to 127 (`-q`).
    public var quality: Int?
    /// Bit-rate control (`-s`).
    public var strategy: BitRateStrategy?
    /// Refuse (or, with `trimToMaximum`, cut) sources longer than this many seconds.
    public var maximumSeconds: Double?
    public var trimToMaximum = false
    /// A note written into the output's metadata (the batch runner records its preset there).
    public var encodingNote: String?
    /// Copy an AAC source's packets untouched (never re-encode) when the output is AAC and neither the
    /// rate, the channels nor the bit rate is asked to change.
    public var copiesCompressedPackets = false
    /// The containers the settings may write (a preset's); `nil`: any.
    public var allowedFileTypes: [FileType]?
    /// What the settings are called in messages (`--preset music`).
    public var name: String?
    /// What the output is made from, recorded in its metadata (`afkit source`) with the frames it will
    /// hold (`afkit frames`), so a batch can tell a current output from a stale or damaged one.
    public var provenance: String?
    /// The source's content hash, where the caller has read it (a batch, for the provenance); it seeds
    /// PCM's dither, and the converter reads the source for it only when it is not given.
    public var sourceContentHash: ContentHash?
    /// Flush the output's folder to the disk after the rename (a batch flushes each folder once, at the end).
    public var synchronizesFolder = true
    /// Normalize to an integrated loudness under a true-peak ceiling (`--loudness`, `--true-peak`).
    public var loudness: LoudnessTarget?
    /// Trim leading and trailing silence below this level, in dBFS, with short fades
    /// (`--trim-silence`); markers and loops move with the cut.
    public var silenceThreshold: Double?

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
    /// Music played one sound at a time: AAC at 128 kbit/s stereo in CAF (or M4A, or ADTS, as the name
    /// asks); an AAC source's packets copied untouched; an `.mp3` name gets MP3 through LAME.
    case music
    /// Apple Lossless in CAF (or M4A): half the size of PCM, nothing lost.
    case lossless

    public var settings: ConversionSettings {
        var settings = ConversionSettings()
        settings.fileType = nil
        settings.name = "--preset \(rawValue)"
        switch self {
        case .systemSound:
            settings.dataFormat = DataFormatSpecifier("LEI16")
            settings.maximumSeconds = 30
            settings.allowedFileTypes = [.caf, .aiff, .aifc, .wav]
        case .sfx:
            settings.dataFormat = DataFormatSpecifier("ima4")
            settings.sampleRate = 22050
            settings.channels = 1
            settings.allowedFileTypes = [.caf, .aifc]
        case .pcm:
            settings.dataFormat = DataFormatSpecifier("LEI16")
            settings.allowedFileTypes = [.caf, .aiff, .aifc, .wav]
        case .music:
            // AAC's default rate: 64 kbit/s a channel, so 128 kbit/s for stereo.
            settings.dataFormat = DataFormatSpecifier("aac")
            settings.maximumChannels = 2
            settings.copiesCompressedPackets = true
            settings.allowedFileTypes = [.caf, .m4a, .adts, .mp3]
        case .lossless:
            settings.dataFormat = DataFormatSpecifier("alac")
            settings.allowedFileTypes = [.caf, .m4a]
        }
        return settings
    }
}

/// The metadata keys afkit records in what it makes.
public enum MetadataKeys {
    /// What the output was made from: afkit's version, the settings and the source's content hash.
    public static let source = "afkit source"
    /// The valid frames the output holds.
    public static let frames = "afkit frames"
}

/// A combination of output name, container and data format that cannot be written: the command's
/// usage error, with what would fit.
public struct ConversionUsageError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// What a conversion wrote.
public struct ConversionResult: Sendable {
    public var outputPath: String
    public var format: StreamDescription
    public var fileType: FileType
    /// Valid frames written (the decoded length equals it exactly, priming and remainder recorded).
    public var frameCount: Int64
    /// Priming and remainder frames recorded.
    public var packetTableInfo: PacketTableInfo?
    /// What the conversion chose that the user did not ask for (a rate the codec cannot hold, ...).
    public var notes: [String] = []
    /// The loudness normalization's measurements and gain, when one was asked for.
    public var normalization: NormalizationOutcome?
    /// Source frames cut as silence from the start and from the end (`--trim-silence`).
    public var trimmedFrames: (leading: Int64, trailing: Int64)?
}

/// Decode → channel mix → resample → dither → encode → write, streaming in bounded memory, over the
/// codec registry. Copying packets untouched is one more encoder, and linear PCM that converts
/// without loss is rewritten from the stored samples, never through Float32.
public enum AudioConverter {
    /// afkit's version, recorded in what it makes.
    public static let version = "0.2.0"

    /// The codecs conversions use.
    public static let registry = AudioCodecRegistry.standard

    /// Converts `input` to `output`. The output appears complete or not at all: it is written to a hidden
    /// file in the same folder and renamed into place; on any failure nothing is left behind.
    @discardableResult
    public static func convert(input: String, output: String, settings: ConversionSettings) throws -> ConversionResult {
        var fileType = try outputFileType(for: output, settings: settings)
        let source = try SourceReader(path: input)
        var notes: [String] = []
        var resolved = settings
        if resolved.dataFormat == nil { resolved.dataFormat = keptSampleFormat(of: source, in: fileType) }
        let specifier = try dataFormat(for: fileType, settings: resolved)
        let processes = settings.loudness != nil || settings.silenceThreshold != nil
        // AAC is copied where a preset asks (re-encoding loses quality); Apple Lossless always (re-encoding
        // gains nothing, and decoding a 32-bit stream to Float would lose its lowest bits).
        let copiesCodec = (settings.copiesCompressedPackets && specifier.kind == .aac && source.format.formatID == .aac)
            || (specifier.kind == .alac && source.format.formatID == .alac)
        let copying = copiesCodec && source.audioFile != nil && settings.sampleRate == nil && settings.channels == nil
            && specifier.sampleRate == nil && settings.maximumSeconds == nil && !processes
        var encoder: any AudioEncoder
        if copying, let file = source.audioFile {
            encoder = try PacketCopier(file)
        } else {
            encoder = try makeEncoder(specifier, fileType: fileType, source: source, settings: settings, notes: &notes)
        }
        let format = encoder.destinationFormat
        if fileType == .aiff && settings.fileType == nil && !AIFF.plainAIFFHolds(format) {
            // A `.aif` name with data plain AIFF cannot hold (little-endian, float, IMA4, G.711): AIFF-C.
            fileType = .aifc
        }

        // The part of the source taken: silence cut at the ends, then the preset's duration limit.
        var plan = RenderPlan()
        var trimmed: (leading: Int64, trailing: Int64)?
        if let threshold = settings.silenceThreshold {
            let cut = try silenceCut(of: try SourceReader(path: input), threshold: threshold, input: input)
            plan.start = cut.start
            plan.count = cut.count
            plan.fadeIn = cut.fadeIn
            plan.fadeOut = cut.fadeOut
            trimmed = (cut.start, cut.total - cut.start - cut.count)
        }
        let taken = plan.count ?? source.frameCount
        if let allowed = try frameLimit(frames: taken, rate: source.sampleRate, input: input, settings: settings) {
            plan.count = allowed
            plan.fadeOut = 0
        }
        var options = AudioFileWriterOptions()
        options.metadata = source.metadata.filter {
            ["title", "artist", "album", "comments", "copyright", "year", "genre"].contains($0.key)
        }
        if let note = settings.encodingNote { options.metadata["encoding application"] = note }
        if let provenance = settings.provenance {
            options.metadata[MetadataKeys.source] = provenance
            if let frames = plan.count ?? source.frameCount {
                // The pipeline's own count: the frames taken from the source, at the output's rate.
                let output = copying ? frames : Int64(saturating: Double(frames) * format.sampleRate / source.sampleRate)
                options.metadata[MetadataKeys.frames] = String(output)
            }
        }
        if [.aiff, .aifc, .caf, .wav, .rf64].contains(fileType) {
            // Markers, loops and the instrument go where the container holds them, moved with any cut and to
            // the output's rate, and kept within its frames.
            let scale = format.sampleRate / source.sampleRate
            let end = plan.count.map { Int64(saturating: Double($0) * scale) } ?? Int64.max
            func moved(_ frame: Int64) -> Int64 { Int64(saturating: (Double(frame - plan.start) * scale).rounded()) }
            options.markers = source.markers.compactMap { marker in
                var marker = marker
                marker.framePosition = moved(marker.framePosition)
                return (0...end).contains(marker.framePosition) ? marker : nil
            }
            options.loops = source.loops.compactMap { loop in
                let scaled = Loop(start: max(0, moved(loop.start)), end: min(moved(loop.end), end), playMode: loop.playMode)
                return scaled.end > scaled.start ? scaled : nil
            }
            options.instrument = source.instrument
            options.comments = source.comments
            options.annotations = source.annotations
        }
        if format.sampleRate != source.sampleRate {
            // A ratio no resampler takes is refused before anything is sized by it.
            try ResamplerChoice.checkRatio(from: source.sampleRate, to: format.sampleRate)
        }
        if let frames = plan.count ?? source.frameCount {
            let outputFrames = Double(frames) * format.sampleRate / source.sampleRate
            options.estimatedDataByteCount = Int64(saturating: outputFrames * Double(max(format.bytesPerFrame, 2)))
            if format.framesPerPacket > 0 {
                options.estimatedPacketCount = Int64(saturating: outputFrames / Double(format.framesPerPacket))
                    .saturatingAdd(2 + Int64(encoder.primingFrames) / Int64(format.framesPerPacket))
            }
        }
        options.magicCookie = fileType == .mp3 ? nil : encoder.magicCookie
        options.channelLayout = channelLayout(for: format, source: source)

        var normalizer: LoudnessNormalizer?
        if let target = settings.loudness {
            normalizer = try LoudnessNormalizer(target: target, input: input, format: format, resampler: settings.resampler,
                plan: &plan)
        }
        let (frames, table) = try writeAtomically(output, synchronizingFolder: settings.synchronizesFolder) { temporary in
            var reader = source
            while true {
                let writer = try AudioFileWriter(path: temporary, fileType: fileType, format: format, options: options)
                let written: (Int64, PacketTableInfo?)
                do {
                    written = try run(reader, through: &encoder, to: writer, settings: settings, plan: plan,
                        limiterReport: { normalizer?.limiterReduction = $0 })
                } catch {
                    writer.cancel()
                    throw error
                }
                // A normalized output is measured as decoded; the gain or the limiter's ceiling is corrected
                // until it meets the target and the ceiling.
                guard let normalizer, try !normalizer.accepts(outputAt: temporary, plan: &plan) else { return written }
                // Another round with a fresh reader and encoder; their notes were made by the first.
                reader = try SourceReader(path: input)
                var again: [String] = []
                encoder = try makeEncoder(specifier, fileType: fileType, source: reader, settings: settings, notes: &again)
            }
        }
        var result = ConversionResult(outputPath: output, format: format, fileType: fileType, frameCount: frames,
            packetTableInfo: table, notes: notes)
        result.normalization = normalizer?.outcome
        result.trimmedFrames = trimmed
        return result
    }

    /// The container an output gets: `-f`, else the name's (within what a preset allows), else the
    /// preset's first. A name that disagrees with `-f` or the preset is a ``ConversionUsageError``.
    public static func outputFileType(for output: String, settings: ConversionSettings) throws -> FileType {
        let named = FileType(outputPath: output)
        func same(_ a: FileType, _ b: FileType) -> Bool {
            a == b || (a.isAIFF && b.isAIFF) || ([.wav, .rf64].contains(a) && [.wav, .rf64].contains(b))
        }
        let name = output.split(separator: "/").last.map(String.init) ?? output
        if let explicit = settings.fileType {
            if let named, !same(named, explicit) {
                throw ConversionUsageError("-f \(explicit.afconvertCode) writes \(explicit.fileNameExtensions[0]) files, "
                    + "but the output is named '\(name)': name it \(explicit.fileNameExtensions.joined(separator: " or "))")
            }
            if let allowed = settings.allowedFileTypes, !allowed.contains(where: { same($0, explicit) }) {
                throw ConversionUsageError("\(settings.name ?? "these settings") cannot write -f \(explicit.afconvertCode); "
                    + "it writes " + allowed.map(\.afconvertCode).joined(separator: ", "))
            }
            return explicit
        }
        if let allowed = settings.allowedFileTypes {
            guard let named else { return allowed[0] }
            guard allowed.contains(where: { same($0, named) }) else {
                throw ConversionUsageError("\(settings.name ?? "these settings") cannot write '\(name)': name the output "
                    + allowed.map { $0.fileNameExtensions[0] }.joined(separator: ", "))
            }
            return named
        }
        guard let named else {
            throw ConversionUsageError("cannot tell the output type from '\(name)'; give -f or name it "
                + ".caf, .aif, .aifc, .wav, .m4a, .aac or .mp3")
        }
        return named
    }

    /// The data format for a container: the one asked for, checked against what the container holds, or
    /// the container's default.
    public static func dataFormat(for fileType: FileType, settings: ConversionSettings) throws -> DataFormatSpecifier {
        var specifier = settings.dataFormat
        // A preset's codec gives way to the one an `.mp3` name needs.
        if fileType == .mp3, specifier?.kind == .aac, settings.copiesCompressedPackets {
            specifier = DataFormatSpecifier(".mp3")
        }
        let fallback: String = switch fileType {
        case .m4a, .mp4, .adts: "aac"
        case .mp3: ".mp3"
        case .aiff, .aifc: "BEI16"
        default: "LEI16"
        }
        guard let chosen = specifier ?? DataFormatSpecifier(fallback) else {
            throw ConversionUsageError("no data format")
        }
        let holds: Bool = switch (fileType, chosen.kind) {
        case (.caf, _): true
        case (.aiff, .linearPCM), (.aifc, .linearPCM), (.aiff, .ima4), (.aifc, .ima4), (.aiff, .ulaw), (.aifc, .ulaw),
            (.aiff, .alaw), (.aifc, .alaw): true
        case (.wav, .linearPCM), (.rf64, .linearPCM), (.wav, .imaADPCM), (.rf64, .imaADPCM), (.wav, .ulaw), (.rf64, .ulaw),
            (.wav, .alaw), (.rf64, .alaw): true
        case (.m4a, .aac), (.m4a, .alac), (.mp4, .aac), (.mp4, .alac): true
        case (.adts, .aac), (.mp3, .mp3): true
        default: false
        }
        if case .linearPCM(let bits, let isFloat, let isBigEndian, let isSigned) = chosen.kind,
            let advice = pcmAdvice(fileType, bits: bits, isFloat: isFloat, isBigEndian: isBigEndian, isSigned: isSigned)
        {
            throw ConversionUsageError(advice)
        }
        guard holds else {
            let fits: String = switch fileType {
            case .aiff, .aifc: "linear PCM, ima4, ulaw or alaw"
            case .wav, .rf64: "linear PCM, ima-adpcm, ulaw or alaw"
            case .m4a, .mp4: "aac or alac"
            case .adts: "aac"
            case .mp3: ".mp3"
            default: "any format"
            }
            throw ConversionUsageError("\(fileType.afconvertCode) files cannot hold -d \(chosen.description): use \(fits), "
                + "or a .caf output")
        }
        return chosen
    }

    /// With no `-d`, a linear PCM source keeps its sample format (24-bit stays 24-bit, float stays float,
    /// as SoX does) in the container's byte order (CAF: the source's), instead of becoming 16-bit.
    /// Other sources (compressed, or PCM the container cannot hold) get the container's default.
    static func keptSampleFormat(of source: SourceReader, in fileType: FileType) -> DataFormatSpecifier? {
        let format = source.format
        guard format.isLinearPCM, [.caf, .wav, .rf64, .aiff, .aifc].contains(fileType) else { return nil }
        let isFloat = format.formatFlags.contains(.isFloat)
        let bits = isFloat ? (format.bitsPerChannel > 32 ? 64 : 32) : min(32, (format.bitsPerChannel + 7) / 8 * 8)
        if bits == 8 { return DataFormatSpecifier(fileType == .wav || fileType == .rf64 ? "UI8" : "I8") }
        let bigEndian = switch fileType {
        case .aiff, .aifc: true
        case .wav, .rf64: false
        default: format.formatFlags.contains(.isBigEndian)
        }
        return DataFormatSpecifier("\(bigEndian ? "BE" : "LE")\(isFloat ? "F" : "I")\(bits)")
    }

    /// Why a container cannot hold a linear PCM layout, with the spelling it can hold, or `nil`.
    private static func pcmAdvice(_ fileType: FileType, bits: UInt32, isFloat: Bool, isBigEndian: Bool, isSigned: Bool)
        -> String?
    {
        let kind = isFloat ? "F" : "I"
        switch fileType {
        case .wav, .rf64:
            if isBigEndian && bits > 8 { return "WAV holds little-endian samples: use -d LE\(kind)\(bits)" }
            if bits == 8 && isSigned { return "WAV holds 8-bit samples unsigned: use -d UI8" }
        case .aiff, .aifc:
            if isFloat && !isBigEndian { return "AIFF-C holds big-endian floats: use -d BEF\(bits)" }
            if !isFloat && !isBigEndian && bits > 16 { return "AIFF holds big-endian \(bits)-bit samples: use -d BEI\(bits)" }
            if bits == 8 && !isSigned { return "AIFF holds 8-bit samples signed: use -d I8" }
        case .caf:
            if bits == 8 && !isSigned { return "CAF holds 8-bit samples signed: use -d I8" }
        default: break
        }
        return nil
    }

    private static func makeEncoder(_ specifier: DataFormatSpecifier, fileType: FileType, source: SourceReader,
        settings: ConversionSettings, notes: inout [String]) throws -> any AudioEncoder
    {
        var rate = specifier.sampleRate ?? settings.sampleRate ?? source.sampleRate
        var channels = settings.channels ?? min(source.channels, settings.maximumChannels ?? source.channels)
        guard channels >= 1 && channels <= 64 else {
            throw AudioFileError.unsupportedDataFormat("\(channels) output channels: afkit writes 1 to 64", offset: nil)
        }
        switch specifier.kind {
        case .aac where !AACEncoder.sampleRates.contains(rate):
            let nearest = AACEncoder.nearestSampleRate(to: rate)
            notes.append("AAC-LC cannot hold \(formatSampleRate(rate)) Hz: resampled to \(formatSampleRate(nearest)) Hz")
            rate = nearest
        case .mp3:
            let rates: [Double] = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]
            if !rates.contains(rate) {
                let nearest = rates.min { abs($0 - rate) < abs($1 - rate) } ?? 44100
                notes.append("MP3 cannot hold \(formatSampleRate(rate)) Hz: resampled to \(formatSampleRate(nearest)) Hz")
                rate = nearest
            }
            if channels > 2 {
                notes.append("MP3 holds 2 channels at most: mixed down from \(channels)")
                channels = 2
            }
        default:
            // WAV, RF64 and MPEG-4 store whole rates: a rate with a fraction (8912.75 Hz) is resampled to
            // the nearest whole one, which keeps the duration.
            let wholeRatesOnly: Set<FileType> = [.wav, .rf64, .m4a, .mp4]
            if wholeRatesOnly.contains(fileType), rate != rate.rounded(), rate.isFinite {
                let nearest = max(1, min(rate.rounded(), Double(UInt32.max)))
                notes.append("\(fileType.rawValue.uppercased()) holds whole sample rates: resampled from "
                    + "\(formatSampleRate(rate)) Hz to \(formatSampleRate(nearest)) Hz")
                rate = nearest
            }
        }
        var encoderSettings = EncoderSettings(format: specifier.streamDescription(sampleRate: rate,
            channels: UInt32(channels)), sourceFormat: source.format)
        encoderSettings.imaQuality = settings.imaQuality
        if PCM.shouldDither(from: source.format, to: encoderSettings.format) {
            encoderSettings.ditherSeed = (settings.sourceContentHash ?? (try? contentHash(ofFileAt: source.path)))?.value
                ?? encoderSettings.ditherSeed
        }
        encoderSettings.bitRate = settings.bitRate
        encoderSettings.quality = settings.quality
        encoderSettings.strategy = settings.strategy
        encoderSettings.sourceBitDepth = source.bitDepth
        if specifier.kind == .alac, source.format.isLinearPCM, source.format.formatFlags.contains(.isFloat) {
            notes.append("ALAC holds integers: the floating-point source is written at 24 bits")
        }
        return try registry.encoder(encoderSettings)
    }

    /// The layout an output records: AAC and ALAC of 3 to 8 channels in their decoders' order (the
    /// engine takes frames in WAV order and reorders them; copied packets are in it already); other
    /// formats keep the source's layout (as afkit decodes it) when the channels are kept. Mono and
    /// stereo need none.
    private static func channelLayout(for format: StreamDescription, source: SourceReader) -> ChannelLayout? {
        let channels = Int(format.channelsPerFrame)
        guard channels > 2 else { return nil }
        if format.formatID == .aac || format.formatID == .alac { return ChannelLayout.mpegOrder(channels: channels) }
        return channels == source.channels ? source.channelLayout : nil
    }

    /// The frames a duration limit allows of `frames`, where it cuts them (`nil`: no cut).
    private static func frameLimit(frames: Int64?, rate: Double, input: String, settings: ConversionSettings) throws
        -> Int64?
    {
        guard let maximum = settings.maximumSeconds, let frames else { return nil }
        let allowed = Int64(saturating: (maximum * rate).rounded(.down))
        guard frames > allowed else { return nil }
        guard settings.trimToMaximum else {
            throw AudioFileError.limitExceeded(
                "'\(input)' lasts \(Double(frames) / rate) s; the limit is \(maximum) s "
                    + "(trim it, or convert with --trim)", offset: nil)
        }
        return allowed
    }

    /// The pipeline; returns the valid frames written and the packet table recorded.
    private static func run(_ source: SourceReader, through encoder: inout any AudioEncoder, to writer: AudioFileWriter,
        settings: ConversionSettings, plan: RenderPlan, limiterReport: ((Double) -> Void)? = nil) throws
        -> (Int64, PacketTableInfo?)
    {
        let format = encoder.destinationFormat
        var packets = EncodedPackets()
        func write() throws {
            guard packets.packetCount > 0 || !packets.bytes.isEmpty else { return }
            try writer.writePackets(packets.bytes, descriptions: format.hasConstantPackets ? nil : packets.descriptions)
            packets.removeAll()
        }

        if var copier = encoder as? PacketCopier {
            while try copier.copyPackets(maximum: 256, into: &packets) { try write() }
            try writer.close(packetTableInfo: copier.packetTableInfo)
            return (copier.validFrames, copier.packetTableInfo)
        }

        let outChannels = Int(format.channelsPerFrame)
        var outputFrames: Int64 = 0
        // Integer samples rewritten directly: the stored ones (lossless), or an ADPCM decoder's 16-bit
        // output; exact, and the fastest path there is.
        let exactSource: (layout: PCMLayout, read: (Int, inout [UInt8]) throws -> Int)? =
            if let stored = source.linearPCMLayout {
                (stored, source.readLinearPCM)
            } else if let decoded = source.decodedInt16Layout {
                (decoded, source.readDecodedInt16)
            } else {
                nil
            }
        // Reads the plan's frames as stored, a block at a time, handing each to `take`.
        func readExactly(_ read: (Int, inout [UInt8]) throws -> Int, _ take: (UnsafeRawBufferPointer, Int) throws -> Void)
            throws
        {
            var stored: [UInt8] = []
            source.skipFrames(plan.start)
            while true {
                var want = 16384
                if let limit = plan.count { want = Int(min(Int64(want), limit - outputFrames)) }
                let count = want > 0 ? try read(want, &stored) : 0
                if count == 0 { break }
                try stored.withUnsafeBytes { try take($0, count) }
                outputFrames += Int64(count)
            }
        }
        let keepsFrames = plan.keepsSamples && format.sampleRate == source.sampleRate && source.channels == outChannels
        if keepsFrames, let (from, read) = exactSource, format.isLinearPCM, let to = try? PCMLayout(format),
            PCM.transcodesExactly(from: from, to: to)
        {
            try readExactly(read) { input, count in
                let samples = count * source.channels
                packets.bytes.append(contentsOf: repeatElement(0, count: samples * to.width))
                packets.bytes.withUnsafeMutableBytes { PCM.transcode(input, from, count: samples, to: to, into: $0) }
                packets.packetCount = count
                try write()
            }
        } else if keepsFrames, var integer = encoder as? any IntegerSampleEncoder, let (from, read) = exactSource,
            !from.isFloat, from.bits <= integer.integerBitDepth
        {
            // Stored integers into an integer encoder (ALAC): every bit kept, whatever the depth.
            var words: [UInt32] = []
            try readExactly(read) { input, count in
                let samples = count * source.channels
                if words.count < samples { words = Array(repeating: 0, count: samples) }
                try words.withUnsafeMutableBufferPointer { buffer in
                    let part = UnsafeMutableBufferPointer(rebasing: buffer[0..<samples])
                    PCM.loadLeftJustified(input, from, into: part)
                    try part.withMemoryRebound(to: Int32.self) {
                        try integer.encode(leftJustified: UnsafeBufferPointer($0), into: &packets)
                    }
                }
                try write()
            }
            encoder = integer
        } else {
            outputFrames = try render(source, sampleRate: format.sampleRate, channels: outChannels,
                resampler: settings.resampler, plan: plan, limiterReport: limiterReport) { samples in
                try encoder.encode(samples, into: &packets)
                try write()
            }
        }
        let remainder = try encoder.finish(into: &packets)
        try write()
        let priming = encoder.primingFrames
        let table: PacketTableInfo? = priming > 0 || remainder > 0 || format.framesPerPacket != 1
            ? PacketTableInfo(validFrames: outputFrames, primingFrames: Int32(priming), remainderFrames: Int32(remainder))
            : nil
        try writer.close(packetTableInfo: table, magicCookie: writer.fileType == .mp3 ? encoder.magicCookie : nil)
        return (outputFrames, table)
    }

    /// Decode → cut and fade → channel mix → resample → gain → limit: the plan's part of `source` as
    /// interleaved Float32 frames of `channels` at `sampleRate`, handed to `deliver` a block at a time;
    /// returns the frames delivered (exactly the taken frames at the new rate).
    static func render(_ source: SourceReader, sampleRate: Double, channels outChannels: Int,
        resampler choice: ResamplerChoice, plan: RenderPlan, limiterReport: ((Double) -> Void)? = nil,
        _ deliver: (UnsafeBufferPointer<Float>) throws -> Void) throws -> Int64
    {
        let mixer = ChannelMixer(from: source.channels, to: outChannels)
        let resampler = sampleRate == source.sampleRate
            ? nil : try choice.make(from: source.sampleRate, to: sampleRate, channels: outChannels)
        let gain = plan.linearGain
        let limiter = plan.limiterCeiling.map {
            TruePeakLimiter(channels: outChannels, sampleRate: sampleRate, ceilingDecibels: $0)
        }
        source.skipFrames(plan.start)
        var block: [Float] = []
        var mixed: [Float] = []
        var resampled: [Float] = []
        var scaled: [Float] = []
        var limited: [Float] = []
        var inputFrames: Int64 = 0
        var outputFrames: Int64 = 0
        var expected: Int64 { Int64(saturating: Double(inputFrames) * sampleRate / source.sampleRate) }
        let upsampling = sampleRate / source.sampleRate

        func emit(_ samples: [Float], final: Bool) throws {
            // Exactly the expected length: resamplers may give a frame or two more or less at the end.
            var count = samples.count / outChannels
            if final { count = Int(min(Int64(count), expected - outputFrames)) }
            guard count > 0 else { return }
            outputFrames += Int64(count)
            guard gain != 1 || limiter != nil else {
                try samples.withUnsafeBufferPointer { try deliver(UnsafeBufferPointer(rebasing: $0[0..<count * outChannels])) }
                return
            }
            scaled.removeAll(keepingCapacity: true)
            scaled.append(contentsOf: samples[0..<count * outChannels])
            if gain != 1 { for index in scaled.indices { scaled[index] *= gain } }
            guard let limiter else { return try scaled.withUnsafeBufferPointer(deliver) }
            limited.removeAll(keepingCapacity: true)
            scaled.withUnsafeBufferPointer { limiter.process($0, frames: count, into: &limited) }
            if !limited.isEmpty { try limited.withUnsafeBufferPointer(deliver) }
        }

        while true {
            block.removeAll(keepingCapacity: true)
            // Upsampling reads fewer frames at a time, so no block's output passes ~64 Ki frames whatever
            // the ratio (a 1 Hz source made 48 kHz): memory never grows with the output's length.
            var want = upsampling > 8 ? max(1, Int(65536 / upsampling)) : 8192
            if let limit = plan.count { want = Int(min(Int64(want), limit - inputFrames)) }
            let frames = want > 0 ? try source.read(maximum: want, into: &block) : 0
            if frames == 0 { break }
            plan.fade(&block, channels: source.channels, from: inputFrames, frames: frames)
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
            // Pad the last frames the filter did not give back with silence, a bounded block at a time.
            while outputFrames < expected {
                try emit([Float](repeating: 0, count: Int(min(expected - outputFrames, 65536)) * outChannels), final: true)
            }
        }
        if let limiter {
            limited.removeAll(keepingCapacity: true)
            limiter.finish(into: &limited)
            if !limited.isEmpty { try limited.withUnsafeBufferPointer(deliver) }
            limiterReport?(limiter.deepestReduction)
        }
        return outputFrames
    }
}

extension FileType {
    /// afconvert's `-f` code for the container: Apple's AudioFileTypeID.
    public var afconvertCode: String { fileTypeID.description }

    /// The names an output of this container takes, most usual first.
    public var fileNameExtensions: [String] {
        switch self {
        case .caf: [".caf"]
        case .aiff: [".aif", ".aiff"]
        case .aifc: [".aifc", ".aif"]
        case .wav: [".wav"]
        case .rf64: [".wav", ".rf64"]
        case .m4a, .mp4: [".m4a"]
        case .adts: [".aac"]
        case .mp3: [".mp3"]
        }
    }

    var isAIFF: Bool { self == .aiff || self == .aifc }
}
