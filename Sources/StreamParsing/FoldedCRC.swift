import AudioFormats
internal import CFoldedCRC

/// The CRCs the containers check over every byte (Ogg's page CRC-32, FLAC's frame CRC-16), folded by
/// carry-less multiplication where the processor has it (x86-64 with PCLMULQDQ: `CFoldedCRC`, the one C
/// file afkit keeps for speed), else by the slicing tables of AudioFormats, which stay the reference.
package enum FoldedCRC {
    /// Whether this processor folds (the tables run otherwise).
    package static let isAvailable = afkit_folded_crc_available() != 0

    /// Ogg's CRC-32 of `bytes`, continuing from `crc`.
    package static func ogg(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32) -> UInt32 {
        guard isAvailable, let base = bytes.baseAddress else {
            return oggTables.withUnsafeBufferPointer { tables in
                CRCTables.checksum(bytes, continuing: crc, tables: tables.baseAddress.unsafelyUnwrapped)
            }
        }
        return afkit_folded_crc32(crc, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    /// Ogg's CRC-32 in sixteen tables for slicing-by-16 (``CRCTables``): the reference, and the fallback.
    package static let oggTables = CRCTables.slicing(polynomial: UInt32(0x04C1_1DB7), count: 16)

    /// FLAC's CRC-16 of `bytes`, continuing from `crc`.
    package static func flac(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt16) -> UInt16 {
        guard isAvailable, let base = bytes.baseAddress else { return FLACChecksum.crc16(bytes, continuing: crc) }
        return afkit_folded_crc16(crc, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }
}
