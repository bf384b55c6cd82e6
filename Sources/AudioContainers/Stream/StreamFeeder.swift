import AudioFormats
import StreamParsing

extension AudioFileStream {
    /// Where the next bytes must come from: the offset of a seek the parser asked for (to be parsed with
    /// `.discontinuity`), else the end of what it has. A client of any byte source answers the parser by
    /// reading from here: a file reads there, the HTTP face makes a range request.
    public var nextByteOffset: Int64 { pendingSeek ?? streamPosition }

    /// Whether the parser asked for a seek not yet answered: the next bytes must come from
    /// ``nextByteOffset`` and be parsed with `.discontinuity` (bytes from elsewhere are ignored until then).
    public var isAwaitingSeek: Bool { pendingSeek != nil }

    /// Feeds the stream from a source of `size` bytes with random access, to its end, and finishes it:
    /// the one loop that answers the parser over a file (``AudioFile``, `afkit packets`).
    ///
    /// - `read(buffer, offset)` fills `buffer` from `offset` and returns the bytes read (0 at the end).
    /// - Each seek the parser requests is answered by reading from its offset, parsed as a discontinuity.
    /// - With `passingOverUnneededBytes`, the bytes the parser would only step over
    ///   (``skippableByteCount``: chunks it does not read; the audio, when indexing) are passed over unread.
    public mutating func feed(
        size: Int64, chunkSize: Int = 64 << 10, passingOverUnneededBytes: Bool = false,
        read: (UnsafeMutableRawBufferPointer, Int64) throws -> Int,
        _ handler: (Event) throws -> Void
    ) throws {
        var buffer = [UInt8](repeating: 0, count: max(chunkSize, 1))
        while nextByteOffset < size || isAwaitingSeek && nextByteOffset == size {
            let resuming = isAwaitingSeek
            let position = nextByteOffset
            if passingOverUnneededBytes, !resuming, skippableByteCount > 0 {
                skip(min(skippableByteCount, size - position))
                // Passed over to the very end (cover art closing an MP4's `moov`): the parser still takes the
                // steps that follow, as it would after bytes, so the boxes ending there close and a seek it asks
                // for (back to the audio) is answered.
                if nextByteOffset >= size { try parse(UnsafeRawBufferPointer(start: nil, count: 0), handler) }
                continue
            }
            let count = try buffer.withUnsafeMutableBytes { try read($0, position) }
            if count == 0 {
                // A seek to the very end (back past an MP4's last box after its chapter titles): answered there.
                if resuming { try parse(UnsafeRawBufferPointer(start: nil, count: 0), flags: .discontinuity, handler) }
                break
            }
            try buffer.withUnsafeBytes { raw in
                try parse(
                    UnsafeRawBufferPointer(rebasing: raw[0..<count]), flags: resuming ? .discontinuity : [], handler)
            }
        }
        try finish(handler)
    }
}
