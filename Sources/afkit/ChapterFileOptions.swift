import ArgumentParser
import AudioConversion
import FileAccess

/// `--chapters FILE`: chapters written for an output in place of the source's (`convert`, `join`, `mix`, `hls`).
struct ChapterFileOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Chapters for the output, on its clock: FFmpeg's metadata file (;FFMETADATA1, [CHAPTER] START/END/title) "
                + "or lines of 'HH:MM:SS[.mmm] Title'; they take the place of the source's.", valueName: "file"))
    var chapters: String?

    /// The file read and checked (a missing file is a usage error of `command`; a file that is not a chapter list,
    /// an error naming its line), or `nil` when not given.
    func chapterList(in command: ParsableCommand.Type) throws -> ChapterList? {
        guard let chapters else { return nil }
        try checkPathsExist([chapters], in: command, allowStandardInput: false, sounds: false)
        return try ChapterList(path: chapters)
    }
}
