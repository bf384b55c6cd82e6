import AudioFormats
import StreamParsing

/// Removes SHOUTcast/Icecast (ICY) metadata from a stream before it is parsed.
///
/// With `icy-metaint: N`, the server sends N audio bytes, then a length byte L, then L × 16 bytes
/// of metadata (`StreamTitle='...';StreamUrl='...';`, padded with NULs), then N audio bytes again.
/// The demuxer passes the audio on and reports each change of `StreamTitle` with the audio byte
/// position where it took effect.
public struct ICYMetadataDemuxer: Sendable {
    /// A new stream title, and the offset in the audio (metadata removed) where it begins.
    public struct TitleChange: Hashable, Sendable {
        /// Where in the audio (metadata removed) the title begins.
        public var audioOffset: Int64
        /// The title.
        public var title: String
    }

    /// Audio bytes between metadata blocks (`icy-metaint`).
    public let metadataInterval: Int
    /// Audio bytes passed on so far.
    public private(set) var audioByteCount: Int64 = 0
    /// Bytes taken so far, metadata included.
    public private(set) var streamByteCount: Int64 = 0
    /// The current stream title.
    public private(set) var title: String?
    private var untilMetadata: Int
    private var metadataRemaining: Int?
    private var metadata: [UInt8] = []

    /// `metadataInterval` is the `icy-metaint` response header's value.
    public init(metadataInterval: Int) {
        precondition(metadataInterval > 0, "icy-metaint is a positive number of bytes")
        self.metadataInterval = metadataInterval
        untilMetadata = metadataInterval
    }

    /// Splits `bytes` into audio (handed to `audio` in runs, without copying) and metadata; returns the
    /// title changes completed in these bytes.
    public mutating func demux(_ bytes: UnsafeRawBufferPointer, audio: (UnsafeRawBufferPointer) throws -> Void) throws
        -> [TitleChange]
    {
        var changes: [TitleChange] = []
        try demux(bytes, audio: audio) { changes.append($0) }
        return changes
    }

    /// Splits `bytes` into audio and metadata, in the order they arrive: `audio` gets each run of audio
    /// (without copying), `titleChanged` each new title as soon as its metadata block is complete.
    ///
    /// A block that is not metadata text (control bytes, no `key='value'`) means the interval is not
    /// the one the stream uses (a lying `icy-metaint`): that is an error, not audio quietly corrupted.
    public mutating func demux(
        _ bytes: UnsafeRawBufferPointer, audio: (UnsafeRawBufferPointer) throws -> Void,
        titleChanged: (TitleChange) throws -> Void
    ) throws {
        var index = 0
        defer { streamByteCount += Int64(index) }
        while index < bytes.count {
            if let remaining = metadataRemaining {
                let take = min(remaining, bytes.count - index)
                metadata.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<index + take]))
                index += take
                if remaining - take > 0 {
                    metadataRemaining = remaining - take
                    continue
                }
                metadataRemaining = nil
                untilMetadata = metadataInterval
                guard ICYMetadataDemuxer.isMetadataText(metadata) else {
                    throw AudioFileError.malformed(
                        "icy: the \(metadata.count)-byte metadata block after audio byte \(audioByteCount) is not "
                            + "metadata text: the stream does not use icy-metaint \(metadataInterval)",
                        offset: streamByteCount + Int64(index - metadata.count - 1))
                }
                if let change = finishBlock() { try titleChanged(change) }
            } else if untilMetadata == 0 {
                let length = Int(bytes[index]) * 16
                index += 1
                metadata.removeAll(keepingCapacity: true)
                if length == 0 {
                    untilMetadata = metadataInterval
                } else {
                    metadataRemaining = length
                }
            } else {
                let take = min(untilMetadata, bytes.count - index)
                try audio(UnsafeRawBufferPointer(rebasing: bytes[index..<index + take]))
                audioByteCount += Int64(take)
                untilMetadata -= take
                index += take
            }
        }
    }

    /// Whether the bytes so far end inside a metadata block (its length byte given, its text not all
    /// here): a stream that ends now was cut inside it.
    public var isInsideMetadata: Bool { metadataRemaining != nil }

    /// Whether a block reads as ICY metadata: text (tabs and line ends allowed, bytes from 0x80 taken
    /// as UTF-8 or Latin-1) in `key='value'` fields, padded with NULs.
    public static func isMetadataText(_ block: [UInt8]) -> Bool {
        var end = block.count
        while end > 0 && block[end - 1] == 0 { end -= 1 }
        if end == 0 { return true }
        var sawField = false
        for index in 0..<end {
            let byte = block[index]
            if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D { return false }
            if byte == UInt8(ascii: "=") && index + 1 < end && block[index + 1] == UInt8(ascii: "'") { sawField = true }
        }
        return sawField
    }

    private mutating func finishBlock() -> TitleChange? {
        let text = decodeText(metadata.withUnsafeBytes { $0 })
        guard let found = ICYMetadataDemuxer.field("StreamTitle", in: text), found != title else { return nil }
        title = found
        return TitleChange(audioOffset: audioByteCount, title: found)
    }

    /// The value of `Key='value';` in a metadata block (the value may itself hold quotes or semicolons).
    static func field(_ key: String, in text: String) -> String? {
        let bytes = Array(text.utf8)
        guard let start = firstIndex(of: Array((key + "='").utf8), in: bytes, from: 0) else { return nil }
        let valueStart = start + key.utf8.count + 2
        // The value ends at the first `';` that is followed by the end or by another `Key='`; a title may
        // itself hold `';`.
        var search = valueStart
        while let end = firstIndex(of: Array("';".utf8), in: bytes, from: search) {
            if endsValue(bytes, at: end + 2) { return String(decoding: bytes[valueStart..<end], as: UTF8.self) }
            search = end + 1
        }
        var valueEnd = bytes.count
        if bytes.last == UInt8(ascii: "'") && valueEnd > valueStart { valueEnd -= 1 }
        return String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)
    }

    /// Whether the bytes from `index` are the end of the block or a `Key='` that starts the next field.
    private static func endsValue(_ bytes: [UInt8], at index: Int) -> Bool {
        if index == bytes.count { return true }
        var position = index
        while position < bytes.count, (bytes[position] | 0x20) >= 0x61 && (bytes[position] | 0x20) <= 0x7A {
            position += 1
        }
        return position > index && position + 1 < bytes.count && bytes[position] == UInt8(ascii: "=")
            && bytes[position + 1] == UInt8(ascii: "'")
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var index = start
        while index + needle.count <= haystack.count {
            if haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
