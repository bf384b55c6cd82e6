import AudioCodecs
import AudioConversion
import AudioEngines
import AudioFormats

// The engine behind Audio Converter Services (AudioConverterServices.swift): what a converter holds and how it
// decodes, mixes, resamples and encodes between calls.

// MARK: - The converter

/// Linear PCM as it lies in an ``AudioBufferList``: the layout of one buffer's samples, and how many buffers
/// (one interleaved, or one a channel).
struct BufferLayout {
    var sample: PCMLayout
    var channels: Int
    var isNonInterleaved: Bool
    /// Bytes a frame takes in one buffer.
    var bytesPerFrame: Int { isNonInterleaved ? sample.width : sample.width * channels }
    var bufferCount: Int { isNonInterleaved ? channels : 1 }

    init(_ format: AudioStreamBasicDescription) throws {
        var description = format.streamDescription
        channels = Int(format.mChannelsPerFrame)
        isNonInterleaved = format.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0
        if isNonInterleaved {
            // One channel a buffer: the sample layout is that of a one-channel frame.
            description.channelsPerFrame = 1
        }
        sample = try PCMLayout(description)
    }
}

/// The state behind an ``AudioConverterRef``: a decoder (or linear PCM read as it is), a channel mix, a
/// resampler, and linear PCM written or an encoder, with what each holds between calls.
final class ConverterBox {
    let inputFormat: AudioStreamBasicDescription
    let outputFormat: AudioStreamBasicDescription
    let registry = AudioCodecRegistry.standard
    /// The PCM sides' layouts (`nil` for a compressed side).
    let inputLayout: BufferLayout?
    let outputLayout: BufferLayout?

    // Settings.
    var decompressionCookie: [UInt8]?
    var channelMap: [Int32]?
    var bitRate: UInt32?
    var codecQuality: UInt32 = 0x40
    var resamplerQuality: UInt32 = 0x60
    var resamplerComplexity: UInt32 = FourCharCode("norm").rawValue
    var primeMethod: UInt32 = 1
    var primeInfo = AudioConverterPrimeInfo()

    // What converts, made at the first conversion (a setting changed before it applies).
    var decoder: (any AudioDecoder)?
    var encoder: (any AudioEncoder)?
    var mixer: ChannelMixer?
    var resampler: (any Resampler)?
    var isConfigured = false

    // What is held between calls.
    /// Frames in the output's rate and channels, as floats, from `readyStart` on.
    var ready: [Float] = []
    var readyStart = 0
    /// Linear PCM in the output's layout, from `readyBytesStart` on, where samples pass from input to output
    /// without Float32 (``passesWordsThrough``).
    var readyBytes: [UInt8] = []
    var readyBytesStart = 0
    /// Whether the AAC packets given are whole LOAS frames (decided at the first packet).
    var packetsAreLOASFrames = false
    var checkedForLOAS = false
    /// Whether linear PCM goes to linear PCM of the same rate and channels, interleaved, as words rewritten
    /// (`PCM.transcode`): 32-bit integers and doubles keep every bit, as they would not through Float32.
    var passesWordsThrough = false
    /// Packets made, from `packetStart` on.
    var packets = EncodedPackets()
    var packetStart = 0
    /// The input proc said the input ended; `drained`: the resampler and encoder gave what they held.
    var inputEnded = false
    var drained = false

    // Scratch, reused.
    var decoded: [Float] = []
    var mixed: [Float] = []
    var resampled: [Float] = []
    var channelScratch: [Float] = []
    var descriptions: [PacketDescription] = []
    let inputList: UnsafeMutableAudioBufferListPointer
    let inputBufferCapacity: Int

    init(input: AudioStreamBasicDescription, output: AudioStreamBasicDescription) throws {
        inputFormat = input
        outputFormat = output
        inputLayout = input.mFormatID == kAudioFormatLinearPCM ? try BufferLayout(input) : nil
        outputLayout = output.mFormatID == kAudioFormatLinearPCM ? try BufferLayout(output) : nil
        inputBufferCapacity = max(1, Int(input.mChannelsPerFrame))
        inputList = AudioBufferList.allocate(maximumBuffers: inputBufferCapacity)
    }

