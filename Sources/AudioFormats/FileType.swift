/// A container kind, detected from the bytes. Raw values are the contract's `container` names.
public enum FileType: String, Hashable, Sendable, CaseIterable {
    case caf, aiff, aifc, wav, rf64, adts, mp3
    /// MPEG-4 audio (`ftyp` brand `M4A `/`M4B `) and other ISO base media files.
    case m4a, mp4
    /// Native FLAC (`fLaC`).
    case flac
    /// Sony Wave64.
    case w64
    /// Sun/NeXT audio.
    case au
    /// Ogg (Vorbis, Opus or FLAC).
    case ogg
    /// AC-3 and E-AC-3 elementary streams.
    case ac3, ec3
    /// AMR and AMR-WB in the storage format.
    case amr
    /// LOAS/LATM: AAC in AudioSyncStream frames.
    case loas
    /// 3GPP and 3GPP2 files (ISO base media, by their brands).
    case threeGP = "3gp"

    /// Apple's AudioFileTypeID for the container.
    public var fileTypeID: FourCharCode {
        switch self {
        case .caf: "caff"
        case .aiff: "AIFF"
        case .aifc: "AIFC"
        case .wav: "WAVE"
        case .rf64: "RF64"
        case .adts: "adts"
        case .mp3: "MPG3"
        case .m4a: "m4af"
        case .mp4: "mp4f"
        case .flac: "flac"
        case .w64: "W64f"
        case .au: "NeXT"
        case .ogg: "OggS"
        case .ac3: "ac-3"
        case .ec3: "ec-3"
        case .amr: "amrf"
        case .loas: "loas"
        case .threeGP: "3gpp"
        }
    }

    /// The container's name in messages ("CAF", "MPEG audio", "Wave64").
    public var name: String {
        switch self {
        case .caf: "CAF"
        case .aiff: "AIFF"
        case .aifc: "AIFF-C"
        case .wav: "WAV"
        case .rf64: "RF64"
        case .mp3: "MPEG audio"
        case .adts: "ADTS"
        case .m4a: "M4A"
        case .mp4: "MPEG-4"
        case .flac: "FLAC"
        case .w64: "Wave64"
        case .au: "AU"
        case .ogg: "Ogg"
        case .ac3: "AC-3"
        case .ec3: "E-AC-3"
        case .amr: "AMR"
        case .loas: "LOAS"
        case .threeGP: "3GPP"
        }
    }

    /// What a file of this container is, as a message says it ("a CAF file", "an ADTS (AAC) stream").
    public var kindDescription: String {
        switch self {
        case .caf: "a CAF file"
        case .aiff: "an AIFF file"
        case .aifc: "an AIFF-C file"
        case .wav: "a WAV file"
        case .rf64: "an RF64 file"
        case .mp3: "an MPEG audio stream"
        case .adts: "an ADTS (AAC) stream"
        case .m4a: "an MPEG-4 audio (M4A) file"
        case .mp4: "an MPEG-4 file"
        case .flac: "a FLAC file"
        case .w64: "a Sony Wave64 file"
        case .au: "a Sun/NeXT AU file"
        case .ogg: "an Ogg file"
        case .ac3: "an AC-3 stream"
        case .ec3: "an E-AC-3 stream"
        case .amr: "an AMR file"
        case .loas: "a LOAS/LATM stream"
        case .threeGP: "a 3GPP file"
        }
    }

    /// The file name extensions (lower case, no dot) files of this container go by.
    public var knownExtensions: Set<String> {
        switch self {
        case .caf: ["caf", "caff"]
        case .aiff, .aifc: ["aif", "aiff", "aifc"]
        case .wav, .rf64: ["wav", "wave", "rf64", "bwf"]
        case .mp3: ["mp3", "mpa", "mp1", "mp2"]
        case .adts: ["aac", "adts"]
        case .m4a: ["m4a", "m4b", "m4r", "mp4"]
        case .mp4: ["mp4", "m4a", "m4b", "m4r", "mov", "3gp"]
        case .flac: ["flac"]
        case .w64: ["w64"]
        case .au: ["au", "snd"]
        case .ogg: ["ogg", "oga", "opus"]
        case .ac3: ["ac3"]
        case .ec3: ["ec3", "eac3"]
        case .amr: ["amr", "awb"]
        case .loas: ["loas", "latm", "xhe"]
        case .threeGP: ["3gp", "3g2"]
        }
    }

    /// The container a file name extension usually names, used only as a hint to break ties.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "caf", "caff": self = .caf
        case "aif", "aiff": self = .aiff
        case "aifc": self = .aifc
        case "wav", "wave": self = .wav
        case "rf64": self = .rf64
        case "aac", "adts": self = .adts
        case "mp3", "mp2", "mp1", "mpa", "mpga": self = .mp3
        case "m4a", "m4b": self = .m4a
        case "mp4": self = .mp4
        case "flac": self = .flac
        case "w64": self = .w64
        case "au", "snd": self = .au
        case "ogg", "oga", "opus", "ogv": self = .ogg
        case "ac3": self = .ac3
        case "ec3", "eac3": self = .ec3
        case "amr", "awb": self = .amr
        case "loas", "latm", "xhe": self = .loas
        case "3gp", "3g2", "3gpp": self = .threeGP
        default: return nil
        }
    }
}
