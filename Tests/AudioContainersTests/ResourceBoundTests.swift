import AudioFormats
import Foundation
import Testing

@testable import AudioContainers

/// Every loop advances and memory follows the input: the hostile-header fixtures (Fixtures/hostile,
/// made by make-hostile-fixtures.py), the hand-damaged MPEG and ADTS fixtures, and every input the
/// fuzzer ever broke something with, fed one byte at a time under a step budget.
struct ResourceBoundTests {
    struct Input: CustomStringConvertible, Sendable {
        let path: String
        var description: String { path.split(separator: "/").suffix(2).joined(separator: "/") }
        var bytes: [UInt8] { (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? [] }
    }

    static func files(in folder: String, where keep: (String) -> Bool = { _ in true }) -> [Input] {
        let directory = Fixture.root.appendingPathComponent(folder).path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { keep($0) && !$0.hasSuffix(".json") }.sorted().map { Input(path: "\(directory)/\($0)") }
    }

    static let hostile =
        files(in: "hostile")
        + files(in: "mp3") { $0.hasPrefix("hostile-") } + files(in: "adts") { $0.hasPrefix("hostile-") }
        + ["stream", "file", "validator"].flatMap { files(in: "fuzz-regressions/\($0)") }

    @Test func thereAreHostileInputs() {
        #expect(Self.hostile.count >= 20)
    }

    /// A step yields a property, a packet run or a request for more bytes; per byte fed there are at
    /// most a few. A parser that stopped consuming would blow the budget (or the time limit).
    @Test(.timeLimit(.minutes(2)), arguments: hostile)
    func oneByteAtATimeUnderAStepBudget(_ input: Input) {
        let bytes = input.bytes
        var stream = AudioFileStream()
        stream.stepBudget = 4 * bytes.count + 256
        var largestBuffer = 0
        do {
            for (index, byte) in bytes.enumerated() {
                try [byte].withUnsafeBytes { try stream.parse($0) { _ in } }
                largestBuffer = max(largestBuffer, stream.bufferedByteCount)
                #expect(stream.bufferedByteCount <= index + 1, "holds more than it was given")
            }
            try stream.finish()
        } catch let error as AudioFileError {
            #expect(!error.message.contains("steps"), "\(error.message)")
        } catch {
            Issue.record("an error of another type: \(error)")
        }
        #expect(stream.steps <= 4 * bytes.count + 256)
        #expect(largestBuffer <= bytes.count)
    }

    /// Lying headers cost nothing they claim: what the parser holds never exceeds what arrived,
    /// whole or in pieces, and a claim of 2^40 packets or a 4 GiB chunk ends in a typed error or a
    /// short, honest count.
    @Test(arguments: files(in: "hostile"))
    func lyingHeadersCostOnlyTheirBytes(_ input: Input) {
        let bytes = input.bytes
        #expect(bytes.count <= 512)
        var stream = AudioFileStream()
        var packets = 0
        let result = Result {
            try bytes.withUnsafeBytes {
                try stream.parse($0) { if case .packets(let run) = $0 { packets += run.count } }
            }
            #expect(stream.bufferedByteCount <= bytes.count)
            try stream.finish()
        }
        if case .failure(let error) = result {
            let error = try? #require(error as? AudioFileError)
            #expect(error?.offset.map { $0 >= 0 && $0 <= Int64(bytes.count) } ?? true, "offset inside the input")
        } else {
            #expect(Int64(packets) == stream.properties.audioDataPacketCount ?? 0)
            #expect((stream.properties.audioDataByteCount ?? 0) <= Int64(bytes.count))
        }
    }

    /// A metadata chunk past the 1 MiB read limit (a 1.5 MB `LIST` before a WAV's audio) is skipped unread, as it was,
    /// and now said: a warning naming the chunk, its offset and size, and a `notRead` entry; the audio is whole.
    @Test func aChunkPastTheReadLimitIsSaid() throws {
        let wave = Fixture.named("wav/pcm-u8-mono.wav").bytes
        let size = 1_500_000
        var list = Array("LIST".utf8) + withUnsafeBytes(of: UInt32(size).littleEndian) { Array($0) }
        list += Array("INFO".utf8) + [UInt8](repeating: 0x20, count: size - 4)
        let bytes = Array(wave[0..<12]) + list + wave[12...]
        let expected = record(wave, chunkSizes: [4096]).properties
        for chunk in [4096, 1 << 20] {
            let properties = record(bytes, chunkSizes: [chunk]).properties
            #expect(
                properties.notRead == [NotRead(what: "'LIST' chunk", count: Int64(size), unit: "bytes", offset: 12)])
            #expect(
                properties.warnings.contains(
                    "wav: the 'LIST' chunk at byte 12 is \(size) bytes, more than the 1048576 afkit reads: skipped, "
                        + "not read"), "\(properties.warnings)")
            #expect(properties.validFrameCount == expected.validFrameCount)
        }
    }
}
