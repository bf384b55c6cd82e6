import AudioFormats
import StreamParsing

/// Sony Wave64 (`.w64`): WAV's chunks with 16-byte GUIDs for IDs and 64-bit little-endian sizes that
/// count the chunk's own 24-byte header, each chunk starting on an 8-byte boundary. The GUIDs of the
/// chunks WAV knows begin with their FourCC (`fmt `, `data`, `fact`), so WAV's container half reads
/// their bodies; only the file header differs: the `riff` GUID, the file's size, the `wave` GUID.
package enum Wave64 {
    /// The `riff` GUID (66666972-912E-11CF-A5D6-28DB04C10000) as the file stores it.
    static let riffGUID: [UInt8] = [
        0x72, 0x69, 0x66, 0x66, 0x2E, 0x91, 0xCF, 0x11, 0xA5, 0xD6, 0x28, 0xDB, 0x04, 0xC1, 0x00, 0x00,
    ]
    /// The `wave` GUID (65766177-ACF3-11D3-8CD1-00C04F8EDB8A) as the file stores it.
    static let waveGUID: [UInt8] = [
        0x77, 0x61, 0x76, 0x65, 0xF3, 0xAC, 0xD3, 0x11, 0x8C, 0xD1, 0x00, 0xC0, 0x4F, 0x8E, 0xDB, 0x8A,
    ]
}

extension FileType {
    /// Sony Wave64.
    public static let w64 = FileType(rawValue: "w64")
}

extension Wave64 {
    /// Wave64, read only.
    package static let descriptor = ContainerDescriptor(
        .w64, name: "Wave64", kind: "a Sony Wave64 file", fileTypeID: "W64f", extensions: ["w64"],
        signatures: [
            FileSignature.Entry(outcome: .read(.w64)) { bytes, _ in
                FileSignature.all(
                    FileSignature.magic(bytes, Wave64.riffGUID), FileSignature.magic(bytes, Wave64.waveGUID, at: 24))
            }
        ],
        makeParser: { ChunkWalker<Wave64.Container>(mode: $0.mode, limits: $0.limits) })
}
