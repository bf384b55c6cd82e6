// Audio Format Services and Audio File Services' global info, asked as file utilities ask them: what a cookie
// describes, what a format is called, which types are read and written and by which extensions. The answers
// are held to the fixtures' own facts (make-fixtures.py, make-mp4-fixtures.py) and to Apple's constants; that
// they are the container registry's is checked in AudioConversionTests/CompatWrittenFileTests.swift.
#if canImport(AudioToolbox)
    import AudioToolbox
#else
    import AudioToolboxCompat
#endif
import Testing

/// The magic cookie of the file at `path` under Tests/Fixtures.
func cookie(of path: String) -> [UInt8]? { readPackets(fixtures.appendingPathComponent(path))?.cookie }

/// FormatInfo's description for `formatID` and `cookie`, or the call's code.
func formatInfo(_ formatID: AudioFormatID, cookie: [UInt8]) -> (OSStatus, AudioStreamBasicDescription) {
    var format = AudioStreamBasicDescription()
    format.mFormatID = formatID
    var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
    let status = AudioFormatGetProperty(kAudioFormatProperty_FormatInfo, UInt32(cookie.count), cookie, &size, &format)
    return (status, format)
}

/// A global info list of four-character codes.
func globalCodes(_ property: AudioFilePropertyID, specifier: AudioFileTypeID? = nil) -> [UInt32]? {
    var size: UInt32 = 0
    var type = specifier ?? 0
    return withUnsafeMutableBytes(of: &type) { raw in
        let pointer = specifier == nil ? nil : raw.baseAddress
        let specifierSize = UInt32(specifier == nil ? 0 : 4)
        guard AudioFileGetGlobalInfoSize(property, specifierSize, pointer, &size) == noErr else { return nil }
        var codes = [UInt32](repeating: 0, count: Int(size) / 4)
        guard AudioFileGetGlobalInfo(property, specifierSize, pointer, &size, &codes) == noErr else { return nil }
        return codes
    }
}

/// A global info list of strings (a `CFArray` of `CFString`s) for a file type.
func globalStrings(_ property: AudioFilePropertyID, fileType: AudioFileTypeID) -> [String]? {
    var type = fileType
    var array: Unmanaged<CFArray>?
    var size = UInt32(MemoryLayout<CFArray>.size)
    guard AudioFileGetGlobalInfo(property, 4, &type, &size, &array) == noErr else { return nil }
    return array?.takeRetainedValue() as? [String]
}

@Suite struct AudioFormatServicesTests {
    // MARK: FormatInfo from real cookies

    /// ALAC cookies as FFmpeg's CAF wraps them (a 'frma' atom, then the 'alac' atom holding the config: 48
    /// bytes) and as an MP4 'alac' box holds them (the bare 24-byte config), with the streams make-fixtures.py
    /// and make-mp4-fixtures.py encoded.
    @Test(arguments: [("caf/alac-stereo.caf", 48, 44100.0, 2), ("mp4/alac-mono-22k.m4a", 24, 22050.0, 1)])
    func alacCookieGivesItsStream(_ path: String, _ size: Int, _ rate: Double, _ channels: UInt32) throws {
        let alac = try #require(cookie(of: path))
        #expect(alac.count == size)
        let (status, format) = formatInfo(kAudioFormatAppleLossless, cookie: alac)
        #expect(status == noErr)
        #expect(format.mSampleRate == rate)
        #expect(format.mChannelsPerFrame == channels)
        #expect(format.mFramesPerPacket == 4096)
        #expect(format.mFormatFlags == kAppleLosslessFormatFlag_16BitSourceData)
        #expect(format.mBytesPerPacket == 0)
    }

