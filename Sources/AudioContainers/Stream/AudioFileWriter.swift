import AudioFormats
import FileAccess
import StreamParsing

/// Writes an audio file front to back: header, packets, then the header again with the real
/// sizes. The file reads back in libsndfile and FFmpeg exactly.
///
/// ```swift
/// let writer = try AudioFileWriter(path: "out.caf", fileType: .caf,
///                                  format: .linearPCM(sampleRate: 44100, channels: 2, bitsPerChannel: 16))
/// try writer.writePackets(bytes)
/// try writer.close()
/// ```
public final class AudioFileWriter {
    /// The file written.
    public let path: String
    /// Its container.
    public let fileType: FileType
    /// The format of its packets.
    public let format: StreamDescription
    /// What it records besides the packets.
    public let options: AudioFileWriterOptions
    private let file: WritableFile
    private var counts = WrittenCounts(
        dataByteCount: 0, packetCount: 0, packetSizes: [], packetFrames: [],
        packetTableInfo: nil, isProvisional: true)
    private let headerSize: Int
    private var closed = false
    private var framed: [UInt8] = []
    /// The audio appended since the last write to the file, written a mebibyte at a time (a conversion hands
    /// over 32 KiB blocks: eight times fewer system calls than one write a block).
    private var unwritten: [UInt8] = []
    private static let writeSize = 1 << 20
    /// How the container writes: its layout, framing and cookie.
    private let writer: ContainerWriter
    /// The container's packet framing (ADTS headers, Ogg pages), where it has one.
    private var framer: (any PacketFramer)?

    /// Creates the file (replacing one at `path`) and writes a provisional header.
    public init(path: String, fileType: FileType, format: StreamDescription, options: AudioFileWriterOptions = .init())
        throws
    {
        self.path = path
        self.fileType = fileType
        self.format = format
        self.options = options
        writer = try Self.writer(of: fileType)
        // Check the format fits the container before creating anything.
        let layout = try writer.layout(format, options, counts, nil)
        headerSize = layout.header.count
        framer = try writer.makeFramer?(format, options)
        file = try WritableFile(path: path)
        try layout.header.withUnsafeBytes { try file.write($0, at: 0) }
    }

    /// Packets written so far.
    public var packetCount: Int64 { counts.packetCount }

    /// Appends packets. Where packets vary in size or frames (`bytesPerPacket` or `framesPerPacket`
    /// of 0), `descriptions` gives each one, offsets relative to `bytes`; only CAF can hold them.
    public func writePackets(_ bytes: UnsafeRawBufferPointer, descriptions: [PacketDescription]? = nil) throws {
        guard !closed else { throw AudioFileError.illegalOperation("\(path): the writer is closed") }
        if format.hasConstantPackets {
            guard bytes.count % Int(format.bytesPerPacket) == 0 else {
                throw AudioFileError.invalidPacket(
                    "\(path): \(bytes.count) bytes are not whole \(format.bytesPerPacket)-byte packets", offset: nil)
            }
            counts.packetCount += Int64(bytes.count / Int(format.bytesPerPacket))
        } else {
            guard let descriptions else {
                throw AudioFileError.invalidPacket(
                    "\(path): packets of '\(format.formatID)' vary; each needs a description", offset: nil)
            }
            var expectedOffset: Int64 = 0
            for description in descriptions {
                guard description.startOffset == expectedOffset else {
                    throw AudioFileError.invalidPacket("\(path): packet descriptions must tile the bytes", offset: nil)
                }
                expectedOffset += Int64(description.dataByteSize)
                if format.bytesPerPacket == 0 { counts.packetSizes.append(description.dataByteSize) }
                if format.framesPerPacket == 0 { counts.packetFrames.append(description.variableFramesInPacket) }
            }
            guard expectedOffset == Int64(bytes.count) else {
                throw AudioFileError.invalidPacket(
                    "\(path): descriptions cover \(expectedOffset) of \(bytes.count) bytes", offset: nil)
            }
            counts.packetCount += Int64(descriptions.count)
        }
        if framer != nil, let descriptions {
            framed.removeAll(keepingCapacity: true)
            for description in descriptions {
                let start = Int(description.startOffset)
                try framer?.append(
                    packet: UnsafeRawBufferPointer(rebasing: bytes[start..<start + Int(description.dataByteSize)]),
                    frames: Int(description.variableFramesInPacket), into: &framed)
            }
            try writeFramed()
            return
        }
        try appendAudio(bytes)
    }