    deinit { inputList.unsafeMutablePointer.deallocate() }

    var reference: AudioConverterRef { AudioConverterRef(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ reference: AudioConverterRef) -> ConverterBox {
        Unmanaged<ConverterBox>.fromOpaque(UnsafeRawPointer(reference)).takeUnretainedValue()
    }

    /// Whether input was asked for since the converter was made or reset (settings then no longer change it).
    var hasStarted = false

    // MARK: Configuration

    /// Makes the decoder, mix, resampler and encoder the settings ask for.
    func configure() throws {
        guard !isConfigured else { return }
        var decodedRate = inputFormat.mSampleRate
        var decodedChannels = Int(inputFormat.mChannelsPerFrame)
        if inputLayout == nil {
            let made = try makeDecoder()
            decodedRate = made.sourceFormat.sampleRate
            decodedChannels = Int(made.sourceFormat.channelsPerFrame)
            decoder = made
        }
        let outputChannels = Int(outputFormat.mChannelsPerFrame)
        let map = channelMap ?? Self.defaultChannelMap(from: decodedChannels, to: outputChannels)
        var gains = Array(repeating: Array(repeating: Float(0), count: decodedChannels), count: outputChannels)
        for (output, input) in map.prefix(outputChannels).enumerated() where input >= 0 {
            if Int(input) < decodedChannels { gains[output][Int(input)] = 1 }
        }
        mixer = ChannelMixer(gains: gains)
        if let input = inputLayout, let output = outputLayout {
            passesWordsThrough =
                !input.isNonInterleaved && !output.isNonInterleaved && decodedRate == outputFormat.mSampleRate
                && mixer?.isIdentity == true && PCM.transcodesExactly(from: input.sample, to: output.sample)
        }
        if decodedRate != outputFormat.mSampleRate {
            let complexity = FourCharCode(rawValue: resamplerComplexity).description
            let choice = ResamplerChoice.afconvert(
                quality: Int(resamplerQuality), complexity: complexity, engine: "soxr")
            resampler = try choice.make(from: decodedRate, to: outputFormat.mSampleRate, channels: outputChannels)
        }
        if outputLayout == nil {
            var settings = EncoderSettings(
                format: outputFormat.streamDescription,
                sourceFormat: inputFormat.mFormatID == kAudioFormatLinearPCM
                    ? inputFormat.streamDescription
                    : .linearPCM(
                        sampleRate: decodedRate, channels: UInt32(decodedChannels), bitsPerChannel: 32, isFloat: true))
            settings.bitRate = bitRate.map { Int($0) }
            settings.quality = Int(codecQuality)
            if let layout = inputLayout, !layout.sample.isFloat { settings.sourceBitDepth = layout.sample.bits }
            encoder = try registry.encoder(settings)
        }
        isConfigured = true
    }

    /// A decoder of the input format, configured by the cookie set (or for AAC without one, by the stream
    /// description), that gives every frame the codec decodes as Apple's converter does: priming is the
    /// reader's to trim.
    func makeDecoder() throws -> any AudioDecoder {
        var format = inputFormat.streamDescription
        var cookie = decompressionCookie
        if packetsAreLOASFrames {
            format.formatID = .latmAAC
            cookie = nil
        } else if cookie == nil, format.formatID == .aac {
            cookie = Self.audioSpecificConfig(of: inputFormat)
        }
        var made = try registry.decoder(for: format, magicCookie: cookie)
        made.keepFramesDroppedAtStart()
        return made
    }

    /// Whether AAC's packets are whole LOAS frames (an 11-bit sync of 0x2B7 and a 13-bit length that is the
    /// packet's, less the 3 bytes of the header), as afkit's LOAS parser delivers them: they go to a LATM
    /// decoder. No raw access unit is that by chance: the length must match the packet to the byte.
    static func isLOASFrame(_ packet: UnsafeRawBufferPointer) -> Bool {
        guard packet.count >= 3, packet[0] == 0x56, packet[1] & 0xE0 == 0xE0 else { return false }
        return (Int(packet[1] & 0x1F) << 8 | Int(packet[2])) + 3 == packet.count
    }

    /// Forgets what the converter made, so the next conversion makes it with the settings then.
    func unconfigure() {
        decoder = nil
        encoder = nil
        mixer = nil
        resampler = nil
        isConfigured = false
    }

    /// Back to the state of a new converter, the settings kept.
    func reset() {
        unconfigure()
        ready.removeAll(keepingCapacity: true)
        readyStart = 0
        readyBytes.removeAll(keepingCapacity: true)
        readyBytesStart = 0
        packets.removeAll()
        packetStart = 0
        inputEnded = false
        drained = false
        hasStarted = false
    }

    /// Apple's channel map where none is set (kAudioConverterChannelMap's documentation): output channel n takes
    /// input channel n; inputs past the outputs are dropped, outputs past the inputs are silent, except that one
    /// input channel goes to every output (a mono stream plays on both sides of a stereo output).
    static func defaultChannelMap(from inputs: Int, to outputs: Int) -> [Int32] {
        (0..<outputs).map { $0 < inputs ? Int32($0) : (inputs == 1 ? 0 : -1) }
    }

    /// An AudioSpecificConfig for AAC described by its stream description alone (ADTS, as Apple's decoder takes
    /// it without a cookie): the object type from the flags (AAC-LC where they say none), the rate, the channels.
    static func audioSpecificConfig(of format: AudioStreamBasicDescription) -> [UInt8]? {
        let rates: [Double] = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
        guard let rateIndex = rates.firstIndex(of: format.mSampleRate), (1...7).contains(format.mChannelsPerFrame)
        else { return nil }
        let objectType = format.mFormatFlags > 0 && format.mFormatFlags < 31 ? format.mFormatFlags : 2
        let channels = format.mChannelsPerFrame == 8 ? 7 : format.mChannelsPerFrame
        let bits = objectType << 11 | UInt32(rateIndex) << 7 | channels << 3
        return [UInt8(bits >> 8), UInt8(bits & 0xFF)]
    }

    // MARK: Input

    /// Calls the input proc once for about `frames` frames of output and converts what it gives; returns its
    /// status where that is not `noErr` (nothing else changes), or an error of the packets given.
    func pullInput(
        frames: Int, _ proc: AudioConverterComplexInputDataProc, _ userData: UnsafeMutableRawPointer?
    ) -> OSStatus {
        hasStarted = true
        let ratio = inputFormat.mSampleRate > 0 ? inputFormat.mSampleRate / outputFormat.mSampleRate : 1
        let framesPerPacket = max(1, Int(inputFormat.mFramesPerPacket))
        let inputFrames = Int((Double(frames) * ratio).rounded(.up))
        var count = UInt32(clamping: max(1, min(8192, (inputFrames + framesPerPacket - 1) / framesPerPacket)))
        let list = inputList
        list.count = inputLayout?.bufferCount ?? 1
        for index in 0..<list.count {
            list[index] = AudioBuffer(
                mNumberChannels: inputLayout?.isNonInterleaved == true ? 1 : inputFormat.mChannelsPerFrame,
                mDataByteSize: 0, mData: nil)
        }
        var given: UnsafeMutablePointer<AudioStreamPacketDescription>?
        let status: OSStatus
        if inputLayout == nil {
            status = proc(reference, &count, list.unsafeMutablePointer, &given, userData)
        } else {
            status = proc(reference, &count, list.unsafeMutablePointer, nil, userData)
        }
        // Packets given with an error status are converted too; no packets and an error: "no data now". A proc
        // that returns an error without pointing the buffers anywhere gave none, whatever it left in the count
        // (players that say "not enough data" leave the count asked for).
        // (The proc may have set the buffer count: no more are read than the list holds.)
        let set = list.prefix(min(list.count, inputBufferCapacity))
        if status != noErr && set.allSatisfy({ $0.mData == nil || $0.mDataByteSize == 0 }) {
            count = 0
        }
        guard count > 0 else {
            if status == noErr { inputEnded = true }
            return status
        }
        let converted = inputLayout != nil ? convertPCMInput(frames: Int(count)) : decodeInput(Int(count), given)
        return converted != noErr ? converted : status
    }

    /// The linear PCM input's `frames` frames (fewer where the buffers hold fewer), into `ready`.
    func convertPCMInput(frames: Int) -> OSStatus {
        guard let layout = inputLayout, layout.bytesPerFrame > 0, inputList.count >= layout.bufferCount else {
            return kAudioConverterErr_InvalidInputSize
        }
        var count = frames
        for buffer in inputList.prefix(layout.bufferCount) {
            guard buffer.mData != nil || buffer.mDataByteSize == 0 else { return kAudioConverterErr_InvalidInputSize }
            count = min(count, Int(buffer.mDataByteSize) / layout.bytesPerFrame)
        }
        let buffers = inputList.prefix(layout.bufferCount).map {
            UnsafeRawBufferPointer(start: $0.mData, count: count * layout.bytesPerFrame)
        }
        if passesWordsThrough, let output = outputLayout {
            if readyBytesStart > 0 {
                readyBytes.removeFirst(readyBytesStart)
                readyBytesStart = 0
            }
            let start = readyBytes.count
            readyBytes.append(contentsOf: repeatElement(0, count: count * output.bytesPerFrame))
            readyBytes.withUnsafeMutableBytes {
                PCM.transcode(
                    buffers[0], layout.sample, count: count * layout.channels, to: output.sample,
                    into: UnsafeMutableRawBufferPointer(rebasing: $0[start...]))
            }
            return noErr
        }
        Self.readPCM(buffers, layout, frames: count, into: &decoded, scratch: &channelScratch)
        return accept(decodedFrames: count, channels: layout.channels)
    }

    /// Decodes the packets the input proc gave, into `ready`.
    func decodeInput(_ count: Int, _ given: UnsafeMutablePointer<AudioStreamPacketDescription>?) -> OSStatus {
        guard var decoder, inputList.count >= 1 else { return kAudioConverterErr_InvalidInputSize }
        // Packets of no bytes may come without a pointer.
        let data = inputList[0].mData
        let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : Int(inputList[0].mDataByteSize))
        var packetCount = count
        descriptions.removeAll(keepingCapacity: true)
        if let given {
            for index in 0..<count {
                let description = given[index]
                // Never past the bytes given: a description the caller got wrong is an error, not a read.
                // A packet of a constant format is whole.
                guard description.mStartOffset >= 0, Int(description.mDataByteSize) <= bytes.count,
                    description.mStartOffset <= Int64(bytes.count - Int(description.mDataByteSize)),
                    inputFormat.mBytesPerPacket == 0 || description.mDataByteSize == inputFormat.mBytesPerPacket
                else { return kAudioConverterErr_InvalidInputSize }
                descriptions.append(
                    PacketDescription(
                        startOffset: description.mStartOffset,
                        variableFramesInPacket: description.mVariableFramesInPacket,
                        dataByteSize: description.mDataByteSize))
            }
            // Constant packets one after another need no descriptions (their decoders read them in order).
            let size = Int64(inputFormat.mBytesPerPacket)
            if size > 0
                && descriptions.indices.allSatisfy({
                    descriptions[$0].startOffset == Int64($0) * size && Int64(descriptions[$0].dataByteSize) == size
                })
            {
                descriptions.removeAll(keepingCapacity: true)
            }
        } else if inputFormat.mBytesPerPacket > 0 {
            packetCount = min(count, bytes.count / Int(inputFormat.mBytesPerPacket))
        } else if count == 1 {
            descriptions.append(
                PacketDescription(startOffset: 0, variableFramesInPacket: 0, dataByteSize: UInt32(bytes.count)))
        } else {
            return kAudioConverterErr_RequiresPacketDescriptionsError
        }
        if !checkedForLOAS && inputFormat.mFormatID == kAudioFormatMPEG4AAC && packetCount > 0 {
            checkedForLOAS = true
            let first = descriptions.first.map {
                UnsafeRawBufferPointer(
                    rebasing: bytes[Int($0.startOffset)..<Int($0.startOffset) + Int($0.dataByteSize)])
            }
            if let first, Self.isLOASFrame(first) {
                packetsAreLOASFrames = true
                do { decoder = try makeDecoder() } catch { return kAudioConverterErr_FormatNotSupported }
            }
        }
        // A run of packets at a time, so the output holds about a million samples at most, whatever the proc
        // gives at once and a packet's description says it decodes to.
        let channels = Int(decoder.sourceFormat.channelsPerFrame)
        let constantSize = Int(inputFormat.mBytesPerPacket)
        var start = 0
        while start < packetCount {
            // Constant packets described elsewhere than one after another: one at a time, each where it lies.
            let scattered = constantSize > 0 && !descriptions.isEmpty
            let run = scattered ? 1 : decoder.packetsPerRun(atMost: packetCount - start)
            let room = run * decoder.maximumFramesPerPacket * channels
            if decoded.count < room { decoded = Array(repeating: 0, count: room) }
            let frames: Int
            do {
                frames = try descriptions.withUnsafeBufferPointer { list in
                    // Described packets lie where their offsets say; constant ones one after another.
                    var runBytes = bytes
                    var runDescriptions = list.isEmpty ? nil : UnsafeBufferPointer(rebasing: list[start..<start + run])
                    if scattered {
                        let offset = Int(list[start].startOffset)
                        runBytes = UnsafeRawBufferPointer(
                            rebasing: bytes[offset..<offset + Int(list[start].dataByteSize)])
                        runDescriptions = nil
                    } else if constantSize > 0 {
                        runBytes = UnsafeRawBufferPointer(
                            rebasing: bytes[start * constantSize..<(start + run) * constantSize])
                    }
                    return try decoded.withUnsafeMutableBufferPointer { output in
                        try decoder.decode(
                            runBytes, packetCount: run, descriptions: runDescriptions,
                            into: UnsafeMutableBufferPointer(rebasing: output[0..<room]))
                    }
                }
            } catch {
                self.decoder = decoder
                return kAudioCodecBadDataError
            }
            self.decoder = decoder
            let status = accept(decodedFrames: frames, channels: channels)
            guard status == noErr else { return status }
            start += run
        }
        return noErr
    }

