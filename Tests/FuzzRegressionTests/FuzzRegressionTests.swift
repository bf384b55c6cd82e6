import Foundation
import Testing

/// Replays, through the fuzz targets' own invariant checks, every input that ever broke one
/// (Tests/Fixtures/fuzz-regressions/TARGET/) and the committed minimized corpus (Fuzz/corpus/TARGET/).
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Input: CustomStringConvertible, Sendable {
        let target: String
        let path: String
        var description: String { "\(target): \(path.split(separator: "/").suffix(2).joined(separator: "/"))" }
    }

    static func inputs(under folder: String) -> [Input] {
        fuzzChecks.keys.sorted().flatMap { target -> [Input] in
            let directory = root.appendingPathComponent("\(folder)/\(target)").path
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted()
                .map { Input(target: target, path: "\(directory)/\($0)") }
        }
    }

    static let regressions = inputs(under: "Tests/Fixtures/fuzz-regressions")

    @Test("every input that broke an invariant now keeps it", arguments: regressions)
    func regression(_ input: Input) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input.path)))
        let check = try #require(fuzzChecks[input.target])
        #expect(check(bytes) == nil)
    }

    @Test("there are regression inputs to replay")
    func regressionsPresent() {
        #expect(Self.regressions.count >= 1)
    }

    @Test("the committed corpus keeps every invariant")
    func corpus() throws {
        let corpus = Self.inputs(under: "Fuzz/corpus")
        #expect(Set(corpus.map(\.target)) == Set(fuzzChecks.keys))
        for input in corpus {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input.path)))
            if let problem = fuzzChecks[input.target]?(bytes) { Issue.record("\(input): \(problem)") }
        }
    }
}
