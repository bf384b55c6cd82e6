import AudioCodecs
import AudioEngines
import AudioFormats

// The properties of a converter (AudioConverterGetProperty, GetPropertyInfo, SetProperty): their values, sizes and
// settings.

extension ConverterBox {
    /// The value of property `id`, or `nil` where the converter has none.
    func value(_ id: AudioConverterPropertyID) -> PropertyValue? {
        switch FourCharCode(rawValue: id) {
        case "acid": return .value(inputFormat)
        case "acod":
            if let encoder = try? configuredEncoder() {
                return .value(AudioStreamBasicDescription(encoder.destinationFormat))
            }
            return .value(outputFormat)
        case "dmgc": return inputLayout == nil ? .bytes(decompressionCookie ?? []) : nil
        case "cmgc": return (try? configuredEncoder())?.magicCookie.map { .bytes($0) }
        case "xops", "mobs":
            if let layout = outputLayout { return .value(UInt32(layout.bytesPerFrame)) }
            return (try? configuredEncoder()).map { .value(UInt32(clamping: $0.maximumPacketSize)) }
        case "xips", "mibs":
            if let layout = inputLayout { return .value(UInt32(layout.bytesPerFrame)) }
            if inputFormat.mBytesPerPacket > 0 { return .value(inputFormat.mBytesPerPacket) }
            // No packet of a codec afkit decodes is larger than its frames as 32-bit samples and a header.
            let frames = max(Int(inputFormat.mFramesPerPacket), (try? configuredDecoder())?.maximumFramesPerPacket ?? 0)
            return .value(UInt32(clamping: frames * Int(inputFormat.mChannelsPerFrame) * 4 + 64))
        case "prim": return .value(currentPrimeInfo)
        case "prmm": return .value(primeMethod)
        case "brat":
            guard outputLayout == nil else { return nil }
            if let bitRate { return .value(bitRate) }
            return (try? configuredEncoder()).flatMap { Self.bitRate(of: $0) }.map { .value(UInt32(clamping: $0)) }
        case "cdqu": return .value(codecQuality)
        case "srcq": return .value(resamplerQuality)
        case "srca": return .value(resamplerComplexity)
        case "chmp":
            let map =
                channelMap
                ?? Self.defaultChannelMap(
                    from: Int(inputFormat.mChannelsPerFrame), to: Int(outputFormat.mChannelsPerFrame))
            return .bytes(map.withUnsafeBytes { Array($0) })
        case "crfi": return .value(UInt32(1))
        case "cibs", "cobs":
            // Between formats of constant packets only (linear PCM, IMA4, G.711): bytes to frames, the rates'
            // ratio, frames to whole packets.
            let toInput = FourCharCode(rawValue: id) == "cibs"
            let from = toInput ? outputFormat : inputFormat
            let to = toInput ? inputFormat : outputFormat
            guard from.mBytesPerPacket > 0, from.mFramesPerPacket > 0, to.mBytesPerPacket > 0, to.mFramesPerPacket > 0
            else { return nil }
            return .translation(size: 4) { data in
                let frames =
                    Double(data.loadUnaligned(as: UInt32.self) / from.mBytesPerPacket)
                    * Double(from.mFramesPerPacket) * to.mSampleRate / from.mSampleRate
                let packets = (frames / Double(to.mFramesPerPacket)).rounded(.up)
                data.storeBytes(of: UInt32(clamping: Int64(packets) * Int64(to.mBytesPerPacket)), as: UInt32.self)
                return noErr
            }
        default: return nil
        }
    }

    /// The prime info: an encoder's priming and (at the end) remainder; what was set otherwise.
    var currentPrimeInfo: AudioConverterPrimeInfo {
        guard let encoder, primeInfo == AudioConverterPrimeInfo() else { return primeInfo }
        return AudioConverterPrimeInfo(leadingFrames: UInt32(clamping: encoder.primingFrames), trailingFrames: 0)
    }

    func configuredEncoder() throws -> (any AudioEncoder)? {
        try configure()
        return encoder
    }

    func configuredDecoder() throws -> (any AudioDecoder)? {
        try configure()
        return decoder
    }

