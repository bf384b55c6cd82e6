import AudioFormats

/// Waveform data in BBC audiowaveform's formats, version 2 (the `.dat` binary and its JSON twin, which
/// peaks.js and waveform-data.js read): for each point of `samplesPerPixel` frames, the least and the
/// greatest 16-bit sample of each channel, or of the channels' samples summed and divided by their count, at 16
/// or 8 bits (8 bits: the 16-bit value divided by 256), truncating as audiowaveform does, so the data is its own.
public struct WaveformData: Sendable, Hashable {
    /// The audio's sample rate, Hz.
    public var sampleRate: Int
    /// Frames each point covers (the last point may cover fewer).
    public var samplesPerPixel: Int
    /// 8 or 16.
    public var bits: Int
    /// The channels the data holds (1 unless split).
    public var channels: Int
    /// For each point, each channel's minimum then maximum.
    public var data: [Int16]

    /// Points per channel.
    public var length: Int { channels > 0 ? data.count / (2 * channels) : 0 }

    /// `{"version": 2, "channels", "sample_rate", "samples_per_pixel", "bits", "data", "length"}`, compact as every
    /// JSON afkit writes unindented (``JSONValue/serialized(pretty:)``). The length follows the data: a writer
    /// that streams the points learns it only at their end (a field of spaces written over left spaces in the
    /// text); a JSON reader takes the members in any order.
    public var json: String {
        var bytes = Array(jsonOpening.utf8)
        Self.appendJSONValues(data[...], first: true, to: &bytes)
        return String(decoding: bytes, as: UTF8.self) + Self.jsonClosing(length: length)
    }

    /// The JSON text before the values: every member but `data` and `length`, then `"data":[`.
    public var jsonOpening: String {
        "{\"version\":2,\"channels\":\(channels),\"sample_rate\":\(sampleRate),"
            + "\"samples_per_pixel\":\(samplesPerPixel),\"bits\":\(bits),\"data\":["
    }

    /// The JSON text after the values: the end of `data`, then the `length` of `length` points.
    public static func jsonClosing(length: Int) -> String { "],\"length\":\(length)}\n" }

    /// Appends values to JSON's `data` array as UTF-8, with a comma before each but the array's first.
    public static func appendJSONValues(_ values: ArraySlice<Int16>, first: Bool, to bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + values.count * 7)
        var first = first
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0)
        for value in values {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            // The magnitude's digits, last first (at most 5: 32768).
            var magnitude = Int(value).magnitude
            var count = 0
            withUnsafeMutableBytes(of: &digits) { buffer in
                repeat {
                    buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                    count += 1
                } while magnitude > 0
                while count > 0 {
                    count -= 1
                    bytes.append(buffer[count])
                }
            }
        }
    }

    /// The `.dat` file: a 24-byte little-endian header (version 2, flags with bit 0 set for 8 bits, sample
    /// rate, samples per pixel, length, channels), then the values as 16- or 8-bit signed integers.
    public var datBytes: [UInt8] {
        var bytes = datHeader(length: length)
        Self.appendDatValues(data[...], bits: bits, to: &bytes)
        return bytes
    }

    /// Where the `.dat` header holds the length (after version, flags, rate and frames a point).
    public static let datLengthOffset = 16

    /// The `.dat` header for `length` points.
    public func datHeader(length: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for word in [
            UInt32(2), bits == 8 ? 1 : 0, UInt32(truncatingIfNeeded: sampleRate),
            UInt32(truncatingIfNeeded: samplesPerPixel), UInt32(truncatingIfNeeded: length),
            UInt32(truncatingIfNeeded: channels),
        ] {
            bytes.appendInteger(word, endianness: .little)
        }
        return bytes
    }

    /// Appends values as `.dat` stores them: 16-bit little-endian, or 8-bit.
    public static func appendDatValues(_ values: ArraySlice<Int16>, bits: Int, to bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + values.count * bits / 8)
        for value in values {
            if bits == 8 {
                bytes.append(UInt8(bitPattern: Int8(truncatingIfNeeded: value)))
            } else {
                bytes.appendInteger(UInt16(bitPattern: value), endianness: .little)
            }
        }
    }
}