    @Test func alacConfigInQuickTimeAtomsGivesItsStream() throws {
        let bare = try #require(cookie(of: "mp4/alac-mono-22k.m4a"))
        let format = formatInfo(kAudioFormatAppleLossless, cookie: bare).1
        // The same config as QuickTime wraps it: 'frma', 'alac', and the terminator atom.
        var quickTime: [UInt8] =
            [0, 0, 0, 12] + Array("frmaalac".utf8) + [0, 0, 0, 36] + Array("alac".utf8) + [0, 0, 0, 0]
        quickTime += bare + [0, 0, 0, 8, 0, 0, 0, 0]
        let (wrappedStatus, wrapped) = formatInfo(kAudioFormatAppleLossless, cookie: quickTime)
        #expect(wrappedStatus == noErr)
        #expect(wrapped == format)
        // The config followed by the ALACChannelLayoutInfo Apple's encoder adds past two channels (size 24,
        // 'chan', version and flags, the layout tag, two reserved words).
        var withLayout = bare + [0, 0, 0, 24] + Array("chan".utf8) + [0, 0, 0, 0]
        withLayout += withUnsafeBytes(of: kAudioChannelLayoutTag_Mono.bigEndian) { [UInt8]($0) }
        withLayout += [UInt8](repeating: 0, count: 8)
        let (layoutStatus, described) = formatInfo(kAudioFormatAppleLossless, cookie: withLayout)
        #expect(layoutStatus == noErr)
        #expect(described == format)
    }

