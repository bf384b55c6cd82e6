import AudioContainers
import AudioFormats
import CLame

/// Encodes Float32 frames to an MP3 file with libmp3lame, writing LAME's Xing/LAME tag (encoder delay
/// and padding, for gapless playback) into the first frame when the stream is complete.
final class MP3FileEncoder {
    private let flags: OpaquePointer
    private let channels: Int
    private var buffer: [UInt8] = []
    private var clipped: [Float] = []

    /// `bitrate` in kbit/s (constant); 1 or 2 channels.
    init(sampleRate: Double, channels: Int, bitrate: Int) throws {
        guard (1...2).contains(channels), let flags = lame_init() else {
            throw AudioFileError.unsupportedDataFormat("mp3: LAME encodes 1 or 2 channels, not \(channels)", offset: nil)
        }
        self.flags = flags
        self.channels = channels
        lame_set_in_samplerate(flags, Int32(sampleRate))
        lame_set_num_channels(flags, Int32(channels))
        lame_set_brate(flags, Int32(bitrate))
        lame_set_bWriteVbrTag(flags, 1)
        guard lame_init_params(flags) >= 0 else {
            lame_close(flags)
            throw AudioFileError.unsupportedDataFormat("mp3: LAME cannot encode \(sampleRate) Hz at \(bitrate) kbit/s", offset: nil)
        }
    }

    deinit { lame_close(flags) }

    /// Encodes interleaved frames; returns the MP3 bytes ready so far.
    func encode(_ input: UnsafeBufferPointer<Float>) throws -> ArraySlice<UInt8> {
        // LAME asserts (aborting the process) on NaN and on energies that overflow: full scale at most,
        // NaN as silence, as the PCM encoders do.
        clipped.removeAll(keepingCapacity: true)
        clipped.append(contentsOf: input.lazy.map { $0 < -1 ? -1 : ($0 > 1 ? 1 : ($0.isNaN ? 0 : $0)) })
        return try clipped.withUnsafeBufferPointer { try encodeClipped($0) }
    }

    private func encodeClipped(_ frames: UnsafeBufferPointer<Float>) throws -> ArraySlice<UInt8> {
        let count = frames.count / channels
        let room = count * 5 / 4 + 7200
        if buffer.count < room { buffer = [UInt8](repeating: 0, count: room) }
        let written = buffer.withUnsafeMutableBufferPointer { out -> Int32 in
            if channels == 2 {
                return lame_encode_buffer_interleaved_ieee_float(flags, frames.baseAddress, Int32(count), out.baseAddress, Int32(room))
            }
            return lame_encode_buffer_ieee_float(flags, frames.baseAddress, frames.baseAddress, Int32(count), out.baseAddress,
                Int32(room))
        }
        guard written >= 0 else { throw AudioFileError.malformed("mp3: LAME failed to encode (\(written))", offset: nil) }
        return buffer[0..<Int(written)]
    }

    /// The last frames, and the tag frame to write over the stream's first frame.
    func finish() throws -> (tail: [UInt8], tag: [UInt8]) {
        if buffer.count < 7200 { buffer = [UInt8](repeating: 0, count: 7200) }
        let written = buffer.withUnsafeMutableBufferPointer { lame_encode_flush(flags, $0.baseAddress, Int32($0.count)) }
        guard written >= 0 else { throw AudioFileError.malformed("mp3: LAME failed to flush (\(written))", offset: nil) }
        let tail = Array(buffer[0..<Int(written)])
        var tag = [UInt8](repeating: 0, count: 2880)
        let size = tag.withUnsafeMutableBufferPointer { lame_get_lametag_frame(flags, $0.baseAddress, $0.count) }
        return (tail, Array(tag[0..<min(size, tag.count)]))
    }
}