/// Makes ``WaveformData`` from interleaved Float frames fed a block at a time, in memory bounded by what it
/// keeps: at most `maximumPoints` points (past them, each two become one and a point covers twice the
/// frames), or the points since the last ``drain()`` for a writer that streams them out.
public struct WaveformBuilder {
    private let inputChannels: Int
    private let splitsChannels: Bool
    private let maximumPoints: Int?
    private var result: WaveformData
    /// Points made so far, drained or not.
    public private(set) var pointCount = 0
    /// Each output's least and greatest sample in the point so far, as Float: quantizing is monotonic, so the
    /// point's values are quantized once, when it ends.
    private var low: [Float]
    private var high: [Float]
    private var framesInPoint = 0

    /// A builder for frames of `channels` at `sampleRate`: points of `samplesPerPixel` frames, values of
    /// `bits` (8 or 16), each channel apart (`splitChannels`) or their mean; with `maximumPoints` (an even
    /// number, 2 or more), points are paired whenever there would be more (a sound longer than it said).
    public init(
        sampleRate: Double, channels: Int, samplesPerPixel: Int, bits: Int, splitChannels: Bool,
        maximumPoints: Int? = nil
    ) {
        inputChannels = max(channels, 1)
        self.maximumPoints = maximumPoints.map { max(2, $0 + $0 % 2) }
        splitsChannels = splitChannels && channels > 1
        let outputs = splitsChannels ? inputChannels : 1
        result = WaveformData(
            sampleRate: Int(sampleRate.rounded()), samplesPerPixel: max(samplesPerPixel, 1), bits: bits == 8 ? 8 : 16,
            channels: outputs, data: [])
        low = Array(repeating: .infinity, count: outputs)
        high = Array(repeating: -.infinity, count: outputs)
        result.data.reserveCapacity(2 * outputs * 1024)
    }

    /// A sample as a 16-bit value: scaled by 32768, rounded, clamped; NaN as 0.
    @inline(__always) package static func quantized(_ value: Float) -> Int16 {
        guard !value.isNaN else { return 0 }
        return Int16(max(-32768, min(32767, (value * 32768).rounded())))
    }

    /// Adds `frames` interleaved frames.
    public mutating func add(_ samples: UnsafeBufferPointer<Float>, frames: Int) {
        let channels = inputChannels
        let perPoint = result.samplesPerPixel
        var frame = 0
        while frame < frames {
            // The frames up to the end of this point, or of the block.
            let count = min(frames - frame, perPoint - framesInPoint)
            if splitsChannels {
                for channel in 0..<channels {
                    var least = low[channel]
                    var greatest = high[channel]
                    var index = frame * channels + channel
                    for _ in 0..<count {
                        // NaN counts as 0 (as quantized reads it).
                        let value = samples[index].isNaN ? 0 : samples[index]
                        least = Swift.min(least, value)
                        greatest = Swift.max(greatest, value)
                        index += channels
                    }
                    low[channel] = least
                    high[channel] = greatest
                }
            } else {
                var least = low[0]
                var greatest = high[0]
                for offset in frame..<(frame + count) {
                    // audiowaveform's mix: the channels' 16-bit samples summed and divided by their count,
                    // truncating (C's integer division), so the data equals its own.
                    var sum = 0
                    for channel in 0..<channels { sum += Int(Self.quantized(samples[offset * channels + channel])) }
                    let value = Float(sum / channels) / 32768
                    least = Swift.min(least, value)
                    greatest = Swift.max(greatest, value)
                }
                low[0] = least
                high[0] = greatest
            }
            framesInPoint += count
            frame += count
            if framesInPoint == perPoint { endPoint() }
        }
    }

    private mutating func endPoint() {
        for output in 0..<low.count {
            let least = Self.quantized(low[output])
            let greatest = Self.quantized(high[output])
            // 8 bits: divided by 256, truncating, as audiowaveform writes them (a shift would floor negatives).
            result.data.append(result.bits == 8 ? least / 256 : least)
            result.data.append(result.bits == 8 ? greatest / 256 : greatest)
            low[output] = .infinity
            high[output] = -.infinity
        }
        framesInPoint = 0
        pointCount += 1
        if let maximumPoints, result.length >= maximumPoints {
            result = result.combined(by: 2)
            pointCount = result.length
        }
    }

    /// The data's description with no points: rate, frames a point, bits and channels.
    public var shape: WaveformData {
        WaveformData(
            sampleRate: result.sampleRate, samplesPerPixel: result.samplesPerPixel, bits: result.bits,
            channels: result.channels, data: [])
    }

    /// The values of the points made since the last drain (each point's channels' minimum and maximum), taken
    /// out of the builder: a writer streams them and the builder keeps nothing.
    public mutating func drain() -> [Int16] {
        defer { result.data.removeAll(keepingCapacity: true) }
        return result.data
    }

