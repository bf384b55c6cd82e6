import AudioCodecs
import AudioContainers
import AudioFormats

extension AudioFileWriter {
    /// Whether a `fileType` file can hold `format`: the writer's own header made as a dry run, with the codec's
    /// stand-in cookie where its sample entry or header needs one (`EncodingFacts.dryRunCookie`); throws the
    /// error writing would (`fmt?`), nothing when it can.
    public static func check(_ format: StreamDescription, in fileType: FileType) throws {
        try check(
            format, in: fileType, magicCookie: CodecDescriptor.of(format.formatID)?.encoding?.dryRunCookie)
    }
}
