import AudioCodecs

// What a playback queue does to what it renders (AudioQueueServices.swift): its parameters (the volume, applied; the
// others kept), the levels it measures, and its property listeners.

extension AudioQueueBox {
    /// Scales what was rendered (`ready` from byte `offset` on) by the volume, the parameters scheduled with a
    /// buffer taking effect at its first frame.
    func applyParameters(_ output: UnsafeMutableRawBufferPointer, _ layout: PCMLayout, from offset: Int) {
        var done = 0
        repeat {
            while let next = scheduled.first, next.offset <= offset + done {
                for event in next.events { _ = setParameter(event.mID, event.mValue) }
                scheduled.removeFirst()
            }
            let end = min(output.count, scheduled.first.map { $0.offset - offset } ?? output.count)
            scale(UnsafeMutableRawBufferPointer(rebasing: output[done..<end]), layout, by: volume)
            done = end
        } while done < output.count
    }

    /// Linear PCM's samples as floats, in `samples` (its first `count`).
    func decodeSamples(_ bytes: UnsafeRawBufferPointer, _ layout: PCMLayout) -> Int {
        let count = bytes.count / layout.width
        if samples.count < count { samples = Array(repeating: 0, count: count) }
        samples.withUnsafeMutableBufferPointer {
            PCM.decode(bytes, layout, count: count, into: UnsafeMutableBufferPointer(rebasing: $0[0..<count]))
        }
        return count
    }

    func scale(_ bytes: UnsafeMutableRawBufferPointer, _ layout: PCMLayout, by gain: Float) {
        guard gain != 1, !bytes.isEmpty else { return }
        let count = decodeSamples(UnsafeRawBufferPointer(bytes), layout)
        samples.withUnsafeMutableBufferPointer { floats in
            for index in 0..<count { floats[index] *= gain }
            var dither: TPDFDither?
            PCM.encode(UnsafeBufferPointer(rebasing: floats[0..<count]), layout, into: bytes, dither: &dither)
        }
    }

    /// The levels of what was rendered, a channel at a time.
    func measure(_ bytes: UnsafeRawBufferPointer, _ layout: PCMLayout) {
        let channels = max(1, Int(renderFormat?.mChannelsPerFrame ?? 1))
        let frames = decodeSamples(bytes, layout) / channels
        levels = (0..<channels).map { channel in
            var peak: Float = 0
            var sum: Double = 0
            for frame in 0..<frames {
                let value = samples[frame * channels + channel]
                peak = max(peak, abs(value))
                sum += Double(value) * Double(value)
            }
            return AudioQueueLevelMeterState(
                mAveragePower: Float((sum / Double(max(1, frames))).squareRoot()), mPeakPower: peak)
        }
    }

    // MARK: Parameters

    func parameter(_ id: AudioQueueParameterID) -> AudioQueueParameterValue? {
        switch id {
        case kAudioQueueParam_Volume, kAudioQueueParam_PlayRate: return parameters[id] ?? 1
        case kAudioQueueParam_Pitch, kAudioQueueParam_VolumeRampTime, kAudioQueueParam_Pan: return parameters[id] ?? 0
        default: return nil
        }
    }

    func setParameter(_ id: AudioQueueParameterID, _ value: AudioQueueParameterValue) -> OSStatus {
        guard parameter(id) != nil else { return kAudioQueueErr_InvalidParameter }
        guard value.isFinite else { return kAudioQueueErr_InvalidPropertyValue }
        parameters[id] = id == kAudioQueueParam_Volume ? min(1, max(0, value)) : value
        return noErr
    }

    // MARK: Listeners

    func addListener(
        _ id: AudioQueuePropertyID, _ proc: AudioQueuePropertyListenerProc, _ userData: UnsafeMutableRawPointer?
    ) -> OSStatus {
        guard propertySize(id) != nil else { return kAudioQueueErr_InvalidProperty }
        listeners.append(Listener(property: id, proc: proc, userData: userData))
        return noErr
    }

    func removeListener(
        _ id: AudioQueuePropertyID, _ proc: AudioQueuePropertyListenerProc, _ userData: UnsafeMutableRawPointer?
    ) -> OSStatus {
        let function = unsafeBitCast(proc, to: UnsafeRawPointer.self)
        if let index = listeners.firstIndex(where: {
            $0.property == id && $0.userData == userData
                && unsafeBitCast($0.proc, to: UnsafeRawPointer.self) == function
        }) {
            listeners.remove(at: index)
        }
        return noErr
    }
}
