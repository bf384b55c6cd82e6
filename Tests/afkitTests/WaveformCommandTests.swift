import CZlib
import Foundation
import LoopbackServers
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `afkit waveform` against BBC audiowaveform's published data format (version 2): the header fields, and
/// min/max pairs per point computed here, independently, from the file's stored 16-bit samples.
@Suite struct WaveformCommandTests {
    /// The fixture's frames as 16-bit integers, read from its data as stored.
    static func frames(_ path: String) throws -> [[Int]] {
        try decodedFloats(Command.fixtures + "/" + path, channels: 2).map { $0.map { Int(($0 * 32768).rounded()) } }
    }

    /// A mono 22.05 kHz WAV in `folder`: a second of digital silence, then a second of a 440 Hz tone.
    static func halfSilent(in folder: String) throws -> String {
        let source = folder + "/half.wav"
        try writeTone(source, rate: 22050, frequency: 440, seconds: 2)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        bytes.replaceSubrange(44..<(44 + 22050 * 2), with: Data(count: 22050 * 2))
        try bytes.write(to: URL(fileURLWithPath: source))
        return source
    }

    /// Min/max per point of `zoom` frames, the last partial point included.
    static func expected(_ values: [Int], zoom: Int, bits: Int) -> [[Int]] {
        stride(from: 0, to: values.count, by: zoom).map { start in
            let point = values[start..<min(start + zoom, values.count)]
            let pair = [point.min() ?? 0, point.max() ?? 0]
            // audiowaveform's 8 bits: divided by 256, truncating toward zero (C's integer division).
            return bits == 8 ? pair.map { $0 / 256 } : pair
        }
    }

