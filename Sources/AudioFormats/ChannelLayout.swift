/// Which speaker each channel feeds: Apple's AudioChannelLayout, as CAF's `chan` chunk stores it and
/// as a WAVE_FORMAT_EXTENSIBLE channel mask maps onto it.
public struct ChannelLayout: Hashable, Sendable {
    /// Apple's layout tag (`kAudioChannelLayoutTag_...`); see ``Tag``.
    public var tag: UInt32
    /// Speaker bits, meaningful when `tag` is ``Tag/useChannelBitmap``; the same bits as a WAVE
    /// channel mask for the first eighteen speakers.
    public var bitmap: UInt32
    /// Per-channel labels, meaningful when `tag` is ``Tag/useChannelDescriptions``.
    public var descriptions: [ChannelDescription]

    public init(tag: UInt32, bitmap: UInt32 = 0, descriptions: [ChannelDescription] = []) {
        self.tag = tag
        self.bitmap = bitmap
        self.descriptions = descriptions
    }

    /// A layout stated as a WAVE channel mask.
    public init(waveChannelMask: UInt32) {
        self.init(tag: Tag.useChannelBitmap, bitmap: waveChannelMask)
    }

    /// Named values of ``tag``.
    public enum Tag {
        public static let useChannelDescriptions: UInt32 = 0
        public static let useChannelBitmap: UInt32 = 0x1_0000
        public static let mono: UInt32 = 100 << 16 | 1
        public static let stereo: UInt32 = 101 << 16 | 2
    }

    /// Channels the layout describes, where it says: the bitmap's set bits, the description count,
    /// or the low 16 bits of a tag.
    public var channelCount: Int {
        switch tag {
        case Tag.useChannelBitmap: bitmap.nonzeroBitCount
        case Tag.useChannelDescriptions: descriptions.count
        default: Int(tag & 0xFFFF)
        }
    }

    /// Bytes of a `chan` chunk body holding this layout.
    public static func cafChunkSize(descriptionCount: Int) -> Int { 12 + 20 * descriptionCount }
}

/// One channel's label and position: Apple's AudioChannelDescription.
public struct ChannelDescription: Hashable, Sendable {
    /// Apple's channel label (`kAudioChannelLabel_Left` is 1, ...).
    public var label: UInt32
    public var flags: UInt32
    public var coordinates: (Float, Float, Float)

    public init(label: UInt32, flags: UInt32 = 0, coordinates: (Float, Float, Float) = (0, 0, 0)) {
        self.label = label
        self.flags = flags
        self.coordinates = coordinates
    }

    public static func == (lhs: ChannelDescription, rhs: ChannelDescription) -> Bool {
        lhs.label == rhs.label && lhs.flags == rhs.flags && lhs.coordinates.0 == rhs.coordinates.0
            && lhs.coordinates.1 == rhs.coordinates.1 && lhs.coordinates.2 == rhs.coordinates.2
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(label)
        hasher.combine(flags)
    }
}
