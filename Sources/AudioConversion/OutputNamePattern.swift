/// How a batch names each output below its output folder, without the extension (the container gives that):
/// text and the placeholders `{stem}` (the source's name without its extension), `{ext}` (the source's
/// extension, without the dot), `{dir}` (the source's folder below the batch's root, as the batch mirrors it) and
/// `{preset}` (the preset's name). The default, `{dir}/{stem}`, mirrors the source tree.
public struct OutputNamePattern: Sendable, Hashable, CustomStringConvertible {
    /// A piece of the pattern: text as written, or a placeholder's name.
    enum Piece: Sendable, Hashable {
        case text(String)
        case placeholder(String)
    }

    /// The placeholders a pattern may use.
    public static let placeholders = ["stem", "ext", "dir", "preset"]

    /// The default: the source's folder and name, as the batch mirrors the tree.
    public static let mirroring = OutputNamePattern(pieces: [.placeholder("dir"), .text("/"), .placeholder("stem")])

    let pieces: [Piece]

    /// The pattern as written.
    public var description: String {
        pieces.map {
            switch $0 {
            case .text(let text): text
            case .placeholder(let name): "{\(name)}"
            }
        }.joined()
    }

    private init(pieces: [Piece]) { self.pieces = pieces }

    /// Reads a pattern (`{stem}-{ext}`); a placeholder it does not know, a brace left open, or a name that could
    /// leave the output folder (an absolute path, a `..` step) is a usage error.
    public init(_ text: String) throws(ConversionUsageError) {
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { pieces.append(.text(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw ConversionUsageError("--name '\(text)': a '{' is not closed")
            }
            let name = String(rest[rest.index(after: open)..<close])
            guard Self.placeholders.contains(name) else {
                throw ConversionUsageError(
                    "--name '\(text)': no placeholder {\(name)}; the placeholders are "
                        + Self.placeholders.map { "{\($0)}" }.joined(separator: " "))
            }
            pieces.append(.placeholder(name))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        let written = pieces.compactMap { if case .text(let text) = $0 { text } else { nil } }.joined()
        guard !text.hasPrefix("/"), !written.split(separator: "/").contains(".."), !written.contains("}") else {
            throw ConversionUsageError(
                "--name '\(text)': the name goes below --out: no leading '/', no '..', no stray '}'")
        }
        guard pieces.contains(.placeholder("stem")) || pieces.contains(.placeholder("dir")) || !written.isEmpty else {
            throw ConversionUsageError("--name '\(text)': the pattern names nothing")
        }
        self.pieces = pieces
    }

    /// Whether the pattern uses `placeholder`.
    public func uses(_ placeholder: String) -> Bool { pieces.contains(.placeholder(placeholder)) }

    /// The output's path below the output folder, without the extension, for a source at `relative` (its path
    /// below the batch's root, as mirrored); empty folder names (an empty `{dir}`) are dropped.
    public func name(forSourceAt relative: String, preset: Preset) -> String {
        let slash = relative.lastIndex(of: "/")
        let folder = slash.map { String(relative[..<$0]) } ?? ""
        let file = slash.map { String(relative[relative.index(after: $0)...]) } ?? relative
        let dot = file.lastIndex(of: ".").flatMap { $0 == file.startIndex ? nil : $0 }
        let values = [
            "stem": dot.map { String(file[..<$0]) } ?? file,
            "ext": dot.map { String(file[file.index(after: $0)...]) } ?? "",
            "dir": folder, "preset": preset.rawValue,
        ]
        let text = pieces.map {
            switch $0 {
            case .text(let text): text
            case .placeholder(let name): values[name] ?? ""
            }
        }.joined()
        let name = text.split(separator: "/").joined(separator: "/")
        // A name that comes out empty (`{dir}` for a source at the root) is the source's stem there: an output is
        // never a hidden `.caf`.
        guard let last = name.split(separator: "/").last, !last.isEmpty else {
            return (name.isEmpty ? "" : name + "/") + (values["stem"] ?? "")
        }
        return name
    }

    /// Patterns that name apart sources that share a stem, this one extended, in the order a message offers them.
    public var separatingCandidates: [OutputNamePattern] {
        let withExtension = uses("ext") ? self : OutputNamePattern(pieces: pieces + [.text("-"), .placeholder("ext")])
        let mirrored =
            withExtension.uses("dir")
            ? withExtension : OutputNamePattern(pieces: [.placeholder("dir"), .text("/")] + withExtension.pieces)
        return [withExtension, mirrored]
    }
}
