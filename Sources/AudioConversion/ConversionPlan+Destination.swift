import AudioCodecs
import AudioContainers
import AudioDecoding
import AudioEngines
import AudioFormats
import FileAccess

extension ConversionPlan {
    /// Where the output goes and in what, as far as the settings decide before the source is opened.
    /// The command works it out while it checks its options, so a usage error comes before any work.
    public struct Destination: Sendable {
        /// The output's container (AIFF may still become AIFF-C for data plain AIFF cannot hold).
        public var fileType: FileType
        /// The data format asked for; `nil`: the source's sample format where the container holds it,
        /// else the container's default.
        public var dataFormat: DataFormatSpecifier?

        /// Whether integer PCM is asked for, which a source of more bits (or of floats, or compressed) is
        /// dithered to.
        public var mayDither: Bool {
            if case .linearPCM(_, false, _, _) = dataFormat?.kind { return true }
            return false
        }

        /// The destination of `output` under `settings`; throws ``ConversionUsageError`` for a name,
        /// container and data format that do not go together, saying what would fit.
        public init(output: String, settings: ConversionSettings) throws {
            fileType = try Self.fileType(for: output, settings: settings)
            // A container whose codec follows the name (Ogg: `.opus` Opus, `.ogg` Vorbis): `-f`'s code, else the
            // output's name, decides where nothing else does; a name given for one codec holds no other.
            let name = output.split(separator: "/").last.map(String.init) ?? output
            let suffix = name.lastIndex(of: ".").map { String(name[$0...]).lowercased() }
            let named =
                settings.fileType != nil && settings.fileTypeCode != nil
                ? fileType.fileNameExtension(forCode: settings.fileTypeCode) : suffix
            var specifier = settings.dataFormat
            if settings.adaptsToContainer, let asked = specifier {
                specifier = Self.adapted(asked, to: fileType, named: named, explicitly: settings.fileType != nil)
            }
            if let policy = fileType.descriptor.writer?.policy {
                if specifier == nil, let named, policy.dataFormatsByExtension[named.lowercased()] != nil {
                    specifier = DataFormatSpecifier(policy.defaultDataFormat(forExtension: named))
                }
                let chosen = specifier ?? DataFormatSpecifier(policy.defaultDataFormat(forExtension: named))
                if let suffix, let insisted = policy.dataFormatsByExtension[suffix].flatMap(DataFormatSpecifier.init),
                    let chosen, chosen.kind != .copy, chosen.kind != insisted.kind
                {
                    let fitting = Self.fileNameExtension(for: chosen, in: fileType) ?? fileType.fileNameExtensions[0]
                    throw ConversionUsageError(
                        "'\(name)' names \(insisted.codec?.name ?? insisted.description), not "
                            + "\(chosen.codec?.name ?? chosen.description): name it \(fitting), or give -d \(insisted)")
                }
            }
            // `-d 0` is checked against the source, when the plan is made.
            if let specifier, specifier.kind != .copy {
                try Self.check(specifier, in: fileType, explicit: settings.fileType != nil)
            }
            dataFormat = specifier
        }

