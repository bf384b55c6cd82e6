import AudioFormats

/// What one step of a parser produced.
package enum ParserStep {
    case property(StreamPropertyID)
    case packets(PacketRun)
    /// At least this many bytes from the cursor's position are needed to go on (more than it has).
    case needMore(Int)
    /// The parser needs the bytes from this absolute offset next (a client that answers seek requests
    /// feeds them with a discontinuity); bytes given until then are ignored.
    case seek(Int64)
}

/// A run of whole, consecutive packets.
package struct PacketRun {
    package enum Source {
        /// At `index` in the cursor the parser was given.
        case input(index: Int)
        /// At `index` in the parser's retained audio.
        case retained(index: Int)
    }
    package var source: Source
    package var firstPacket: Int64
    package var packetCount: Int
    package var absoluteOffset: Int64
    package var byteCount: Int
    /// Whether `ParseContext.descriptions` holds one description per packet.
    package var hasDescriptions: Bool

    package init(
        source: Source, firstPacket: Int64, packetCount: Int, absoluteOffset: Int64, byteCount: Int,
        hasDescriptions: Bool
    ) {
        self.source = source
        self.firstPacket = firstPacket
        self.packetCount = packetCount
        self.absoluteOffset = absoluteOffset
        self.byteCount = byteCount
        self.hasDescriptions = hasDescriptions
    }
}

