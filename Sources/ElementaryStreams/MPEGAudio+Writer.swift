import AudioFormats
import StreamParsing

extension MPEGAudio {
    /// Header of an MP3 file: an ID3v2 tag with the text tags; MPEG frames follow back to back, LAME's tag frame
    /// first.
    package static func layout(format: StreamDescription, options: AudioFileWriterOptions) throws -> ContainerLayout {
        try .taggedStream(
            format, holding: .mpegLayer3, options: options,
            refusal: "mp3: an MP3 file holds MPEG Layer III, not '\(format.formatID)'")
    }
}
