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
    /// The `-f` code ``fileType`` was given by (`ogg`, `opus`): where a container's codec follows its name, the
    /// code decides as an output name would (`-f opus`: Opus; `-f ogg`: Vorbis); `nil`: the output's name.
    public var fileTypeCode: String?
    /// The output data format; `nil`: 16-bit PCM in the container's byte order (AAC for `.m4a` and
    /// `.aac` names, MP3 for `.mp3`).
    public var dataFormat: DataFormatSpecifier?
    /// Whether ``dataFormat`` is the preset's, which gives way to what the container asks (a preset's "16-bit
    /// PCM" is big-endian in plain AIFF, `-f AIFF`; Apple Lossless is FLAC in a `.flac` file). A `-d` the user
    /// gives is kept as given.
    public var adaptsToContainer = false
    /// The output rate (`-d FORMAT@RATE`); `nil`: the source's.
    public var sampleRate: Double?
    /// The output channels (`-c N`); `nil`: the source's.
    public var channels: Int?
    /// At most this many output channels when `channels` is not given (a preset's limit).
    public var maximumChannels: Int?
    /// A mix of the user's own (`--mix`, `--channel-map`): `mixMatrix[output][input]`, one row per output
    /// channel and one gain per source channel; `nil`: afkit's mix, which never clips.
    public var mixMatrix: [[Float]]?
    /// A channel map (`-m`): each output channel's source channel, or -1 for silence.
    public var channelMap: [Int]?
    /// The output's channel layout (`-l`); `nil`: the source's where the channels are kept. Channels whose
    /// speakers the source names in another order are reordered to it.
    public var channelLayout: ChannelLayout?
    /// At most this rate when `sampleRate` is not given (a preset's limit: its profile's most).
    public var maximumSampleRate: Double?
    /// The resampler for rate changes (libsoxr by default).
    public var resampler: ResamplerChoice = .soxr
    /// How IMA4 and IMA ADPCM are encoded (the beam search by default).
    public var imaQuality: IMAEncodingQuality = .balanced
    /// Bits per second for AAC and MP3 (`-b`).
    public var bitRate: Int?
    /// Codec quality, 0 to 127 (`-q`).
    public var quality: Int?
    /// Bit-rate control (`-s`).
    public var strategy: BitRateStrategy?
    /// Refuse (or, with `trimToMaximum`, cut) sources longer than this many seconds.
    public var maximumSeconds: Double?
    /// Cut a source longer than `maximumSeconds` to it instead of refusing it (`--trim`), with a note.
    public var trimToMaximum = false
    /// What sets `maximumSeconds`, as the note of a cut names it (`the system-sound profile`); `nil`: ``name``.
    public var limitName: String?
    /// The fade-out that ends a `--trim` cut (`--fade-out` given takes its place); `.frames(0)`: a hard cut.
    public var trimFade = EditTime.seconds(AudioConverter.trimFadeSeconds)
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
    /// Where set, the finished output is handed here unflushed and not yet in place, to be committed (or
    /// abandoned) by the caller, instead of the conversion waiting for the disk (a batch).
    public var deferredCommit: (@Sendable (AtomicOutputFile) -> Void)?
    /// Normalize to an integrated loudness under a true-peak ceiling (`--loudness`, `--true-peak`).
    public var loudness: LoudnessTarget?
    /// Whether a loudness target that does not say (``LoudnessTarget/dynamic`` `nil`) levels speech first: the
    /// voice preset's way.
    public var levelsSpeech = false
    /// Where a conversion confirming a quieter target starts: what the refused one learned of its encoder.
    var encoderAllowance: EncoderAllowance?
    /// What an earlier normalization of the same source, edits, layout and rate measured before it aimed (the same
    /// at any target): its passes are not made again.
    var normalizationPrelude: NormalizationPrelude?
    /// Normalize the highest peak to a level by one gain (`--normalize-peak`, `--normalize-true-peak`).
    public var peak: PeakTarget?
    /// Crossfade each forward loop's end into the audio before its start over this long (`--loop-crossfade`).
    public var loopCrossfade: EditTime?
    /// Whether a source with no forward loop, or whose loop has no room for the crossfade, is converted without
    /// it, said in a note (a batch's), rather than refused (`convert`'s usage error).
    var loopCrossfadeSkipsUnmendable = false
    /// Trim leading and trailing silence below this level, in dBFS, with short fades
    /// (`--trim-silence`); markers and loops move with the cut.
    public var silenceThreshold: Double?

    /// Whether the source's tags (``MetadataKeys/carried``) go into the output (`--no-metadata`: not).
    public var keepsMetadata = true

    /// The everyday edits: a part of the source, fades, padding, gain (`--start`, `--fade-in`, `--pad`, `--gain`).
    public var edits = Edits()

    /// Whether a conversion fails, writing nothing, where its output decoded clips more than its source
    /// (`ClipScanner`'s counts, on the grid and between samples): `convert --check-clip`.
    public var checksClipping = false

    /// Chapters written for the output (`--chapters FILE`), on its clock, in place of the source's.
    public var chapters: ChapterList?

    /// Whether the output is a step on the way to afkit's outputs (`hls --loudness`'s normalized signal): its
    /// chapters stay in ``ConversionResult/chapters`` for the step after, not turned into markers, and what its
    /// container cannot hold of the timeline is not said (the step after says what the outputs carry).
    var isIntermediate = false

    /// Whether an output that loops whole is encoded with its wrap around it (``ConversionPlan/loopWrap``); `hls`'s
    /// renditions are not (a stream plays once, and packed audio plays what the priming covers).
    var encodesLoopWrap = true

    /// Where the frames come from when they are not one file's (sounds joined or mixed, ``Composition``): opened
    /// afresh each time the conversion reads them (a loudness measure, each round); `nil`: the input file.
    public var composedSource: (@Sendable () throws -> SourceReader)?

    /// The conversion's source, opened: the composed one, or the file at `input`.
    func openSource(_ input: String, hashingContent: Bool = false) throws -> SourceReader {
        try composedSource?() ?? SourceReader(path: input, hashingContent: hashingContent)
    }

    /// Called as the output grows, from the converting thread, after each block written: how far the output
    /// has come (what a progress line shows; each round of a loudness normalization starts again at 0).
    public var progress: (@Sendable (ConversionProgress) -> Void)?

    /// Progress reports that say `activity` where they name none (a normalizer's passes keep their own).
    mutating func sayProgress(as activity: String) {
        guard let report = progress else { return }
        progress = { progress in
            var progress = progress
            progress.activity = progress.activity ?? activity
            report(progress)
        }
    }

    /// Settings that keep everything the source has, with containers chosen by the output's name.
    public init() {}
}