        /// A preset's data format as the container takes it (a `-d` the user gives stays, and is refused where it
        /// does not fit): a codec the container cannot hold gives way to its default where both lose alike (a
        /// preset's AAC becomes the MP3 an `.mp3` name needs; its Apple Lossless, FLAC in a FLAC file); integer PCM
        /// takes the container's byte order where `-f` asks for a container that would otherwise widen for it
        /// (`-f AIFF` stays plain AIFF; an `.aif` name alone becomes AIFF-C). The default is the one the output's
        /// name (`named`, `-f`'s code's or the file's extension) gives: a preset's AAC in an `.ogg` is Vorbis.
        static func adapted(
            _ specifier: DataFormatSpecifier, to fileType: FileType, named: String? = nil, explicitly: Bool
        ) -> DataFormatSpecifier {
            guard let policy = fileType.descriptor.writer?.policy else { return specifier }
            if case .linearPCM(let bits, false, let isBigEndian, true) = specifier.kind, bits > 8 {
                guard explicitly, policy.widensTo != nil, !holds(specifier, in: fileType, explicit: true),
                    let order = policy.pcmByteOrder, order != .source
                else { return specifier }
                let big = order == .bigEndian
                guard big != isBigEndian else { return specifier }
                return DataFormatSpecifier("\(big ? "BE" : "LE")I\(bits)") ?? specifier
            }
            guard !holds(specifier, in: fileType, explicit: explicitly), let codec = specifier.codec,
                let fallback = DataFormatSpecifier(policy.defaultDataFormat(forExtension: named)),
                let other = fallback.codec,
                codec.isLossless == other.isLossless, other.formatID != .lpcm
            else { return specifier }
            return fallback
        }

        /// The container an output gets: `-f`, else the name's (within what a preset allows), else the
        /// preset's first.
        static func fileType(for output: String, settings: ConversionSettings) throws -> FileType {
            let named = FileType(outputPath: output)
            func same(_ a: FileType, _ b: FileType) -> Bool {
                a == b || (a.isAIFF && b.isAIFF) || ([.wav, .rf64].contains(a) && [.wav, .rf64].contains(b))
            }
            let name = output.split(separator: "/").last.map(String.init) ?? output
            if let explicit = settings.fileType {
                if let named, !same(named, explicit) {
                    throw ConversionUsageError(
                        "-f \(explicit.afconvertCode) writes \(explicit.fileNameExtensions[0]) files, "
                            + "but the output is named '\(name)': name it \(explicit.fileNameExtensions.joined(separator: " or "))"
                    )
                }
                if let allowed = settings.allowedFileTypes, !allowed.contains(where: { same($0, explicit) }) {
                    throw ConversionUsageError(
                        "\(settings.name ?? "these settings") cannot write -f "
                            + "\(settings.fileTypeCode ?? explicit.afconvertCode); "
                            + "it writes "
                            + allowed.flatMap { $0 == .wav ? [.wav, .rf64] : [$0] }.map(\.afconvertCode)
                            .joined(separator: ", "))
                }
                return explicit
            }
            if let allowed = settings.allowedFileTypes {
                guard let named else { return allowed[0] }
                guard allowed.contains(where: { same($0, named) }) else {
                    throw ConversionUsageError(
                        "\(settings.name ?? "these settings") cannot write '\(name)': name the output "
                            + allowed.map { $0.fileNameExtensions[0] }.joined(separator: ", "))
                }
                return named
            }
            guard let named else {
                throw ConversionUsageError(
                    "cannot tell the output type from '\(name)'; give -f or name it "
                        + spokenList(ContainerRegistry.writtenExtensions))
            }
            return named
        }

        /// The `-d` names `-f fileType` holds, as its writer and the checks of `-d` answer (afconvert's `-hf`).
        public static func dataFormats(in fileType: FileType) -> [String] {
            DataFormatSpecifier.names.filter { name in
                DataFormatSpecifier(name).map { (try? check($0, in: fileType, explicit: true)) != nil } ?? false
            }
        }

