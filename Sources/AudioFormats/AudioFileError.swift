/// The one error type of afkit's parsers, codecs and writers.
///
/// Each case carries a message a person can act on (it starts with the container or codec
/// name, as in `"caf: 'desc' chunk is 28 bytes; expected 32"`) and, where the problem lies in
/// the bytes, the absolute byte offset where it was seen. Switch on ``code`` rather than on the
/// cases: cases may be added.
public enum AudioFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not a container afkit reads. Code `typ?`.
    case unsupportedFileType(String, offset: Int64?)
    /// The container is read, but its data format is not supported here. Code `fmt?`.
    case unsupportedDataFormat(String, offset: Int64?)
    /// A header field holds a value that cannot be (0 channels, a NaN sample rate, ...). Code `dta?`.
    case malformed(String, offset: Int64?)
    /// A chunk's size or layout contradicts its type or its parent. Code `chk?`.
    case invalidChunk(String, offset: Int64?)
    /// The input ended inside a header the file needs. Code `eof!`.
    case truncated(String, offset: Int64?)
    /// Honouring the input would take more memory or work than the configured limit. Code `lim!`.
    case limitExceeded(String, offset: Int64?)
    /// A packet index or byte offset lies outside the stream. Code `pck?`.
    case invalidPacket(String, offset: Int64?)
    /// A stream parser cannot go on without bytes it has passed: an MPEG-4 file whose `moov` follows
    /// more `mdat` than the parser may hold. Code `optm` (Apple's kAudioFileStreamError_NotOptimized).
    case notOptimized(String, offset: Int64?)
    /// The call is not valid in the object's current state. Code `nope`.
    case illegalOperation(String)
    /// The operating system refused a read, write, open or rename. Code `io!!`.
    case io(String, errno: Int32)
    /// A server or the connection to it failed: refused, reset, stalled past the read timeout, or an
    /// HTTP status that is not the audio. The offset is the stream position reached. Code `net!`.
    case network(String, offset: Int64?)

    /// The OSStatus-style four-character code of the error's kind.
    public var code: FourCharCode {
        switch self {
        case .unsupportedFileType: "typ?"
        case .unsupportedDataFormat: "fmt?"
        case .malformed: "dta?"
        case .invalidChunk: "chk?"
        case .truncated: "eof!"
        case .limitExceeded: "lim!"
        case .invalidPacket: "pck?"
        case .notOptimized: "optm"
        case .illegalOperation: "nope"
        case .io: "io!!"
        case .network: "net!"
        }
    }

    /// The absolute byte offset where the problem was seen, where it has one.
    public var offset: Int64? {
        switch self {
        case .unsupportedFileType(_, let offset), .unsupportedDataFormat(_, let offset), .malformed(_, let offset),
            .invalidChunk(_, let offset), .truncated(_, let offset), .limitExceeded(_, let offset),
            .invalidPacket(_, let offset), .notOptimized(_, let offset), .network(_, let offset):
            offset
        case .illegalOperation, .io: nil
        }
    }

    /// What went wrong, for a person.
    public var message: String {
        switch self {
        case .unsupportedFileType(let message, _), .unsupportedDataFormat(let message, _), .malformed(let message, _),
            .invalidChunk(let message, _), .truncated(let message, _), .limitExceeded(let message, _),
            .invalidPacket(let message, _), .notOptimized(let message, _), .illegalOperation(let message),
            .io(let message, _),
            .network(let message, _):
            message
        }
    }

    /// The same error placed where it was seen: at `offset` (`nil`: where it says already), with `context`
    /// (what was being read, such as "packet 4812") before its message.
    public func located(at offset: Int64?, context: String) -> AudioFileError {
        rewritten(at: offset) { context + ": " + $0 }
    }

    /// The same error with its message rewritten (a secret taken out of it), at `offset` where one is given.
    public func rewritten(at offset: Int64? = nil, _ transform: (String) -> String) -> AudioFileError {
        let message = transform(self.message)
        switch self {
        case .unsupportedFileType(_, let known): return .unsupportedFileType(message, offset: offset ?? known)
        case .unsupportedDataFormat(_, let known): return .unsupportedDataFormat(message, offset: offset ?? known)
        case .malformed(_, let known): return .malformed(message, offset: offset ?? known)
        case .invalidChunk(_, let known): return .invalidChunk(message, offset: offset ?? known)
        case .truncated(_, let known): return .truncated(message, offset: offset ?? known)
        case .limitExceeded(_, let known): return .limitExceeded(message, offset: offset ?? known)
        case .invalidPacket(_, let known): return .invalidPacket(message, offset: offset ?? known)
        case .notOptimized(_, let known): return .notOptimized(message, offset: offset ?? known)
        case .network(_, let known): return .network(message, offset: offset ?? known)
        case .illegalOperation: return .illegalOperation(message)
        case .io(_, let number): return .io(message, errno: number)
        }
    }

    /// The message with its byte offset and code.
    public var description: String {
        if let offset { return "\(message) (at byte \(offset), code '\(code)')" }
        return "\(message) (code '\(code)')"
    }
}
