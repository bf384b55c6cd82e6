import AudioFormats

/// ITU-T G.711 u-law and A-law: one byte per sample, table-driven both ways.
public enum G711 {
    /// The 16-bit value of each u-law code (ITU-T G.711, table 2; the same values as Sun's reference
    /// `ulaw2linear`).
    public static let ulawToLinear: [Int16] = (0..<256).map { code in
        let inverted = ~UInt8(code)
        let magnitude = (Int32(inverted & 0x0F) << 3 + 0x84) << Int32((inverted & 0x70) >> 4)
        return Int16(inverted & 0x80 != 0 ? 0x84 - magnitude : magnitude - 0x84)
    }

    /// The 16-bit value of each A-law code (ITU-T G.711, table 1; even bits inverted on the wire).
    public static let alawToLinear: [Int16] = (0..<256).map { code in
        let value = UInt8(code) ^ 0x55
        let segment = Int32((value & 0x70) >> 4)
        var magnitude = Int32(value & 0x0F) << 4
        switch segment {
        case 0: magnitude += 8
        case 1: magnitude += 0x108
        default: magnitude = (magnitude + 0x108) << (segment - 1)
        }
        return Int16(value & 0x80 != 0 ? magnitude : -magnitude)
    }

    /// For every 16-bit sample, the code whose value is nearest (ties to the smaller magnitude).
    static func encodingTable(_ decode: [Int16]) -> [UInt8] {
        let pairs: [(value: Int32, code: UInt8)] = (0..<256).map { (Int32(decode[$0]), UInt8($0)) }
        let sorted = pairs.sorted { (a: (value: Int32, code: UInt8), b: (value: Int32, code: UInt8)) -> Bool in
            a.value != b.value ? a.value < b.value : abs(a.value) < abs(b.value)
        }
        var table = [UInt8](repeating: 0, count: 65536)
        var upper = 0
        for sample in Int32(-32768)...32767 {
            while upper < sorted.count - 1 && sorted[upper].value < sample { upper += 1 }
            var best = sorted[upper]
            if upper > 0 {
                let below = sorted[upper - 1]
                let distanceBelow = sample - below.value
                let distanceAbove = abs(best.value - sample)
                if distanceBelow < distanceAbove
                    || (distanceBelow == distanceAbove && abs(below.value) < abs(best.value))
                {
                    best = below
                }
            }
            table[Int(sample + 32768)] = best.code
        }
        return table
    }

    static let linearToULaw = encodingTable(ulawToLinear)
    static let linearToALaw = encodingTable(alawToLinear)

    /// The code for a 16-bit sample.
    public static func encode(_ sample: Int16, _ formatID: FourCharCode) -> UInt8 {
        (formatID == .alaw ? linearToALaw : linearToULaw)[Int(sample) + 32768]
    }
}

/// Decodes u-law or A-law bytes.
public struct G711Decoder: AudioDecoder {
    /// The format of the packets decoded.
    public let sourceFormat: StreamDescription
    /// The most frames one packet decodes to.
    public var maximumFramesPerPacket: Int { 1 }
    private let table: [Int16]

    /// A decoder for `format`.
    public init(format: StreamDescription) {
        sourceFormat = format
        table = format.formatID == .alaw ? G711.alawToLinear : G711.ulawToLinear
    }

    /// Forgets the state kept between packets (after a seek).
    public mutating func reset() {}

    /// Decodes the packets into interleaved frames; returns the frames written.
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, descriptions: UnsafeBufferPointer<PacketDescription>?,
        into output: UnsafeMutableBufferPointer<Float>
    ) throws -> Int {
        let count = try sampleCount(bytes, packetCount)
        table.withUnsafeBufferPointer { table in
            for index in 0..<count { output[index] = Float(table[Int(bytes[index])]) * (1 / 32768) }
        }
        return packetCount
    }

    /// Decodes to 16-bit samples.
    public func decode(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, into output: UnsafeMutableBufferPointer<Int16>
    )
        throws -> Int
    {
        let count = try sampleCount(bytes, packetCount)
        table.withUnsafeBufferPointer { table in
            for index in 0..<count { output[index] = table[Int(bytes[index])] }
        }
        return packetCount
    }

    private func sampleCount(_ bytes: UnsafeRawBufferPointer, _ packetCount: Int) throws -> Int {
        let count = packetCount * Int(sourceFormat.channelsPerFrame)
        guard packetCount >= 0, bytes.count >= count else {
            throw AudioFileError.invalidPacket("g711: \(packetCount) frames need \(count) bytes", offset: nil)
        }
        return count
    }
}

/// Encodes to u-law or A-law, each sample to its nearest code.
public struct G711Encoder: ConstantPacketEncoder {
    /// The format of the packets made.
    public let destinationFormat: StreamDescription
    private let table: [UInt8]

    /// An encoder making `format`.
    public init(format: StreamDescription) {
        destinationFormat = format
        table = format.formatID == .alaw ? G711.linearToALaw : G711.linearToULaw
    }

    /// Encodes interleaved frames, appending the whole packets they complete; returns how many.
    public mutating func encode(_ frames: UnsafeBufferPointer<Float>, into output: inout [UInt8]) throws -> Int {
        let channels = Int(destinationFormat.channelsPerFrame)
        let whole = frames.count / channels * channels
        table.withUnsafeBufferPointer { table in
            for index in 0..<whole { output.append(table[Int(int16Sample(frames[index])) + 32768]) }
        }
        return whole / channels
    }

    /// Encodes what is left, padded to a whole packet; returns the packets made and the padding frames.
    public mutating func finish(into output: inout [UInt8]) throws -> (packets: Int, remainderFrames: Int) { (0, 0) }
}
