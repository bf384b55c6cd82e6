import AudioFormats
internal import CSndFile

/// A file read or written through libsndfile: the way in for formats afkit does not parse itself
/// (FLAC, Ogg Vorbis, ...), and an independent reader for checking what afkit writes.
public final class SoundFile {
    /// How a file is opened.
    public enum Mode { case read, write }

    /// libsndfile's description of the file.
    public struct Info: Sendable, Equatable {
        /// Frames in the file.
        public var frames: Int64
        /// Frames per second.
        public var sampleRate: Int
        /// Channels per frame.
        public var channels: Int
        /// libsndfile's `SF_FORMAT_*` bits: container in the high word, encoding in the low.
        public var format: Int32
        /// The container part of `format` (`SF_FORMAT_TYPEMASK`).
        public var majorFormat: Int32 { format & Int32(SF_FORMAT_TYPEMASK) }
        /// The sample encoding part of `format` (`SF_FORMAT_SUBMASK`).
        public var subtype: Int32 { format & Int32(SF_FORMAT_SUBMASK) }

        /// Bits per sample of integer encodings (FLAC and PCM), `nil` for float and lossy ones.
        public var integerBits: UInt32? {
            switch subtype {
            case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8): 8
            case Int32(SF_FORMAT_PCM_16): 16
            case Int32(SF_FORMAT_PCM_24): 24
            case Int32(SF_FORMAT_PCM_32): 32
            default: nil
            }
        }

        /// Info for a file to write: rate, channels and libsndfile's format bits.
        public init(frames: Int64 = 0, sampleRate: Int, channels: Int, format: Int32) {
            self.frames = frames
            self.sampleRate = sampleRate
            self.channels = channels
            self.format = format
        }
    }

    /// The file.
    public let path: String
    /// What libsndfile reports of it.
    public private(set) var info: Info
    private var handle: OpaquePointer?

    /// Opens `path`; for writing, `info` says the format (libsndfile's `SF_FORMAT_*` values).
    public init(path: String, mode: Mode = .read, info: Info? = nil) throws {
        self.path = path
        var raw = SF_INFO()
        if let info {
            raw.samplerate = Int32(info.sampleRate)
            raw.channels = Int32(info.channels)
            raw.format = info.format
        }
        handle = PathEscaping.withCString(path) {
            sf_open($0, mode == .read ? Int32(SFM_READ) : Int32(SFM_WRITE), &raw)
        }
        guard handle != nil else {
            let reason = String(cString: sf_strerror(nil))
            throw AudioFileError.unsupportedFileType("libsndfile: cannot open '\(path)': \(reason)", offset: nil)
        }
        self.info = Info(
            frames: Int64(raw.frames), sampleRate: Int(raw.samplerate), channels: Int(raw.channels),
            format: raw.format)
    }

    deinit { close() }

    /// Closes the file (writing its final header).
    public func close() {
        if let handle { sf_close(handle) }
        handle = nil
    }

    /// What libsndfile reads of a file's instrument (AIFF `INST` and its markers, WAV `smpl` and `inst`).
    public struct InstrumentInfo: Equatable, Sendable {
        /// Gain, dB.
        public var gain: Int
        /// The MIDI note the sound plays at as recorded.
        public var baseNote: Int
        /// Detune, cents.
        public var detune: Int
        /// The MIDI velocities it plays for.
        public var velocityRange: ClosedRange<Int>
        /// The MIDI notes it plays for.
        public var keyRange: ClosedRange<Int>
        /// Each loop: libsndfile's mode (801 forward, 802 backward, 803 alternating), start and end frames.
        public var loops: [[Int]]
    }

    /// libsndfile's reading of the instrument, or `nil` where it finds none.
    public func instrument() -> InstrumentInfo? {
        var raw = SF_INSTRUMENT()
        let found = sf_command(handle, Int32(SFC_GET_INSTRUMENT), &raw, Int32(MemoryLayout<SF_INSTRUMENT>.size))
        guard found == Int32(SF_TRUE) else { return nil }
        let count = Int(min(max(raw.loop_count, 0), 16))
        var loops: [[Int]] = []
        // The loops follow `loop_count` (Swift does not import the array of anonymous structs).
        let first = (MemoryLayout<SF_INSTRUMENT>.offset(of: \.loop_count) ?? 12) + 4
        withUnsafeBytes(of: &raw) { bytes in
            for index in 0..<count {
                var loop: [Int] = []
                for field in 0..<3 {
                    let value: Int32 = bytes.loadUnaligned(
                        fromByteOffset: first + index * 16 + field * 4, as: Int32.self)
                    loop.append(Int(value))
                }
                loops.append(loop)
            }
        }
        func lowHigh(_ low: CChar, _ high: CChar) -> ClosedRange<Int> { Int(low)...max(Int(low), Int(high)) }
        return InstrumentInfo(
            gain: Int(raw.gain), baseNote: Int(raw.basenote), detune: Int(raw.detune),
            velocityRange: lowHigh(raw.velocity_lo, raw.velocity_hi), keyRange: lowHigh(raw.key_lo, raw.key_hi),
            loops: loops)
    }

    /// libsndfile's reading of the cue points (WAV `cue `, AIFF `MARK`): ID, sample offset, name.
    public func cues() -> [(id: Int, position: Int64, name: String)] {
        var raw = SF_CUES()
        guard sf_command(handle, Int32(SFC_GET_CUE), &raw, Int32(MemoryLayout<SF_CUES>.size)) == Int32(SF_TRUE) else {
            return []
        }
        let stride = MemoryLayout<SF_CUE_POINT>.stride
        return withUnsafeBytes(of: &raw.cue_points) { bytes in
            (0..<Int(min(raw.cue_count, 100))).map { index in
                let base = index * stride
                let id = Int(bytes.loadUnaligned(fromByteOffset: base, as: Int32.self))
                let offset = Int64(bytes.loadUnaligned(fromByteOffset: base + 20, as: UInt32.self))
                let name = bytes[(base + 24)..<(base + 24 + 256)].prefix { $0 != 0 }
                return (id, offset, String(decoding: name, as: UTF8.self))
            }
        }
    }

    /// Reads up to `frames` frames (all that remain by default), interleaved, as 32-bit integers
    /// scaled to the full Int32 range.
    public func readInt32(frames: Int64? = nil) throws -> [Int32] {
        try read(frames: frames) { handle, buffer, count in sf_readf_int(handle, buffer, count) }
    }

    /// Reads frames as doubles in -1...1 (libsndfile scales integers by their full range).
    public func readDouble(frames: Int64? = nil) throws -> [Double] {
        try read(frames: frames) { handle, buffer, count in sf_readf_double(handle, buffer, count) }
    }

    /// Reads frames as floats in -1...1.
    public func readFloat(frames: Int64? = nil) throws -> [Float] {
        try read(frames: frames) { handle, buffer, count in sf_readf_float(handle, buffer, count) }
    }

    /// Writes interleaved 32-bit integer frames.
    public func write(int32 samples: [Int32]) throws {
        guard let handle else { throw AudioFileError.illegalOperation("libsndfile: '\(path)' is closed") }
        let frames = sf_count_t(samples.count / max(info.channels, 1))
        let written = samples.withUnsafeBufferPointer { sf_writef_int(handle, $0.baseAddress, frames) }
        guard written == frames else {
            throw AudioFileError.io(
                "libsndfile: cannot write '\(path)': \(String(cString: sf_strerror(handle)))",
                errno: 0)
        }
    }

    private func read<T: Numeric>(
        frames: Int64?, _ body: (OpaquePointer, UnsafeMutablePointer<T>, sf_count_t) -> sf_count_t
    ) throws -> [T] {
        guard let handle else { throw AudioFileError.illegalOperation("libsndfile: '\(path)' is closed") }
        let wanted = frames ?? info.frames
        var samples = [T](repeating: 0, count: Int(wanted) * info.channels)
        let got = samples.withUnsafeMutableBufferPointer { buffer -> sf_count_t in
            guard let base = buffer.baseAddress else { return 0 }
            return body(handle, base, sf_count_t(wanted))
        }
        samples.removeLast(samples.count - Int(got) * info.channels)
        return samples
    }
}

