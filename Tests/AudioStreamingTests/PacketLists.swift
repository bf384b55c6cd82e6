import AudioContainers
import AudioFormats

/// Each packet's bytes, in order, from a stream's packet runs.
func packetBytes(_ runs: [AudioFileStream.OwnedPackets]) -> [[UInt8]] {
    var packets: [[UInt8]] = []
    for run in runs {
        if let descriptions = run.descriptions {
            for description in descriptions {
                let start = Int(description.startOffset)
                packets.append(Array(run.bytes[start..<start + Int(description.dataByteSize)]))
            }
        } else if run.count > 0 {
            let size = run.bytes.count / run.count
            for index in 0..<run.count { packets.append(Array(run.bytes[index * size..<(index + 1) * size])) }
        }
    }
    return packets
}

/// Each packet's bytes, in order, as the file API reads them.
func filePacketBytes(_ path: String) throws -> [[UInt8]] {
    let file = try AudioFile(path: path)
    let read = try file.readPackets(from: 0, count: Int(file.packetCount))
    if read.descriptions.isEmpty {
        let size = Int(file.dataFormat.bytesPerPacket)
        return stride(from: 0, to: read.bytes.count, by: size).map { Array(read.bytes[$0..<$0 + size]) }
    }
    return read.descriptions.map { Array(read.bytes[Int($0.startOffset)..<Int($0.startOffset) + Int($0.dataByteSize)]) }
}
