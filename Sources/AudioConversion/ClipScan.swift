import AudioDecoding
import AudioEngines
import AudioFormats

extension ClipScanner {
    /// Scans the file at `path` as the pipeline decodes it (a lossy file counts as decoded: AAC that clips
    /// after encoding is the point): the report, the rate and channels of what was scanned, and what a command says
    /// of a file cut short or damaged (what it holds is scanned; packets that could not be decoded count as the
    /// silence that stands in for them). With `listsRuns` false the runs are counted, none listed.
    public static func scan(path: String, listsRuns: Bool = true) throws -> (
        report: Report, sampleRate: Double, channels: Int, notes: [String]
    ) {
        let source = try SourceReader(path: path)
        // Audio the file holds, none of it readable: refused, as convert refuses it, never "no clipping".
        try AudioConverter.checkHoldsValidFrames(source, input: path, done: "scanned")
        let scanner = ClipScanner(channels: source.channels, sampleRate: source.sampleRate, listsRuns: listsRuns)
        try source.forEachBlock { scanner.add($0, frames: $1) }
        let notes = source.conditionNotes(whatIsHeld: "scanned") + (source.concealmentNote.map { [$0] } ?? [])
        return (scanner.finish(), source.sampleRate, source.channels, notes)
    }
}