/// How far a conversion has come, at the output's rate.
public struct ConversionProgress: Sendable {
    /// Frames written so far (whole packets, priming included).
    public var framesWritten: Int64
    /// The frames the output will hold, where the source's length is known.
    public var expectedFrames: Int64?
    /// The output's sample rate.
    public var sampleRate: Double
    /// What the conversion is doing where it is not writing the output (`measuring loudness, pass 3`: a
    /// normalizer's pass over the source, `framesWritten` then counting the frames measured), or which of a
    /// normalizer's encodes it writes (`encoding, round 2`); `nil` while writing a first or only encode.
    public var activity: String?

    /// Progress of `framesWritten` of `expectedFrames` at `sampleRate`.
    public init(framesWritten: Int64, expectedFrames: Int64?, sampleRate: Double, activity: String? = nil) {
        self.framesWritten = framesWritten
        self.expectedFrames = expectedFrames
        self.sampleRate = sampleRate
        self.activity = activity
    }
}

/// Apple's preferred formats, by name.
public enum Preset: String, CaseIterable, Sendable {
    /// A system sound: CAF, 16-bit PCM, 30 s or less, 48 kHz and two channels at most.
    case systemSound = "system-sound"
    /// A game sound effect played with many others: CAF, IMA4, mono, 22.05 kHz.
    case sfx
    /// CAF with 16-bit little-endian PCM.
    case pcm
    /// Music played one sound at a time: AAC at 128 kbit/s stereo, 48 kHz at most, in CAF (or M4A, or ADTS, as
    /// the name asks); an AAC source within those limits has its packets copied untouched; an `.mp3` name gets MP3
    /// through LAME, an `.ogg` Vorbis and an `.opus` Opus.
    case music
    /// Apple Lossless in CAF (or M4A): half the size of PCM, nothing lost but rates above 48 kHz.
    case lossless
    /// Dialogue lines: Opus at 32 kbit/s, mono, in CAF at a constant bit rate (what Apple's players decode),
    /// or Ogg Opus for an `.opus` or `.ogg` name; an `.m4a` or `.aac` name gets AAC, an `.mp3` MP3, at the same bit
    /// rate, mono.
    case voice