    /// Mixes and resamples `frames` frames of `decoded`, appending them to `ready` (or encoding them).
    func accept(decodedFrames frames: Int, channels: Int) -> OSStatus {
        guard frames > 0, let mixer else { return noErr }
        mixed.removeAll(keepingCapacity: true)
        decoded.withUnsafeBufferPointer { mixer.mix($0, frames: frames, into: &mixed) }
        if let resampler {
            resampled.removeAll(keepingCapacity: true)
            do {
                try mixed.withUnsafeBufferPointer {
                    try resampler.process($0, frames: frames, into: &resampled)
                }
            } catch {
                return kAudioConverterErr_UnspecifiedError
            }
            return deliver(resampled)
        }
        return deliver(mixed)
    }

    /// Frames in the output's rate and channels: held for linear PCM output, encoded otherwise.
    func deliver(_ frames: [Float]) -> OSStatus {
        guard var encoder else {
            if readyStart > 0 && readyStart >= ready.count / 2 {
                ready.removeFirst(readyStart)
                readyStart = 0
            }
            ready.append(contentsOf: frames)
            return noErr
        }
        compactPackets()
        do {
            try frames.withUnsafeBufferPointer { try encoder.encode($0, into: &packets) }
        } catch {
            self.encoder = encoder
            return kAudioConverterErr_UnspecifiedError
        }
        self.encoder = encoder
        return noErr
    }

