import AudioFormats
import StreamParsing

extension AudioFileStream {
    /// An event whose packet bytes are copied out, so it can outlive the parse call.
    public enum OwnedEvent: Sendable {
        /// A property changed; `properties` is everything known at that moment.
        case propertyChanged(StreamPropertyID, properties: StreamProperties)
        /// Consecutive whole packets.
        case packets(OwnedPackets)
    }

    /// Packets with their own copy of the bytes.
    public struct OwnedPackets: Sendable {
        /// The packets' bytes.
        public var bytes: [UInt8]
        /// Absolute stream offset of `bytes[0]`.
        public var streamOffset: Int64
        /// The number of the first packet (an estimate where ``indexIsKnown`` is `false`).
        public var firstPacket: Int64
        /// Whether ``firstPacket`` is the true index (``AudioFileStream/Packets/indexIsKnown``).
        public var indexIsKnown: Bool
        /// How many packets.
        public var count: Int
        /// Offsets relative to `bytes`; `nil` where every packet has the format's constant size.
        public var descriptions: [PacketDescription]?

        /// Packets owning `bytes`.
        public init(
            bytes: [UInt8], streamOffset: Int64, firstPacket: Int64, indexIsKnown: Bool = true, count: Int,
            descriptions: [PacketDescription]?
        ) {
            self.bytes = bytes
            self.streamOffset = streamOffset
            self.firstPacket = firstPacket
            self.indexIsKnown = indexIsKnown
            self.count = count
            self.descriptions = descriptions
        }

        /// A copy of packets handed out during a parse call.
        public init(copying packets: Packets) {
            self.init(
                bytes: Array(packets.bytes), streamOffset: packets.streamOffset, firstPacket: packets.firstPacket,
                indexIsKnown: packets.indexIsKnown, count: packets.count,
                descriptions: packets.descriptions.map(Array.init))
        }
    }

    /// The events of a stream of byte chunks (a network response body, a file read in pieces), as an
    /// asynchronous sequence that ends after the stream's last event.
    ///
    /// ```swift
    /// for try await event in AudioFileStream.events(of: response.body) { ... }
    /// ```
    public static func events<Chunks: AsyncSequence>(
        of chunks: Chunks, fileTypeHint: FileType? = nil, limits: ParserLimits = ParserLimits()
    ) -> AudioFileStreamEvents<Chunks> where Chunks.Element: Sequence, Chunks.Element.Element == UInt8 {
        AudioFileStreamEvents(base: chunks, fileTypeHint: fileTypeHint, limits: limits)
    }
}

/// An asynchronous sequence of ``AudioFileStream/OwnedEvent``s parsed from chunks of bytes.
public struct AudioFileStreamEvents<Base: AsyncSequence>: AsyncSequence
where Base.Element: Sequence, Base.Element.Element == UInt8 {
    /// The events, with their own bytes.
    public typealias Element = AudioFileStream.OwnedEvent

    let base: Base
    let fileTypeHint: FileType?
    let limits: ParserLimits

    /// An iterator that parses the base sequence's chunks as they come.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            base: base.makeAsyncIterator(), stream: AudioFileStream(fileTypeHint: fileTypeHint, limits: limits))
    }

    /// Parses chunks as they come and hands the events on one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var stream: AudioFileStream
        var pending: [Element] = []
        var index = 0
        var ended = false

        /// The next event; `nil` after the stream ends.
        public mutating func next() async throws -> Element? {
            while index == pending.count {
                if ended { return nil }
                pending.removeAll(keepingCapacity: true)
                index = 0
                // Take the parser out of `self` while it runs, so the handler may append freely.
                var parser = stream
                stream = AudioFileStream()
                var events: [Element] = []
                let collect: (AudioFileStream.Event) -> Void = { event in
                    switch event {
                    case .propertyChanged(let id, let properties):
                        events.append(.propertyChanged(id, properties: properties))
                    case .packets(let run):
                        events.append(.packets(AudioFileStream.OwnedPackets(copying: run)))
                    case .seekRequested:
                        break  // this parser is made without `requestsSeeks`: a byte sequence cannot seek
                    }
                }
                defer { stream = parser }
                if let chunk = try await base.next() {
                    try parser.parse(Array(chunk), collect)
                } else {
                    ended = true
                    try parser.finish(collect)
                }
                pending = events
            }
            defer { index += 1 }
            return pending[index]
        }
    }
}

extension AudioFileStream {
    /// The events of an asynchronous sequence of single bytes (such as a URL session's byte
    /// stream), gathered into chunks of `chunkSize` before parsing.
    public static func events<Bytes: AsyncSequence>(
        ofBytes bytes: Bytes, chunkSize: Int = 4096, fileTypeHint: FileType? = nil,
        limits: ParserLimits = ParserLimits()
    ) -> AudioFileStreamEvents<AsyncByteChunks<Bytes>> where Bytes.Element == UInt8 {
        AudioFileStreamEvents(
            base: AsyncByteChunks(base: bytes, chunkSize: max(chunkSize, 1)), fileTypeHint: fileTypeHint,
            limits: limits)
    }
}

/// Gathers an asynchronous sequence of bytes into arrays of at most `chunkSize`.
public struct AsyncByteChunks<Base: AsyncSequence>: AsyncSequence where Base.Element == UInt8 {
    /// Chunks of bytes.
    public typealias Element = [UInt8]
    let base: Base
    let chunkSize: Int

    /// An iterator over chunks of at most `chunkSize` bytes.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), chunkSize: chunkSize)
    }

    /// Gathers bytes into chunks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let chunkSize: Int

        /// The next chunk; `nil` at the end.
        public mutating func next() async throws -> [UInt8]? {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(chunkSize)
            while chunk.count < chunkSize, let byte = try await base.next() { chunk.append(byte) }
            return chunk.isEmpty ? nil : chunk
        }
    }
}

extension AudioFileStreamEvents: Sendable where Base: Sendable {}