    /// Appends bytes to the audio (through `unwritten`, which holds the audio's last bytes).
    private func appendAudio(_ bytes: UnsafeRawBufferPointer) throws {
        if unwritten.isEmpty && bytes.count >= Self.writeSize {
            try file.write(bytes, at: Int64(headerSize) + counts.dataByteCount)
            counts.dataByteCount += Int64(bytes.count)
            return
        }
        unwritten.append(contentsOf: bytes)
        counts.dataByteCount += Int64(bytes.count)
        if unwritten.count >= Self.writeSize { try writeUnwritten() }
    }

    /// Writes the audio held in `unwritten` where it belongs: it ends where the audio ends.
    private func writeUnwritten() throws {
        guard !unwritten.isEmpty else { return }
        let start = Int64(headerSize) + counts.dataByteCount - Int64(unwritten.count)
        try unwritten.withUnsafeBytes { try file.write($0, at: start) }
        unwritten.removeAll(keepingCapacity: true)
    }

    /// Appends the framed bytes (ADTS frames, Ogg pages) to the audio.
    private func writeFramed() throws {
        try framed.withUnsafeBytes { try appendAudio($0) }
    }

    /// Appends packets from an array.
    public func writePackets(_ bytes: [UInt8], descriptions: [PacketDescription]? = nil) throws {
        try bytes.withUnsafeBytes { try writePackets($0, descriptions: descriptions) }
    }

    /// Finishes the file: the trailer, then the header with the real sizes. `packetTableInfo` states
    /// priming and remainder frames (CAF `pakt`; a WAV `fact`; an AIFF frame count; Ogg's last granule).
    /// `magicCookie` is a cookie completed only at the end: for MP3, LAME's tag frame, written over the
    /// stream's first frame; for FLAC, `STREAMINFO` with its MD5 and totals.
    public func close(packetTableInfo: PacketTableInfo? = nil, magicCookie: [UInt8]? = nil) throws {
        guard !closed else { return }
        closed = true
        counts.packetTableInfo = packetTableInfo
        counts.isProvisional = false
        switch writer.cookiePlacement {
        case .firstPacket:
            if let magicCookie, Int64(magicCookie.count) <= counts.dataByteCount {
                // Over the stream's first frame, which must be in the file first.
                try writeUnwritten()
                try magicCookie.withUnsafeBytes { try file.write($0, at: Int64(headerSize)) }
            }
        case .header:
            // (LAME's tag is a frame of an MP3 stream; in another container the placeholder frame stays, and the
            // container's own table says the priming and remainder.)
            if format.formatID != .mpegLayer3 { counts.finalCookie = magicCookie }
        }
        if framer != nil {
            // What follows the last packet (Ogg's last page, with the end of stream flag and the final granule).
            framed.removeAll(keepingCapacity: true)
            framer?.finish(packetTableInfo: packetTableInfo, into: &framed)
            try writeFramed()
        }
        try writeUnwritten()
        let layout = try writer.layout(format, options, counts, headerSize)
        if layout.header.count != headerSize {
            // Only a header that may grow (MPEG-4's sample tables) can outgrow its room; the audio moves up behind it.
            guard writer.headerMayGrow else {
                throw AudioFileError.illegalOperation("\(path): the final header changed size")
            }
            try file.move(from: Int64(headerSize), count: counts.dataByteCount, to: Int64(layout.header.count))
        }
        let dataStart = Int64(layout.header.count)
        try layout.trailer.withUnsafeBytes { try file.write($0, at: dataStart + counts.dataByteCount) }
        try layout.header.withUnsafeBytes { try file.write($0, at: 0) }
        try file.close()
    }

    /// Closes and deletes the file.
    public func cancel() {
        closed = true
        try? file.close()
        removeFile(path)
    }

    /// Whether a `fileType` file can hold `format`: the writer's own header made as a dry run; throws
    /// the error writing would (`fmt?`), nothing when it can. `magicCookie` stands in for the codec's cookie where
    /// its sample entry or header needs one (the codec descriptor's dry-run cookie).
    public static func check(_ format: StreamDescription, in fileType: FileType, magicCookie: [UInt8]?) throws {
        var options = AudioFileWriterOptions()
        options.magicCookie = magicCookie
        let counts = WrittenCounts(
            dataByteCount: 0, packetCount: 0, packetSizes: [], packetFrames: [], packetTableInfo: nil,
            isProvisional: true)
        _ = try writer(of: fileType).layout(format, options, counts, nil)
    }

    /// How `type` is written; throws for a container afkit reads but does not write.
    static func writer(of type: FileType) throws -> ContainerWriter {
        guard let writer = ContainerRegistry.descriptor(of: type)?.writer else {
            throw AudioFileError.unsupportedFileType(
                "\(type.rawValue): afkit reads these files but does not write them", offset: nil)
        }
        return writer
    }
}
