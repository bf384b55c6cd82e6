import Foundation

/// A CAF with its `pakt` chunk moved after `data` (which keeps its stated size).
public func cafWithPacketTableLast(_ bytes: [UInt8]) throws -> [UInt8] {
    var chunks: [(type: String, bytes: ArraySlice<UInt8>)] = []
    var offset = 8
    while offset + 12 <= bytes.count {
        let type = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
        var size: Int64 = 0
        for byte in bytes[offset + 4..<offset + 12] { size = size << 8 | Int64(byte) }
        let end = size < 0 ? bytes.count : offset + 12 + Int(size)
        chunks.append((type, bytes[offset..<end]))
        offset = end
    }
    guard let table = chunks.firstIndex(where: { $0.type == "pakt" }) else { throw LoopbackError("no pakt chunk") }
    let pakt = chunks.remove(at: table)
    return Array(bytes[0..<8]) + chunks.flatMap(\.bytes) + pakt.bytes
}
