import AudioDecoding
import AudioEngines
import AudioFormats

extension ClipScanner {
    /// Scans the file at `path` as the pipeline decodes it (a lossy file counts as decoded: AAC that clips
    /// after encoding is the point): the report, and the rate and channels of what was scanned. With `listsRuns`
    /// false the runs are counted, none listed.
    public static func scan(path: String, listsRuns: Bool = true) throws -> (
        report: Report, sampleRate: Double, channels: Int
    ) {
        let source = try SourceReader(path: path)
        let scanner = ClipScanner(channels: source.channels, sampleRate: source.sampleRate, listsRuns: listsRuns)
        try source.forEachBlock { scanner.add($0, frames: $1) }
        return (scanner.finish(), source.sampleRate, source.channels)
    }
}
