import AudioFormats

/// Where packets that are not one contiguous run of the file's bytes lie (Ogg's): each packet's first
/// byte, and the pieces of those that span pages.
package struct PacketPieces {
    package var dataOffsets: [Int64] = []
    package var splits: [Int64: [(offset: Int64, size: Int)]] = [:]

    package init() {}
}
