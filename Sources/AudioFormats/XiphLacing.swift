/// Xiph lacing of a codec's header packets into one block (a count less one, each packet's size but the
/// last's as bytes of 255 and a remainder, then the packets): how Vorbis's three headers travel as one magic
/// cookie (Ogg's reader, FFmpeg's decoder and Matroska's `CodecPrivate` alike).
public enum XiphLacing {
    /// `packets` laced into one block (at most 256 packets).
    public static func laced(_ packets: [[UInt8]]) -> [UInt8] {
        guard let last = packets.indices.last else { return [] }
        var block: [UInt8] = [UInt8(truncatingIfNeeded: last)]
        for packet in packets.dropLast() {
            block += [UInt8](repeating: 255, count: packet.count / 255) + [UInt8(packet.count % 255)]
        }
        for packet in packets { block += packet }
        return block
    }

    /// The packets of a laced block, or `nil` where its sizes run past its end.
    public static func packets(_ block: [UInt8]) -> [[UInt8]]? {
        guard let first = block.first else { return nil }
        var sizes: [Int] = []
        var at = 1
        for _ in 0..<Int(first) {
            var size = 0
            while true {
                guard at < block.count else { return nil }
                let value = Int(block[at])
                at += 1
                size += value
                if value < 255 { break }
            }
            sizes.append(size)
        }
        let given = sizes.reduce(0, +)
        guard block.count - at >= given else { return nil }
        sizes.append(block.count - at - given)
        var packets: [[UInt8]] = []
        for size in sizes {
            packets.append(Array(block[at..<at + size]))
            at += size
        }
        return packets
    }
}
