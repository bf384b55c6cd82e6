import AudioContainers
import AudioConversion
import AudioDecoding
import AudioEngines
import AudioFormats
import Foundation
import Testing

/// Recognising files (Documentation/RecognisingFiles.md): a file with a signature is decided by it, a format
/// afkit does not read is refused by name, and bare MPEG audio or ADTS is a stream only on strong
/// evidence: random bytes, PCM and other codecs' payloads never make one.
@Suite struct RecognitionTests {
    /// The refused fixtures (made by FFmpeg and SoX: make-refused-fixtures.sh) and the name each is
    /// refused by.
    static let refused: [(file: String, name: String)] = [
        ("ogg-speex.spx", "an Ogg Speex file"),
        ("matroska-aac.mka", "a Matroska file"), ("webm-opus.webm", "a WebM file"),
        ("wma.wma", "an ASF file (WMA or WMV)"), ("tta.tta", "a TTA file"), ("wavpack.wv", "a WavPack file"),
        ("mpeg-ps-mp2.mpg", "an MPEG program stream"), ("mpeg-ts-mp2.ts", "an MPEG transport stream"),
        ("mpeg-ts-aac.ts", "an MPEG transport stream"), ("creative.voc", "a Creative VOC file"),
        ("nist.sph", "a NIST SPHERE file"), ("ircam.sf", "an IRCAM file"),
        ("ensoniq.paf", "an Ensoniq PARIS (PAF) file"),
        ("fasttracker.xi", "a FastTracker 2 instrument (XI)"), ("htk.htk", "an HTK file"),
        ("amiga.8svx", "an IFF 8SVX file"), ("flv-aac.flv", "a Flash Video (FLV) file"),
        ("avi-pcm.avi", "an AVI file"),
        ("text.mp3", "a text file"),
    ]

