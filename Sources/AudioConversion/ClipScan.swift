import AudioDecoding
import AudioEngines
import AudioFormats

extension ClipScanner {
    /// Scans the file at `path` as the pipeline decodes it (a lossy file counts as decoded: AAC that clips
    /// after encoding is the point): the report, and the rate and channels of what was scanned.
    public static func scan(path: String) throws -> (report: Report, sampleRate: Double, channels: Int) {
        let source = try SourceReader(path: path)
        let scanner = ClipScanner(channels: source.channels, sampleRate: source.sampleRate)
        var samples: [Float] = []
        while true {
            samples.removeAll(keepingCapacity: true)
            let frames = try source.read(maximum: 16384, into: &samples)
            if frames == 0 { break }
            samples.withUnsafeBufferPointer { scanner.add($0, frames: frames) }
        }
        return (scanner.finish(), source.sampleRate, source.channels)
    }
}
