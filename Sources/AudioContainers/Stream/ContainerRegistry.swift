import AudioFormats
import FileAccess
import StreamParsing

/// Every container afkit reads, one registration line each, in the order their signatures are tried.
public enum ContainerRegistry {
    /// The descriptors, in detection order (a family's first type carries its signatures and parser).
    public static let all: [ContainerDescriptor] = [
        CAF.descriptor,
        AIFF.descriptor, AIFF.compressedDescriptor,
        WAVE.descriptor, WAVE.rf64Descriptor,
        MP4.audioDescriptor, MP4.descriptor, MP4.threeGPDescriptor,
        ADTS.descriptor,
        MPEGAudio.descriptor,
        FLAC.descriptor,
        Ogg.descriptor,
        Wave64.descriptor,
        AU.descriptor,
        AC3.descriptor, AC3.enhancedDescriptor,
        LOAS.descriptor,
        AMR.descriptor,
    ]

    private static let byType: [FileType: ContainerDescriptor] = Dictionary(
        all.map { ($0.fileType, $0) }, uniquingKeysWith: { first, _ in first })

    /// The descriptor of a registered container; `nil` for an identifier nothing registers.
    public static func descriptor(of fileType: FileType) -> ContainerDescriptor? { byType[fileType] }

    /// The containers afkit writes, in the order `-hf` lists them.
    public static let written: [ContainerDescriptor] = all.filter(\.isWritten)

    /// The names afkit writes outputs under (`.caf`, `.aif`, ...), each once, in the registry's order.
    public static let writtenExtensions: [String] = written.reduce(into: []) { names, written in
        for name in written.writtenExtensions where !names.contains(name) { names.append(name) }
    }

    /// Every extension a folder walk takes: the files of every container afkit reads.
    public static let walkedExtensions: Set<String> = Set(all.flatMap(\.extensions))

    /// The sound files below `folder`, as every command's folder walk takes them: files named with an extension
    /// of a container afkit reads (symbolic links followed, macOS's `._` files and `.DS_Store` left out, the
    /// `excluding` folders not entered); `skipped` holds the other files, for a line that names them, and
    /// `folders` every folder the walk entered (through links too).
    public static func soundFiles(below folder: String, excluding: [String] = []) throws -> (
        files: [String], skipped: [String], folders: [String]
    ) {
        var files: [String] = []
        var skipped: [String] = []
        let walk = try walkFolder(folder, excluding: excluding)
        for file in walk.files {
            if walkedExtensions.contains(nameExtension(of: file)) { files.append(file) } else { skipped.append(file) }
        }
        return (files, skipped, walk.folders)
    }

    /// The line that says what a walk skipped and why (`nil` for nothing skipped): how many, their extensions
    /// and the first few names.
    public static func skippedNote(_ skipped: [String], command: String) -> String? {
        guard !skipped.isEmpty else { return nil }
        let kinds = Set(skipped.map { nameExtension(of: $0) }).sorted().map { $0.isEmpty ? "no extension" : "." + $0 }
        let names = skipped.prefix(5).map { "'\($0)'" }.joined(separator: ", ") + (skipped.count > 5 ? ", ..." : "")
        return
            "\(command): skipped \(skipped.count) \(skipped.count == 1 ? "file" : "files") not named as a sound file "
            + "afkit reads (\(kinds.joined(separator: ", "))): \(names)"
    }

    /// The read signature entries in registry order, for ``FileSignature/table``.
    static var signatureEntries: [FileSignature.Entry] { all.flatMap(\.signatures) }
}

extension FileType {
    /// The container's descriptor. An identifier nothing registers gets a stand-in named by it.
    public var descriptor: ContainerDescriptor {
        ContainerRegistry.descriptor(of: self)
            ?? ContainerDescriptor(
                self, name: rawValue, kind: "a '\(rawValue)' file", fileTypeID: FourCharCode(rawValue: 0),
                extensions: [])
    }

    /// Apple's AudioFileTypeID for the container.
    public var fileTypeID: FourCharCode { descriptor.fileTypeID }

    /// The container's name in messages ("CAF", "MPEG audio", "Wave64").
    public var name: String { descriptor.name }

    /// What a file of this container is, as a message says it ("a CAF file", "an ADTS (AAC) stream").
    public var kindDescription: String { descriptor.kindDescription }

    /// The file name extensions (lower case, no dot) files of this container go by.
    public var knownExtensions: Set<String> { Set(descriptor.extensions + descriptor.otherExtensions) }

    /// The same, most usual first (what a rename suggests: `.wav`, never a random one of them).
    public var extensionsInOrder: [String] {
        var seen = Set<String>()
        return (descriptor.extensions + descriptor.otherExtensions).filter { seen.insert($0).inserted }
    }

    /// afconvert's `-f` code for the container (Apple's AudioFileTypeID where afkit does not write it).
    public var afconvertCode: String { descriptor.formatCodes.first ?? fileTypeID.description }

    /// The names an output of this container takes, most usual first (`.caf`).
    public var fileNameExtensions: [String] { descriptor.writtenExtensions }

    /// The name an output of this container written by `-f code` takes: the code's own extension where the name
    /// chooses the codec (`-f ogg`: `.ogg`, Vorbis; `-f opus`: `.opus`, Opus), else the usual one (`-f adts`:
    /// `.aac`).
    public func fileNameExtension(forCode code: String?) -> String {
        let namesChoose = !(descriptor.writer?.policy.dataFormatsByExtension.isEmpty ?? true)
        let named = code.map { "." + $0.lowercased() }
        return named.flatMap { namesChoose && fileNameExtensions.contains($0) ? $0 : nil }
            ?? fileNameExtensions.first ?? ""
    }

    /// The container a file name extension usually names, used only as a hint to break ties.
    public init?(fileExtension: String) {
        let lower = fileExtension.lowercased()
        guard let found = ContainerRegistry.all.first(where: { $0.hintExtensions.contains(lower) }) else { return nil }
        self = found.fileType
    }

    /// The file type an output file name asks for (`.caf`, `.m4a`, `.opus`), among those afkit writes.
    public init?(outputPath: String) {
        let name = outputPath.split(separator: "/").last.map(String.init) ?? outputPath
        guard let dot = name.lastIndex(of: ".") else { return nil }
        let suffix = name[dot...].lowercased()
        guard let found = ContainerRegistry.written.first(where: { $0.writtenExtensions.contains(suffix) }) else {
            return nil
        }
        self = found.fileType
    }

    /// A file type from afconvert's `-f` codes (`caff`, `AIFF`, `AIFC`, `WAVE`, `RF64`, `m4af`, ...), and
    /// `opus` for Ogg Opus, among those afkit writes.
    public init?(afconvertCode code: String) {
        guard let found = ContainerRegistry.written.first(where: { $0.formatCodes.contains(code) }) else {
            return nil
        }
        self = found.fileType
    }

    /// The container a `Content-Type` names, if it names one.
    public init?(mediaType: String) {
        let type =
            mediaType.split(separator: ";").first.map { String($0).trimmingWhitespace().lowercased() } ?? ""
        guard let found = ContainerRegistry.all.first(where: { $0.mediaTypes.contains(type) }) else { return nil }
        self = found.fileType
    }
}

extension String {
    /// The string without spaces and tabs at either end.
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
