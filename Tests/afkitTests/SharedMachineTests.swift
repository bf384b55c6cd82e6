import AudioContainers
import AudioFormats
import FileAccess
import Foundation
import LoopbackServers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Safe on a shared build machine: temporaries nobody can hijack, outputs that are devices or the input
/// itself never renamed over or re-encoded in place.
@Suite(.serialized) struct SharedMachineTests {
    static var isRoot: Bool { getuid() == 0 }

    /// Temporary names are random (no PID to predict), differ call to call, and fit in NAME_MAX.
    @Test func temporaryNamesCannotBePredicted() throws {
        let names = (0..<200).map { _ in temporaryPath(beside: "/shared/out.caf") }
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.hasPrefix("/shared/.out.caf.afkit-") && $0.hasSuffix(".tmp") })
        #expect(!names.contains { $0.contains("-\(getpid())-") })
        let long = String(repeating: "n", count: 251) + ".caf"
        let path = temporaryPath(beside: "/shared/" + long)
        #expect(path.split(separator: "/").last!.utf8.count <= 255)
        // And a conversion to a 251-character name works.
        let folder = try Loopback.temporaryFolder("long-name")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let name = String(repeating: "a", count: 247) + ".caf"
        let result = try Command.run(["convert", "wav/pcm-s16-stereo.wav", folder + "/" + name])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [name])
    }

    /// Another user who can write the output folder plants links to a root-owned file under every name
    /// the old scheme would use, and swaps the temporary for a link while it is written: root's conversion
    /// never writes through a link, and its output is never the attacker's link.
    @Test func plantedLinksAreNeverFollowed() throws {
        let folder = try Loopback.temporaryFolder("shared")  // mode 0777, like a shared folder
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let victim = try Loopback.temporaryFolder("victim") + "/secret"
        defer { try? FileManager.default.removeItem(atPath: parentFolder(of: victim)) }
        try Data("root's own file".utf8).write(to: URL(fileURLWithPath: victim))
        chmod(victim, 0o600)
        // The next PIDs' names under the old scheme, planted as another user where the test is root.
        // One process plants them all (perl's symlink), so the PIDs that follow are the ones planted.
        let next = Int(getpid())
        let plant =
            "for my $p (\(next)..\(next + 3000)) { for my $n (1..2) { symlink('\(victim)', "
            + "'\(folder)/.out.caf.afkit-' . $p . '-' . $n . '.tmp') or die } }"
        let planter = Process()
        planter.executableURL = URL(fileURLWithPath: Self.isRoot ? "/usr/bin/setpriv" : "/usr/bin/perl")
        planter.arguments =
            (Self.isRoot ? ["--reuid=65534", "--regid=65534", "--clear-groups", "perl"] : []) + ["-e", plant]
        try planter.run()
        planter.waitUntilExit()
        #expect(planter.terminationStatus == 0)
        let result = try Command.run(["convert", "wav/pcm-s16-stereo.wav", folder + "/out.caf"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "root's own file")
        var info = stat()
        #expect(lstat(folder + "/out.caf", &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
        #expect(try AudioFile(path: folder + "/out.caf").packetCount > 0)

        // The temporary swapped for a link while it is being written: the write refuses, the link is not
        // renamed over the output, the victim is untouched.
        let output = folder + "/swapped.caf"
        #expect(throws: AudioFileError.self) {
            try writeAtomically(output) { temporary in
                removeFile(temporary)
                #expect(symlink(victim, temporary) == 0)
                let writer = try AudioFileWriter(
                    path: temporary, fileType: .caf,
                    format: .linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 16))
                try writer.writePackets([0, 0])
                try writer.close()
            }
        }
        // And swapped after it was written, before the rename.
        #expect(throws: AudioFileError.self) {
            try writeAtomically(output) { temporary in
                let writer = try AudioFileWriter(
                    path: temporary, fileType: .caf,
                    format: .linearPCM(sampleRate: 8000, channels: 1, bitsPerChannel: 16))
                try writer.writePackets([0, 0])
                try writer.close()
                removeFile(temporary)
                #expect(symlink(victim, temporary) == 0)
            }
        }
        #expect(lstat(output, &info) != 0)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "root's own file")
    }

    /// A device or FIFO as the output is refused before anything is written (exit 2: afkit writes whole files,
    /// renamed into place; `-` is standard output), and stays what it was; a directory is refused too.
    @Test func devicesAndFIFOsAreRefusedNeverReplaced() throws {
        let folder = try Loopback.temporaryFolder("devices")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var info = stat()
        // A null device of the test's own (never the system's /dev/null), where this machine lets root make one.
        let node = folder + "/null"
        if Self.isRoot, mknod(node, S_IFCHR | 0o666, dev_t(0x103)) == 0 {  // major 1, minor 3: a null device
            let result = try Command.run(["convert", "-f", "caff", "wav/pcm-s16-stereo.wav", node])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains("is a character device"), "\(result.stderr)")
            #expect(lstat(node, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
        }

        // A FIFO, read or not: refused at once, never a hang, never replaced.
        let fifo = folder + "/pipe.caf"
        #expect(mkfifo(fifo, 0o644) == 0)
        let piped = try Command.run(["convert", "wav/pcm-s16-stereo.wav", fifo])
        #expect(piped.status == 2)
        #expect(
            piped.stderr.contains("is a FIFO") && piped.stderr.contains("'-' for standard output"), "\(piped.stderr)")
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)

        // A batch never writes over a FIFO standing where an output goes: refused (exit 2) before anything is
        // converted, and the FIFO stays.
        let sources = folder + "/sources"
        let outputs = folder + "/outputs"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: outputs, withIntermediateDirectories: false)
        for name in ["a.wav", "b.wav"] {
            try FileManager.default.copyItem(
                atPath: Command.fixtures + "/wav/pcm-s16-stereo.wav", toPath: sources + "/" + name)
        }
        #expect(mkfifo(outputs + "/b.caf", 0o644) == 0)
        let batch = try Command.run(["batch", "--preset", "system-sound", "--out", outputs, sources])
        #expect(batch.status == 2)
        #expect(batch.stderr.contains("is a FIFO") && batch.stderr.contains("nothing was converted"), "\(batch.stderr)")
        #expect(lstat(outputs + "/b.caf", &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outputs) == ["b.caf"])

        // A directory is no output.
        try FileManager.default.createDirectory(atPath: folder + "/dir.caf", withIntermediateDirectories: false)
        let directory = try Command.run(["convert", "wav/pcm-s16-stereo.wav", folder + "/dir.caf"])
        #expect(directory.status == 2)
        #expect(directory.stderr.contains("is a folder: give the output's file name"))
        #expect(isDirectory(folder + "/dir.caf"))
    }

    /// The input as its own output (by any name: the same path, a hard link, a link) is refused (exit 2)
    /// and left as it was; `batch --out .` over its own outputs too.
    @Test func theOutputIsNeverTheInput() throws {
        let folder = try Loopback.temporaryFolder("same")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/c.caf"
        #expect(try Command.run(["convert", "-d", "ima4", "wav/pcm-s16-stereo.wav", file]).status == 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(link(file, folder + "/hard.caf") == 0)
        #expect(symlink(file, folder + "/soft.caf") == 0)
        for output in [file, folder + "/hard.caf", folder + "/soft.caf", folder + "/./c.caf"] {
            let result = try Command.run(["convert", file, output])
            #expect(result.status == 2, "\(output)")
            #expect(result.stderr.contains("an input of this run: the output would replace it"), "\(result.stderr)")
        }
        let batch = try Command.run(["batch", "--preset", "system-sound", "--out", folder, file])
        #expect(batch.status == 2)
        #expect(batch.stderr.contains("is an input of this run"), "\(batch.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original)
        var info = stat()
        #expect(lstat(folder + "/soft.caf", &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
    }

    /// A stale temporary is told from a live one by its lock, not by a PID: one left unlocked is removed by
    /// the next conversion into the folder, one another process holds is kept.
    @Test func staleTemporariesGoByLock() throws {
        let folder = try Loopback.temporaryFolder("stale")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let left = folder + "/.a.caf.afkit-abcdefghijkl.tmp"
        let held = folder + "/.b.caf.afkit-\(getpid())-1.tmp"
        for path in [left, held] { _ = FileManager.default.createFile(atPath: path, contents: Data([1])) }
        let holder = try Command.holdLock(on: held)
        defer { holder.terminate() }
        let result = try Command.run(["convert", "wav/pcm-s16-stereo.wav", folder + "/out.caf"])
        #expect(result.status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names == [".b.caf.afkit-\(getpid())-1.tmp", "out.caf"])
    }

    /// `afkit packets --json a.caf >&-`: the listing cannot be written, which is an error (status 1),
    /// and it goes into no file (before, the packet spool took descriptor 1 and swallowed it).
    @Test func aClosedStandardOutputIsAnError() throws {
        for arguments in [["packets", "--json", "network/track-1.mp3"], ["info", "caf/ima4-stereo.caf"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "exec \"$0\" \"$@\" >&-", Command.executable] + arguments
            process.currentDirectoryURL = URL(fileURLWithPath: Command.fixtures)
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 1, "\(arguments): \(message)")
            #expect(message.contains("cannot write the report to standard output"), "\(message)")
        }
    }
}
