/// Apple's channel labels and layout tags by name (CoreAudioBaseTypes' `kAudioChannelLabel_...` and
/// `kAudioChannelLayoutTag_...`, without the prefix), as `afkit info` prints a layout and `convert -l` takes one.
extension ChannelLayout {
    /// A named layout tag and its speakers, in channel order.
    public struct NamedTag: Sendable {
        /// The tag's name as afconvert's `-l` spells it (`MPEG_5_1_A`).
        public var name: String
        /// Its value.
        public var tag: UInt32
        /// The speakers' labels, in channel order.
        public var labels: [UInt32]
    }

    /// Short names of channel labels (`kAudioChannelLabel_Left` is `L`), as Apple's documentation abbreviates.
    public static let labelNames: [UInt32: String] = [
        1: "L", 2: "R", 3: "C", 4: "LFE", 5: "Ls", 6: "Rs", 7: "Lc", 8: "Rc", 9: "Cs", 10: "Lsd", 11: "Rsd", 12: "Ts",
        13: "Vhl", 14: "Vhc", 15: "Vhr", 16: "Tbl", 17: "Tbc", 18: "Tbr", 33: "Rls", 34: "Rrs", 35: "Lw", 36: "Rw",
        37: "LFE2", 38: "Lt", 39: "Rt", 42: "M", 200: "W", 201: "X", 202: "Y", 203: "Z", 204: "Mid", 205: "Side",
        301: "HeadphonesL", 302: "HeadphonesR",
    ]

