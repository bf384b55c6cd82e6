import AudioFormats
import StreamParsing

/// MPEG-4's loudness box (ISO/IEC 14496-12, 12.2.7): `ludt`, in a track's user data, holds a TrackLoudnessInfo
/// `tlou` (and, for an album's tracks, an AlbumLoudnessInfo `alou`), each a LoudnessBaseBox: a full box whose
/// loudness bases (one in version 0; a count of them, each with an EQ set, in version 1) give, for the sound
/// after a downmix and a DRC set (both 0: the sound as it is), its peaks and a list of measurements, each a
/// method, its 23003-4 code, and how it was measured. The codes are `LoudnessInfo`'s.
extension MP4 {
    /// `ludt` holding one `tlou` of version 0: the sound as it is (downmix and DRC set 0), its peaks and one
    /// measurement a figure `info` states, in `LoudnessInfo.methods` order; `nil` where it states none.
    package static func loudnessBox(_ info: LoudnessInfo) -> [UInt8]? {
        guard !info.isEmpty else { return nil }
        let how = info.measurementSystem.rawValue << 4 | info.reliability.rawValue
        var tlou = fullBoxHeader(version: 0, flags: 0)
        tlou.appendInteger(UInt16(0), endianness: .big)  // reserved, downmix_ID 0, DRC_set_ID 0
        let sample = info.samplePeak.flatMap(LoudnessInfo.peakCode) ?? 0
        let truePeak = info.truePeak.flatMap(LoudnessInfo.peakCode)
        tlou += [
            UInt8(sample >> 4), UInt8(sample & 0x0F) << 4 | UInt8((truePeak ?? 0) >> 8), UInt8((truePeak ?? 0) & 0xFF),
        ]
        tlou.append(truePeak == nil ? 0 : how)  // measurement_system_for_TP, reliability_for_TP
        let measurements = info.measurements
        tlou.append(UInt8(measurements.count))
        for (method, code) in measurements { tlou += [method, code, how] }
        var ludt: [UInt8] = []
        appendBox(&ludt, "tlou", tlou)
        return ludt
    }

    /// What a LoudnessBaseBox's body (`tlou`, `alou`) states for the sound as it is: the first loudness base with
    /// downmix, DRC set and EQ set 0, its peaks and the measurements of the methods afkit reads (others are left
    /// out), the measurement system and reliability the programme loudness's (else the first read's, else the true
    /// peak's). Versions 0 and 1 are read. The box is read within its bytes, never further than a count says:
    /// where it ends early, what it held whole is kept and `problem` says so; another version is `problem` too.
    package static func loudnessInfo(in body: inout ByteCursor) -> (info: LoudnessInfo?, problem: String?) {
        guard let version = body.readInteger(endianness: .big, as: UInt8.self), body.skip(3) else {
            return (nil, "is too short for its version and flags")
        }
        guard version <= 1 else { return (nil, "is of version \(version); afkit reads versions 0 and 1") }
        var bases = 1
        if version == 1 {
            guard let count = body.readInteger(endianness: .big, as: UInt8.self) else {
                return (nil, "ends before its count of loudness bases")
            }
            bases = Int(count & 0x3F)
        }
        var found: LoudnessInfo?
        for index in 0..<bases {
            let place = "its loudness base \(index + 1) of \(bases), at byte \(body.absoluteOffset)"
            let eqSet = version == 1 ? body.readInteger(endianness: .big, as: UInt8.self).map { $0 & 0x3F } : 0
            guard let eqSet, let sets = body.readInteger(endianness: .big, as: UInt16.self),
                let peaks = body.readBytes(3), let truePeakHow = body.readInteger(endianness: .big, as: UInt8.self),
                let count = body.readInteger(endianness: .big, as: UInt8.self)
            else { return (found, "ends in \(place)") }
            // The sound as it is: no downmix (7 bits), no DRC set (6 bits), no EQ set.
            let isPlain = eqSet == 0 && sets & 0x1FFF == 0
            var info = LoudnessInfo(measurementSystem: .unknown, reliability: .unknown)
            info.samplePeak = LoudnessInfo.peak(UInt16(peaks[0]) << 4 | UInt16(peaks[1] >> 4))
            info.truePeak = LoudnessInfo.peak(UInt16(peaks[1] & 0x0F) << 8 | UInt16(peaks[2]))
            var how: (method: UInt8, byte: UInt8)? = info.truePeak == nil ? nil : (0, truePeakHow)
            let whole = min(Int(count), body.remaining / 3)
            for _ in 0..<whole {
                guard let measurement = body.readBytes(3) else { break }
                let method = measurement[0]
                guard info[method] == nil, let value = LoudnessInfo.value(method: method, code: measurement[1]) else {
                    continue
                }
                info[method] = value
                if how == nil || how?.method == 0 || method == 1 { how = (method, measurement[2]) }
            }
            if let how {
                info.measurementSystem = LoudnessInfo.MeasurementSystem(rawValue: how.byte >> 4)
                info.reliability = LoudnessInfo.Reliability(rawValue: how.byte & 0x0F)
            }
            if isPlain, found == nil, !info.isEmpty { found = info }
            if whole < Int(count) {
                return (
                    found,
                    "counts \(count) measurements in \(place), but holds \(whole) whole before its end at byte "
                        + "\(body.absoluteOffset + Int64(body.remaining))"
                )
            }
        }
        return (found, nil)
    }
}