/// State shared by the walker and the container half.
package struct ParseContext {
    package var properties = StreamProperties()
    package let mode: ParseMode
    package let limits: ParserLimits
    private var queue: [StreamPropertyID] = []
    private var queueHead = 0

    /// Packet sizes and frame counts from a packet table (CAF `pakt`), where packets vary.
    package var packetSizes: [UInt32]?
    package var packetFrames: [UInt32]?
    /// Reused output buffer for a run's descriptions (no per-packet allocation).
    package var descriptions: [PacketDescription] = []
    /// The next packet the parser will deliver, and its offset from the data start.
    package var nextPacket: Int64 = 0
    /// Whether ``nextPacket`` is the true index of the next packet: after a seek to an estimated offset, a
    /// parser that cannot learn the index from the bytes (MPEG audio, ADTS, Ogg) numbers packets by estimate.
    package var packetIndexIsKnown = true
    /// After a seek to an estimated offset, until the first packet is found: the average packet size the
    /// estimate used, to number that packet from its own offset (``StreamParser/numberResumedPacket(at:)``).
    package var numberingFromOffset: Double??
    package var notedSkippedTail = false
    package var nextPacketByteOffset: Int64 = 0
    /// Audio bytes that have passed through the audio chunk so far.
    package var audioBytesSeen: Int64 = 0
    /// Declared audio byte count of the audio chunk (nil: to end of stream).
    package var declaredAudioBytes: Int64?
    package var sawAudioChunk = false
    package var announcedReady = false
    /// Audio held while waiting for a format or packet table (streaming mode).
    package var retained = RetainedAudio()
    /// Retained audio bytes already handed out again as packets.
    package var replayedBytes: Int64 = 0
    /// Every packet, with absolute offsets, where the parser keeps an index (elementary streams in
    /// indexing mode).
    package var packetIndex: [PacketDescription]?
    /// Where each packet's bytes lie, for containers whose packets are not read from their offset (Ogg:
    /// a packet is placed at its page, and may span pages).
    package var packetPieces: PacketPieces?
    /// In streaming mode, where each packet delivered so far starts (as the packet index would say), while the
    /// numbering runs unbroken from the first packet: a seek back to one of them is exact
    /// (``ParserLimits/maximumSeekIndexPackets`` of them at most).
    package var seenPacketStarts: [Int64] = []

    /// Notes where packet `number` starts, as it is delivered.
    package mutating func noteSeenPacket(_ number: Int64, at offset: Int64) {
        guard mode == .streaming, packetIndexIsKnown, number == Int64(seenPacketStarts.count),
            seenPacketStarts.count < limits.maximumSeekIndexPackets
        else { return }
        seenPacketStarts.append(offset)
    }

    /// Where packet `packet` starts (absolute), from the packet index or the packets seen pass.
    package func knownStart(ofPacket packet: Int64) -> Int64? {
        guard packet >= 0 else { return nil }
        if let index = packetIndex { return packet < index.count ? index[Int(packet)].startOffset : nil }
        return packet < seenPacketStarts.count ? seenPacketStarts[Int(packet)] : nil
    }

    /// Whether every packet has the same size and frame count (no descriptions needed).
    package var hasUniformPackets: Bool {
        guard let format = properties.dataFormat else { return false }
        return format.hasConstantPackets && packetFrames == nil
    }

    package init(mode: ParseMode, limits: ParserLimits) {
        self.mode = mode
        self.limits = limits
    }

    package mutating func announce(_ id: StreamPropertyID) { queue.append(id) }

    /// Notes audio skipped as damaged: a warning, and the file's ``StreamProperties/damage``.
    package mutating func noteDamage(_ message: String) {
        properties.warnings.append(message)
        properties.damage.append(message)
    }

    /// Whole or said, once a stream is read to its end: packets that hold audio whose counts (priming and
    /// remainder: a LAME tag's, an edit list's, a `pakt`'s) leave no valid frame are damaged, said by every
    /// command (a conversion refuses them), never a sound of 0 frames read without a word.
    package mutating func noteCountsLeavingNoFrame() {
        guard properties.damage.isEmpty, !properties.isTruncated, let info = properties.packetTableInfo,
            info.validFrames == 0, let packets = properties.audioDataPacketCount, packets > 0,
            let bytes = properties.audioDataByteCount, bytes > 0
        else { return }
        noteDamage(
            "\(properties.fileType?.rawValue ?? "the file"): its \(packets) packets hold \(bytes) bytes of audio, but its "
                + "counts leave no valid frame (\(info.primingFrames) priming, \(info.remainderFrames) remainder frames): "
                + "they are damaged")
    }

    /// Notes metadata left unread (a block past the read limit, entries past a cap): a warning, and the file's
    /// ``StreamProperties/notRead``. `message` says it in words, naming the container.
    package mutating func noteNotRead(_ message: String, _ left: NotRead) {
        properties.warnings.append(message)
        properties.notRead.append(left)
    }

    /// Whether announcements wait to be handed out.
    package var hasAnnouncements: Bool { queueHead < queue.count }

    package mutating func nextAnnouncement() -> StreamPropertyID? {
        guard queueHead < queue.count else { return nil }
        defer {
            queueHead += 1
            if queueHead == queue.count {
                queue.removeAll(keepingCapacity: true)
                queueHead = 0
            }
        }
        return queue[queueHead]
    }

    /// Whether packets can be cut out of the audio: the format is known and, where packets vary,
    /// so is the table of their sizes.
    package var canProducePackets: Bool {
        guard let format = properties.dataFormat else { return false }
        return format.hasConstantPackets || packetSizes != nil
    }

    /// Bytes of the packet at `index`, or `nil` past the table's end.
    package func packetSize(_ index: Int64) -> Int? {
        guard let format = properties.dataFormat else { return nil }
        if format.bytesPerPacket > 0 {
            if let sizes = packetFrames, index >= sizes.count { return nil }
            return Int(format.bytesPerPacket)
        }
        guard let sizes = packetSizes, index < sizes.count else { return nil }
        return Int(sizes[Int(index)])
    }

    package func packetFrameCount(_ index: Int64) -> UInt32 {
        if let frames = packetFrames, index < frames.count { return frames[Int(index)] }
        return 0
    }

    /// Whole packets within the first `bytes` of audio, and the bytes they span.
    package func wholePackets(in bytes: Int64) -> (packets: Int64, bytes: Int64) {
        guard let format = properties.dataFormat else { return (0, 0) }
        if hasUniformPackets {
            let packets = bytes / Int64(format.bytesPerPacket)
            return (packets, packets * Int64(format.bytesPerPacket))
        }
        var total: Int64 = 0
        var count: Int64 = 0
        while let size = packetSize(count), total + Int64(size) <= bytes {
            total += Int64(size)
            count += 1
        }
        return (count, total)
    }

    /// Cuts up to `maximum` whole packets from `available` bytes starting at the next packet,
    /// filling `descriptions` where packets vary. Returns packets and bytes, or `nil` when not one
    /// whole packet fits (with the size of the next packet, if there is one).
    package mutating func cutPackets(available: Int) -> (count: Int, bytes: Int, needed: Int?) {
        guard let format = properties.dataFormat else { return (0, 0, nil) }
        if hasUniformPackets {
            let size = Int(format.bytesPerPacket)
            let count = available / size
            return (count, count * size, size)
        }
        beginPacketRun()
        var used = 0
        var index = nextPacket
        while let size = packetSize(index) {
            guard used + size <= available else { return (descriptions.count, used, size) }
            used = appendPacket(at: Int64(used), size: UInt32(size), frames: packetFrameCount(index))
            index += 1
        }
        return (descriptions.count, used, nil)
    }

    /// Starts describing a run of packets in ``descriptions`` (every parser delivers runs this way).
    package mutating func beginPacketRun() { descriptions.removeAll(keepingCapacity: true) }

    /// Describes the run's next packet, `start` bytes into the run; returns the bytes the run spans.
    package mutating func appendPacket(at start: Int64, size: UInt32, frames: UInt32) -> Int {
        descriptions.append(PacketDescription(startOffset: start, variableFramesInPacket: frames, dataByteSize: size))
        return Int(start) + Int(size)
    }
}
