import Foundation

// The properties of a playback queue (AudioQueueServices.swift): their sizes, values and settings.

extension AudioQueueBox {
    /// The size of a property's value, or `nil` for a property the queue does not have.
    func propertySize(_ id: AudioQueuePropertyID) -> Int? {
        switch id {
        case kAudioQueueProperty_IsRunning, kAudioQueueProperty_EnableLevelMetering,
            kAudioQueueProperty_ConverterError:
            return 4
        case kAudioQueueProperty_StreamDescription: return MemoryLayout<AudioStreamBasicDescription>.size
        case kAudioQueueProperty_MagicCookie: return cookie?.count ?? 0
        case kAudioQueueProperty_CurrentLevelMeter, kAudioQueueProperty_CurrentLevelMeterDB:
            return meterChannels * MemoryLayout<AudioQueueLevelMeterState>.size
        default: return nil
        }
    }

    /// The channels the level meter measures: those rendered.
    var meterChannels: Int { Int(renderFormat?.mChannelsPerFrame ?? format.mChannelsPerFrame) }

    func getProperty(
        _ id: AudioQueuePropertyID, into data: UnsafeMutableRawPointer, size: UnsafeMutablePointer<UInt32>
    ) -> OSStatus {
        switch id {
        case kAudioQueueProperty_IsRunning: return write(UInt32(state == .running ? 1 : 0), data, size)
        case kAudioQueueProperty_EnableLevelMetering: return write(UInt32(meteringEnabled ? 1 : 0), data, size)
        case kAudioQueueProperty_ConverterError: return write(Int32(converterError), data, size)
        case kAudioQueueProperty_StreamDescription: return write(format, data, size)
        case kAudioQueueProperty_MagicCookie:
            let bytes = cookie ?? []
            guard Int(size.pointee) >= bytes.count else { return kAudioQueueErr_InvalidPropertySize }
            bytes.withUnsafeBytes {
                data.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(data), byteCount: $0.count)
            }
            size.pointee = UInt32(bytes.count)
            return noErr
        case kAudioQueueProperty_CurrentLevelMeter, kAudioQueueProperty_CurrentLevelMeterDB:
            // As many channels as the room given holds (a client may ask for the first only).
            let stride = MemoryLayout<AudioQueueLevelMeterState>.stride
            let count = min(meterChannels, Int(size.pointee) / stride)
            guard count > 0 else { return kAudioQueueErr_InvalidPropertySize }
            let decibels = id == kAudioQueueProperty_CurrentLevelMeterDB
            for channel in 0..<count {
                var level = channel < levels.count ? levels[channel] : AudioQueueLevelMeterState()
                if decibels {
                    level = AudioQueueLevelMeterState(
                        mAveragePower: Self.decibels(level.mAveragePower), mPeakPower: Self.decibels(level.mPeakPower))
                }
                (data + channel * stride).storeBytes(of: level, as: AudioQueueLevelMeterState.self)
            }
            size.pointee = UInt32(count * stride)
            return noErr
        default:
            return kAudioQueueErr_InvalidProperty
        }
    }

    /// A level in decibels of full scale (silence at -120 dB rather than minus infinity).
    static func decibels(_ level: Float) -> Float { level > 0 ? max(-120, 20 * log10(level)) : -120 }

    /// Writes a value of a fixed size where there is room for it.
    func write<Value: BitwiseCopyable>(
        _ value: Value, _ data: UnsafeMutableRawPointer, _ size: UnsafeMutablePointer<UInt32>
    ) -> OSStatus {
        guard Int(size.pointee) >= MemoryLayout<Value>.size else { return kAudioQueueErr_InvalidPropertySize }
        data.storeBytes(of: value, as: Value.self)
        size.pointee = UInt32(MemoryLayout<Value>.size)
        return noErr
    }

    func setProperty(_ id: AudioQueuePropertyID, _ data: UnsafeRawBufferPointer) -> OSStatus {
        switch id {
        case kAudioQueueProperty_MagicCookie:
            cookie = Array(data)
            // A converter that has begun decoding keeps its cookie: it is made again with the new one.
            if let renderFormat, converter != nil {
                if let converter { AudioConverterDispose(converter) }
                var source = format
                var destination = renderFormat
                var made: AudioConverterRef?
                let status = AudioConverterNew(&source, &destination, &made)
                converter = made
                guard status == noErr else { return status }
            }
            return applyCookie()
        case kAudioQueueProperty_EnableLevelMetering:
            guard data.count >= 4, data.baseAddress != nil else { return kAudioQueueErr_InvalidPropertySize }
            meteringEnabled = data.loadUnaligned(as: UInt32.self) != 0
            levels.removeAll()
            return noErr
        case kAudioQueueProperty_IsRunning, kAudioQueueProperty_StreamDescription, kAudioQueueProperty_ConverterError,
            kAudioQueueProperty_CurrentLevelMeter, kAudioQueueProperty_CurrentLevelMeterDB:
            // Read only.
            return kAudioQueueErr_InvalidPropertyValue
        default:
            return kAudioQueueErr_InvalidProperty
        }
    }
}
