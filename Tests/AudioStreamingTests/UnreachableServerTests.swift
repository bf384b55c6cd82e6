import AudioContainers
import AudioFormats
import AudioStreaming
import Foundation
import LoopbackServers
import Testing

/// A server that cannot be reached costs its retries once: the other resources on it (a package's segments)
/// fail at once for a while after, naming why; a server that answers (even 404) is not remembered.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct UnreachableServerTests {
    @Test func aServerThatCannotBeReachedIsNotRetriedForEachResource() async throws {
        // A loopback port nothing listens on: every connection is refused.
        let port = try Loopback.refusingPort()
        var options = HTTPAudioStream.Options()
        options.maximumReconnectAttempts = 2
        options.reconnectDelay = .milliseconds(10)
        let first = await Self.failure {
            try await HTTPResource.fetch("http://127.0.0.1:\(port)/seg0.aac", options: options)
        }
        #expect(first?.contains("seg0.aac") == true && first?.contains("not tried") == false, "\(first ?? "read")")
        let second = await Self.failure {
            try await HTTPResource.fetch("http://127.0.0.1:\(port)/seg1.aac", options: options)
        }
        #expect(
            second?.contains("seg1.aac: not tried: http://127.0.0.1:\(port) could not be reached") == true,
            "\(second ?? "read")")
        // Another server is tried as usual.
        let server = try ScriptedServer { _, _, socket in
            ScriptedServer.send(socket, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
        let other = await Self.failure {
            try await HTTPResource.fetch("http://127.0.0.1:\(server.port)/seg0.aac", options: options)
        }
        #expect(other?.contains("answered 404") == true && server.requests.count == 1, "\(other ?? "read")")
    }

    static func failure(_ body: () async throws -> Any) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch let error as AudioFileError {
            return error.message
        } catch {
            return "\(error)"
        }
    }
}
