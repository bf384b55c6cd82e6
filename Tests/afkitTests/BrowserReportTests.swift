import AudioFormats
import CZlib
import Foundation
import LoopbackServers
import Testing

/// The HTML report in a real browser (Debian's `chromium`, headless; `make test` installs it): its DOM after
/// the script ran, its console, its network (every request goes to a catcher as proxy), its pixels, and its
/// table driven by a script the test appends.
@Suite(.serialized) struct BrowserReportTests {
    /// `page` written to a fresh folder as report.html, with `driver` (a script) appended to its body and let
    /// in by its hash beside the page's own in the Content-Security-Policy (which runs nothing else).
    static func write(_ page: String, driver: String? = nil, in folder: String) throws -> String {
        var text = page
        if let driver, let end = text.range(of: "</body>", options: .backwards) {
            text.replaceSubrange(end, with: "<script>\(driver)</script>\n</body>")
            let hash = "'sha256-" + Data(SHA256.hash(Array(driver.utf8))).base64EncodedString() + "'"
            text = text.replacingOccurrences(of: "script-src ", with: "script-src \(hash) ")
        }
        let path = folder + "/report.html"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return "file://" + path
    }

    @Test func theHarnessSeesRequestsAndConsoleMessages() throws {
        // The control: a page that does what the report must not, seen by the same means.
        let folder = try Loopback.temporaryFolder("browser-control")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let chromium = try HeadlessChromium()
        defer { chromium.catcher.stop() }
        let url = try Self.write(
            "<!DOCTYPE html><html><body><p>control</p></body></html>",
            driver: "console.error('control error'); fetch('http://example.invalid/probe').catch(() => {});",
            in: folder)
        let output = try chromium.run(url, mode: "--dump-dom", budget: 3000)
        #expect(output.stdout.contains("<p>control</p>"))
        #expect(output.consoleMessages.contains { $0.contains("control error") }, "\(output.stderr)")
        #expect(
            chromium.catcher.pageRequests.contains { $0.contains("example.invalid") }, "\(chromium.catcher.requests)")
    }

    /// The page runs only its own script and style sheet, named by hash: an inline script and a style that
    /// an escaping slip let into a section (put there by hand here, as a template bug would) do nothing, and
    /// the browser says it refused them, while the page's own script still draws every picture.
    @Test func onlyThePagesOwnScriptRuns() throws {
        let folder = try Loopback.temporaryFolder("browser-csp")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Command.run(["validate", "--format", "html", "report/half-silent.wav"])
        let policy = try #require(
            result.stdout.range(
                of:
                    #"content="default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src data:""#,
                options: .regularExpression),
            "a hash-only policy")
        #expect(!result.stdout[policy].contains("unsafe"))
        let injected = result.stdout.replacingOccurrences(
            of: "<h3 id=\"file-0-findings\">",
            with: "<script>document.title = 'INJECTED'; document.body.dataset.injected = 'ran';</script>"
                + "<style>body { background: rgb(255, 0, 0) !important; }</style><h3 id=\"file-0-findings\">")
        #expect(injected != result.stdout)
        let chromium = try HeadlessChromium()
        defer { chromium.catcher.stop() }
        let output = try chromium.run(try Self.write(injected, in: folder), mode: "--dump-dom", height: 3000)
        #expect(!output.stdout.contains("<title>INJECTED</title>") && !output.stdout.contains("data-injected"))
        #expect(output.stdout.contains("data-drawn-width=\""), "the page's own script ran")
        let refusals = output.consoleMessages.filter { $0.contains("Content Security Policy") }
        #expect(refusals.count >= 2, "the script and the style were refused: \(output.consoleMessages)")
        // The real page, untouched: no refusal at all.
        let clean = try chromium.run(try Self.write(result.stdout, in: folder), mode: "--dump-dom", height: 3000)
        #expect(clean.consoleMessages.isEmpty, "\(clean.consoleMessages)")
        #expect(clean.stdout.contains("data-drawn-width=\""))
    }

    @Test func everySectionDrawnWithoutErrorsOrRequests() throws {
        let folder = try Loopback.temporaryFolder("browser-dom")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let page = try HTMLReportTests.cachedReport.get()
        let chromium = try HeadlessChromium()
        defer { chromium.catcher.stop() }
        // Tall enough that every section scrolls into view, so every picture is drawn on demand.
        let output = try chromium.run(try Self.write(page, in: folder), mode: "--dump-dom", height: 16000)
        // (Names carry line-break opportunities, <wbr>, between their parts.)
        let dom = output.stdout.replacingOccurrences(of: "<wbr>", with: "")
        #expect(output.consoleMessages.isEmpty, "\(output.consoleMessages)")
        #expect(chromium.catcher.pageRequests.isEmpty, "the page made requests: \(chromium.catcher.pageRequests)")
        for (index, file) in HTMLReportTests.files.enumerated() {
            #expect(dom.contains("id=\"file-\(index)\""), "a section for \(file)")
            #expect(dom.contains("<h2 id=\"file-\(index)-title\"><span class=\"status\">✖ failed</span> \(file)</h2>"))
        }
        #expect(dom.contains("<strong>error: leading-silence</strong> 1.000 s of silence before the sound starts"))
        #expect(dom.contains("<strong>warning: clipping</strong>"))
        #expect(dom.contains("<strong>error: loop-seam</strong> the loop 1000-3000"))
        // Every canvas drawn by the script (it records the width it drew at), none left blank.
        let canvases = dom.components(separatedBy: "<canvas class=\"plot\"").count - 1
        let drawn = dom.components(separatedBy: "data-drawn-width=\"").dropFirst().filter { !$0.hasPrefix("0\"") }
        #expect(canvases == 6 * 3 + 2 && drawn.count == canvases, "\(drawn.count) of \(canvases) drawn")
        #expect(dom.contains("(6 of 6 files shown)"))

        // In a window of ordinary height, only what is in view (and a little beyond) is drawn: on demand.
        let first = try chromium.run("file://" + folder + "/report.html", mode: "--dump-dom", height: 900)
        let drawnInView = first.stdout.components(separatedBy: "data-drawn-width=\"").count - 1
        #expect(drawnInView > 0 && drawnInView < canvases, "\(drawnInView) of \(canvases) drawn in a 900-pixel window")
    }

    @Test func tableSortsAndFiltersToFailures() throws {
        let folder = try Loopback.temporaryFolder("browser-table")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // System-sound: the WAV files pass (with warnings), the MP3 fails (data format).
        let result = try Command.run([
            "validate", "--format", "html", "report/clipping.wav", "mp3/lame-mpeg25-8k-mono.mp3", "report/clean.wav",
            "report/half-silent.wav",
        ])
        #expect(result.status == 1)
        let driver = """
            const table = document.getElementById("files"), out = {};
            const names = () => Array.from(table.tBodies[0].rows).filter(r => !r.hidden).map(r => r.cells[0].textContent);
            const duration = table.querySelectorAll("th button")[4];
            duration.click(); out.ascending = names(); out.sort = duration.parentElement.getAttribute("aria-sort");
            duration.click(); out.descending = names();
            out.outside = Array.from(table.querySelectorAll("td, th")).filter(c => c.getBoundingClientRect().right > window.innerWidth + 0.5).length;
            out.lines = Array.from(table.tBodies[0].rows).map(r => Math.round(r.cells[0].getBoundingClientRect().height / parseFloat(getComputedStyle(r.cells[0]).lineHeight)));
            const only = document.getElementById("only-failures");
            only.checked = true; only.dispatchEvent(new Event("change"));
            out.failures = names(); out.shown = document.getElementById("shown").textContent;
            out.sections = Array.from(document.querySelectorAll("section.file")).filter(s => !s.hidden).length;
            out.overflow = document.documentElement.scrollWidth - window.innerWidth;
            document.body.dataset.result = JSON.stringify(out);
            """
        let chromium = try HeadlessChromium()
        defer { chromium.catcher.stop() }
        // 600 CSS pixels wide at twice the density: what 200 % zoom gives a 1200-pixel window.
        let output = try chromium.run(
            try Self.write(result.stdout, driver: driver, in: folder),
            mode: "--dump-dom", width: 600, options: ["--force-device-scale-factor=2"])
        #expect(output.consoleMessages.isEmpty, "\(output.consoleMessages)")
        let attribute = try #require(output.stdout.range(of: "data-result=\""))
        let encoded = output.stdout[attribute.upperBound...].prefix { $0 != "\"" }
        let json = String(encoded).replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&amp;", with: "&")
        let outcome = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        // Durations: clipping 0.5 s, clean 0.6, the MP3 1.656, half-silent 2.
        #expect(
            outcome["ascending"] as? [String] == [
                "report/clipping.wav", "report/clean.wav", "mp3/lame-mpeg25-8k-mono.mp3", "report/half-silent.wav",
            ], "\(outcome)")
        #expect(outcome["sort"] as? String == "ascending")
        #expect((outcome["descending"] as? [String])?.first == "report/half-silent.wav")
        #expect(outcome["failures"] as? [String] == ["mp3/lame-mpeg25-8k-mono.mp3"])
        #expect(outcome["shown"] as? String == "(1 of 4 files shown)")
        #expect(outcome["sections"] as? Int == 1)
        #expect(outcome["overflow"] as? Int ?? 1 <= 0, "nothing wider than a 600-pixel window")
        // Every cell in view (the rules column left a 600-pixel window), every name on a line or two (they broke
        // letter by letter).
        #expect(outcome["outside"] as? Int == 0, "\(outcome["outside"] ?? "?") cells outside the window")
        #expect((outcome["lines"] as? [Int])?.allSatisfy { $0 <= 2 } == true, "\(outcome["lines"] ?? "?")")
    }

    @Test func silentFirstHalfHasNothingDrawnInTheLeftHalfOfItsWaveform() throws {
        let folder = try Loopback.temporaryFolder("browser-pixels")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Command.run(["validate", "--format", "html", "report/half-silent.wav"])
        let chromium = try HeadlessChromium()
        defer { chromium.catcher.stop() }
        let url = try Self.write(result.stdout, in: folder)
        // The waveform's plot is the only area painted in its background colour; find it. A screenshot taken
        // before the page painted (Chromium under load, now and then) is taken again, three times at most.
        let background: [UInt8] = [0xF5, 0xF7, 0xFA]
        var image: PNGPixels?
        var (left, right, top, bottom) = (0, -1, 0, -1)
        for attempt in 1...3 where right - left <= 500 {
            let screenshot = folder + "/shot\(attempt).png"
            let output = try chromium.run(url, mode: "--screenshot=" + screenshot, width: 1000, height: 1000)
            #expect(output.consoleMessages.isEmpty, "\(output.consoleMessages)")
            let shot = try PNGPixels(path: screenshot)
            (left, right, top, bottom) = (shot.width, -1, shot.height, -1)
            for y in 0..<shot.height {
                for x in 0..<shot.width where shot.pixel(x, y) == background {
                    left = min(left, x)
                    right = max(right, x)
                    top = min(top, y)
                    bottom = max(bottom, y)
                }
            }
            image = shot
        }
        let picture = try #require(image)
        try #require(right - left > 500 && bottom - top > 50, "the plot found: \(left)-\(right) × \(top)-\(bottom)")
        func isWaveform(_ pixel: [UInt8]) -> Bool {
            abs(Int(pixel[0]) - 0x1D) + abs(Int(pixel[1]) - 0x4E) + abs(Int(pixel[2]) - 0x89) < 60
        }
        let middle = (left + right) / 2
        var leftHalf = 0
        var rightHalf = 0
        for y in top...bottom {
            for x in left...right where isWaveform(picture.pixel(x, y)) {
                if x < middle - 2 { leftHalf += 1 } else if x > middle + 2 { rightHalf += 1 }
            }
        }
        #expect(leftHalf == 0, "\(leftHalf) waveform pixels in the silent half")
        #expect(rightHalf > (right - middle) * (bottom - top) / 4, "\(rightHalf) waveform pixels in the tone's half")
    }
}