    @Test func aacElementaryStreamDescriptorGivesItsStream() throws {
        // FFmpeg's AAC-LC at 44.1 kHz stereo (make-mp4-fixtures.py).
        let esds = try #require(cookie(of: "mp4/aac-faststart.m4a"))
        let (status, format) = formatInfo(kAudioFormatMPEG4AAC, cookie: esds)
        #expect(status == noErr)
        #expect(format.mFormatID == kAudioFormatMPEG4AAC)
        #expect(format.mSampleRate == 44100)
        #expect(format.mChannelsPerFrame == 2)
        #expect(format.mFramesPerPacket == 1024)
        var fromESDS = AudioStreamBasicDescription()
        var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        #expect(
            AudioFormatGetProperty(kAudioFormatProperty_ASBDFromESDS, UInt32(esds.count), esds, &size, &fromESDS)
                == noErr)
        #expect(fromESDS == format)
        // HE-AAC v2 lists its layers, richest first (make-mp4-fixtures.py: explicit signalling over a mono core).
        let heCookie = try #require(cookie(of: "mp4/he-aac-v2-explicit.m4a"))
        try heCookie.withUnsafeBytes { raw in
            var info = AudioFormatInfo(
                mASBD: AudioStreamBasicDescription(
                    mSampleRate: 0, mFormatID: kAudioFormatMPEG4AAC, mFormatFlags: 0, mBytesPerPacket: 0,
                    mFramesPerPacket: 0, mBytesPerFrame: 0, mChannelsPerFrame: 0, mBitsPerChannel: 0, mReserved: 0),
                mMagicCookie: raw.baseAddress, mMagicCookieSize: UInt32(raw.count))
            var listSize: UInt32 = 0
            let infoSize = UInt32(MemoryLayout<AudioFormatInfo>.size)
            #expect(AudioFormatGetPropertyInfo(kAudioFormatProperty_FormatList, infoSize, &info, &listSize) == noErr)
            var items = [AudioFormatListItem](
                repeating: AudioFormatListItem(), count: Int(listSize) / MemoryLayout<AudioFormatListItem>.size)
            #expect(
                AudioFormatGetProperty(kAudioFormatProperty_FormatList, infoSize, &info, &listSize, &items) == noErr)
            let layers = items.map(\.mASBD.mFormatID)
            #expect(layers == [kAudioFormatMPEG4AAC_HE_V2, kAudioFormatMPEG4AAC_HE, kAudioFormatMPEG4AAC])
            let first = try #require(items.first)
            #expect(first.mASBD.mChannelsPerFrame == 2)
            #expect(first.mASBD.mFramesPerPacket == 2048)
        }
    }

    /// FLAC's STREAMINFO and Opus's OpusHead, as the files' readers hand them out, describe the streams the
    /// files do (Opus decodes at 48 kHz whatever rate its header says the source had).
    @Test(arguments: [("library/stereo.flac", kAudioFormatFLAC), ("library/stereo.opus", kAudioFormatOpus)])
    func flacAndOpusCookiesGiveTheirStreams(_ path: String, _ formatID: AudioFormatID) throws {
        let file = try #require(readPackets(fixtures.appendingPathComponent(path)))
        #expect(file.format.mFormatID == formatID)
        let (status, format) = formatInfo(formatID, cookie: file.cookie)
        #expect(status == noErr)
        #expect(format.mSampleRate == (formatID == kAudioFormatOpus ? 48000 : file.format.mSampleRate))
        #expect(format.mChannelsPerFrame == file.format.mChannelsPerFrame)
        #expect(format.mChannelsPerFrame == 2)
    }

    @Test func formatsWithoutCookiesAreCompleted() {
        var pcm = AudioStreamBasicDescription()
        pcm.mFormatID = kAudioFormatLinearPCM
        pcm.mSampleRate = 48000
        pcm.mChannelsPerFrame = 2
        pcm.mBitsPerChannel = 24
        pcm.mFormatFlags = kLinearPCMFormatFlagIsSignedInteger | kLinearPCMFormatFlagIsPacked
        var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        #expect(AudioFormatGetProperty(kAudioFormatProperty_FormatInfo, 0, nil, &size, &pcm) == noErr)
        #expect(pcm.mBytesPerFrame == 6)
        #expect(pcm.mBytesPerPacket == 6)
        #expect(pcm.mFramesPerPacket == 1)
        var ima = AudioStreamBasicDescription()
        ima.mFormatID = kAudioFormatAppleIMA4
        ima.mSampleRate = 22050
        ima.mChannelsPerFrame = 2
        #expect(AudioFormatGetProperty(kAudioFormatProperty_FormatInfo, 0, nil, &size, &ima) == noErr)
        #expect(ima.mBytesPerPacket == 68)
        #expect(ima.mFramesPerPacket == 64)
    }

    // MARK: Names, framing, codecs

    @Test func namesAndFramingOfFormats() throws {
        var aac = AudioStreamBasicDescription()
        aac.mFormatID = kAudioFormatMPEG4AAC
        aac.mSampleRate = 44100
        aac.mChannelsPerFrame = 2
        aac.mFramesPerPacket = 1024
        let descriptionSize = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        var name: Unmanaged<CFString>?
        var size = UInt32(MemoryLayout<CFString>.size)
        #expect(AudioFormatGetProperty(kAudioFormatProperty_FormatName, descriptionSize, &aac, &size, &name) == noErr)
        let text = try #require(name?.takeRetainedValue()) as String
        #expect(text.hasPrefix("AAC"))
        var isVBR: UInt32 = 9
        size = 4
        #expect(AudioFormatGetProperty(kAudioFormatProperty_FormatIsVBR, descriptionSize, &aac, &size, &isVBR) == noErr)
        #expect(isVBR == 1)
        var framed: UInt32 = 9
        #expect(
            AudioFormatGetProperty(kAudioFormatProperty_FormatIsExternallyFramed, descriptionSize, &aac, &size, &framed)
                == noErr)
        #expect(framed == 1)
        var pcm = int16PCM(rate: 44100, channels: 2)
        #expect(AudioFormatGetProperty(kAudioFormatProperty_FormatIsVBR, descriptionSize, &pcm, &size, &isVBR) == noErr)
        #expect(isVBR == 0)
    }

    @Test func encodeAndDecodeFormatIDs() {
        func codes(_ property: AudioFormatPropertyID) -> [UInt32] {
            var size: UInt32 = 0
            guard AudioFormatGetPropertyInfo(property, 0, nil, &size) == noErr else { return [] }
            var codes = [UInt32](repeating: 0, count: Int(size) / 4)
            guard AudioFormatGetProperty(property, 0, nil, &size, &codes) == noErr else { return [] }
            return codes
        }
        let encoded = codes(kAudioFormatProperty_EncodeFormatIDs)
        let decoded = codes(kAudioFormatProperty_DecodeFormatIDs)
        for format in [kAudioFormatLinearPCM, kAudioFormatAppleLossless, kAudioFormatMPEG4AAC, kAudioFormatAppleIMA4] {
            #expect(encoded.contains(format))
            #expect(decoded.contains(format))
        }
        #expect(decoded.contains(kAudioFormatMPEGLayer3))
        #expect(decoded.contains(kAudioFormatFLAC))
    }

    // MARK: Channel layouts

    @Test func channelLayoutsForTagsAndBitmaps() throws {
        func layout(_ property: AudioFormatPropertyID, _ specifier: UInt32) throws -> [AudioChannelLabel] {
            var value = specifier
            var size: UInt32 = 0
            #expect(AudioFormatGetPropertyInfo(property, 4, &value, &size) == noErr)
            let raw = UnsafeMutableRawPointer.allocate(byteCount: Int(size), alignment: 8)
            defer { raw.deallocate() }
            #expect(AudioFormatGetProperty(property, 4, &value, &size, raw) == noErr)
            let header = raw.load(as: AudioChannelLayout.self)
            #expect(header.mChannelLayoutTag == kAudioChannelLayoutTag_UseChannelDescriptions)
            let offset = MemoryLayout<AudioChannelLayout>.offset(of: \AudioChannelLayout.mChannelDescriptions) ?? 12
            return (0..<Int(header.mNumberChannelDescriptions)).map { index in
                raw.load(
                    fromByteOffset: offset + index * MemoryLayout<AudioChannelDescription>.stride,
                    as: AudioChannelDescription.self
                ).mChannelLabel
            }
        }
        #expect(
            try layout(kAudioFormatProperty_ChannelLayoutForTag, kAudioChannelLayoutTag_Stereo) == [
                kAudioChannelLabel_Left, kAudioChannelLabel_Right,
            ])
        #expect(
            try layout(kAudioFormatProperty_ChannelLayoutForTag, kAudioChannelLayoutTag_MPEG_5_1_D) == [
                kAudioChannelLabel_Center, kAudioChannelLabel_Left, kAudioChannelLabel_Right,
                kAudioChannelLabel_LeftSurround, kAudioChannelLabel_RightSurround, kAudioChannelLabel_LFEScreen,
            ])
        // WAV's 5.1 mask: front left, right, centre, LFE, back left, back right.
        #expect(try layout(kAudioFormatProperty_ChannelLayoutForBitmap, 0x3F).count == 6)

        var fiveOne = AudioChannelLayout()
        fiveOne.mChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A
        let layoutSize = UInt32(MemoryLayout<AudioChannelLayout>.size)
        var channels: UInt32 = 0
        var size: UInt32 = 4
        #expect(
            AudioFormatGetProperty(
                kAudioFormatProperty_NumberOfChannelsForLayout, layoutSize, &fiveOne, &size, &channels)
                == noErr)
        #expect(channels == 6)
        var name: Unmanaged<CFString>?
        size = UInt32(MemoryLayout<CFString>.size)
        #expect(
            AudioFormatGetProperty(kAudioFormatProperty_ChannelLayoutName, layoutSize, &fiveOne, &size, &name) == noErr)
        let text = try #require(name?.takeRetainedValue()) as String
        #expect(text.contains("5.1"))
    }

    @Test func tagsForLayoutsAndChannelCounts() {
        // A layout given as descriptions names the tag of the same speakers in the same order.
        let size = MemoryLayout<AudioChannelLayout>.size + MemoryLayout<AudioChannelDescription>.stride
        let raw = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { raw.deallocate() }
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        let layout = raw.bindMemory(to: AudioChannelLayout.self, capacity: 1)
        layout.pointee.mChannelLayoutTag = kAudioChannelLayoutTag_UseChannelDescriptions
        layout.pointee.mNumberChannelDescriptions = 2
        let offset = MemoryLayout<AudioChannelLayout>.offset(of: \AudioChannelLayout.mChannelDescriptions) ?? 12
        for (index, label) in [kAudioChannelLabel_Left, kAudioChannelLabel_Right].enumerated() {
            let description = raw + offset + index * MemoryLayout<AudioChannelDescription>.stride
            description.storeBytes(of: label, as: AudioChannelLabel.self)
        }
        var tag: AudioChannelLayoutTag = 0
        var tagSize: UInt32 = 4
        #expect(
            AudioFormatGetProperty(kAudioFormatProperty_TagForChannelLayout, UInt32(size), raw, &tagSize, &tag) == noErr
        )
        #expect(tag == kAudioChannelLayoutTag_Stereo)

        var channels: UInt32 = 6
        var tagsSize: UInt32 = 0
        #expect(
            AudioFormatGetPropertyInfo(kAudioFormatProperty_TagsForNumberOfChannels, 4, &channels, &tagsSize) == noErr)
        var tags = [AudioChannelLayoutTag](repeating: 0, count: Int(tagsSize) / 4)
        #expect(
            AudioFormatGetProperty(kAudioFormatProperty_TagsForNumberOfChannels, 4, &channels, &tagsSize, &tags)
                == noErr)
        #expect(tags.contains(kAudioChannelLayoutTag_MPEG_5_1_A))
        #expect(tags.allSatisfy { $0 & 0xFFFF == 6 })
    }

    // MARK: Hostile questions: Apple's codes

    @Test func hostileQuestionsGetApplesCodes() {
        let garbage = [UInt8](repeating: 0xEE, count: 30)
        #expect(formatInfo(kAudioFormatAppleLossless, cookie: garbage).0 == kAudioFormatUnsupportedDataFormatError)
        #expect(formatInfo(kAudioFormatMPEG4AAC, cookie: [0xFF]).0 == kAudioFormatUnsupportedDataFormatError)
        #expect(formatInfo(kAudioFormatFLAC, cookie: garbage).0 == kAudioFormatUnsupportedDataFormatError)
        #expect(formatInfo(0x7A7A_7A7A, cookie: []).0 == kAudioFormatUnsupportedDataFormatError)
        // An ALAC cookie whose 'alac' atom claims more bytes than there are.
        var lying: [UInt8] = [0, 0, 0, 12] + Array("frmaalac".utf8) + [0, 0, 0x10, 0] + Array("alac".utf8)
        lying += [UInt8](repeating: 0, count: 28)
        #expect(formatInfo(kAudioFormatAppleLossless, cookie: lying).0 == kAudioFormatUnsupportedDataFormatError)

        var format = AudioStreamBasicDescription()
        var size: UInt32 = 12
        #expect(
            AudioFormatGetProperty(kAudioFormatProperty_FormatInfo, 0, nil, &size, &format)
                == kAudioFormatBadPropertySizeError)
        var tag: UInt16 = 2
        var layoutSize: UInt32 = 0
        #expect(
            AudioFormatGetPropertyInfo(kAudioFormatProperty_ChannelLayoutForTag, 2, &tag, &layoutSize)
                == kAudioFormatBadSpecifierSizeError)
        var unknownTag: UInt32 = 0x7777_0002
        #expect(
            AudioFormatGetPropertyInfo(kAudioFormatProperty_ChannelLayoutForTag, 4, &unknownTag, &layoutSize)
                == kAudioFormatUnknownFormatError)
        #expect(AudioFormatGetPropertyInfo(0x7A7A_7A7A, 0, nil, &layoutSize) == kAudioFormatUnsupportedPropertyError)
        // A layout whose count of descriptions its bytes do not hold.
        var layout = AudioChannelLayout()
        layout.mNumberChannelDescriptions = 0xFFFF_FFFF
        var channels: UInt32 = 0
        size = 4
        #expect(
            AudioFormatGetProperty(
                kAudioFormatProperty_NumberOfChannelsForLayout, UInt32(MemoryLayout<AudioChannelLayout>.size), &layout,
                &size, &channels) == kAudioFormatBadSpecifierSizeError)
    }

    // MARK: Global info

    @Test func readableAndWritableTypes() throws {
        let readable = try #require(globalCodes(kAudioFileGlobalInfo_ReadableTypes))
        let writable = try #require(globalCodes(kAudioFileGlobalInfo_WritableTypes))
        for type in [
            kAudioFileCAFType, kAudioFileAIFFType, kAudioFileAIFCType, kAudioFileWAVEType, kAudioFileM4AType,
            kAudioFileAAC_ADTSType, kAudioFileMP3Type, kAudioFileFLACType, kAudioFileNextType,
        ] {
            #expect(readable.contains(type))
            #expect(writable.contains(type))
        }
        for type in [kAudioFileAC3Type, kAudioFileAMRType, kAudioFileWave64Type] {
            #expect(readable.contains(type))
            #expect(!writable.contains(type))
        }
        #expect(Set(writable).isSubset(of: Set(readable)))
    }

    @Test func namesExtensionsAndMediaTypesOfTypes() throws {
        var type = kAudioFileCAFType
        var name: Unmanaged<CFString>?
        var size = UInt32(MemoryLayout<CFString>.size)
        #expect(AudioFileGetGlobalInfo(kAudioFileGlobalInfo_FileTypeName, 4, &type, &size, &name) == noErr)
        #expect(try #require(name?.takeRetainedValue()) as String == "CAF")
        #expect(
            try #require(globalStrings(kAudioFileGlobalInfo_ExtensionsForType, fileType: kAudioFileWAVEType)).contains(
                "wav"))
        #expect(
            try #require(globalStrings(kAudioFileGlobalInfo_ExtensionsForType, fileType: kAudioFileM4AType)).contains(
                "m4a"))
        #expect(
            try #require(globalStrings(kAudioFileGlobalInfo_MIMETypesForType, fileType: kAudioFileMP3Type)).contains(
                "audio/mpeg"))

        var all: Unmanaged<CFArray>?
        size = UInt32(MemoryLayout<CFArray>.size)
        #expect(AudioFileGetGlobalInfo(kAudioFileGlobalInfo_AllExtensions, 0, nil, &size, &all) == noErr)
        let extensions = try #require(all?.takeRetainedValue() as? [String])
        for ext in ["caf", "aif", "aiff", "wav", "m4a", "mp3", "flac", "opus", "aac"] {
            #expect(extensions.contains(ext))
        }

        var ext = "WAV" as CFString
        var typesSize: UInt32 = 0
        let pointerSize = UInt32(MemoryLayout<CFString>.size)
        #expect(
            AudioFileGetGlobalInfoSize(kAudioFileGlobalInfo_TypesForExtension, pointerSize, &ext, &typesSize) == noErr)
        var types = [AudioFileTypeID](repeating: 0, count: Int(typesSize) / 4)
        #expect(
            AudioFileGetGlobalInfo(kAudioFileGlobalInfo_TypesForExtension, pointerSize, &ext, &typesSize, &types)
                == noErr)
        #expect(types.contains(kAudioFileWAVEType))
    }

    @Test func formatsEachWritableTypeHolds() throws {
        let caf = try #require(globalCodes(kAudioFileGlobalInfo_AvailableFormatIDs, specifier: kAudioFileCAFType))
        for format in [kAudioFormatLinearPCM, kAudioFormatAppleLossless, kAudioFormatMPEG4AAC, kAudioFormatAppleIMA4] {
            #expect(caf.contains(format))
        }
        #expect(
            globalCodes(kAudioFileGlobalInfo_AvailableFormatIDs, specifier: kAudioFileAAC_ADTSType) == [
                kAudioFormatMPEG4AAC
            ])
        let wave = try #require(globalCodes(kAudioFileGlobalInfo_AvailableFormatIDs, specifier: kAudioFileWAVEType))
        for format in [kAudioFormatLinearPCM, kAudioFormatDVIIntelIMA, kAudioFormatULaw, kAudioFormatALaw] {
            #expect(wave.contains(format))
        }
        #expect(!wave.contains(kAudioFormatMPEG4AAC))
        let m4a = try #require(globalCodes(kAudioFileGlobalInfo_AvailableFormatIDs, specifier: kAudioFileM4AType))
        #expect(Set(m4a) == [kAudioFormatMPEG4AAC, kAudioFormatAppleLossless])

        // AIFF's linear PCM is big-endian (or a byte wide).
        var pair = AudioFileTypeAndFormatID(mFileType: kAudioFileAIFFType, mFormatID: kAudioFormatLinearPCM)
        let pairSize = UInt32(MemoryLayout<AudioFileTypeAndFormatID>.size)
        var size: UInt32 = 0
        #expect(
            AudioFileGetGlobalInfoSize(
                kAudioFileGlobalInfo_AvailableStreamDescriptionsForFormat, pairSize, &pair, &size)
                == noErr)
        var descriptions = [AudioStreamBasicDescription](
            repeating: .init(), count: Int(size) / MemoryLayout<AudioStreamBasicDescription>.size)
        #expect(
            AudioFileGetGlobalInfo(
                kAudioFileGlobalInfo_AvailableStreamDescriptionsForFormat, pairSize, &pair, &size, &descriptions)
                == noErr)
        #expect(!descriptions.isEmpty)
        for description in descriptions {
            #expect(description.mFormatID == kAudioFormatLinearPCM)
            #expect(description.mFormatFlags & kAudioFormatFlagIsBigEndian != 0 || description.mBitsPerChannel == 8)
            #expect(description.mSampleRate == 0)
        }
        // Hostile: a format the type does not hold, a type unknown, a specifier of the wrong size.
        pair = AudioFileTypeAndFormatID(mFileType: kAudioFileAIFFType, mFormatID: kAudioFormatMPEG4AAC)
        #expect(
            AudioFileGetGlobalInfoSize(
                kAudioFileGlobalInfo_AvailableStreamDescriptionsForFormat, pairSize, &pair, &size)
                == kAudioFileUnsupportedDataFormatError)
        var unknown: AudioFileTypeID = 0x7A7A_7A7A
        #expect(
            AudioFileGetGlobalInfoSize(kAudioFileGlobalInfo_FileTypeName, 4, &unknown, &size)
                == kAudioFileUnsupportedFileTypeError)
        #expect(
            AudioFileGetGlobalInfoSize(kAudioFileGlobalInfo_FileTypeName, 2, &unknown, &size)
                == kAudioFileBadPropertySizeError)
        #expect(
            AudioFileGetGlobalInfoSize(kAudioFileGlobalInfo_FileTypeName, 4, nil, &size)
                == kAudioFileBadPropertySizeError)
        #expect(AudioFileGetGlobalInfoSize(0x7A7A_7A7A, 0, nil, &size) == kAudioFileUnsupportedPropertyError)
        // A buffer too small for the list.
        var one: UInt32 = 0
        size = 4
        #expect(
            AudioFileGetGlobalInfo(kAudioFileGlobalInfo_ReadableTypes, 0, nil, &size, &one)
                == kAudioFileBadPropertySizeError)
    }
}

