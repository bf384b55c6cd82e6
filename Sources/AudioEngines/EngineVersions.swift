internal import CAVCodec
internal import CEBUR128
internal import CFAAD
internal import CFLAC
internal import CLame
internal import COpus
internal import CSampleRate
internal import CSndFile
internal import CSoxr
internal import CVorbis

/// The C engines afkit converts with, and the version of each as this process has it (what a worker
/// image must provide; `afkit --version --verbose`).
public enum EngineVersions {
    /// Name and version of every engine; `nil` for one loaded on use that cannot be loaded here.
    public static var conversion: [(engine: String, version: String?)] {
        let faad = (try? LibFAAD.functions()).flatMap { faad -> String? in
            var faadID: UnsafeMutablePointer<CChar>?
            var faadCopyright: UnsafeMutablePointer<CChar>?
            _ = faad.NeAACDecGetVersion(&faadID, &faadCopyright)
            return faadID.map { String(cString: $0) + " (loaded on use)" }
        }
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        ebur128_get_version(&major, &minor, &patch)
        let avcodec = (try? LibAV.functions()).map { av -> String in
            let packed = av.avcodec_version()
            return "\(packed >> 16).\(packed >> 8 & 0xFF).\(packed & 0xFF) (loaded on use)"
        }
        return [
            ("libsndfile", sf_version_string().map { String(cString: $0) }),
            ("libmp3lame", get_lame_version().map { String(cString: $0) }),
            ("libfaad2", faad),
            ("libsoxr", soxr_version().map { String(cString: $0) }),
            ("libsamplerate", src_get_version().map { String(cString: $0) }),
            ("libebur128", "\(major).\(minor).\(patch)"),
            ("libFLAC", String(cString: afkit_flac_version())),
            ("libopus", String(cString: opus_get_version_string())),
            ("libvorbis", vorbis_version_string().map { String(cString: $0) }),
            ("libavcodec", avcodec),
        ]
    }
}