    /// An encoder's bit rate, where its codec has one.
    static func bitRate(of encoder: any AudioEncoder) -> Int? {
        if let aac = encoder as? AACEncoder { return aac.bitRate }
        if let opus = encoder as? OpusEncoder { return opus.bitRate }
        return nil
    }

    /// Sets property `id` from `size` bytes at `data`.
    func set(_ id: AudioConverterPropertyID, size: Int, data: UnsafeRawPointer) -> OSStatus {
        func uint32() -> UInt32? { size == 4 ? data.loadUnaligned(as: UInt32.self) : nil }
        switch FourCharCode(rawValue: id) {
        case "dmgc":
            guard inputLayout == nil else { return kAudioConverterErr_PropertyNotSupported }
            decompressionCookie = Array(UnsafeRawBufferPointer(start: data, count: size))
            // The decoder is made again with it at the next conversion.
            unconfigure()
            return noErr
        case "brat":
            guard outputLayout == nil else { return kAudioConverterErr_PropertyNotSupported }
            guard let value = uint32() else { return kAudioConverterErr_BadPropertySizeError }
            return reconfigure { bitRate = value }
        case "cdqu":
            guard let value = uint32() else { return kAudioConverterErr_BadPropertySizeError }
            return reconfigure { codecQuality = min(value, 0x7F) }
        case "srcq":
            guard let value = uint32() else { return kAudioConverterErr_BadPropertySizeError }
            return reconfigure { resamplerQuality = min(value, 0x7F) }
        case "srca":
            guard let value = uint32() else { return kAudioConverterErr_BadPropertySizeError }
            guard ["line", "norm", "bats", "minp"].contains(FourCharCode(rawValue: value).description) else {
                return kAudioConverterErr_PropertyNotSupported
            }
            return reconfigure { resamplerComplexity = value }
        case "prmm":
            guard let value = uint32() else { return kAudioConverterErr_BadPropertySizeError }
            primeMethod = value
            return noErr
        case "prim":
            guard size == MemoryLayout<AudioConverterPrimeInfo>.size else {
                return kAudioConverterErr_BadPropertySizeError
            }
            primeInfo = data.loadUnaligned(as: AudioConverterPrimeInfo.self)
            return noErr
        case "chmp":
            guard size == Int(outputFormat.mChannelsPerFrame) * 4 else {
                return kAudioConverterErr_BadPropertySizeError
            }
            let map = (0..<size / 4).map { data.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self) }
            return reconfigure { channelMap = map }
        case "acbd":
            return uint32() == nil ? kAudioConverterErr_BadPropertySizeError : noErr
        default:
            return kAudioConverterErr_PropertyNotSupported
        }
    }

    /// The properties a client may set.
    static let writable: Set<FourCharCode> = ["dmgc", "brat", "cdqu", "srcq", "srca", "prmm", "prim", "chmp"]

    /// Property `id`'s size and whether it can be set (`kAudioConverterErr_PropertyNotSupported` where the
    /// converter has no such property).
    func describe(
        _ id: AudioConverterPropertyID, size: UnsafeMutablePointer<UInt32>?,
        writable: UnsafeMutablePointer<DarwinBoolean>?
    ) -> OSStatus {
        guard let value = value(id) else { return kAudioConverterErr_PropertyNotSupported }
        size?.pointee = UInt32(value.size)
        writable?.pointee = DarwinBoolean(Self.writable.contains(FourCharCode(rawValue: id)))
        return noErr
    }

    /// Writes property `id`'s value into `data`, whose `size` must fit it.
    func get(_ id: AudioConverterPropertyID, size: UnsafeMutablePointer<UInt32>, into data: UnsafeMutableRawPointer)
        -> OSStatus
    {
        value(id)?.write(into: data, size: size, badSize: kAudioConverterErr_BadPropertySizeError)
            ?? kAudioConverterErr_PropertyNotSupported
    }

    /// Applies a setting that changes what converts: before the first conversion only.
    func reconfigure(_ change: () -> Void) -> OSStatus {
        guard !hasStarted else { return kAudioConverterErr_OperationNotSupported }
        let wasConfigured = isConfigured
        change()
        unconfigure()
        guard wasConfigured else { return noErr }
        do {
            try configure()
            return noErr
        } catch {
            return kAudioConverterErr_PropertyNotSupported
        }
    }
}