/// A PNG's pixels (8-bit RGB or RGBA, not interlaced), inflated by zlib and unfiltered here.
struct PNGPixels {
    let width: Int
    let height: Int
    private let channels: Int
    private let rows: [[UInt8]]

    init(path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func word(_ offset: Int) -> Int {
            Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
        }
        var offset = 8
        var header: [UInt8] = []
        var compressed: [UInt8] = []
        while offset + 8 <= bytes.count {
            let length = word(offset)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let body = Array(bytes[(offset + 8)..<(offset + 8 + length)])
            if type == "IHDR" { header = body }
            if type == "IDAT" { compressed += body }
            offset += 12 + length
        }
        width = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        height = Int(header[4]) << 24 | Int(header[5]) << 16 | Int(header[6]) << 8 | Int(header[7])
        #expect(header[8] == 8 && (header[9] == 2 || header[9] == 6) && header[12] == 0, "8-bit RGB(A), not interlaced")
        channels = header[9] == 6 ? 4 : 3
        let stride = width * channels
        var inflated = [UInt8](repeating: 0, count: height * (1 + stride))
        var size = uLongf(inflated.count)
        let status = compressed.withUnsafeBufferPointer { input in
            inflated.withUnsafeMutableBufferPointer { output in
                uncompress(output.baseAddress, &size, input.baseAddress, uLong(input.count))
            }
        }
        #expect(status == Z_OK)
        var rows: [[UInt8]] = []
        var previous = [UInt8](repeating: 0, count: stride)
        for y in 0..<height {
            let filter = inflated[y * (1 + stride)]
            var row = Array(inflated[(y * (1 + stride) + 1)..<((y + 1) * (1 + stride))])
            for x in 0..<stride {
                let a = x >= channels ? Int(row[x - channels]) : 0
                let b = Int(previous[x])
                let c = x >= channels ? Int(previous[x - channels]) : 0
                let predicted: Int
                switch filter {
                case 1: predicted = a
                case 2: predicted = b
                case 3: predicted = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
                    predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: predicted = 0
                }
                row[x] = UInt8(truncatingIfNeeded: Int(row[x]) + predicted)
            }
            rows.append(row)
            previous = row
        }
        self.rows = rows
    }

    /// The pixel's red, green and blue.
    func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(rows[y][(x * channels)..<(x * channels + 3)]) }
}