        /// Whether `fileType`'s writer holds `specifier`'s data: the writer of the type it widens to (AIFF-C, which
        /// an `.aif` name may become) unless `-f` named it (`explicit`: `-f AIFF` is plain AIFF); a usage error in
        /// afconvert's spelling where it does not.
        public static func check(_ specifier: DataFormatSpecifier, in fileType: FileType, explicit: Bool) throws {
            if case .linearPCM(let bits, let isFloat, let isBigEndian, let isSigned) = specifier.kind,
                let advice = pcmAdvice(
                    fileType, explicit: explicit, bits: bits, isFloat: isFloat, isBigEndian: isBigEndian,
                    isSigned: isSigned)
            {
                throw ConversionUsageError(advice)
            }
            guard !holds(specifier, in: fileType, explicit: explicit) else { return }
            // What fits, as the writer answers for each of the formats `-d` names (every PCM layout as one).
            var fits: [String] = []
            for candidate in DataFormatSpecifier.names.compactMap(DataFormatSpecifier.init)
            where holds(candidate, in: fileType, explicit: explicit) {
                var name = candidate.description
                if case .linearPCM = candidate.kind { name = "linear PCM" }
                if !fits.contains(name) { fits.append(name) }
            }
            if fits.isEmpty { fits = ["any format"] }
            let widened = fileType.descriptor.writer?.policy.widensTo
            // The first container that holds it (CAF for all but Vorbis, which goes in Ogg), by its name for it.
            let holder = ContainerRegistry.written.lazy.map(\.fileType).first {
                holds(specifier, in: $0, explicit: true)
            }
            let named = holder.map { fileNameExtension(for: specifier, in: $0) ?? $0.fileNameExtension(forCode: nil) }
            let alternative =
                explicit && widened.map { holds(specifier, in: $0, explicit: true) } == true
                ? "-f \(widened?.afconvertCode ?? "")" : "a \(named ?? ".caf") output"
            throw ConversionUsageError(
                "\(fileType.afconvertCode) files cannot hold -d \(specifier.description): use \(spokenList(fits)), "
                    + "or \(alternative)")
        }

        /// The first of `fileType`'s names whose default data format is `specifier`'s codec (`.ogg` for Vorbis,
        /// `.opus` for Opus), or `nil` where no name asks for it.
        public static func fileNameExtension(for specifier: DataFormatSpecifier, in fileType: FileType) -> String? {
            guard let policy = fileType.descriptor.writer?.policy else { return nil }
            return fileType.fileNameExtensions.first { name in
                DataFormatSpecifier(policy.defaultDataFormat(forExtension: name))?.kind == specifier.kind
            }
        }

        /// Whether `fileType`'s writer holds `specifier`'s data (unless `explicit`, the writer of the type it widens
        /// to: AIFF as AIFF-C).
        static func holds(_ specifier: DataFormatSpecifier, in fileType: FileType, explicit: Bool) -> Bool {
            let format = specifier.streamDescription(sampleRate: 44100, channels: 2)
            let writing = explicit ? fileType : fileType.descriptor.writer?.policy.widensTo ?? fileType
            return (try? AudioFileWriter.check(format, in: writing)) != nil
        }

        /// How to spell the linear PCM a container holds, where it cannot hold the layout asked for (`nil`: it
        /// can): the same samples in its byte order and its 8-bit sign, as its policy declares them.
        private static func pcmAdvice(
            _ fileType: FileType, explicit: Bool, bits: UInt32, isFloat: Bool, isBigEndian: Bool, isSigned: Bool
        ) -> String? {
            guard let policy = fileType.descriptor.writer?.policy, policy.pcmByteOrder != nil else { return nil }
            let name = (explicit ? fileType : policy.widensTo ?? fileType).descriptor.name
            if bits == 8 && !isFloat {
                guard isSigned != policy.signedEightBit else { return nil }
                return
                    "\(name) holds 8-bit samples \(policy.signedEightBit ? "signed: use -d I8" : "unsigned: use -d UI8")"
            }
            let asked = DataFormatSpecifier(
                "\(isBigEndian ? "BE" : "LE")\(isFloat ? "F" : "I")\(bits)")
            guard let asked, !holds(asked, in: fileType, explicit: explicit), let order = policy.pcmByteOrder,
                order != .source
            else {
                return nil
            }
            let big = order == .bigEndian
            let what = isFloat ? "floats" : "\(bits)-bit samples"
            return
                "\(name) holds \(big ? "big" : "little")-endian \(what): use -d \(big ? "BE" : "LE")\(isFloat ? "F" : "I")\(bits)"
        }
    }
}