/// libsndfile's format codes, spelled for Swift.
public enum SoundFileFormat {
    /// `SF_FORMAT_WAV`.
    public static let wav = Int32(SF_FORMAT_WAV)
    /// `SF_FORMAT_AIFF`.
    public static let aiff = Int32(SF_FORMAT_AIFF)
    /// `SF_FORMAT_CAF`.
    public static let caf = Int32(SF_FORMAT_CAF)
    /// `SF_FORMAT_RF64`.
    public static let rf64 = Int32(SF_FORMAT_RF64)
    /// `SF_FORMAT_AU`.
    public static let au = Int32(SF_FORMAT_AU)
    /// `SF_FORMAT_PCM_S8`.
    public static let pcmS8 = Int32(SF_FORMAT_PCM_S8)
    /// `SF_FORMAT_PCM_U8`.
    public static let pcmU8 = Int32(SF_FORMAT_PCM_U8)
    /// `SF_FORMAT_PCM_16`.
    public static let pcm16 = Int32(SF_FORMAT_PCM_16)
    /// `SF_FORMAT_PCM_24`.
    public static let pcm24 = Int32(SF_FORMAT_PCM_24)
    /// `SF_FORMAT_PCM_32`.
    public static let pcm32 = Int32(SF_FORMAT_PCM_32)
    /// `SF_FORMAT_FLOAT`.
    public static let float = Int32(SF_FORMAT_FLOAT)
    /// `SF_FORMAT_DOUBLE`.
    public static let double = Int32(SF_FORMAT_DOUBLE)
    /// `SF_FORMAT_ULAW`.
    public static let ulaw = Int32(SF_FORMAT_ULAW)
    /// `SF_FORMAT_ALAW`.
    public static let alaw = Int32(SF_FORMAT_ALAW)
    /// `SF_FORMAT_IMA_ADPCM`.
    public static let imaADPCM = Int32(SF_FORMAT_IMA_ADPCM)
    /// `SF_ENDIAN_LITTLE`.
    public static let littleEndian = Int32(SF_ENDIAN_LITTLE)
    /// `SF_ENDIAN_BIG`.
    public static let bigEndian = Int32(SF_ENDIAN_BIG)
}
