/// Where one packet lies and how many frames it decodes to: Apple's AudioStreamPacketDescription.
@frozen
public struct PacketDescription: Hashable, Sendable {
    /// Byte offset of the packet, relative to the buffer or stream position it is given with.
    public var startOffset: Int64
    /// Frames in the packet where the format's packets vary in frame count, else 0.
    public var variableFramesInPacket: UInt32
    /// Bytes in the packet.
    public var dataByteSize: UInt32

    /// A packet of `dataByteSize` bytes at `startOffset`; `variableFramesInPacket` 0 where frames per packet are constant.
    @inlinable
    public init(startOffset: Int64, variableFramesInPacket: UInt32 = 0, dataByteSize: UInt32) {
        self.startOffset = startOffset
        self.variableFramesInPacket = variableFramesInPacket
        self.dataByteSize = dataByteSize
    }
}

/// The gapless description of a stream: how many frames are valid and what to trim.
/// Apple's AudioFilePacketTableInfo.
@frozen
public struct PacketTableInfo: Hashable, Sendable {
    /// Frames of real audio, after trimming.
    public var validFrames: Int64
    /// Frames to drop at the start (encoder delay).
    public var primingFrames: Int32
    /// Frames to drop at the end (padding of the last packet).
    public var remainderFrames: Int32

    /// Counts of `validFrames` after `primingFrames` and before `remainderFrames`.
    public init(validFrames: Int64, primingFrames: Int32, remainderFrames: Int32) {
        self.validFrames = validFrames
        self.primingFrames = primingFrames
        self.remainderFrames = remainderFrames
    }

    /// Valid, priming and remainder frames together: what the packets decode to. Nil where a
    /// header's numbers overflow the sum.
    public var totalFrames: Int64? {
        let (sum, overflow) = validFrames.addingReportingOverflow(Int64(primingFrames) + Int64(remainderFrames))
        return overflow ? nil : sum
    }
}
