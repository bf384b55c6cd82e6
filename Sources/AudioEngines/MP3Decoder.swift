import AudioCodecs
import AudioFormats
internal import CLame

/// Decodes MPEG audio (Layers I, II and III) packet by packet with libmp3lame's decoder (`hip`).
/// Packets are whole frames, as afkit's parser delivers them; the output is interleaved Float32.
public final class MP3Decoder: AudioDecoder {
    /// The format of the packets decoded.
    public let sourceFormat: StreamDescription
    /// The most frames one packet decodes to.
    public var maximumFramesPerPacket: Int { Int(sourceFormat.framesPerPacket) }
    private var handle: hip_t?
    private var left = [Int16](repeating: 0, count: 1152 * 2)
    private var right = [Int16](repeating: 0, count: 1152 * 2)

    /// A decoder for `format`.
    public init(format: StreamDescription) throws {
        guard [FourCharCode.mpegLayer1, .mpegLayer2, .mpegLayer3].contains(format.formatID),
            format.channelsPerFrame <= 2
        else {
            throw AudioFileError.unsupportedDataFormat(
                "mp3: libmp3lame decodes MPEG audio of 1 or 2 channels, not \(format.summary)",
                offset: nil)
        }
        sourceFormat = format
        handle = Self.quietDecoder()
    }

    /// A hip decoder that keeps its reports ("bitstream problem, resyncing") off standard error: afkit's
    /// own parser has already judged the packets, and the command's errors have their own form.
    private static func quietDecoder() -> hip_t? {
        let handle = hip_decode_init()
        if let handle {
            hip_set_errorf(handle) { _, _ in }
            hip_set_debugf(handle) { _, _ in }
            hip_set_msgf(handle) { _, _ in }
        }
        return handle
    }

    deinit { if let handle { hip_decode_exit(handle) } }

    /// Forgets the state kept between packets (after a seek).
    public func reset() {
        if let handle { hip_decode_exit(handle) }
        handle = Self.quietDecoder()
    }

    /// Decodes the packets into interleaved frames; returns the frames written.
    public func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int {
        let channels = Int(sourceFormat.channelsPerFrame)
        var written = 0
        for packet in 0..<packetCount {
            let (start, size) =
                descriptions.map { (Int($0[packet].startOffset), Int($0[packet].dataByteSize)) }
                ?? (packet * bytes.count / max(packetCount, 1), bytes.count / max(packetCount, 1))
            guard start >= 0, size >= 0, start + size <= bytes.count, let base = bytes.baseAddress else {
                throw AudioFileError.invalidPacket(
                    "mp3: a packet lies outside the bytes given", offset: Int64(max(0, start)))
            }
            var input = UnsafeMutableRawPointer(mutating: base + start).assumingMemoryBound(to: UInt8.self)
            var length = size
            // hip returns at most one frame a call; call until it has nothing more.
            while true {
                let count = left.withUnsafeMutableBufferPointer { l in
                    right.withUnsafeMutableBufferPointer { r in
                        hip_decode1(handle, input, length, l.baseAddress, r.baseAddress)
                    }
                }
                if count < 0 {
                    throw AudioFileError.malformed("mp3: libmp3lame could not decode the packet", offset: Int64(start))
                }
                if count == 0 { break }
                guard written + Int(count) <= output.count / channels else {
                    throw AudioFileError.limitExceeded("mp3: more frames than the output holds", offset: nil)
                }
                for frame in 0..<Int(count) {
                    output[(written + frame) * channels] = Float(left[frame]) * (1 / 32768)
                    if channels == 2 { output[(written + frame) * channels + 1] = Float(right[frame]) * (1 / 32768) }
                }
                written += Int(count)
                input = input + length
                length = 0
            }
        }
        return written
    }
}
