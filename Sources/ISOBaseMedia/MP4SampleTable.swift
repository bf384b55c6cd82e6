import AudioFormats
import StreamParsing

/// Where an MPEG-4 track's samples lie: runs of consecutive samples (a `stco` chunk, or a `trun` of a
/// fragment) at absolute offsets, with their sizes and durations.
///
/// Memory follows the tables' bytes, never their claims: a run of samples of one size is one entry
/// however many samples it counts, and sizes are held only where the file lists them one by one.
struct MP4SampleTable {
    struct Run {
        /// Absolute offset of the run's first sample.
        var offset: Int64
        /// Index of the run's first sample in the track.
        var firstSample: Int64
        var count: Int64
        /// Every sample's size, or 0 where `sizeIndex` points into ``sizes``.
        var constantSize: UInt32
        var sizeIndex: Int
        /// Bytes the run spans.
        var byteCount: Int64
        var end: Int64 { offset + byteCount }
    }

    private(set) var runs: [Run] = []
    private(set) var sizes: [UInt32] = []
    /// Sample durations in the track's timescale, run-length coded.
    private(set) var durations: [(count: Int64, delta: UInt32)] = []
    /// The sample the first duration entry starts at (after trimming).
    private var durationsBase: Int64 = 0
    /// Samples in the table (those trimmed away included: a run appended after every run was read and dropped
    /// goes on from them).
    var sampleCount: Int64 { runs.last.map { $0.firstSample + $0.count } ?? trimmedSampleCount }
    /// The samples of the runs trimmed away.
    private var trimmedSampleCount: Int64 = 0

    /// Total duration in the track's timescale.
    private(set) var totalDuration: Int64 = 0

    /// The largest sample, and the bytes of all samples.
    private(set) var maximumSize: UInt32 = 0
    private(set) var byteCount: Int64 = 0

    func size(ofSample index: Int64, in run: Run) -> UInt32 {
        run.constantSize > 0 || run.sizeIndex < 0
            ? run.constantSize : sizes[run.sizeIndex + Int(index - run.firstSample)]
    }

    /// Adds a run; `sampleSizes` empty means every sample is `constantSize` bytes. Runs must follow one
    /// another in the file: a run that starts inside the previous one is malformed.
    package mutating func append(
        offset: Int64, count: Int64, constantSize: UInt32, sampleSizes: ArraySlice<UInt32>,
        tableOffset: Int64
    ) throws {
        guard count > 0 else { return }
        var bytes: Int64
        var largest = constantSize
        let sizeIndex: Int
        if sampleSizes.isEmpty {
            guard let product = count.multipliedOrNil(by: Int64(constantSize)) else {
                throw AudioFileError.malformed(
                    "mp4: \(count) samples of \(constantSize) bytes cannot be", offset: tableOffset)
            }
            bytes = product
            sizeIndex = -1
        } else {
            bytes = 0
            largest = 0
            for size in sampleSizes {
                bytes += Int64(size)
                largest = max(largest, size)
            }
            sizeIndex = sizes.count
            sizes.append(contentsOf: sampleSizes)
        }
        guard offset >= 0, offset.saturatingAdd(bytes) < Int64.max else {
            throw AudioFileError.malformed("mp4: samples at offset \(offset) lie outside any file", offset: tableOffset)
        }
        if let last = runs.last, offset < last.end {
            throw AudioFileError.malformed(
                "mp4: a chunk of samples at byte \(offset) starts inside the previous one (bytes \(last.offset)..<\(last.end)); "
                    + "chunks must follow one another", offset: tableOffset)
        }
        runs.append(
            Run(
                offset: offset, firstSample: sampleCount, count: count,
                constantSize: sampleSizes.isEmpty ? constantSize : 0, sizeIndex: sizeIndex, byteCount: bytes))
        maximumSize = max(maximumSize, largest)
        byteCount = byteCount.saturatingAdd(bytes)
    }