    /// At the end of the input: what the resampler and the encoder hold.
    func drain() -> OSStatus {
        drained = true
        if let resampler {
            resampled.removeAll(keepingCapacity: true)
            do { try resampler.finish(into: &resampled) } catch { return kAudioConverterErr_UnspecifiedError }
            let status = deliver(resampled)
            guard status == noErr else { return status }
        }
        guard var encoder else { return noErr }
        compactPackets()
        do {
            let remainder = try encoder.finish(into: &packets)
            // A lossless codec's last packet holds only the frames it was given; other codecs pad it.
            let padded = CodecDescriptor.of(encoder.destinationFormat.formatID)?.isLossless != true
            primeInfo = AudioConverterPrimeInfo(
                leadingFrames: UInt32(clamping: encoder.primingFrames),
                trailingFrames: padded ? UInt32(clamping: remainder) : 0)
        } catch {
            self.encoder = encoder
            return kAudioConverterErr_UnspecifiedError
        }
        self.encoder = encoder
        return noErr
    }

    /// Drops the packets already handed out.
    func compactPackets() {
        guard packetStart > 0, packetStart == packets.packetCount else { return }
        packets.removeAll()
        packetStart = 0
    }

    // MARK: Output

    /// Fills the caller's buffers: linear PCM frames, or packets with their descriptions.
    func fill(
        _ proc: AudioConverterComplexInputDataProc, _ userData: UnsafeMutableRawPointer?,
        _ ioPackets: UnsafeMutablePointer<UInt32>, _ output: UnsafeMutablePointer<AudioBufferList>,
        _ outDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?
    ) -> OSStatus {
        let list = UnsafeMutableAudioBufferListPointer(output)
        do { try configure() } catch {
            ioPackets.pointee = 0
            for index in list.indices { list[index].mDataByteSize = 0 }
            return kAudioConverterErr_FormatNotSupported
        }
        if let layout = outputLayout {
            return fillPCM(layout, proc, userData, ioPackets, list)
        }
        return fillPackets(proc, userData, ioPackets, list, outDescriptions)
    }