    /// The validation profile the preset's outputs pass without a finding (`afkit validate --profile NAME`): what
    /// a batch's HTML report checks them against, and whose duration limit `--trim` cuts to; `nil` for `pcm`,
    /// which keeps the source's rate and channels whatever they are.
    public var profileName: String? {
        switch self {
        case .systemSound: "system-sound"
        case .sfx: "simultaneous-sfx"
        case .pcm: nil
        case .music, .lossless: "music"
        case .voice: "dialogue"
        }
    }

    /// The settings the preset stands for.
    public var settings: ConversionSettings {
        var settings = ConversionSettings()
        settings.fileType = nil
        settings.name = "--preset \(rawValue)"
        // The rate from the one table of the presets' rates (AudioFormats), which the validator's fixes read too.
        let rate = PresetSampleRate.of(preset: rawValue)
        settings.sampleRate = rate.fixed
        settings.maximumSampleRate = rate.maximum
        // The channels from the one table of the presets' channels, which the validator's fixes read too.
        let channels = PresetChannels.of(preset: rawValue)
        settings.channels = channels.fixed
        settings.maximumChannels = channels.maximum
        switch self {
        case .systemSound:
            settings.dataFormat = DataFormatSpecifier("LEI16")
            settings.adaptsToContainer = true
            settings.maximumSeconds = 30
            // The system-sound profile warns above 48 kHz and above two channels (the tables' most): the preset's
            // output passes its own profile.
            settings.allowedFileTypes = [.caf, .aiff, .aifc, .wav]
        case .sfx:
            settings.dataFormat = DataFormatSpecifier("ima4")
            settings.allowedFileTypes = [.caf, .aifc]
        case .pcm:
            settings.dataFormat = DataFormatSpecifier("LEI16")
            settings.adaptsToContainer = true
            settings.allowedFileTypes = [.caf, .aiff, .aifc, .wav]
        case .music:
            // AAC's default rate: 64 kbit/s a channel, so 128 kbit/s for stereo.
            settings.dataFormat = DataFormatSpecifier("aac")
            // The music profile warns above 48 kHz (the table's most): the preset's output passes its own profile.
            settings.copiesCompressedPackets = true
            // An `.ogg` (`-f ogg`) is Vorbis, an `.opus` Opus (what Android and game engines ship), an `.mp3` MP3;
            // none is a format the music profile, Apple's, passes.
            settings.givesWayToTheNamedCodec()
        case .lossless:
            settings.dataFormat = DataFormatSpecifier("alac")
            // Lossless as a codec, at the rates the music profile passes (the table's most; -d alac@RATE keeps a
            // higher one): a `.flac` name is FLAC.
            settings.givesWayToTheNamedCodec()
        case .voice:
            settings.dataFormat = DataFormatSpecifier("opus")
            settings.bitRate = 32000
            // An `.m4a` or `.aac` name is AAC, an `.mp3` MP3, an `.ogg` or `.opus` Opus in Ogg: at the voice's bit
            // rate, rate and channels where the codec takes them.
            settings.givesWayToTheNamedCodec()
            settings.levelsSpeech = true
        }
        return settings
    }
}

