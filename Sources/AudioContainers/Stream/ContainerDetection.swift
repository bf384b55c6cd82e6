import AudioFormats
import ElementaryStreams
import StreamParsing

extension FileSignature {
    // MARK: The table

    /// Every signature, in the order they are tried: the containers afkit reads, from their descriptors in the
    /// registry's order (each family's own refusals first, as Ogg Speex before Ogg), then the formats afkit
    /// recognises and does not read.
    static let table: [Entry] = ContainerRegistry.signatureEntries + refusals

    /// What the bytes at the start of a stream are, from the table.
    static func identify(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) -> Identification {
        var needed = 0
        for entry in table {
            switch entry.check(bytes, atEnd) {
            case .no: continue
            case .undecided(let count):
                // At the end nothing more comes: the signature does not match.
                if !atEnd { needed = max(needed, count) }
            case .yes(let name):
                // An earlier signature still undecided takes precedence over this one.
                if needed > 0 { return .needMore(needed) }
                switch entry.outcome {
                case .read(let container): return .container(container)
                case .refuse(let defaultName, let reason):
                    return .refused(Refusal(name: name ?? defaultName, reason: reason))
                }
            }
        }
        return needed > 0 ? .needMore(needed) : .unknown
    }
}

/// What detection decided from a stream's first bytes.
enum Detection {
    case parser(any StreamParser)
    /// Bytes from the start needed to decide.
    case needMore(Int)
}

/// Reads the container kind from a stream's first bytes: the signature table first; only bytes that
/// match no signature are left to the MPEG audio and ADTS frame scanner.
func detectContainer(
    _ bytes: UnsafeRawBufferPointer, atEnd: Bool, hint: FileType?, mode: ParseMode,
    limits: ParserLimits, requestsSeeks: Bool
) throws -> Detection {
    // A stream behind an ID3v2 tag (taggers put one before FLAC; HLS packed audio one before each AC-3 segment):
    // the tag's header gives its size, and within the metadata limit the bytes after it decide. MPEG audio and
    // ADTS behind tags are the frame scanner's; another file behind one is refused by it, named.
    if let tag = ID3.header(bytes), tag.totalSize <= limits.maximumMetadataChunkBytes {
        let after = UnsafeRawBufferPointer(rebasing: bytes[min(tag.totalSize, bytes.count)...])
        switch FileSignature.identify(after, atEnd: atEnd) {
        case .needMore(let count): return .needMore(tag.totalSize + count)
        case .container(let fileType):
            if let descriptor = ContainerRegistry.descriptor(of: fileType), descriptor.readsBehindID3Tag,
                let makeParser = descriptor.makeParser
            {
                return .parser(
                    makeParser(
                        ParserSetup(
                            mode: mode, limits: limits, requestsSeeks: requestsSeeks, leadingTagSize: tag.totalSize)))
            }
        default: break
        }
    }
    switch FileSignature.identify(bytes, atEnd: atEnd) {
    case .needMore(let count): return .needMore(count)
    case .container(let fileType):
        guard let makeParser = ContainerRegistry.descriptor(of: fileType)?.makeParser else {
            throw AudioFileError.unsupportedFileType("\(fileType.kindDescription): no parser is registered", offset: 0)
        }
        return .parser(makeParser(ParserSetup(mode: mode, limits: limits, requestsSeeks: requestsSeeks)))
    case .refused(let refusal): throw refusal.error(at: 0)
    case .unknown:
        if atEnd && bytes.count < 4 {
            throw AudioFileError.unsupportedFileType(
                "the stream is \(bytes.count) bytes long: too short for any audio file", offset: 0)
        }
        // Bare MPEG audio or ADTS, perhaps behind tags: frames decide, on strong evidence only.
        return .parser(
            ElementaryStreamParser(mode: mode, limits: limits, hint: hint) { bytes, atEnd in
                FileSignature.identify(bytes, atEnd: atEnd)
            })
    }
}