    func fillPCM(
        _ layout: BufferLayout, _ proc: AudioConverterComplexInputDataProc, _ userData: UnsafeMutableRawPointer?,
        _ ioPackets: UnsafeMutablePointer<UInt32>, _ list: UnsafeMutableAudioBufferListPointer
    ) -> OSStatus {
        guard list.count >= layout.bufferCount, layout.bytesPerFrame > 0 else {
            ioPackets.pointee = 0
            return kAudioConverterErr_InvalidOutputSize
        }
        var room = Int(ioPackets.pointee)
        for buffer in list.prefix(layout.bufferCount) {
            guard buffer.mData != nil else {
                ioPackets.pointee = 0
                return kAudioConverterErr_InvalidOutputSize
            }
            room = min(room, Int(buffer.mDataByteSize) / layout.bytesPerFrame)
        }
        let channels = layout.channels
        var written = 0
        var status = noErr
        while written < room {
            let held = (readyBytes.count - readyBytesStart) / layout.bytesPerFrame
            if held > 0, let data = list[0].mData {
                let count = min(held, room - written)
                readyBytes.withUnsafeBytes { bytes in
                    if let base = bytes.baseAddress {
                        (data + written * layout.bytesPerFrame).copyMemory(
                            from: base + readyBytesStart, byteCount: count * layout.bytesPerFrame)
                    }
                }
                readyBytesStart += count * layout.bytesPerFrame
                written += count
                continue
            }
            let available = (ready.count - readyStart) / max(1, channels)
            if available > 0 {
                let count = min(available, room - written)
                ready.withUnsafeBufferPointer { frames in
                    let samples = UnsafeBufferPointer(rebasing: frames[readyStart..<readyStart + count * channels])
                    Self.writePCM(samples, layout, frames: count, to: list, atFrame: written, scratch: &channelScratch)
                }
                readyStart += count * channels
                written += count
                continue
            }
            guard refill(frames: room - written, proc, userData, status: &status) else { break }
        }
        if readyStart == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyStart = 0
        }
        for index in 0..<layout.bufferCount { list[index].mDataByteSize = UInt32(written * layout.bytesPerFrame) }
        ioPackets.pointee = UInt32(written)
        return status
    }

    func fillPackets(
        _ proc: AudioConverterComplexInputDataProc, _ userData: UnsafeMutableRawPointer?,
        _ ioPackets: UnsafeMutablePointer<UInt32>, _ list: UnsafeMutableAudioBufferListPointer,
        _ outDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?
    ) -> OSStatus {
        guard list.count >= 1, let data = list[0].mData, let encoder else {
            ioPackets.pointee = 0
            return kAudioConverterErr_InvalidOutputSize
        }
        let constantSize = Int(encoder.destinationFormat.bytesPerPacket)
        guard constantSize > 0 || outDescriptions != nil else {
            ioPackets.pointee = 0
            return kAudioConverterErr_RequiresPacketDescriptionsError
        }
        let capacity = Int(list[0].mDataByteSize)
        let wanted = Int(ioPackets.pointee)
        var written = 0
        var bytes = 0
        var status = noErr
        let framesPerPacket = max(1, Int(encoder.destinationFormat.framesPerPacket))
        while written < wanted {
            if packetStart < packets.packetCount {
                let (offset, size, frames) = packet(packetStart, constantSize: constantSize)
                guard bytes + size <= capacity else {
                    if written == 0 && status == noErr { status = kAudioConverterErr_InvalidOutputSize }
                    break
                }
                packets.bytes.withUnsafeBytes { source in
                    if let base = source.baseAddress { (data + bytes).copyMemory(from: base + offset, byteCount: size) }
                }
                // Descriptions for packets that vary; constant ones (IMA4) have none, as Apple's converter writes.
                if constantSize == 0 {
                    outDescriptions?[written] = AudioStreamPacketDescription(
                        mStartOffset: Int64(bytes), mVariableFramesInPacket: UInt32(frames),
                        mDataByteSize: UInt32(size))
                }
                bytes += size
                written += 1
                packetStart += 1
                continue
            }
            guard refill(frames: (wanted - written) * framesPerPacket, proc, userData, status: &status) else { break }
        }
        list[0].mDataByteSize = UInt32(bytes)
        ioPackets.pointee = UInt32(written)
        return status
    }

    /// Once what the converter holds is handed out: pulls more input, or at the end drains what the resampler and
    /// encoder hold. False where the call ends: a status from the input proc (which ends the call once what its
    /// packets made is delivered), or nothing more to come.
    func refill(
        frames: Int, _ proc: AudioConverterComplexInputDataProc, _ userData: UnsafeMutableRawPointer?,
        status: inout OSStatus
    ) -> Bool {
        guard status == noErr, !drained else { return false }
        status = inputEnded ? drain() : pullInput(frames: frames, proc, userData)
        return true
    }

    /// Where packet `index` of the held packets lies.
    func packet(_ index: Int, constantSize: Int) -> (offset: Int, size: Int, frames: Int) {
        if index < packets.descriptions.count {
            let description = packets.descriptions[index]
            return (
                Int(description.startOffset), Int(description.dataByteSize), Int(description.variableFramesInPacket)
            )
        }
        return (index * constantSize, constantSize, 0)
    }

    // MARK: Linear PCM in buffers

    /// Reads `frames` frames from a buffer list's buffers as interleaved floats.
    static func readPCM(
        _ buffers: [UnsafeRawBufferPointer], _ layout: BufferLayout, frames: Int, into output: inout [Float],
        scratch: inout [Float]
    ) {
        let channels = layout.channels
        if output.count < frames * channels { output = Array(repeating: 0, count: frames * channels) }
        output.withUnsafeMutableBufferPointer { out in
            guard layout.isNonInterleaved else {
                PCM.decode(buffers[0], layout.sample, count: frames * channels, into: out)
                return
            }
            if scratch.count < frames { scratch = Array(repeating: 0, count: frames) }
            scratch.withUnsafeMutableBufferPointer { plane in
                for channel in 0..<channels {
                    PCM.decode(buffers[channel], layout.sample, count: frames, into: plane)
                    for frame in 0..<frames { out[frame * channels + channel] = plane[frame] }
                }
            }
        }
    }

    /// Writes `frames` interleaved float frames into a buffer list's buffers from frame `start` on (no dither,
    /// as Apple's converter by default).
    static func writePCM(
        _ samples: UnsafeBufferPointer<Float>, _ layout: BufferLayout, frames: Int,
        to list: UnsafeMutableAudioBufferListPointer, atFrame start: Int, scratch: inout [Float]
    ) {
        var dither: TPDFDither?
        let width = layout.sample.width
        guard layout.isNonInterleaved else {
            guard let data = list[0].mData else { return }
            let bytes = UnsafeMutableRawBufferPointer(
                start: data + start * layout.bytesPerFrame, count: frames * layout.bytesPerFrame)
            PCM.encode(samples, layout.sample, into: bytes, dither: &dither)
            return
        }
        let channels = layout.channels
        if scratch.count < frames { scratch = Array(repeating: 0, count: frames) }
        scratch.withUnsafeMutableBufferPointer { plane in
            for channel in 0..<channels {
                guard let data = list[channel].mData else { continue }
                for frame in 0..<frames { plane[frame] = samples[frame * channels + channel] }
                PCM.encode(
                    UnsafeBufferPointer(rebasing: plane[0..<frames]), layout.sample,
                    into: UnsafeMutableRawBufferPointer(start: data + start * width, count: frames * width),
                    dither: &dither)
            }
        }
    }
}