extension ConversionSettings {
    /// A preset's codec gives way to the codec the output's name picks, as lossy (or lossless) as it: the preset
    /// writes every container that holds its codec (CAF first) or whose name picks such a codec (`.m4a`: AAC;
    /// `.mp3`: MP3; `.ogg`: Vorbis; `.opus`: Opus; `.flac`: FLAC), and its codec becomes the name's where the
    /// container cannot hold it (``ConversionPlan/Destination/adapted(_:to:named:explicitly:)``), keeping the
    /// preset's bit rate, rate and channels where the codec takes them. The one rule of music, lossless and voice,
    /// from the container registry.
    mutating func givesWayToTheNamedCodec() {
        guard let specifier = dataFormat, let codec = specifier.codec else { return }
        adaptsToContainer = true
        allowedFileTypes = ContainerRegistry.written.map(\.fileType).filter { fileType in
            if ConversionPlan.Destination.holds(specifier, in: fileType, explicit: false) { return true }
            guard let policy = fileType.descriptor.writer?.policy else { return false }
            return fileType.fileNameExtensions.contains { name in
                guard let named = DataFormatSpecifier(policy.defaultDataFormat(forExtension: name))?.codec else {
                    return false
                }
                return named.isLossless == codec.isLossless && named.formatID != .lpcm
            }
        }
    }
}

/// The metadata keys afkit records in what it makes.
public enum MetadataKeys {
    /// What the output was made from: afkit's version, the settings and the source's content hash.
    public static let source = "afkit source"
    /// The valid frames the output holds.
    public static let frames = "afkit frames"
    /// The source's tags a conversion carries into its output (by Apple's info-dictionary names, as every
    /// parser reads them): what a person filed the sound under.
    public static let carried: Set<String> = [
        "title", "artist", "album", "album artist", "track number", "year", "genre", "comments", "composer",
        "copyright",
    ]
}

/// A combination of output name, container and data format that cannot be written: the command's
/// usage error, with what would fit.
public struct ConversionUsageError: Error, CustomStringConvertible, Sendable {
    /// What went wrong and what would fit.
    public var description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// What a conversion wrote.
public struct ConversionResult: Sendable {
    /// Where the output was written.
    public var outputPath: String
    /// The output's data format.
    public var format: StreamDescription
    /// The output's container.
    public var fileType: FileType
    /// Valid frames written (the decoded length equals it exactly, priming and remainder recorded).
    public var frameCount: Int64
    /// Priming and remainder frames recorded.
    public var packetTableInfo: PacketTableInfo?
    /// What the conversion chose that the user did not ask for (a rate the codec cannot hold, ...).
    public var notes: [String] = []
    /// The loudness normalization's measurements and gain, when one was asked for.
    public var normalization: NormalizationOutcome?
    /// What that normalization measured before it aimed, for another target's (``ConversionSettings/normalizationPrelude``).
    var normalizationPrelude: NormalizationPrelude?
    /// Each marker, loop and chapter of the source: carried, moved or dropped.
    public var timeline: [String] = []
    /// The chapters placed on the output's clock (the source's, the chapter file's or those its markers became):
    /// those written where the container holds chapters.
    public var chapters: [Chapter] = []
    /// Source frames cut as silence from the start and from the end (`--trim-silence`).
    public var trimmedFrames: (leading: Int64, trailing: Int64)?
    /// The source's format (what `convert -v` tells, with the frames and the route).
    public var sourceFormat: StreamDescription?
    /// The source's valid frames, where known.
    public var sourceFrameCount: Int64?
    /// The way the frames went: packets copied, samples rewritten exactly, or decoded to float.
    public var route: ConversionPlan.Route?
}

/// What a command's options ask of every conversion besides its container, data format and preset: loudness,
/// silence trimmed, tags kept, the edits, and the duration limit `--trim` cuts to. The one mapping from options
/// to settings (``ConversionSettings/apply(_:)``) serves `convert`, `batch` and `hls` alike.
public struct ConversionAdjustments: Sendable {
    /// Normalize to this loudness (`--loudness`).
    public var loudness: LoudnessTarget?
    /// Normalize the peak to this level (`--normalize-peak`, `--normalize-true-peak`).
    public var peak: PeakTarget?
    /// Mend each forward loop's seam with a crossfade this long (`--loop-crossfade`).
    public var loopCrossfade: EditTime?
    /// Trim silence below this level, dBFS (`--trim-silence`).
    public var silenceThreshold: Double?
    /// Whether the source's tags go into the output (`--no-metadata`: not).
    public var keepsMetadata = true
    /// The cut, fades, padding and gain (`--start`, `--fade-in`, `--pad`, `--gain`, ...).
    public var edits = Edits()
    /// The limit a source longer than it is cut to (`--trim`): seconds, and the name a note gives it (`the
    /// system-sound profile`); `nil`: no cut (a preset's own limit refuses a longer source).
    public var trimLimit: (seconds: Double, name: String)?
    /// The fade-out that ends a `--trim` cut (`--trim-fade`; `.frames(0)`: a hard cut).
    public var trimFade = EditTime.seconds(AudioConverter.trimFadeSeconds)
    /// The output's rate, the data format kept (`-ar`); `nil`: the data format's or the source's.
    public var sampleRate: Double?