    /// Stereo mixed as audiowaveform mixes it (the channels' sum divided by their count, truncating: rounding the
    /// mean differed in 1 of 2 values), at 16 and 8 bits (8 bits divided by 256: a shift differed in half).
    @Test func jsonOfTheChannelsMean() throws {
        let folder = try Loopback.temporaryFolder("waveform")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = "wav/pcm-s16-stereo.wav"
        let result = try Command.run(["waveform", source, "-o", folder + "/w.json", "--zoom", "100"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/w.json")))
                as? [String: Any])
        let frames = try Self.frames(source)
        #expect(object["version"] as? Int == 2)
        #expect(object["channels"] as? Int == 1)
        #expect(object["sample_rate"] as? Int == 22050)
        #expect(object["samples_per_pixel"] as? Int == 100)
        #expect(object["bits"] as? Int == 16)
        #expect(object["length"] as? Int == (frames.count + 99) / 100)
        // Compact, as afkit's other unindented JSON: no space anywhere (the length's field of spaces, written over
        // once the points were counted, left some after the number).
        let text = try String(contentsOfFile: folder + "/w.json", encoding: .utf8)
        #expect(
            !text.contains(" ") && text.hasSuffix("],\"length\":\((frames.count + 99) / 100)}\n"), "\(text.prefix(200))"
        )
        // audiowaveform's mix (WaveformGenerator): the channels' samples summed, divided by the count, truncating.
        let mixed = frames.map { ($0[0] + $0[1]) / 2 }
        #expect(object["data"] as? [Int] == Self.expected(mixed, zoom: 100, bits: 16).flatMap { $0 })
        // 8 bits of the mix, as audiowaveform --bits 8 writes them.
        let eight = try Command.run(["waveform", source, "-o", folder + "/w8.json", "--zoom", "100", "--bits", "8"])
        #expect(eight.status == 0)
        let object8 = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/w8.json")))
                as? [String: Any])
        #expect(object8["data"] as? [Int] == Self.expected(mixed, zoom: 100, bits: 8).flatMap { $0 })
    }

    @Test func datOfEachChannelAt8Bits() throws {
        let folder = try Loopback.temporaryFolder("waveform")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = "wav/pcm-s16-stereo.wav"
        let result = try Command.run([
            "waveform", source, "-o", folder + "/w.dat", "--pixels-per-second", "441", "--bits", "8",
            "--split-channels",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/w.dat")))
        func int32(_ offset: Int) -> Int {
            Int(
                Int32(
                    bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
                        | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24))
        }
        let frames = try Self.frames(source)
        let zoom = 22050 / 441
        let length = (frames.count + zoom - 1) / zoom
        let header: [Int] = [int32(0), int32(4), int32(8), int32(12), int32(16), int32(20)]
        #expect(header == [2, 1, 22050, zoom, length, 2])
        #expect(bytes.count == 24 + length * 2 * 2)
        let left = Self.expected(frames.map { $0[0] }, zoom: zoom, bits: 8)
        let right = Self.expected(frames.map { $0[1] }, zoom: zoom, bits: 8)
        let values = bytes[24...].map { Int(Int8(bitPattern: $0)) }
        #expect(values == zip(left, right).flatMap { $0 + $1 })
    }

    /// Another picture type, a colour that is not RRGGBB, 12 bits, a zero zoom, both zooms: usage errors.
    @Test func badValuesAreUsageErrors() throws {
        for arguments in [
            ["-o", "/tmp/w.gif"], ["-o", "/tmp/w.png", "--waveform-color", "blue"],
            ["-o", "/tmp/w.json", "--bits", "12"], ["-o", "/tmp/w.json", "--zoom", "0"],
            ["-o", "/tmp/w.json", "--zoom", "10", "--pixels-per-second", "10"],
        ] {
            let result = try Command.run(["waveform", "wav/pcm-s16-stereo.wav"] + arguments)
            #expect(result.status == 2, "\(arguments)")
        }
        // Negative numbers are values, answered as out of range (not "Missing value").
        for (option, value) in [
            ("--width", "-1"), ("--height", "-5"), ("--zoom", "-2"), ("--pixels-per-second", "-1"), ("--bits", "-8"),
            ("--amplitude-scale", "-1"), ("--zoom", "2147483648"), ("--pixels-per-second", "9223372036854775807"),
        ] {
            let result = try Command.run(["waveform", "wav/pcm-s16-stereo.wav", "-o", "/tmp/w.png", option, value])
            #expect(result.status == 2, "\(option) \(value)")
            #expect(result.stderr.contains("\(option) \(value) is out of range"), "\(option): \(result.stderr)")
        }
        let colour = try Command.run([
            "waveform", "wav/pcm-s16-stereo.wav", "-o", "/tmp/w.png", "--background-color", "-12345",
        ])
        #expect(colour.status == 2 && colour.stderr.contains("give six hex digits"), "\(colour.stderr)")
    }

    /// At one frame a point a point's minimum is its maximum: each is drawn a pixel tall (before, nothing was
    /// drawn); the last time label ends at its tick rather than pass the picture's right edge.
    @Test func onePointAFrameIsDrawnAndLabelsStayInside() throws {
        let folder = try Loopback.temporaryFolder("waveform")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try Self.halfSilent(in: folder)
        let output = folder + "/z1.svg"
        let result = try Command.run(["waveform", source, "-o", output, "--zoom", "1", "--width", "400"])
        #expect(result.status == 0, "\(result.stderr)")
        let svg = try String(contentsOfFile: output, encoding: .utf8)
        let path = try #require(svg.components(separatedBy: " d=\"").dropFirst().first?.prefix { $0 != "\"" })
        let heights = path.split(separator: "M").map { stroke -> Double in
            let values = stroke.split(whereSeparator: { $0 == " " || $0 == "V" }).compactMap { Double($0) }
            return values[2] - values[1]
        }
        #expect(heights.count == 400)
        // 400 frames of silence: nothing drawn.
        #expect(heights.allSatisfy { $0 == 0 })
        let fitted = try Command.run(["waveform", source, "-o", folder + "/all.svg", "--width", "400"])
        #expect(fitted.status == 0)
        let all = try String(contentsOfFile: folder + "/all.svg", encoding: .utf8)
        let lastLabel = try #require(all.components(separatedBy: "<text ").last)
        #expect(lastLabel.contains("text-anchor=\"end\""), "\(lastLabel)")
        // A tone a frame a point, from the middle of the sound.
        let middle = folder + "/middle.wav"
        try writeTone(middle, rate: 22050, frequency: 440, seconds: 0.05)
        let dots = try Command.run(["waveform", middle, "-o", folder + "/dots.svg", "--zoom", "1", "--width", "400"])
        #expect(dots.status == 0)
        let drawn = try String(contentsOfFile: folder + "/dots.svg", encoding: .utf8)
        let strokes = try #require(drawn.components(separatedBy: " d=\"").dropFirst().first?.prefix { $0 != "\"" })
        let tall = strokes.split(separator: "M").filter { stroke in
            let values = stroke.split(whereSeparator: { $0 == " " || $0 == "V" }).compactMap { Double($0) }
            return values.count == 3 && values[2] - values[1] >= 0.99
        }
        #expect(tall.count >= 395, "\(tall.count) of 400 points drawn")
        // And joined: each stroke reaches the one before, so a click drawn a frame a pixel is a line, not dots.
        let spans = strokes.split(separator: "M").compactMap { stroke -> (Double, Double)? in
            let values = stroke.split(whereSeparator: { $0 == " " || $0 == "V" }).compactMap { Double($0) }
            return values.count == 3 ? (values[1], values[2]) : nil
        }
        #expect(
            zip(spans, spans.dropFirst()).allSatisfy { $1.0 <= $0.1 && $1.1 >= $0.0 }, "a stroke apart from the last")
    }

    /// A sound of a millisecond: a line across the picture, labelled at both ends in seconds (its one tick, at
    /// 0, left the end unsaid).
    @Test func aMillisecondIsDrawnAndItsEndLabelled() throws {
        let folder = try Loopback.temporaryFolder("waveform")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let click = folder + "/click.wav"
        try writeTone(click, rate: 44100, frequency: 1000, seconds: 0.001)
        let result = try Command.run(["waveform", click, "-o", folder + "/click.svg", "--width", "400"])
        #expect(result.status == 0, "\(result.stderr)")
        let svg = try String(contentsOfFile: folder + "/click.svg", encoding: .utf8)
        let labels = svg.components(separatedBy: "<text ").dropFirst().map {
            $0.drop { $0 != ">" }.dropFirst().prefix { $0 != "<" }
        }
        #expect(labels.first == "0.00 s" && labels.last == "0.0010 s", "\(labels)")
        let path = try #require(svg.components(separatedBy: " d=\"").dropFirst().first?.prefix { $0 != "\"" })
        #expect(path.split(separator: "M").count >= 40, "a stroke a frame")
    }

    /// A zoomed picture shows its width's points from the start, one a pixel, as audiowaveform draws it: at
    /// 110 frames a point 400 pixels cover 2 s (the silent second on the left, the tone on the right); at 50
    /// they cover 0.9 s of the silent second, so nothing is drawn; reading stops there.
    @Test func aZoomedPictureShowsItsWidthFromTheStart() throws {
        let folder = try Loopback.temporaryFolder("waveform")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try Self.halfSilent(in: folder)
        for (zoom, toneFrom) in [(110, 200.5), (50, 401.0)] {
            let output = folder + "/z\(zoom).svg"
            let result = try Command.run([
                "waveform", source, "-o", output, "--width", "400", "--height", "120", "--zoom", "\(zoom)",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let svg = try String(contentsOfFile: output, encoding: .utf8)
            let path = try #require(svg.components(separatedBy: " d=\"").dropFirst().first?.prefix { $0 != "\"" })
            let strokes = path.split(separator: "M").map { stroke in
                stroke.split(whereSeparator: { $0 == " " || $0 == "V" }).compactMap { Double($0) }
            }
            #expect(strokes.count == min(400, (44100 + zoom - 1) / zoom), "zoom \(zoom): \(strokes.count) strokes")
            #expect(strokes.allSatisfy { $0[0] < 400 }, "one pixel a point")
            let drawn = strokes.filter { $0[2] - $0[1] > 10 }.map { $0[0] }
            #expect(drawn.allSatisfy { $0 >= toneFrom - 1 }, "zoom \(zoom): the silent second is blank")
            #expect(strokes.filter { $0[0] > toneFrom + 1 }.allSatisfy { $0[2] - $0[1] > 10 }, "zoom \(zoom)")
            #expect(zoom != 50 || drawn.isEmpty)
        }
    }

    /// The SVG picture, read back by Foundation's XML parser: the size asked, a path per channel with one
    /// stroke a point, and for a sound silent for its first half nothing drawn in the left half of either
    /// band (every stroke there has no height) and something in the right half; time labels along the bottom.
    @Test func svgPictureOfASoundSilentForItsFirstHalf() throws {
        let folder = try Loopback.temporaryFolder("waveform")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try Self.halfSilent(in: folder)
        let output = folder + "/w.svg"
        let result = try Command.run(["waveform", source, "-o", output, "--width", "400", "--height", "120"])
        #expect(result.status == 0, "\(result.stderr)")

        final class Reader: NSObject, XMLParserDelegate {
            var size: (String?, String?) = (nil, nil)
            var paths: [String] = []
            var labels: [String] = []
            var inText = false
            func parser(
                _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String]
            ) {
                if element == "svg" { size = (attributes["width"], attributes["height"]) }
                if element == "path" { paths.append(attributes["d"] ?? "") }
                inText = element == "text"
            }
            func parser(_ parser: XMLParser, foundCharacters string: String) {
                if inText { labels.append(string) }
            }
            func parser(
                _ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?
            ) { inText = false }
        }
        let reader = Reader()
        let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: output)))
        parser.delegate = reader
        #expect(parser.parse(), "well-formed XML")
        #expect(reader.size.0 == "400" && reader.size.1 == "120")
        #expect(reader.paths.count == 1, "the channels' mean: one band")
        // Each stroke: "M x top V bottom".
        let strokes = try #require(reader.paths.first).split(separator: "M").map { stroke in
            stroke.split(whereSeparator: { $0 == " " || $0 == "V" }).compactMap { Double($0) }
        }
        #expect(strokes.count > 390 && strokes.count <= 400, "\(strokes.count) strokes")
        let left = strokes.filter { $0[0] < 190 }
        let right = strokes.filter { $0[0] > 210 }
        #expect(!left.isEmpty && left.allSatisfy { $0[2] - $0[1] == 0 }, "nothing drawn in the silent half")
        #expect(!right.isEmpty && right.allSatisfy { $0[2] - $0[1] > 10 }, "the tone drawn in the other half")
        #expect(
            reader.labels == ["0.0 s", "0.5 s", "1.0 s", "1.5 s", "2.0 s"], "a label each half second: \(reader.labels)"
        )
    }

    /// The PNG picture, read back by zlib (CRC-32 of every chunk, the IDAT stream inflated): 8-bit RGB of the
    /// size asked; for a sound silent for its first half, only the background in the left half of the band and
    /// the waveform's colour across the middle of the right half; the time labels' ticks below the band.
    @Test func pngPictureReadBackByZlib() throws {
        let folder = try Loopback.temporaryFolder("waveform")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try Self.halfSilent(in: folder)
        let output = folder + "/w.png"
        let result = try Command.run([
            "waveform", source, "-o", output, "--width", "400", "--height", "120", "--background-color", "102030",
            "--waveform-color", "F0E0D0",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(bytes.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        func word(_ offset: Int) -> Int {
            Int(
                UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
                    | UInt32(bytes[offset + 3]))
        }
        var chunks: [(String, [UInt8])] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = word(offset)
            let typed = Array(bytes[(offset + 4)..<(offset + 8 + length)])
            let crc = typed.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) }
            #expect(Int(crc) == word(offset + 8 + length), "the CRC of chunk \(chunks.count)")
            chunks.append((String(decoding: typed.prefix(4), as: UTF8.self), Array(typed.dropFirst(4))))
            offset += 12 + length
        }
        #expect(chunks.map(\.0) == ["IHDR", "IDAT", "IEND"])
        let header = try #require(chunks.first?.1)
        #expect(Array(header) == [0, 0, 1, 0x90, 0, 0, 0, 120, 8, 2, 0, 0, 0], "400 × 120, 8-bit RGB")
        let compressed = chunks[1].1
        var inflated = [UInt8](repeating: 0, count: 120 * (1 + 400 * 3))
        var size = uLongf(inflated.count)
        let status = compressed.withUnsafeBufferPointer { input in
            inflated.withUnsafeMutableBufferPointer { output in
                uncompress(output.baseAddress, &size, input.baseAddress, uLong(input.count))
            }
        }
        #expect(status == Z_OK && Int(size) == inflated.count, "zlib inflates the IDAT stream")
        #expect(compressed.count < inflated.count / 20, "flat colours compress: \(compressed.count) bytes")
        func pixel(_ x: Int, _ y: Int) -> [UInt8] {
            let start = y * (1 + 400 * 3) + 1 + x * 3
            return Array(inflated[start..<(start + 3)])
        }
        let background: [UInt8] = [0x10, 0x20, 0x30]
        let waveform: [UInt8] = [0xF0, 0xE0, 0xD0]
        // The band: rows 0 to 103 (16 rows of labels below); its middle, row 52.
        #expect((0..<190).allSatisfy { x in (0..<104).allSatisfy { pixel(x, $0) == background } }, "the silent half")
        #expect((210..<400).allSatisfy { pixel($0, 52) == waveform }, "the tone across the middle")
        #expect((0..<120).allSatisfy { y in (0..<1).allSatisfy { _ in inflated[y * (1 + 400 * 3)] == 0 } })
    }
}
