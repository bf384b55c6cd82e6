import AudioFormats
import FileAccess
import StreamParsing

extension HLS {
    /// The trust boundary between a playlist and what it names: the one place where every reader (``Reader``,
    /// the validator, `info`, `packets`, on the disk and over HTTP) decides whether a resource a playlist names
    /// may be read.
    ///
    /// - A playlist on the disk names files below its own folder (or below the folder the user gave): never an
    ///   absolute path elsewhere, `..` or a symbolic link that leads out, a device, `/proc`, `/sys` or `/dev`.
    /// - A playlist on the disk reaches the network only where ``allowsNetwork`` says so (`--allow-network`).
    /// - A playlist read over HTTP names `http:` and `https:` resources on any host (as HLS does), never a
    ///   local path or a `file:` URL; no other scheme is read from anywhere.
    ///
    /// The location the user named is read as it is (the boundary is for what the files name).
    public struct ResourceAccess: Sendable {
        /// Reads a URL over HTTP, all of it or a byte range: the caller's (AudioContainers has no network).
        public typealias NetworkFetch = @Sendable (_ url: String, _ range: ByteRange?) throws -> [UInt8]

        /// The playlist the user named (a path or URL).
        public let named: String
        /// For a playlist on the disk: the folder its files must lie below, as given and as a real path (`nil`
        /// where it cannot be resolved: then nothing it names is read).
        public let folder: (given: String, real: String?)?
        /// Whether a playlist on the disk may name `http:` and `https:` resources.
        public let allowsNetwork: Bool
        /// Whether the playlist itself must lie below the folder (one a folder walk found: a link in the folder
        /// given that leads out is not read).
        private let confinesPlaylist: Bool
        private let network: NetworkFetch?

        /// The boundary for the playlist the user named at `playlist`: a playlist on the disk reads below
        /// `folder` (its own folder where `nil`; where given, the playlist itself must lie below it too), the
        /// network only with `allowsNetwork`, through `network`.
        public init(
            playlist: String, folder: String? = nil, allowsNetwork: Bool = false, network: NetworkFetch? = nil
        ) {
            named = playlist
            self.allowsNetwork = allowsNetwork
            confinesPlaylist = folder != nil
            self.network = network
            if HLS.scheme(of: playlist) != nil {
                self.folder = nil
            } else {
                // Its own folder as the path gives it, with its slash (`pkg/`; empty for a bare name).
                let given = folder ?? pathParts(playlist).folder
                self.folder = (given, realPath(given.isEmpty ? "." : given))
            }
        }

        /// Whether the named playlist was read over HTTP.
        public var isRemote: Bool { folder == nil }

        /// Refuses `location` (resolved against the playlist that names it) where the boundary does not let it
        /// be read, with an error naming it and the rule; nothing is opened or fetched.
        public func check(_ location: String) throws {
            let isNamed = location == named
            if let scheme = HLS.scheme(of: location) {
                guard scheme == "http" || scheme == "https" else {
                    throw refusal(
                        location, "a \(scheme): URI; afkit reads a playlist's resources over http and https only")
                }
                guard isNamed || isRemote || allowsNetwork else {
                    throw refusal(
                        location,
                        "a network resource named by a playlist on the disk; afkit reaches the network from a "
                            + "playlist on the disk only when asked (--allow-network)")
                }
                return
            }
            // A NUL (`%00`) would cut the path the system is given short of the one the playlist names.
            guard !location.utf8.contains(0) else { throw refusal(location, "a NUL byte in a path") }
            guard !isNamed else { return }
            guard let folder else {
                throw refusal(location, "a local path named by a playlist read over HTTP, which afkit never reads")
            }
            // Lexically below the folder as given: an absolute path elsewhere is refused before anything is opened
            // (the real path is checked as the file is opened).
            let prefix = folder.given.isEmpty ? "" : folder.given.hasSuffix("/") ? folder.given : folder.given + "/"
            guard location.hasPrefix(prefix), prefix.hasPrefix("/") || !location.hasPrefix("/"), folder.real != nil,
                !Self.climbsOut(location.dropFirst(prefix.count))
            else { throw refusal(location, outsideRule) }
        }

        /// Whether a relative path's `..` climbs above where it starts, as written (links aside: the real path
        /// is checked at the open), so a path that leads out is refused whether or not its file exists.
        static func climbsOut(_ path: Substring) -> Bool {
            var depth = 0
            for part in path.split(separator: "/", omittingEmptySubsequences: true) {
                if part == ".." { depth -= 1 } else if part != "." { depth += 1 }
                if depth < 0 { return true }
            }
            return false
        }

        /// The bytes at `location` (resolved against the playlist that names it), or `range` of them, where the
        /// boundary lets it be read (``check(_:)``; a file only while it really lies below the folder once every
        /// link is followed); otherwise an error naming the location and the rule.
        public func fetch(_ location: String, _ range: ByteRange?) throws -> [UInt8] {
            try check(location)
            if HLS.scheme(of: location) != nil {
                guard let network else {
                    throw refusal(location, "a network resource, and this reader reads files on the disk only")
                }
                return try network(location, range)
            }
            guard location != named || confinesPlaylist, let real = folder?.real else {
                return try HLS.readLocalResource(location, range: range)
            }
            do {
                return try HLS.readLocalResource(location, range: range, below: real)
            } catch FileAccessRefusal.outsideFolder {
                throw refusal(location, outsideRule)
            }
        }

        /// The fetch a ``Reader`` or the validator takes.
        public var fetcher: @Sendable (_ location: String, _ range: ByteRange?) throws -> [UInt8] {
            { [self] in try fetch($0, $1) }
        }

        private var outsideRule: String {
            "outside the folder '\(folder?.given.isEmpty == false ? folder?.given ?? "." : ".")' (an absolute "
                + "path, '..' or a symbolic link leading out, or the system's /proc, /sys or /dev); a playlist on "
                + "the disk reads only files below its own folder"
        }

        private func refusal(_ location: String, _ rule: String) -> AudioFileError {
            .illegalOperation("hls: '\(location)' is not read: \(rule)")
        }
    }

    /// A file's bytes (or `range` of them), refusing more than `limit`: what a reader or the validator fetches
    /// from the disk. A URL is not read here. With `folder` (a real path), the file must lie below it
    /// (``ResourceAccess`` says why not).
    public static func readLocalResource(
        _ path: String, range: ByteRange? = nil, limit: Int = maximumResourceSize, below folder: String? = nil
    )
        throws
        -> [UInt8]
    {
        if path.contains("://") {
            throw AudioFileError.illegalOperation(
                "'\(path)': playlists and segments on the disk are read here; fetch URLs over HTTP")
        }
        let file = try ReadableFile(path: path, below: folder)
        let start = range?.offset ?? 0
        let count = range.map(\.length) ?? (file.size - start)
        guard start >= 0, count >= 0, start + count <= file.size else {
            throw AudioFileError.truncated(
                "'\(path)' holds \(file.size) bytes; the byte range \(count)@\(start) runs past them", offset: file.size
            )
        }
        guard count <= Int64(limit) else {
            throw AudioFileError.limitExceeded("'\(path)': \(count) bytes, over afkit's limit of \(limit)", offset: 0)
        }
        var bytes = [UInt8](repeating: 0, count: Int(count))
        let read = try bytes.withUnsafeMutableBytes { try file.read(into: $0, at: start) }
        guard read == Int(count) else {
            throw AudioFileError.truncated(
                "'\(path)' ended after \(read) of \(count) bytes", offset: start + Int64(read))
        }
        return bytes
    }
}
