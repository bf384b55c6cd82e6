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
        case .threeGP: "3gpp"
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
        case "3gp", "3g2", "3gpp": self = .threeGP
        default: return nil
        }
    }
}
