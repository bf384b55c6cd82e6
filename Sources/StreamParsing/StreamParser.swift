import AudioFormats

/// What ``AudioFileStream`` needs from one container's incremental parser.
package protocol StreamParser: Sendable {
    var context: ParseContext { get set }
    /// The descriptions of the run just returned (the context's, read without copying the context: each
    /// parser reads these three where its context is a stored property; a default here, generic over the
    /// parser in another module, would copy the whole context every read).
    var runDescriptions: [PacketDescription] { get }
    /// The audio the parser retains (read without copying the context).
    var retainedBytes: [UInt8] { get }
    /// Whether the packets of the run just returned carry their true index (read without copying the
    /// context: through the existential, `context.packetIndexIsKnown` copies all of it, a run at a time).
    var packetIndexIsKnown: Bool { get }
    /// One step; `atEnd` says no bytes will follow those in `cursor` (the stream's last call).
    mutating func next(_ cursor: inout ByteCursor, atEnd: Bool) throws -> ParserStep
    mutating func finish(endOffset: Int64, unconsumed: Int) throws
    var skippableByteCount: Int64 { get }
    mutating func skip(_ count: Int64)
    /// Positions the parser at a packet of the audio after a seek; returns the packet's absolute offset and
    /// whether it is an estimate (from ``packetToByte(_:averagePacketSize:)``, with `averagePacketSize`).
    mutating func resume(atPacket packet: Int64, averagePacketSize: Double?) throws -> (offset: Int64, isEstimate: Bool)
    /// Drains announcements made outside `next` (at `finish`).
    mutating func nextAnnouncement() -> StreamPropertyID?
    /// The next bytes do not follow the previous ones.
    mutating func discontinuity()
    /// The offset of a packet from the start of the audio data, exact from the file's tables or
    /// constant packets, else estimated from `averagePacketSize`; `nil` where neither is known.
    func packetToByte(_ packet: Int64, averagePacketSize: Double?) -> (offset: Int64, isEstimate: Bool)?
    /// The packet holding a byte (an offset from the start of the audio data) and the byte's offset in it.
    func byteToPacket(_ byte: Int64, averagePacketSize: Double?) -> (
        packet: Int64, offsetInPacket: Int64, isEstimate: Bool
    )?
    /// Whether the packet and byte counts come from the file's header or tables (not from packets seen).
    var declaresPacketCounts: Bool { get }
}

extension StreamParser {
    package func packetToByte(_ packet: Int64, averagePacketSize: Double?) -> (
        offset: Int64, isEstimate: Bool
    )? {
        guard packet >= 0 else { return nil }
        if let start = context.knownStart(ofPacket: packet), let dataOffset = context.properties.dataOffset {
            return (start - dataOffset, false)
        }
        if context.packetIndex == nil, context.hasUniformPackets || context.packetSizes != nil,
            let offset = try? context.byteOffset(ofPacket: packet)
        {
            return (offset, false)
        }
        return averageEstimate(packet, averagePacketSize: averagePacketSize)
    }

    package func byteToPacket(_ byte: Int64, averagePacketSize: Double?) -> (
        packet: Int64, offsetInPacket: Int64, isEstimate: Bool
    )? {
        guard byte >= 0, let format = context.properties.dataFormat else { return nil }
        if context.packetIndex != nil {
            if let exact = exactPacket(holding: byte) { return exact }
        } else if context.hasUniformPackets {
            let size = Int64(format.bytesPerPacket)
            return (byte / size, byte % size, false)
        } else if let sizes = context.packetSizes {
            var start: Int64 = 0
            for (packet, size) in sizes.enumerated() {
                if byte < start + Int64(size) { return (Int64(packet), byte - start, false) }
                start += Int64(size)
            }
        }
        return averageEstimate(byte: byte, averagePacketSize: averagePacketSize)
    }

    /// The last packet of the packet index starting at or before `byte` (from the start of the audio data).
    package func exactPacket(holding byte: Int64) -> (
        packet: Int64, offsetInPacket: Int64, isEstimate: Bool
    )? {
        guard let index = context.packetIndex, let dataOffset = context.properties.dataOffset else { return nil }
        var low = 0
        var high = index.count
        while low < high {
            let middle = (low + high) / 2
            if index[middle].startOffset - dataOffset <= byte { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        return (Int64(low - 1), byte - (index[low - 1].startOffset - dataOffset), false)
    }

    /// A packet's offset estimated as `packet` average packets.
    package func averageEstimate(_ packet: Int64, averagePacketSize: Double?) -> (
        offset: Int64, isEstimate: Bool
    )? {
        guard let average = averagePacketSize, average > 0 else { return nil }
        return (Int64(clamping: Int64(exactly: (Double(packet) * average).rounded(.down)) ?? Int64.max), true)
    }

    /// The packet a byte lies in, estimated as whole average packets before it.
    package func averageEstimate(byte: Int64, averagePacketSize: Double?) -> (
        packet: Int64, offsetInPacket: Int64, isEstimate: Bool
    )? {
        guard let average = averagePacketSize, average > 0 else { return nil }
        let packet = Int64(clamping: Int64(exactly: (Double(byte) / average).rounded(.down)) ?? Int64.max)
        return (packet, byte - Int64(clamping: Int64(exactly: (Double(packet) * average).rounded(.down)) ?? 0), true)
    }

    package var declaresPacketCounts: Bool { false }

    /// Numbering after a seek to `packet`: from it where the offset was exact, else from the first packet
    /// found, estimated from its own offset and said to be unknown (never the number asked for).
    package mutating func resumeNumbering(
        atPacket packet: Int64, isEstimate: Bool, averagePacketSize: Double?
    ) {
        context.nextPacket = packet
        context.packetIndexIsKnown = !isEstimate
        context.numberingFromOffset = isEstimate ? .some(averagePacketSize) : .none
    }

    /// Numbers the first packet found after a seek to an estimated offset (`offset`, absolute) from where
    /// it lies: exact from the file's tables where they cover it, else the same estimator's inverse.
    /// Called for every run: the pending estimate is taken in place (through the context's modify accessor), since
    /// a plain read of `context` from here, generic over the parser in another module, copies all of it.
    package mutating func numberResumedPacket(at offset: Int64) {
        guard case .some(let average) = context.numberingFromOffset.take() else { return }
        guard let dataOffset = context.properties.dataOffset,
            let found = byteToPacket(max(offset - dataOffset, 0), averagePacketSize: average)
        else { return }
        context.nextPacket = found.packet
        context.packetIndexIsKnown = !found.isEstimate && found.offsetInPacket == 0
    }
}

extension ParseContext {
    /// Offset of a packet from the start of the audio data.
    package func byteOffset(ofPacket packet: Int64) throws -> Int64 {
        guard packet >= 0 else {
            throw AudioFileError.invalidPacket("packet \(packet) does not exist", offset: nil)
        }
        if hasUniformPackets, let format = properties.dataFormat {
            let offset = packet * Int64(format.bytesPerPacket)
            if let declared = declaredAudioBytes, offset > declared {
                throw AudioFileError.invalidPacket(
                    "packet \(packet) lies past the \(declared) bytes of audio", offset: nil)
            }
            return offset
        }
        var offset: Int64 = 0
        for index in 0..<packet {
            guard let size = packetSize(index) else {
                throw AudioFileError.invalidPacket("packet \(packet) lies past the packet table", offset: nil)
            }
            offset += Int64(size)
        }
        return offset
    }
}
