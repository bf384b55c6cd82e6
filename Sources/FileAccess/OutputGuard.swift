#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import AudioFormats

/// The one check every command that writes a file makes before it writes anything (DESIGN.md, "One output
/// guard"): a conversion, a batch's outputs and its report, a waveform, and every writer added later.
///
/// An output is refused when it is one of the run's inputs (by device and inode: through hard and symbolic
/// links, `..` and any spelling of the name), when it names something other than a regular file (a FIFO, a
/// device, a directory, a socket: afkit writes whole files, atomically, and streams only to standard
/// output), when it is where another output of the same run goes, and when it lies inside a source folder
/// the run walks (the next run would take it for a source), unless inside a folder the walk skips (a
/// batch's `--out`). Claim every output first, then write: a refused run writes nothing.
public struct OutputGuard: Sendable {
    /// Why an output was refused: a usage error, named.
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        /// The output, as the command was given it.
        public var output: String
        /// What is wrong with it.
        public var reason: String
        /// `'OUTPUT' REASON`.
        public var description: String { "'\(output)' \(reason)" }
    }

    /// Where an output goes: the file it replaces, or the name it takes in a folder.
    private enum Place: Hashable {
        case file(FileIdentity)
        case name(folder: FileIdentity, name: String)
    }

    private var inputs: [FileIdentity: String] = [:]
    private var walked: [FileIdentity: String] = [:]
    private var skipped: Set<Place> = []
    /// The output folder a walk skips (a batch's `--out`), as given: the place a refusal offers.
    private var outputFolder: String?
    private var claimed: [Place: String] = [:]
    /// Folders the run makes (a batch's output tree): an output may go into one, and none may be an output.
    private var made: [Place: String] = [:]
    /// Whether the command writes to standard output for `-` (said in a refusal).
    public var takesStandardOutput = false

    /// A guard for a run that reads `inputs` (files; `-` is standard input, where it is a file; a name that is
    /// not there is left out) and walks the folders `walkedFolders` for sources (every folder a walk entered,
    /// through links too), skipping `skippedFolders` (an output folder inside a source folder).
    public init(inputs: [String], walkedFolders: [String] = [], skippedFolders: [String] = []) {
        for input in inputs {
            var info = stat()
            let identity =
                input == "-"
                ? (fstat(0, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? FileIdentity(info) : nil)
                : FileIdentity(path: input)
            if let identity, self.inputs[identity] == nil {
                self.inputs[identity] = input == "-" ? "standard input" : input
            }
        }
        for folder in walkedFolders {
            if let identity = FileIdentity(path: folder) { walked[identity] = folder }
        }
        // A skipped folder not made yet (a batch's --out) is known by its place below one that is.
        skipped = Set(skippedFolders.compactMap(Self.place(ofFolder:)))
        outputFolder = skippedFolders.first
    }

    /// Records a folder the run makes (a batch's `--out` and the folders below it): outputs may go into it,
    /// and no output may be it.
    public mutating func claimFolder(_ folder: String) {
        guard let place = Self.place(ofFolder: folder), made[place] == nil else { return }
        made[place] = folder
    }

    /// Checks `output` and records it as this run's; `what` names it in a refusal ("the report"). Throws a
    /// ``Refusal`` (nothing written yet).
    public mutating func claim(_ output: String, as what: String = "the output") throws(Refusal) {
        var info = stat()
        let place: Place
        let elsewhere = "(write \(what) elsewhere)"
        if statPath(output, &info) == 0 {
            let identity = FileIdentity(info)
            if let input = inputs[identity] {
                throw Refusal(
                    output: output,
                    reason: input == output
                        ? "is an input of this run: \(what) would replace it \(elsewhere)"
                        : "is \(input == "standard input" ? input : "'\(input)'"), an input of this run: \(what) "
                            + "would replace it \(elsewhere)")
            }
            if let kind = Self.nonRegularKind(info.st_mode) {
                throw Refusal(
                    output: output,
                    reason: "is \(kind): afkit writes \(what) only as a regular file, made whole and then renamed "
                        + "into place (give a new name\(takesStandardOutput ? ", or '-' for standard output" : ""))")
            }
            place = .file(identity)
        } else {
            // A folder not made yet (a batch's subfolders) is named by its path below the nearest one there.
            let (existing, below) = Self.nearestExisting(output)
            guard let identity = FileIdentity(path: existing) else {
                throw Refusal(output: output, reason: "cannot be reached: its folder cannot be read")
            }
            place = .name(folder: identity, name: below)
            // Its folder must be there, or be one the run makes.
            let folder = Self.folderAndName(output).0
            if !isDirectory(folder), Self.place(ofFolder: folder).map({ made[$0] == nil }) ?? true {
                throw Refusal(
                    output: output, reason: "cannot be written: there is no folder '\(folder)' (create it first)")
            }
        }
        // A link is replaced, not written through, by a rename: never done to a link.
        var linkInfo = stat()
        if lstatPath(output, &linkInfo) == 0, linkInfo.st_mode & S_IFMT == S_IFLNK {
            throw Refusal(
                output: output,
                reason: "is a symbolic link: afkit writes \(what) whole and renames it into place, which would replace "
                    + "the link, not write through it (give the file it names\(takesStandardOutput ? ", or '-' for standard output" : ""))"
            )
        }
        if let folder = made[place] {
            throw Refusal(
                output: output,
                reason: folder == output
                    ? "is a folder this run makes \(elsewhere)" : "is '\(folder)', a folder this run makes \(elsewhere)"
            )
        }
        if let other = claimed[place] {
            throw Refusal(output: output, reason: "is also where this run writes \(other): give each its own name")
        }
        if let folder = insideWalkedFolder(output) {
            throw Refusal(
                output: output,
                reason: "is inside '\(folder)', a source folder this run reads: write \(what) outside it"
                    + (outputFolder.map { " (or inside '\($0)', the output folder)" } ?? ""))
        }
        claimed[place] = what == "the output" ? "'\(output)'" : "\(what) ('\(output)')"
    }

    /// Checks that standard output, where it is a regular file, is none of the inputs
    /// (`afkit convert in.caf - >> in.caf`).
    public func checkStandardOutput() throws(Refusal) {
        var info = stat()
        guard fstat(1, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let input = inputs[FileIdentity(info)] else {
            return
        }
        let named = input == "standard input" ? input : "'\(input)'"
        throw Refusal(
            output: "-", reason: "is standard output, which is \(named), an input of this run: redirect it elsewhere")
    }

    /// What `path` names, with its article ("a file", "a FIFO", "a folder"), or `nil` where nothing is
    /// there.
    public static func kind(of path: String) -> String? {
        var info = stat()
        guard statPath(path, &info) == 0 else { return nil }
        return nonRegularKind(info.st_mode) ?? "a file"
    }

    /// What a mode names, where it is not a regular file.
    static func nonRegularKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFDIR: "a folder"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }

    /// A path's folder (``parentFolder(of:)``, after any trailing slashes) and last name.
    static func folderAndName(_ path: String) -> (String, String) {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        return (parentFolder(of: trimmed), String(trimmed.split(separator: "/").last ?? Substring(trimmed)))
    }

    /// The nearest folder above `path` that exists, and the names below it on the way to `path`
    /// (`"sub/name.caf"`).
    static func nearestExisting(_ path: String) -> (folder: String, below: String) {
        var (current, below) = folderAndName(path)
        for _ in 0..<4096 {
            if pathExists(current) { break }
            let (parent, name) = folderAndName(current)
            if parent == current { break }
            below = name + "/" + below
            current = parent
        }
        // The names not made yet, with `.` and `..` among them resolved (no link can lie there).
        var names: [Substring] = []
        for name in below.split(separator: "/") where name != "." {
            if name == "..", let last = names.last, last != ".." { names.removeLast() } else { names.append(name) }
        }
        return (current, names.joined(separator: "/"))
    }

    /// Where a folder is: itself, or where it will be made.
    private static func place(ofFolder folder: String) -> Place? {
        var info = stat()
        if statPath(folder, &info) == 0 { return info.st_mode & S_IFMT == S_IFDIR ? .file(FileIdentity(info)) : nil }
        let (existing, below) = nearestExisting(folder)
        return FileIdentity(path: existing).map { .name(folder: $0, name: below) }
    }

    /// The walked source folder `output` lies in (physically: each `..` as the system resolves it), unless a
    /// skipped folder comes first on the way up.
    private func insideWalkedFolder(_ output: String) -> String? {
        guard !walked.isEmpty else { return nil }
        var (current, below) = Self.nearestExisting(output)
        // Folders not made yet on the way: one of them may be the skipped output folder.
        if let base = FileIdentity(path: current) {
            var prefix = ""
            for name in below.split(separator: "/").dropLast() {
                prefix += (prefix.isEmpty ? "" : "/") + name
                if skipped.contains(.name(folder: base, name: prefix)) { return nil }
            }
        }
        var previous: FileIdentity?
        for _ in 0..<256 {
            guard let identity = FileIdentity(path: current), identity != previous else { return nil }
            if skipped.contains(.file(identity)) { return nil }
            if let folder = walked[identity] { return folder }
            previous = identity
            current += "/.."
        }
        return nil
    }
}