    /// The data, the last partial point included.
    public mutating func finish() -> WaveformData {
        if framesInPoint > 0 { endPoint() }
        return result
    }
}

extension WaveformData {
    /// The data in at most `points` points: every few combined into one where there are more.
    public func fitted(to points: Int) -> WaveformData {
        length > points ? combined(by: (length + points - 1) / points) : self
    }

    /// The data with every `factor` points combined into one (the least minimum, the greatest maximum), as
    /// a picture narrower than the data needs it.
    public func combined(by factor: Int) -> WaveformData {
        guard factor > 1, channels > 0 else { return self }
        var result = self
        result.samplesPerPixel = samplesPerPixel * factor
        result.data = []
        let stride = 2 * channels
        var point = 0
        while point < length {
            let end = min(point + factor, length)
            for channel in 0..<channels {
                var least = Int16.max
                var greatest = Int16.min
                for index in point..<end {
                    least = min(least, data[index * stride + 2 * channel])
                    greatest = max(greatest, data[index * stride + 2 * channel + 1])
                }
                result.data += [least, greatest]
            }
            point = end
        }
        return result
    }

    /// Where a picture of `width` × `height` puts the waveform: each channel in a band of its own, a stroke a
    /// point from its maximum down to its minimum, and time labels along the bottom unless `axisLabels` is
    /// false. The width holds `columns` points (default: all there are; a zoomed picture gives its width, and
    /// a sound that ends sooner leaves the rest blank), points past them are not drawn.
    public func layout(width: Int, height: Int, axisLabels: Bool, amplitudeScale: Double = 1, columns: Int? = nil)
        -> WaveformLayout
    {
        let labelRoom = axisLabels ? 16 : 0
        let bandHeight = Double(height - labelRoom) / Double(max(channels, 1))
        let full = bits == 8 ? 128.0 : 32768.0
        let columns = max(columns ?? length, 1)
        let length = min(self.length, columns)
        var result = WaveformLayout(
            columnWidth: Double(width) / Double(columns), baseline: Double(height - labelRoom))
        for channel in 0..<channels {
            let middle = bandHeight * (Double(channel) + 0.5)
            let half = bandHeight / 2
            for point in 0..<length {
                let low = Double(data[point * 2 * channels + 2 * channel]) / full * amplitudeScale
                let high = Double(data[point * 2 * channels + 2 * channel + 1]) / full * amplitudeScale
                var top = middle - min(1, max(-1, high)) * half
                var bottom = max(top, middle - min(1, max(-1, low)) * half)
                // A point that is not silence is a pixel tall at least (at one frame a point, its minimum is its
                // maximum); silence draws nothing.
                if bottom - top < 1, low != 0 || high != 0 {
                    let centre = (top + bottom) / 2
                    (top, bottom) = (centre - 0.5, centre + 0.5)
                }
                // Joined to the stroke before, so a zoomed-in sound (a click, a point a frame) is a line, not
                // dots: a stroke wholly above or below the last reaches to it.
                if point > 0, let last = result.strokes.last, last.channel == channel {
                    if top > last.bottom { top = last.bottom }
                    if bottom < last.top { bottom = last.top }
                }
                result.strokes.append(
                    .init(channel: channel, x: (Double(point) + 0.5) * result.columnWidth, top: top, bottom: bottom))
            }
        }
        if axisLabels, sampleRate > 0 {
            let seconds = Double(columns) * Double(samplesPerPixel) / Double(sampleRate)
            // A label every 80 pixels at most: the first step that keeps to that, or a power of ten beyond.
            let most = Double(max(width / 80, 1))
            let steps = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600]
            var step = steps.first { seconds / $0 <= most } ?? 10_000
            while seconds / step > most && step.isFinite { step *= 10 }
            var tick = 0
            while Double(tick) * step <= seconds {
                let time = Double(tick) * step
                let label = (step < 1 ? fixedPoint(time, places: step < 0.1 ? 2 : 1) : shortDecimal(time)) + " s"
                let x = time / max(seconds, 1e-9) * Double(width)
                // A label that would pass the right edge (6 pixels a glyph) ends at its tick instead.
                result.ticks.append((x, label, x + 2 + Double(label.count * 6 - 1) > Double(width)))
                tick += 1
            }
            // The end, labelled where the last tick falls well short of it (a click of a millisecond).
            if seconds > 0, tick == 1 || seconds - Double(tick - 1) * step > step * 0.6 {
                let label =
                    fixedPoint(seconds, places: seconds < 0.01 ? 4 : seconds < 0.1 ? 3 : seconds < 10 ? 2 : 1) + " s"
                result.ticks.append((Double(width), label, true))
            }
        }
        return result
    }

    /// An SVG picture of the waveform (``layout(width:height:axisLabels:amplitudeScale:columns:)``). Colours are
    /// `RRGGBB`.
    public func svg(
        width: Int, height: Int, background: String, waveform: String, axisLabel: String, axisLabels: Bool,
        amplitudeScale: Double = 1, columns: Int? = nil
    ) -> String {
        let layout = layout(
            width: width, height: height, axisLabels: axisLabels, amplitudeScale: amplitudeScale, columns: columns)
        func number(_ value: Double) -> String { fixedPoint(value, places: 2) }
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" \
            viewBox="0 0 \(width) \(height)">
            <rect width="\(width)" height="\(height)" fill="#\(background)"/>

            """
        for channel in 0..<channels {
            let path = layout.strokes.filter { $0.channel == channel }.map {
                "M\(number($0.x)) \(number($0.top))V\(number($0.bottom))"
            }.joined()
            svg += """
                <path data-channel="\(channel)" d="\(path)" stroke="#\(waveform)" \
                stroke-width="\(number(max(layout.columnWidth, 1)))" fill="none"/>

                """
        }
        for (x, label, endsAtTick) in layout.ticks {
            svg += """
                <line x1="\(number(x))" y1="\(number(layout.baseline))" x2="\(number(x))" \
                y2="\(number(layout.baseline + 4))" stroke="#\(axisLabel)"/>
                <text x="\(number(endsAtTick ? x - 2 : x + 2))" y="\(height - 3)" font-family="sans-serif" \
                font-size="10" fill="#\(axisLabel)"\(endsAtTick ? " text-anchor=\"end\"" : "")>\(label)</text>

                """
        }
        return svg + "</svg>\n"
    }

    /// A PNG picture of the waveform (the same layout as ``svg(width:height:background:waveform:axisLabel:axisLabels:amplitudeScale:columns:)``);
    /// colours are 0xRRGGBB.
    public func png(
        width: Int, height: Int, background: UInt32, waveform: UInt32, axisLabel: UInt32, axisLabels: Bool,
        amplitudeScale: Double = 1, columns: Int? = nil
    ) -> [UInt8] {
        let layout = layout(
            width: width, height: height, axisLabels: axisLabels, amplitudeScale: amplitudeScale, columns: columns)
        var image = PNGImage(width: width, height: height, colour: background)
        let half = max(layout.columnWidth, 1) / 2
        for stroke in layout.strokes where stroke.bottom > stroke.top {
            let left = Int((stroke.x - half).rounded(.down))
            let right = max(left + 1, Int((stroke.x + half).rounded(.up)))
            let top = Int(stroke.top.rounded(.down))
            let bottom = max(top + 1, Int(stroke.bottom.rounded(.up)))
            image.fill(x: left, y: top, columns: right - left, rows: bottom - top, waveform)
        }
        for (x, label, endsAtTick) in layout.ticks {
            let column = Int(x.rounded(.down))
            image.fill(x: column, y: Int(layout.baseline), columns: 1, rows: 4, axisLabel)
            // 6 pixels a glyph, the last with no gap after it.
            image.draw(label, x: endsAtTick ? column - 1 - label.count * 6 : column + 2, y: height - 9, axisLabel)
        }
        return image.png
    }
}

/// Where a waveform picture's strokes and time labels go, in pixels (y down from the top).
public struct WaveformLayout: Sendable {
    /// One point of one channel: a vertical stroke at `x` from `top` to `bottom` (equal: nothing to draw).
    public struct Stroke: Sendable {
        /// The channel's band.
        public var channel: Int
        /// The stroke's centre, pixels from the left.
        public var x: Double
        /// Its ends, pixels from the top (the maximum's and the minimum's).
        public var top: Double
        /// The lower end.
        public var bottom: Double
    }

    /// A point's width.
    public var columnWidth: Double
    /// The bottom of the bands, where the time ticks start.
    public var baseline: Double
    /// Every channel's strokes, channel after channel.
    public var strokes: [Stroke] = []
    /// The time labels: where (x), what, and whether the label ends at its tick (it would pass the right edge).
    public var ticks: [(x: Double, label: String, endsAtTick: Bool)] = []
}
