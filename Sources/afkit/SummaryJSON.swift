import AudioContainers
import AudioFormats

/// The contract's JSON for a parsed file: the fields of `afkit info --json` after `path`, in its order.
extension AudioFileSummary {
    /// The `format` object of the contract.
    var formatJSON: JSONValue { Self.formatJSON(format) }

    /// A stream description as the contract's `format` object.
    static func formatJSON(_ format: StreamDescription) -> JSONValue {
        .object([
            ("id", .string(format.formatID.description)),
            ("sampleRate", .number(format.sampleRate)),
            ("channels", .integer(Int64(format.channelsPerFrame))),
            ("bitsPerChannel", .integer(Int64(format.bitsPerChannel))),
            ("framesPerPacket", .integer(Int64(format.framesPerPacket))),
            ("bytesPerPacket", .integer(Int64(format.bytesPerPacket))),
            ("bytesPerFrame", .integer(Int64(format.bytesPerFrame))),
            ("flags", .integer(Int64(format.formatFlags.rawValue))),
        ])
    }

    /// The contract's fields after `path`, in its order.
    var jsonFields: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [
            ("container", .string(container.rawValue)),
            ("format", formatJSON),
        ]
        if formatList.count > 1 { fields.append(("formatList", .array(formatList.map(Self.formatJSON)))) }
        fields += [
            ("packetCount", .integer(packetCount)),
            ("primingFrames", .integer(primingFrames)),
            ("remainderFrames", .integer(remainderFrames)),
            ("frameCount", .integer(frameCount)),
            ("durationSeconds", .number(durationSeconds)),
            ("dataOffset", .integer(dataOffset)),
            ("dataByteCount", .integer(dataByteCount)),
            ("bitRate", .integer(bitRate)),
            ("maximumPacketSize", .integer(maximumPacketSize)),
        ]
        if let cookie = magicCookie { fields.append(("magicCookie", .string(hexString(cookie)))) }
        if !metadata.isEmpty {
            fields.append(("metadata", .object(metadata.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        fields.append(("truncated", .bool(isTruncated)))
        return fields
    }
}
