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

    /// A picture as the contract's `pictures` entry: type, MIME type, bytes, and width and height where the
    /// container states them (afkit adds the description where there is one).
    static func pictureJSON(_ picture: Picture) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", .integer(Int64(picture.type))), ("mimeType", .string(picture.mimeType)),
            ("bytes", .integer(Int64(picture.byteCount))),
        ]
        if let width = picture.width, let height = picture.height {
            fields += [("width", .integer(Int64(width))), ("height", .integer(Int64(height)))]
        }
        if !picture.description.isEmpty { fields.append(("description", .string(picture.description))) }
        return .object(fields)
    }

    /// A chapter: its start, its end where the file states one, and its title.
    static func chapterJSON(_ chapter: Chapter) -> JSONValue {
        var fields: [(String, JSONValue)] = [("start", .number(chapter.startTime))]
        if let end = chapter.endTime { fields.append(("end", .number(end))) }
        fields.append(("title", .string(chapter.title)))
        return .object(fields)
    }

    /// The loudness a file states: the figures it states, under `--loudness`'s names where it has them, and how
    /// they were measured.
    static func loudnessInfoJSON(_ info: LoudnessInfo) -> JSONValue {
        let figures: [(String, Double?)] = [
            ("integrated", info.integratedLoudness), ("anchor", info.anchorLoudness),
            ("maximumMomentary", info.maximumMomentaryLoudness), ("maximumShortTerm", info.maximumShortTermLoudness),
            ("range", info.loudnessRange), ("truePeak", info.truePeak), ("samplePeak", info.samplePeak),
        ]
        return .object(
            figures.compactMap { name, value in value.map { (name, .number($0)) } } + [
                ("measurementSystem", .string(info.measurementSystem.description)),
                ("reliability", .string(info.reliability.description)),
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
        if !metadata.isEmpty || !annotations.isEmpty {
            var entries: [(String, JSONValue)] = metadata.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }
            if !annotations.isEmpty { entries.append(("annotations", .array(annotations.map(JSONValue.string)))) }
            fields.append(("metadata", .object(entries)))
        }
        if !pictures.isEmpty {
            fields.append(("pictures", .array(pictures.map(Self.pictureJSON))))
        }
        if !markers.isEmpty {
            fields.append(
                (
                    "markers",
                    .array(
                        markers.map { marker in
                            .object([
                                ("id", .integer(Int64(marker.id))), ("position", .integer(marker.framePosition)),
                                ("name", .string(marker.name)),
                            ])
                        })
                ))
        }
        if !chapters.isEmpty {
            fields.append(("chapters", .array(chapters.map(Self.chapterJSON))))
            if let chapterSource { fields.append(("chapterSource", .string(chapterSource))) }
        }
        if !comments.isEmpty {
            fields.append(
                (
                    "comments",
                    .array(
                        comments.map { comment in
                            .object([
                                ("timeStamp", .integer(Int64(comment.timeStamp))),
                                ("marker", .integer(Int64(comment.marker))),
                                ("text", .string(comment.text)),
                            ])
                        })
                ))
        }
        if let instrument {
            func loop(_ loop: InstrumentLoop?) -> JSONValue {
                guard let loop else { return .null }
                return .object([
                    ("playMode", loop.playMode.map { .string($0.rawValue) } ?? .null),
                    ("beginMarker", .integer(Int64(loop.beginMarker))), ("endMarker", .integer(Int64(loop.endMarker))),
                ])
            }
            fields.append(
                (
                    "instrument",
                    .object([
                        ("baseNote", .integer(Int64(instrument.baseNote))),
                        ("detune", .integer(Int64(instrument.detune))),
                        ("lowNote", .integer(Int64(instrument.lowNote))),
                        ("highNote", .integer(Int64(instrument.highNote))),
                        ("lowVelocity", .integer(Int64(instrument.lowVelocity))),
                        ("highVelocity", .integer(Int64(instrument.highVelocity))),
                        ("gain", .integer(Int64(instrument.gain))),
                        ("sustainLoop", loop(instrument.sustainLoop)), ("releaseLoop", loop(instrument.releaseLoop)),
                    ])
                ))
        }
        if !loops.isEmpty {
            fields.append(
                (
                    "loops",
                    .array(
                        loops.map { loop in
                            .object([
                                ("start", .integer(loop.start)), ("end", .integer(loop.end)),
                                ("playMode", .string(loop.playMode.rawValue)),
                            ])
                        })
                ))
        }
        if let layout = channelLayout {
            fields.append(
                (
                    "channelLayout",
                    .object([
                        ("tag", .integer(Int64(layout.tag))), ("bitmap", .integer(Int64(layout.bitmap))),
                        (
                            "descriptions",
                            .array(
                                layout.descriptions.map { description in
                                    .object([
                                        ("label", .integer(Int64(description.label))),
                                        ("flags", .integer(Int64(description.flags))),
                                        (
                                            "coordinates",
                                            .array(
                                                [
                                                    description.coordinates.0, description.coordinates.1,
                                                    description.coordinates.2,
                                                ].map { .number(Double($0)) })
                                        ),
                                    ])
                                })
                        ),
                    ])
                ))
        }
        // The layout in words beside the contract's object, which keeps its three members.
        if let layout = channelLayout { fields.append(("channelLayoutName", .string(layout.spokenName))) }
        // The loudness the file states (`loudness` is what `--loudness` measures).
        if let loudnessInfo { fields.append(("loudnessInfo", Self.loudnessInfoJSON(loudnessInfo))) }
        fields.append(("truncated", .bool(isTruncated)))
        fields.append(("damaged", .bool(!damage.isEmpty)))
        // Metadata left unread to keep memory bounded (a block past the read limit, chapters past the cap): said.
        if !notRead.isEmpty {
            fields.append(
                (
                    "notRead",
                    .array(
                        notRead.map { left in
                            .object(
                                [
                                    ("what", .string(left.what)), ("count", .integer(left.count)),
                                    ("unit", .string(left.unit)),
                                ]
                                    + (left.offset.map { [("offset", .integer($0))] } ?? []))
                        })
                ))
        }
        return fields
    }
}