extension ConverterBox {
    /// Converts `frames` frames of linear PCM from `input`'s buffers to `output`'s, at one rate.
    func convert(
        frames: Int, from input: UnsafeMutableAudioBufferListPointer, to output: UnsafeMutableAudioBufferListPointer
    ) -> OSStatus {
        guard let inputLayout, let outputLayout,
            inputFormat.mSampleRate == outputFormat.mSampleRate
        else { return kAudioConverterErr_OperationNotSupported }
        guard input.count >= inputLayout.bufferCount,
            input.prefix(inputLayout.bufferCount).allSatisfy({
                $0.mData != nil && Int($0.mDataByteSize) >= frames * inputLayout.bytesPerFrame
            })
        else { return kAudioConverterErr_InvalidInputSize }
        guard output.count >= outputLayout.bufferCount,
            output.prefix(outputLayout.bufferCount).allSatisfy({
                $0.mData != nil && Int($0.mDataByteSize) >= frames * outputLayout.bytesPerFrame
            })
        else { return kAudioConverterErr_InvalidOutputSize }
        do { try configure() } catch { return kAudioConverterErr_FormatNotSupported }
        guard let mixer else { return kAudioConverterErr_UnspecifiedError }
        let buffers = input.prefix(inputLayout.bufferCount).map {
            UnsafeRawBufferPointer(start: $0.mData, count: frames * inputLayout.bytesPerFrame)
        }
        // The same words where nothing is lost without passing through Float32 (32-bit integers, doubles).
        if !inputLayout.isNonInterleaved && !outputLayout.isNonInterleaved && mixer.isIdentity,
            PCM.transcodesExactly(from: inputLayout.sample, to: outputLayout.sample), let data = output[0].mData
        {
            PCM.transcode(
                buffers[0], inputLayout.sample, count: frames * inputLayout.channels, to: outputLayout.sample,
                into: UnsafeMutableRawBufferPointer(start: data, count: frames * outputLayout.bytesPerFrame))
        } else {
            Self.readPCM(buffers, inputLayout, frames: frames, into: &decoded, scratch: &channelScratch)
            mixed.removeAll(keepingCapacity: true)
            decoded.withUnsafeBufferPointer { mixer.mix($0, frames: frames, into: &mixed) }
            mixed.withUnsafeBufferPointer {
                Self.writePCM(
                    $0, outputLayout, frames: frames, to: output, atFrame: 0, scratch: &channelScratch)
            }
        }
        for index in 0..<outputLayout.bufferCount {
            output[index].mDataByteSize = UInt32(frames * outputLayout.bytesPerFrame)
        }
        return noErr
    }
}
