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

    /// A layout of `tag`, with a bitmap or per-channel descriptions where the tag says so.
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
        /// `kAudioChannelLayoutTag_UseChannelDescriptions`: the descriptions say it.
        public static let useChannelDescriptions: UInt32 = 0
        /// `kAudioChannelLayoutTag_UseChannelBitmap`: the bitmap says it.
        public static let useChannelBitmap: UInt32 = 0x1_0000
        /// `kAudioChannelLayoutTag_Mono`.
        public static let mono: UInt32 = 100 << 16 | 1
        /// `kAudioChannelLayoutTag_Stereo`.
        public static let stereo: UInt32 = 101 << 16 | 2
        /// C L R
        public static let mpeg3_0_B: UInt32 = 114 << 16 | 3
        /// C L R Cs
        public static let mpeg4_0_B: UInt32 = 116 << 16 | 4
        /// C L R Ls Rs
        public static let mpeg5_0_D: UInt32 = 120 << 16 | 5
        /// C L R Ls Rs LFE
        public static let mpeg5_1_D: UInt32 = 124 << 16 | 6
        /// C L R Ls Rs Cs LFE
        public static let aac6_1: UInt32 = 142 << 16 | 7
        /// C Lc Rc L R Ls Rs LFE
        public static let mpeg7_1_B: UInt32 = 127 << 16 | 8
    }

    /// WAV's (and libavcodec's) default speakers for 3 to 8 channels, as a channel bitmap: the order
    /// afkit's decoders deliver AAC and Apple Lossless in; `nil` for other counts.
    public static func waveOrder(channels: Int) -> ChannelLayout? {
        // FL FR FC | FL FR FC BC | FL FR FC BL BR | + LFE | FL FR FC LFE BC SL SR | FL FR FC LFE BL BR SL SR
        let masks: [Int: UInt32] = [3: 0x7, 4: 0x107, 5: 0x37, 6: 0x3F, 7: 0x70F, 8: 0x63F]
        return masks[channels].map { ChannelLayout(waveChannelMask: $0) }
    }

    /// The order AAC and Apple Lossless decoders deliver 3 to 8 channels in (AAC's channel
    /// configurations, which ALAC shares), or `nil` for other counts.
    public static func mpegOrder(channels: Int) -> ChannelLayout? {
        let tags: [Int: UInt32] = [
            3: Tag.mpeg3_0_B, 4: Tag.mpeg4_0_B, 5: Tag.mpeg5_0_D, 6: Tag.mpeg5_1_D, 7: Tag.aac6_1,
            8: Tag.mpeg7_1_B,
        ]
        return tags[channels].map { ChannelLayout(tag: $0) }
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
    /// Apple's channel flags (how `coordinates` are given).
    public var flags: UInt32
    /// The speaker's position, where the flags say.
    public var coordinates: (Float, Float, Float)

    /// A channel labelled `label`.
    public init(label: UInt32, flags: UInt32 = 0, coordinates: (Float, Float, Float) = (0, 0, 0)) {
        self.label = label
        self.flags = flags
        self.coordinates = coordinates
    }

    /// Equal label, flags and coordinates.
    public static func == (lhs: ChannelDescription, rhs: ChannelDescription) -> Bool {
        lhs.label == rhs.label && lhs.flags == rhs.flags && lhs.coordinates.0 == rhs.coordinates.0
            && lhs.coordinates.1 == rhs.coordinates.1 && lhs.coordinates.2 == rhs.coordinates.2
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(label)
        hasher.combine(flags)
    }
}
