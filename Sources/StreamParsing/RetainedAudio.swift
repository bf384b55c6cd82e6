import AudioFormats

/// Audio a streaming parser holds while it waits for what it needs to cut the audio into packets (a
/// CAF `pakt` after `data`, an MPEG-4 `moov` after `mdat`), then hands out again: runs of the stream
/// by absolute offset, never more than the retained-audio limit in all.
///
/// The parser holds bytes as they pass (``hold(_:at:limit:refusal:)``), marks the held audio for
/// replay once its table has arrived, cuts packets out of it (their bytes are found with
/// ``index(of:count:)`` and delivered from ``bytes``), and releases it when the replay is done.
package struct RetainedAudio {
    /// The held bytes, runs one after another.
    package private(set) var bytes: [UInt8] = []
    /// Each run: its absolute offset in the stream, its index in `bytes`, its length.
    private var runs: [(start: Int64, index: Int, count: Int)] = []
    /// Whether the held audio is being handed out as packets.
    package var isReplaying = false

    package var count: Int { bytes.count }
    package var isEmpty: Bool { bytes.isEmpty }
    /// The absolute offset of the first held byte.
    package var start: Int64? { runs.first?.start }

    /// Holds `slice`, which lies at `offset` in the stream; `refusal` is thrown instead where the held
    /// audio would pass `limit` bytes.
    package mutating func hold(
        _ slice: UnsafeRawBufferPointer, at offset: Int64, limit: Int,
        refusal: () -> AudioFileError
    ) throws {
        guard bytes.count + slice.count <= limit else { throw refusal() }
        if let last = runs.last, last.start + Int64(last.count) == offset {
            runs[runs.count - 1].count += slice.count
        } else {
            runs.append((offset, bytes.count, slice.count))
        }
        bytes.append(contentsOf: slice)
    }

    /// Where `count` bytes at `offset` in the stream lie in ``bytes``, when they are all held.
    package func index(of offset: Int64, count: Int) -> Int? {
        guard let run = runs.last(where: { $0.start <= offset }),
            offset + Int64(count) <= run.start + Int64(run.count)
        else { return nil }
        return run.index + Int(offset - run.start)
    }

    /// How many bytes are held from `offset` to the end of its run.
    package func heldBytes(from offset: Int64) -> Int {
        guard let run = runs.last(where: { $0.start <= offset }), offset < run.start + Int64(run.count) else {
            return 0
        }
        return Int(run.start + Int64(run.count) - offset)
    }

    /// Lets go of everything held, and ends any replay.
    package mutating func release() {
        bytes = []
        runs = []
        isReplaying = false
    }
}