    /// The labels of the speaker bits (`kAudioChannelBit_...`), bit 0 first; the first eighteen are WAV's mask.
    static let bitLabels: [UInt32] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]

    /// The named tags afkit knows, each with its speakers (Apple's CoreAudioBaseTypes.h); tags that are
    /// other tags' aliases (`AAC_5_1` is `MPEG_5_1_D`) are found by either name.
    public static let namedTags: [NamedTag] = {
        let L: UInt32 = 1, R: UInt32 = 2, C: UInt32 = 3, LFE: UInt32 = 4, Ls: UInt32 = 5, Rs: UInt32 = 6
        let Lc: UInt32 = 7, Rc: UInt32 = 8, Cs: UInt32 = 9, Rls: UInt32 = 33, Rrs: UInt32 = 34
        let Lw: UInt32 = 35, Rw: UInt32 = 36, Lt: UInt32 = 38, Rt: UInt32 = 39, Vhl: UInt32 = 13, Vhr: UInt32 = 15
        func named(_ name: String, _ number: UInt32, _ labels: [UInt32]) -> NamedTag {
            NamedTag(name: name, tag: number << 16 | UInt32(labels.count), labels: labels)
        }
        let table = [
            named("Mono", 100, [42]), named("Stereo", 101, [L, R]), named("StereoHeadphones", 102, [301, 302]),
            named("MatrixStereo", 103, [Lt, Rt]), named("MidSide", 104, [204, 205]), named("XY", 105, [201, 202]),
            named("Binaural", 106, [301, 302]), named("Ambisonic_B_Format", 107, [200, 201, 202, 203]),
            named("Quadraphonic", 108, [L, R, Ls, Rs]), named("Pentagonal", 109, [L, R, Ls, Rs, C]),
            named("Hexagonal", 110, [L, R, Ls, Rs, C, Cs]), named("Octagonal", 111, [L, R, Ls, Rs, C, Cs, Lw, Rw]),
            named("MPEG_3_0_A", 113, [L, R, C]), named("MPEG_3_0_B", 114, [C, L, R]),
            named("MPEG_4_0_A", 115, [L, R, C, Cs]), named("MPEG_4_0_B", 116, [C, L, R, Cs]),
            named("MPEG_5_0_A", 117, [L, R, C, Ls, Rs]), named("MPEG_5_0_B", 118, [L, R, Ls, Rs, C]),
            named("MPEG_5_0_C", 119, [L, C, R, Ls, Rs]), named("MPEG_5_0_D", 120, [C, L, R, Ls, Rs]),
            named("MPEG_5_1_A", 121, [L, R, C, LFE, Ls, Rs]), named("MPEG_5_1_B", 122, [L, R, Ls, Rs, C, LFE]),
            named("MPEG_5_1_C", 123, [L, C, R, Ls, Rs, LFE]), named("MPEG_5_1_D", 124, [C, L, R, Ls, Rs, LFE]),
            named("MPEG_6_1_A", 125, [L, R, C, LFE, Ls, Rs, Cs]),
            named("MPEG_7_1_A", 126, [L, R, C, LFE, Ls, Rs, Lc, Rc]),
            named("MPEG_7_1_B", 127, [C, Lc, Rc, L, R, Ls, Rs, LFE]),
            named("MPEG_7_1_C", 128, [L, R, C, LFE, Ls, Rs, Rls, Rrs]),
            named("Emagic_Default_7_1", 129, [L, R, Ls, Rs, C, LFE, Lc, Rc]),
            named("SMPTE_DTV", 130, [L, R, C, LFE, Ls, Rs, Lt, Rt]), named("ITU_2_1", 131, [L, R, Cs]),
            named("ITU_2_2", 132, [L, R, Ls, Rs]), named("DVD_4", 133, [L, R, LFE]),
            named("DVD_5", 134, [L, R, LFE, Cs]), named("DVD_6", 135, [L, R, LFE, Ls, Rs]),
            named("DVD_10", 136, [L, R, C, LFE]), named("DVD_11", 137, [L, R, C, LFE, Cs]),
            named("DVD_18", 138, [L, R, Ls, Rs, LFE]), named("AudioUnit_6_0", 139, [L, R, Ls, Rs, C, Cs]),
            named("AudioUnit_7_0", 140, [L, R, Ls, Rs, C, Rls, Rrs]), named("AAC_6_0", 141, [C, L, R, Ls, Rs, Cs]),
            named("AAC_6_1", 142, [C, L, R, Ls, Rs, Cs, LFE]), named("AAC_7_0", 143, [C, L, R, Ls, Rs, Rls, Rrs]),
            named("AAC_Octagonal", 144, [C, L, R, Ls, Rs, Rls, Rrs, Cs]),
            named("AudioUnit_7_0_Front", 148, [L, R, Ls, Rs, C, Lc, Rc]), named("AC3_1_0_1", 149, [C, LFE]),
            named("AC3_3_0", 150, [L, C, R]), named("AC3_3_1", 151, [L, C, R, Cs]),
            named("AC3_3_0_1", 152, [L, C, R, LFE]), named("AC3_2_1_1", 153, [L, R, Cs, LFE]),
            named("AC3_3_1_1", 154, [L, C, R, Cs, LFE]), named("AAC_7_1_B", 183, [C, L, R, Ls, Rs, Rls, Rrs, LFE]),
            named("AAC_7_1_C", 184, [C, L, R, Ls, Rs, LFE, Vhl, Vhr]), named("WAVE_4_0_B", 185, [L, R, Rls, Rrs]),
            named("WAVE_5_0_B", 186, [L, R, C, Rls, Rrs]), named("WAVE_5_1_B", 187, [L, R, C, LFE, Rls, Rrs]),
            named("WAVE_6_1", 188, [L, R, C, LFE, Cs, Ls, Rs]),
            named("WAVE_7_1", 189, [L, R, C, LFE, Rls, Rrs, Ls, Rs]),
        ]
        return table
    }()

    /// Other names of the same tags, as Apple's header defines them.
    static let tagAliases: [String: String] = [
        "MPEG_1_0": "Mono", "MPEG_2_0": "Stereo", "ITU_1_0": "Mono", "ITU_2_0": "Stereo", "ITU_3_0": "MPEG_3_0_A",
        "ITU_3_1": "MPEG_4_0_A", "ITU_3_2": "MPEG_5_0_A", "ITU_3_2_1": "MPEG_5_1_A", "ITU_3_4_1": "MPEG_7_1_C",
        "DVD_0": "Mono", "DVD_1": "Stereo", "DVD_2": "ITU_2_1", "DVD_3": "ITU_2_2", "DVD_7": "MPEG_3_0_A",
        "DVD_8": "MPEG_4_0_A", "DVD_9": "MPEG_5_0_A", "DVD_12": "MPEG_5_1_A", "DVD_13": "DVD_10",
        "DVD_14": "DVD_11", "DVD_15": "DVD_10", "DVD_16": "DVD_11", "DVD_17": "MPEG_5_1_A",
        "DVD_19": "MPEG_5_0_B", "DVD_20": "MPEG_5_1_B", "AAC_3_0": "MPEG_3_0_B", "AAC_Quadraphonic": "Quadraphonic",
        "AAC_4_0": "MPEG_4_0_B", "AAC_5_0": "MPEG_5_0_D", "AAC_5_1": "MPEG_5_1_D", "AAC_7_1": "MPEG_7_1_B",
        "WAVE_2_1": "DVD_4", "WAVE_3_0": "MPEG_3_0_A", "WAVE_4_0_A": "ITU_2_2", "WAVE_5_0_A": "MPEG_5_0_A",
        "WAVE_5_1_A": "MPEG_5_1_A",
    ]

    /// The tag named `name` (`MPEG_5_1_A`, any case, with or without `kAudioChannelLayoutTag_`), or `nil`.
    public static func namedTag(_ name: String) -> NamedTag? {
        var key = name
        if key.hasPrefix("kAudioChannelLayoutTag_") { key = String(key.dropFirst("kAudioChannelLayoutTag_".count)) }
        let lower = key.lowercased()
        let resolved = tagAliases.first { $0.key.lowercased() == lower }?.value.lowercased() ?? lower
        return namedTags.first { $0.name.lowercased() == resolved }
    }

    /// The speakers' labels in channel order, where the layout says them (a named tag, a bitmap, or
    /// descriptions); `nil` for a tag afkit does not know.
    public var labels: [UInt32]? {
        switch tag {
        case Tag.useChannelBitmap:
            return Self.bitLabels.indices.filter { bitmap & (1 << UInt32($0)) != 0 }.map { Self.bitLabels[$0] }
        case Tag.useChannelDescriptions:
            return descriptions.map(\.label)
        default:
            return Self.namedTags.first { $0.tag == tag }?.labels
        }
    }

    /// The layout in words: the speaker count (`5.1`, counting LFE after the point), the speakers, and a
    /// named tag's name: `5.1 (L R C LFE Ls Rs), MPEG_5_1_A`. A tag afkit does not know is given in hex.
    public var spokenName: String {
        guard let labels else { return "tag 0x\(String(tag, radix: 16)) (\(channelCount) channels)" }
        let lfe = labels.filter { $0 == 4 || $0 == 37 }.count
        let count = "\(labels.count - lfe)" + (lfe > 0 ? ".\(lfe)" : "")
        let speakers = labels.map { Self.labelNames[$0] ?? ($0 >> 16 == 1 ? "D\($0 & 0xFFFF)" : "#\($0)") }
        let name = Self.namedTags.first { $0.tag == tag }?.name
        return "\(count) (\(speakers.joined(separator: " ")))" + (name.map { ", \($0)" } ?? "")
    }

    /// The layout as a WAV channel mask, where its speakers are WAV's in WAV's order (each speaker's bit
    /// above the one before); `nil` otherwise. Apple's rear surrounds are WAV's back pair and its surrounds
    /// then the side pair, as Apple's `WAVE_7_1` has them.
    public var waveChannelMask: UInt32? {
        guard let labels else { return nil }
        let rears = labels.contains(33) || labels.contains(34)
        var mask: UInt32 = 0
        var last = -1
        for label in labels {
            let bit: Int
            switch label {
            case 33: bit = 4
            case 34: bit = 5
            case 5 where rears: bit = 9
            case 6 where rears: bit = 10
            case 1...18: bit = Int(label) - 1
            default: return nil
            }
            guard bit > last else { return nil }
            mask |= 1 << UInt32(bit)
            last = bit
        }
        return mask
    }
}