/// The cover art as Apple's `kAudioFilePropertyAlbumArtwork` hands it out: the picture's bytes as `CFData`,
/// retained for the caller (FFmpeg's APIC frame, its size and format as make-tagged-fixtures.sh records them).
@Test func albumArtworkIsTheCoverAsData() throws {
    let url = fixtures.appendingPathComponent("pictures/ffmpeg-apic-v24.mp3")
    var fileID: AudioFileID?
    #expect(AudioFileOpenURL(url as CFURL, .readPermission, 0, &fileID) == noErr)
    let file = try #require(fileID)
    defer { AudioFileClose(file) }
    var artwork: Unmanaged<CFData>?
    var size = UInt32(MemoryLayout<Unmanaged<CFData>?>.size)
    #expect(AudioFileGetProperty(file, kAudioFilePropertyAlbumArtwork, &size, &artwork) == noErr)
    let data = try #require(artwork).takeRetainedValue() as Data
    #expect(data.starts(with: [0xFF, 0xD8]) || data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    var tagSize: UInt32 = 0
    var writable: UInt32 = 0
    #expect(
        AudioFileGetPropertyInfo(file, kAudioFilePropertyID3Tag, &tagSize, &writable)
            == kAudioFileUnsupportedPropertyError)
    // The bitmap is an option set, as Swift imports it.
    let layout = AudioChannelLayout(
        mChannelLayoutTag: 0x10000, mChannelBitmap: [.bit_Left, .bit_Right], mNumberChannelDescriptions: 0,
        mChannelDescriptions: AudioChannelDescription())
    #expect(layout.mChannelBitmap.rawValue == 3)
}