    /// Nothing adjusted.
    public init() {}
}

extension ConversionSettings {
    /// Applies `adjustments`: the loudness, silence, tags, edits and trim a command's options ask for.
    public mutating func apply(_ adjustments: ConversionAdjustments) {
        loudness = adjustments.loudness
        if loudness?.dynamic == nil { loudness?.dynamic = levelsSpeech }
        peak = adjustments.peak
        loopCrossfade = adjustments.loopCrossfade
        silenceThreshold = adjustments.silenceThreshold
        keepsMetadata = adjustments.keepsMetadata
        edits = adjustments.edits
        if let limit = adjustments.trimLimit {
            trimToMaximum = true
            maximumSeconds = limit.seconds
            limitName = limit.name
        }
        trimFade = adjustments.trimFade
        if let rate = adjustments.sampleRate { sampleRate = rate }
    }

    /// Applies `-f` (by its `code`, where known) and `-d`: a data format given is kept as given (a preset's gives
    /// way to the container), and its `@RATE` is the output's rate.
    public mutating func apply(fileType: FileType?, code: String? = nil, dataFormat: DataFormatSpecifier?) {
        if let fileType {
            self.fileType = fileType
            fileTypeCode = code
        }
        if let dataFormat {
            self.dataFormat = dataFormat
            adaptsToContainer = false
            if let rate = dataFormat.sampleRate { sampleRate = rate }
        }
    }
}

/// What the output's codec is asked besides its data format, as afconvert spells it: channels (`-c`), bit rate
/// (`-b`), quality (`-q`) and bit-rate strategy (`-s`). The one mapping from those options to settings serves
/// `convert`, `join`, `mix` and `batch`.
public struct CodecRequest: Sendable, Hashable, CustomStringConvertible {
    /// The output channels (`-c`); `nil`: the preset's or the source's.
    public var channels: Int?
    /// Bits per second (`-b`).
    public var bitRate: Int?
    /// Codec quality, 0 to 127 (`-q`).
    public var quality: Int?
    /// Bit-rate control (`-s`).
    public var strategy: BitRateStrategy?

    /// Nothing asked: the preset's or the codec's defaults.
    public init(channels: Int? = nil, bitRate: Int? = nil, quality: Int? = nil, strategy: BitRateStrategy? = nil) {
        self.channels = channels
        self.bitRate = bitRate
        self.quality = quality
        self.strategy = strategy
    }

    /// The options as afconvert spells them (`-c 2 -b 128000`), empty where nothing is asked: what a batch's
    /// outputs record, so changing one rebuilds them.
    public var description: String {
        [
            channels.map { "-c \($0)" }, bitRate.map { "-b \($0)" }, quality.map { "-q \($0)" },
            strategy.map { "-s \($0.rawValue)" },
        ].compactMap { $0 }.joined(separator: " ")
    }

    /// The same as arguments (`["-c", "2"]`), for a command that repeats them.
    public var arguments: [String] { description.split(separator: " ").map(String.init) }
}

extension ConversionSettings {
    /// Applies `request`: what it asks replaces the preset's.
    public mutating func apply(_ request: CodecRequest) {
        if let channels = request.channels { self.channels = channels }
        if let bitRate = request.bitRate { self.bitRate = bitRate }
        if let quality = request.quality { self.quality = quality }
        if let strategy = request.strategy { self.strategy = strategy }
    }
}
