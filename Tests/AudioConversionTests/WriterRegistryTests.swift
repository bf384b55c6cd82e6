import AudioCodecs
import AudioContainers
import AudioConversion
import AudioFormats
import Foundation
import Testing

/// The write side generated from the registries: for every written container and every `-d` name a codec declares,
/// what `-hf` says the container holds is what a conversion writes (and reads back as that codec), and what it
/// does not list is refused before anything is written.
@Suite struct WriterRegistryTests {
    static let writtenTypes: [FileType] = ContainerRegistry.written.map(\.fileType)

    /// Each `-d` name parses back to the codec that declares it, and a linear PCM name to the layout it spells.
    @Test func everyDataFormatNameParsesBackToItsCodec() throws {
        for codec in CodecDescriptor.encoded {
            for name in codec.encoding?.dataFormatNames ?? [] {
                let specifier = try #require(DataFormatSpecifier(name), "\(name) does not parse")
                #expect(specifier.codec?.formatID == codec.formatID, "\(name)")
                let format = specifier.streamDescription(sampleRate: 48000, channels: 2)
                #expect(format.formatID == codec.formatID, "\(name)")
                #expect(CodecDescriptor.afconvertName(of: format) == name, "\(name) is not its own format's name")
                #expect(DataFormatSpecifier.names.contains(name))
            }
        }
        #expect(Set(DataFormatSpecifier.names).count == DataFormatSpecifier.names.count)
    }

    /// Every written container declares a default data format it holds, and each policy's family and widening name
    /// containers that are written.
    @Test func everyWriterPolicyNamesWhatItWrites() throws {
        for descriptor in ContainerRegistry.written {
            let policy = try #require(descriptor.writer?.policy)
            let specifier = try #require(DataFormatSpecifier(policy.defaultDataFormat))
            #expect(
                ConversionPlan.Destination.dataFormats(in: descriptor.fileType).contains(policy.defaultDataFormat),
                "\(descriptor.name)'s default \(specifier) is not among what it holds")
            for named in [policy.family, policy.widensTo].compactMap({ $0 }) {
                #expect(ContainerRegistry.descriptor(of: named)?.isWritten == true, "\(descriptor.name): \(named)")
            }
        }
    }

    /// For every written container and every `-d` name: a name `-hf` lists converts (the output reads back as the
    /// codec, at the rate and channels asked), and a name it does not list is a usage error with nothing written.
    @Test(arguments: writtenTypes)
    func helpFormatsAreWhatTheWriterTakes(_ type: FileType) throws {
        let folder = try Folder()
        let source = folder.path + "/source.wav"
        let rate = 48000.0
        let samples = (0..<9600).flatMap { index -> [Float] in
            let value = Float(0.25 * sin(2 * Double.pi * 440 * Double(index) / rate))
            return [value, -value]
        }
        try writeFloatWAV(samples, rate: rate, channels: 2, to: source)
        let listed = Set(ConversionPlan.Destination.dataFormats(in: type))
        for dataFormat in DataFormatSpecifier.names {
            // The name the format takes in the container (Ogg: `.ogg` for Vorbis, `.opus` for Opus), else its first.
            let name =
                DataFormatSpecifier(dataFormat).flatMap {
                    ConversionPlan.Destination.fileNameExtension(for: $0, in: type)
                }
                ?? type.descriptor.writtenExtensions[0]
            let output = folder.path + "/out-\(dataFormat.replacingOccurrences(of: ".", with: "_"))\(name)"
            var settings = ConversionSettings()
            settings.dataFormat = DataFormatSpecifier(dataFormat)
            settings.fileType = type
            if listed.contains(dataFormat) {
                _ = try AudioConverter.convert(input: source, output: output, settings: settings)
                let file = try AudioFile(path: output)
                let expected = try #require(DataFormatSpecifier(dataFormat)?.codec?.formatID)
                #expect(file.dataFormat.formatID == expected, "\(type) -d \(dataFormat)")
                #expect(file.dataFormat.channelsPerFrame == 2, "\(type) -d \(dataFormat)")
            } else {
                #expect(throws: ConversionUsageError.self, "\(type) -d \(dataFormat) is not listed but converts") {
                    _ = try AudioConverter.convert(input: source, output: output, settings: settings)
                }
                #expect(!FileManager.default.fileExists(atPath: output))
            }
        }
    }
}