    @Test(arguments: refused.map(\.file))
    func refusedByName(_ file: String) throws {
        let name = Self.refused.first { $0.file == file }!.name
        let bytes = Fixture.named("refused/" + file).bytes
        #expect(bytes.count > 0)
        for sizes in [[1], [7, 3], [4096]] {
            let recording = record(bytes, chunkSizes: sizes)
            #expect(recording.error?.code == "typ?", "\(file), chunks \(sizes)")
            #expect(
                recording.error?.message.hasPrefix(name + ":") == true,
                "\(file): \(recording.error?.message ?? "no error")")
            #expect(recording.events.filter { if case .packet = $0 { true } else { false } }.isEmpty)
        }
        // The same behind an ID3v2 tag (taggers put them before anything).
        let tagged = record(Self.id3Tag + bytes, chunkSizes: [5])
        #expect(tagged.error?.code == "typ?")
        if !file.hasPrefix("text") && !file.hasPrefix("htk") {
            #expect(
                tagged.error?.message.hasPrefix(name + ":") == true, "\(file) tagged: \(tagged.error?.message ?? "-")")
        }
    }

    /// Formats known by a few bytes (TAK, ADIF, the tracker modules FFmpeg renders through libopenmpt) are refused
    /// by name; they were "no signature of a known format". Each is 2 KiB of zeros with its signature in place.
    @Test(arguments: [
        ("tBaK", 0, "a TAK file"), ("ADIF", 0, "an ADIF AAC file"), ("Extended Module: ", 0, "a tracker module"),
        ("IMPM", 0, "a tracker module"), ("SCRM", 44, "a tracker module"), ("M.K.", 1080, "a tracker module"),
    ])
    func signaturesOfFormatsNotReadAreNamed(_ signature: String, _ offset: Int, _ name: String) {
        var bytes = [UInt8](repeating: 0, count: 2048)
        bytes.replaceSubrange(offset..<offset + signature.utf8.count, with: signature.utf8)
        let recording = record(bytes, chunkSizes: [4096])
        #expect(recording.error?.code == "typ?" && recording.error?.message.hasPrefix(name + ":") == true)
    }

    /// A 20-byte ID3v2.4 tag with one text frame.
    static let id3Tag: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 10] + Array("TIT2".utf8) + [0, 0, 0, 0, 0, 0]

    /// Opus in CAF (FFmpeg's: no cookie, no `pakt`) is parsed and decoded, to the frames FFmpeg gives.
    @Test func cafOpusIsParsedAndDecoded() throws {
        let path = Fixture.named("other/caf-opus.caf").path
        let file = try AudioFile(path: path)
        #expect(file.dataFormat.formatID == FourCharCode("opus"))
        #expect(file.dataFormat.sampleRate == 48000)
        #expect(file.packetCount == 26)
        let reader = try SourceReader(path: path, registry: .standard)
        var samples: [Float] = []
        while try reader.read(maximum: 4096, into: &samples) > 0 {}
        // `ffmpeg -i caf-opus.caf out.wav` gives 24,960 frames.
        #expect(samples.count == 24960)
    }

    /// The rule holds for thousands of buffers afkit must not take for a stream: random bytes, PCM
    /// (sine, square, silence, full scale), other codecs' payloads cut past their signatures.
    @Test func noStreamFromChance() throws {
        var generator = SplitMix64(seed: 0xAF_C0DE)
        var buffers: [(String, [UInt8])] = []
        for index in 0..<1200 {
            let count = index % 50 == 0 ? 200_000 : Int.random(in: 16...12_000, using: &generator)
            buffers.append(("random \(index)", (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        }
        for index in 0..<600 {
            let frequency = Double.random(in: 20...12_000, using: &generator)
            let amplitude = Double.random(in: 0.001...1, using: &generator)
            let count = Int.random(in: 1_000...20_000, using: &generator)
            let kind = index % 4
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count * 2)
            for n in 0..<count {
                let phase = sin(2 * .pi * frequency * Double(n) / 44100)
                let value = kind == 1 ? (phase >= 0 ? amplitude : -amplitude) : amplitude * phase
                let sample = Int16(clamping: Int((value * 32767).rounded()))
                switch kind {
                case 2: bytes.append(UInt8(truncatingIfNeeded: Int(value * 127) + 128))  // 8-bit unsigned
                // Big-endian.
                case 3: bytes += [UInt8(truncatingIfNeeded: sample >> 8), UInt8(truncatingIfNeeded: sample)]
                default: bytes += [UInt8(truncatingIfNeeded: sample), UInt8(truncatingIfNeeded: sample >> 8)]
                }
            }
            buffers.append(("pcm \(index) kind \(kind) \(Int(frequency)) Hz", bytes))
        }
        for fill: UInt8 in [0x00, 0xFF, 0x7F, 0x80] {
            buffers.append(("fill \(fill)", [UInt8](repeating: fill, count: 50_000)))
        }
        // Other formats' payloads, past their signatures, at several starting points.
        for (file, _) in Self.refused where !file.hasPrefix("text") {
            let bytes = Fixture.named("refused/" + file).bytes
            for start in [1, 7, 64, 333] where start < bytes.count {
                buffers.append(("\(file) from \(start)", Array(bytes[start...])))
            }
        }
        var streams: [String] = []
        for (index, (label, bytes)) in buffers.enumerated() {
            let recording = record(bytes, chunkSizes: index % 7 == 0 ? [997] : [1 << 20])
            if recording.error == nil || recording.properties.fileType != nil { streams.append(label) }
        }
        #expect(streams.isEmpty, "made a stream: \(streams.prefix(10))")
        #expect(buffers.count > 1800)
    }

    /// Every MPEG audio and ADTS fixture still makes its stream, whatever the chunking.
    @Test func everyElementaryFixtureIsStillAStream() throws {
        var checked = 0
        for folder in ["mp3", "adts"] {
            let directory = Fixture.root.appendingPathComponent(folder).path
            for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            where [".mp3", ".aac", ".mp2", ".mp1"].contains(where: { name.hasSuffix($0) }) {
                let fixture = Fixture.named(folder + "/" + name)
                guard let file = try? AudioFile(path: fixture.path) else {
                    // The hostile fixtures that no parser reads stay refused; they must say so the same way.
                    #expect(record(fixture.bytes, chunkSizes: [4096]).error != nil, "\(name)")
                    continue
                }
                #expect(file.packetCount > 0, "\(name)")
                for sizes in [[1], [13, 400], [65536]] {
                    let recording = record(fixture.bytes, chunkSizes: sizes)
                    #expect(
                        recording.error == nil, "\(name), chunks \(sizes): \(recording.error.map { "\($0)" } ?? "")")
                    #expect(recording.properties.audioDataPacketCount == file.packetCount, "\(name), chunks \(sizes)")
                }
                checked += 1
            }
        }
        #expect(checked >= 20)
    }

    /// A whole ADTS frame followed by a header cut short at the end of the input is a packet (the contract):
    /// an FFmpeg stream cut 1 to 8 bytes into its last header keeps every frame before it.
    @Test func adtsCutInsideTheLastHeaderKeepsTheFrameBefore() throws {
        let fixture = Fixture.named("adts/aac-lc-44k-stereo.aac")
        let file = try AudioFile(path: fixture.path)
        let lastHeader = Int(try file.packetDescription(file.packetCount - 1).startOffset) - 7
        for cut in 1...8 {
            for sizes in [[1], [4096]] {
                let recording = record(Array(fixture.bytes[0..<lastHeader + cut]), chunkSizes: sizes)
                #expect(recording.error == nil)
                #expect(
                    recording.properties.audioDataPacketCount == file.packetCount - 1, "cut \(cut), chunks \(sizes)")
            }
        }
    }

    /// The converter's reader and the parser agree on every fixture in the tree: the same format and frame
    /// count where both read it, the same refusal where the parser refuses it.
    @Test func converterAndInfoAgreeOnEveryFixture() throws {
        let root = Fixture.root.path
        let enumerator = FileManager.default.enumerator(atPath: root)
        var agreed = 0
        while let relative = enumerator?.nextObject() as? String {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                ![".json", ".md", ".py", ".sh", ".txt"].contains(where: { relative.hasSuffix($0) }),
                !relative.hasPrefix("hostile/"), !relative.hasPrefix("fuzz-regressions/")
            else { continue }
            let parsed = Result { try AudioFile(path: path) }
            let read = Result { try SourceReader(path: path) }
            switch (parsed, read) {
            case (.success(let file), .success(let reader)):
                let summary = try AudioFileSummary(file.properties)
                #expect(reader.format == file.dataFormat, "\(relative)")
                #expect(reader.frameCount == summary.frameCount, "\(relative)")
            case (.failure(let parserError), .failure(let readerError)):
                #expect("\(parserError)" == "\(readerError)", "\(relative)")
            case (.success, .failure(let error)):
                // A parsed file whose codec nothing decodes: refused naming the codec.
                #expect((error as? AudioFileError)?.code == "fmt?", "\(relative): \(error)")
            case (.failure(let error), .success):
                Issue.record("\(relative): the converter reads a file the parser refuses (\(error))")
            }
            agreed += 1
        }
        #expect(agreed > 150)
    }
}
