import AudioContainers
import AudioFormats
import AudioStreaming
import Foundation
import LoopbackServers
import Testing

/// Files over HTTP from nginx on a loopback port: the parser's seek requests become range requests,
/// and what arrives equals what the file API reads.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RangeRequestTests {
    struct Reading {
        var packets: [AudioFileStream.OwnedPackets] = []
        var connections: [HTTPAudioStream.Response] = []
        var properties = StreamProperties()
        var receivedBytes: Int64 = 0
    }

    static func read(_ url: String, options: HTTPAudioStream.Options = .init()) async throws -> Reading {
        var reading = Reading()
        var iterator = HTTPAudioStream(url: url, options: options).makeAsyncIterator()
        while let event = try await iterator.next() {
            switch event {
            case .packets(let run): reading.packets.append(run)
            case .connected(let response): reading.connections.append(response)
            case .propertyChanged(_, let properties): reading.properties = properties
            case .titleChanged, .discontinuity, .segment:
                Issue.record("a file has no titles, gaps or segments: \(event)")
            }
        }
        reading.receivedBytes = iterator.receivedByteCount
        return reading
    }

    @Test func anMP4WhoseMoovFollowsItsAudioIsReadWithRangeRequests() async throws {
        let server = try NginxServer(serving: networkFixtures + "/network")
        let path = networkFixtures + "/network/tone-moov-last.m4a"
        let size = Int64(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int)
        let reading = try await Self.read(server.url("tone-moov-last.m4a"))

        #expect(packetBytes(reading.packets) == (try filePacketBytes(path)))
        let file = try AudioFile(path: path)
        #expect(reading.properties.audioDataPacketCount == file.packetCount)
        #expect(reading.properties.packetTableInfo == file.properties.packetTableInfo)
        // Three responses: the start, `moov` at the end by a range request, the audio again by another.
        #expect(reading.connections.map(\.status) == [200, 206, 206])
        let moovOffset = try #require(reading.connections.dropFirst().first?.startOffset)
        #expect(moovOffset > size / 2)
        #expect(reading.connections.last?.startOffset == file.properties.dataOffset)
        // The audio crossed the network once: the bytes taken are the file's, plus the first response's
        // first piece (libcurl hands over at most 16 KiB at a time) and `moov` a second time at the end
        // of the audio's range (2.5 KB here).
        #expect(
            reading.receivedBytes >= size && reading.receivedBytes < size + 16_384 + 4096,
            "received \(reading.receivedBytes) bytes of a \(size)-byte file")
    }

    @Test func seekingToAPacketAsksForItsBytesOnly() async throws {
        let server = try NginxServer(serving: networkFixtures + "/network")
        let path = networkFixtures + "/network/tone-moov-last.m4a"
        let expected = try filePacketBytes(path)
        var iterator = HTTPAudioStream(url: server.url("tone-moov-last.m4a")).makeAsyncIterator()
        var runs: [AudioFileStream.OwnedPackets] = []
        var sought = false
        var responses: [HTTPAudioStream.Response] = []
        while let event = try await iterator.next() {
            switch event {
            case .packets(let run):
                if !sought {
                    // After the first run, jump to packet 400.
                    sought = true
                    let offset = try await iterator.seek(toPacket: 400)
                    let file = try AudioFile(path: path)
                    let description = try file.packetDescription(400)
                    #expect(offset == description.startOffset, "dataOffset \(file.properties.dataOffset ?? -1)")
                    #expect(run.firstPacket == 0)
                } else {
                    runs.append(run)
                }
            case .connected(let response): responses.append(response)
            default: break
            }
        }
        #expect(runs.first?.firstPacket == 400)
        #expect(packetBytes(runs) == Array(expected[400...]))
        #expect(responses.last?.status == 206)
    }

    @Test func aCAFWhosePacketTableFollowsItsAudioArrivesWhole() async throws {
        // aac-lc-in-caf.caf with its chunks reordered: desc, kuki, data, then pakt.
        let source = try Data(contentsOf: URL(fileURLWithPath: networkFixtures + "/adts/aac-lc-in-caf.caf"))
        let reordered = try cafWithPacketTableLast(Array(source))
        let folder = try Loopback.temporaryFolder("caf")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(reordered).write(to: URL(fileURLWithPath: folder + "/pakt-last.caf"))
        let server = try NginxServer(serving: folder)

        let reading = try await Self.read(server.url("pakt-last.caf"))
        #expect(packetBytes(reading.packets) == (try filePacketBytes(networkFixtures + "/adts/aac-lc-in-caf.caf")))
        #expect(
            reading.properties.packetTableInfo
                == (try AudioFile(path: networkFixtures + "/adts/aac-lc-in-caf.caf"))
                .properties.packetTableInfo)
        // Held until the table came, not fetched twice.
        #expect(reading.connections.count == 1)
        #expect(reading.receivedBytes == Int64(reordered.count))
    }

    @Test func aCAFWhoseAudioIsMoreThanMayBeHeldIsReadAroundItsPacketTable() async throws {
        let path = networkFixtures + "/adts/aac-lc-in-caf.caf"
        let reordered = try cafWithPacketTableLast(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        let folder = try Loopback.temporaryFolder("caf")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(reordered).write(to: URL(fileURLWithPath: folder + "/pakt-last.caf"))
        let server = try NginxServer(serving: folder)

        var options = HTTPAudioStream.Options()
        options.limits.maximumRetainedAudioBytes = 4096
        let reading = try await Self.read(server.url("pakt-last.caf"), options: options)
        #expect(packetBytes(reading.packets) == (try filePacketBytes(path)))
        // The start, the table after the audio, then the audio: no byte held past the limit.
        #expect(reading.connections.map(\.status) == [200, 206, 206])
        let dataOffset = try #require(reading.properties.dataOffset)
        #expect(reading.connections.last?.startOffset == dataOffset)
        #expect(reading.connections[1].startOffset == dataOffset + (reading.properties.audioDataByteCount ?? 0))
        #expect(reading.receivedBytes < Int64(reordered.count) + 16_384)
    }

    @Test func httpsWorksWithATrustedRootAndRefusesAnUntrustedServer() async throws {
        let tls = networkFixtures + "/network/tls/loopback"
        let server = try NginxServer(
            serving: networkFixtures + "/network", certificate: tls + ".pem", key: tls + ".key")
        #expect(server.url("x").hasPrefix("https://"))
        var options = HTTPAudioStream.Options()
        options.additionalTrustRoots = [tls + ".pem"]
        let reading = try await Self.read(server.url("tone-moov-last.m4a"), options: options)
        #expect(packetBytes(reading.packets) == (try filePacketBytes(networkFixtures + "/network/tone-moov-last.m4a")))
        #expect(reading.connections.map(\.status) == [200, 206, 206])
        // The same server, its certificate not trusted (the system's roots only): a typed error naming
        // the failed verification, no audio.
        var untrusted = HTTPAudioStream.Options()
        untrusted.connectTimeout = .seconds(1)
        await #expect {
            _ = try await Self.read(server.url("tone-moov-last.m4a"), options: untrusted)
        } throws: { error in
            guard let error = error as? AudioFileError else { return false }
            return error.code == "net!" && error.message.lowercased().contains("certificate")
        }
    }

    @Test func aMissingFileIsANetworkErrorNamingTheStatus() async throws {
        let server = try NginxServer(serving: networkFixtures + "/network")
        await #expect {
            _ = try await Self.read(server.url("no-such-file.mp3"))
        } throws: { error in
            guard let error = error as? AudioFileError else { return false }
            return error.code == "net!" && error.message.contains("404")
        }
    }
}