    /// Adds `count` samples of `delta` time units.
    mutating func appendDurations(count: Int64, delta: UInt32) {
        guard count > 0 else { return }
        totalDuration = totalDuration.saturatingAdd(count.multipliedOrNil(by: Int64(delta)) ?? Int64.max)
        if let last = durations.last, last.delta == delta {
            durations[durations.count - 1].count += count
        } else {
            durations.append((count, delta))
        }
    }

    /// The delta every sample has, but perhaps the last (whose duration often ends the track early).
    var uniformDelta: UInt32? {
        switch durations.count {
        case 1: durations[0].delta
        case 2 where durations[1].count == 1: durations[0].delta
        default: nil
        }
    }

    /// The index of the run holding `sample`.
    func runIndex(ofSample sample: Int64) -> Int? {
        var low = 0
        var high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].firstSample + runs[middle].count <= sample { low = middle + 1 } else { high = middle }
        }
        return low < runs.count && runs[low].firstSample <= sample ? low : nil
    }

    /// Drops what lies wholly before `cursor` once it is much (streaming mode keeps no history), and
    /// moves the cursor to match.
    mutating func trim(_ cursor: inout Cursor) {
        if cursor.run > 1024 {
            let drop = cursor.run
            trimmedSampleCount = runs[drop - 1].firstSample + runs[drop - 1].count
            let dropSizes = runs[drop...].first { $0.sizeIndex >= 0 }?.sizeIndex ?? sizes.count
            runs.removeFirst(drop)
            sizes.removeFirst(dropSizes)
            for position in runs.indices where runs[position].sizeIndex >= 0 { runs[position].sizeIndex -= dropSizes }
            cursor.run -= drop
        }
        if cursor.durationRun > 1024 {
            durationsBase += durations[..<cursor.durationRun].reduce(0) { $0 + $1.count }
            durations.removeFirst(cursor.durationRun)
            cursor.durationRun = 0
        }
    }

    /// A position in the table: the next sample, where it lies, and its duration.
    struct Cursor {
        var sample: Int64 = 0
        var run = 0
        /// Bytes from the start of the run to the sample.
        var runOffset: Int64 = 0
        var durationRun = 0
        var durationUsed: Int64 = 0
    }

    /// A cursor at `sample`.
    func cursor(at sample: Int64) -> Cursor? {
        guard let index = runIndex(ofSample: sample) else { return nil }
        let run = runs[index]
        var offset: Int64 = 0
        if run.sizeIndex < 0 {
            offset = (sample - run.firstSample) * Int64(run.constantSize)
        } else {
            for position in 0..<Int(sample - run.firstSample) { offset += Int64(sizes[run.sizeIndex + position]) }
        }
        var cursor = Cursor(sample: sample, run: index, runOffset: offset)
        var left = sample - durationsBase
        while cursor.durationRun < durations.count, left >= durations[cursor.durationRun].count {
            left -= durations[cursor.durationRun].count
            cursor.durationRun += 1
        }
        cursor.durationUsed = left
        return cursor
    }

    /// The sample at a cursor: offset, size and duration; `nil` past the table.
    func sample(at cursor: Cursor) -> (offset: Int64, size: UInt32, duration: UInt32)? {
        guard cursor.run < runs.count else { return nil }
        let run = runs[cursor.run]
        let duration = cursor.durationRun < durations.count ? durations[cursor.durationRun].delta : 0
        return (run.offset + cursor.runOffset, size(ofSample: cursor.sample, in: run), duration)
    }

    /// Moves a cursor past the sample it points at.
    func advance(_ cursor: inout Cursor) {
        guard cursor.run < runs.count else { return }
        let run = runs[cursor.run]
        cursor.runOffset += Int64(size(ofSample: cursor.sample, in: run))
        cursor.sample += 1
        if cursor.sample >= run.firstSample + run.count {
            cursor.run += 1
            cursor.runOffset = 0
        }
        if cursor.durationRun < durations.count {
            cursor.durationUsed += 1
            if cursor.durationUsed >= durations[cursor.durationRun].count {
                cursor.durationRun += 1
                cursor.durationUsed = 0
            }
        }
    }
}
