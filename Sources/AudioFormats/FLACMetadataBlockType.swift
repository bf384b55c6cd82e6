/// The types of FLAC's metadata blocks (RFC 9639, section 8.1) that afkit reads or steps over: native FLAC's
/// parser and Ogg's FLAC mapping read the same blocks.
package enum FLACMetadataBlockType: UInt8 {
    case streamInfo = 0, padding, application, seekTable, vorbisComment, cueSheet, picture
}
