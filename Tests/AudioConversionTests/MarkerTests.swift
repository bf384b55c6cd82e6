import AudioContainers
import AudioConversion
import AudioEngines
import AudioFormats
import Foundation
import Testing

/// Markers, comments, annotations, instruments and loops (Tests/Fixtures/markers, assembled by
/// make-marker-fixtures.py with what each file says beside it), checked against the sidecars and,
/// for AIFF and WAV, against libsndfile's own reading in-process.
@Suite struct MarkerTests {
    static let folder = fixtures + "/markers"

    static func expected(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name + ".json"))
        let side = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(side["expected"] as? [String: Any])
    }

    static func loopJSON(_ loop: InstrumentLoop?) -> [String: Any]? {
        loop.map {
            ["playMode": $0.playMode?.rawValue as Any, "beginMarker": $0.beginMarker, "endMarker": $0.endMarker]
        }
    }

    @Test(arguments: ["sampler.aiff", "sampler.wav", "sampler.caf"])
    func whatTheFileSays(_ name: String) throws {
        let expected = try Self.expected(name)
        let properties = try AudioFile(path: Self.folder + "/" + name).properties
        let markers = expected["markers"] as? [[String: Any]] ?? []
        #expect(
            properties.markers.map { [$0.id, Int($0.framePosition)] }
                == markers.map { [$0["id"] as? Int ?? -1, $0["position"] as? Int ?? -1] })
        #expect(properties.markers.map(\.name) == markers.map { $0["name"] as? String ?? "" })
        let comments = expected["comments"] as? [[String: Any]] ?? []
        #expect(
            properties.comments.map { "\($0.timeStamp) \($0.marker) \($0.text)" }
                == comments.map { "\($0["timeStamp"] ?? "") \($0["marker"] ?? "") \($0["text"] ?? "")" })
        let instrument = try #require(expected["instrument"] as? [String: Any])
        let ours = try #require(properties.instrument)
        #expect(
            [ours.baseNote, ours.detune, ours.lowNote, ours.highNote, ours.lowVelocity, ours.highVelocity, ours.gain]
                == ["baseNote", "detune", "lowNote", "highNote", "lowVelocity", "highVelocity", "gain"].map {
                    instrument[$0] as? Int ?? -999
                })
        for (key, loop) in [("sustainLoop", ours.sustainLoop), ("releaseLoop", ours.releaseLoop)] {
            let want = instrument[key] as? [String: Any]
            let got = Self.loopJSON(loop)
            #expect(got?["playMode"] as? String == want?["playMode"] as? String, "\(name) \(key)")
            #expect(got?["beginMarker"] as? Int == want?["beginMarker"] as? Int, "\(name) \(key)")
            #expect(got?["endMarker"] as? Int == want?["endMarker"] as? Int, "\(name) \(key)")
        }
        let loops = expected["loops"] as? [[String: Any]] ?? []
        #expect(
            properties.loops.map { "\($0.start)-\($0.end) \($0.playMode.rawValue)" }
                == loops.map { "\($0["start"] ?? "")-\($0["end"] ?? "") \($0["playMode"] ?? "")" })
        for (key, value) in expected["metadata"] as? [String: Any] ?? [:] {
            if key == "annotations" {
                #expect(properties.annotations == value as? [String])
            } else {
                #expect(properties.infoDictionary[key] == value as? String, "\(name) \(key)")
            }
        }
    }

    /// libsndfile reads the same base note and loops (start and end frames; both take a WAV `smpl` end,
    /// the loop's last frame, to the frame after it) and, for WAV, the same loop modes, note and velocity
    /// ranges of `inst`... where it reads them: it leaves WAV's `inst` ranges at 0-127, gives AIFF's
    /// loops no distinct modes and AIFF's markers no cue list, so those are compared where it has them.
    @Test(arguments: ["sampler.aiff", "sampler.wav"])
    func libsndfileAgrees(_ name: String) throws {
        let path = Self.folder + "/" + name
        let properties = try AudioFile(path: path).properties
        let sound = try SoundFile(path: path)
        let instrument = try #require(sound.instrument())
        #expect(instrument.baseNote == properties.instrument?.baseNote)
        #expect(instrument.loops.map { [$0[1], $0[2]] } == properties.loops.map { [Int($0.start), Int($0.end)] })
        guard name.hasSuffix(".wav") else {
            #expect(
                instrument.keyRange == (properties.instrument?.lowNote ?? 0)...(properties.instrument?.highNote ?? 0))
            #expect(
                instrument.velocityRange
                    == (properties.instrument?.lowVelocity ?? 0)...(properties.instrument?.highVelocity ?? 0))
            return
        }
        let modes: [Int: LoopPlayMode] = [801: .forward, 802: .backward, 803: .pingpong]
        #expect(instrument.loops.map { modes[$0[0]] } == properties.loops.map(\.playMode))
        let cues = sound.cues()
        #expect(cues.map(\.position) == properties.markers.map(\.framePosition))
        #expect(cues.map(\.id) == properties.markers.map(\.id))
    }

    /// AIFF `INST` -> CAF (at twice the rate) -> WAV -> AIFF (back at the first rate) keeps every marker,
    /// loop and instrument setting, positions scaled on resampling; libsndfile reads the WAV's and the
    /// final AIFF's loops the same; comments and annotations survive AIFF to AIFF.
    @Test func loopsAndMarkersSurviveARoundTrip() throws {
        let folder = try Folder()
        let source = Self.folder + "/sampler.aiff"
        let original = try AudioFile(path: source).properties
        var steps: [(String, Double)] = [("caf", 44100), ("wav", 44100), ("aiff", 22050)]
        var input = source
        for (index, (ext, rate)) in steps.enumerated() {
            let output = folder.path + "/step\(index).\(ext)"
            try AudioConverter.convert(
                input: input, output: output,
                settings: settings((ext == "aiff" ? "BEI16@" : "LEI16@") + "\(Int(rate))"))
            let properties = try AudioFile(path: output).properties
            let scale = Int64(rate / 22050)
            #expect(
                properties.markers.map { [$0.id, Int($0.framePosition)] }
                    == original.markers.map { [$0.id, Int($0.framePosition * scale)] }, "\(ext)")
            #expect(properties.markers.map(\.name) == original.markers.map(\.name), "\(ext)")
            let scaledLoops: [Loop] = original.loops.map {
                Loop(start: $0.start * scale, end: $0.end * scale, playMode: $0.playMode)
            }
            #expect(properties.loops == scaledLoops, "\(ext)")
            // The notes, ranges and gain (each container names its loops its own way; `loops` compares them).
            var ours = try #require(properties.instrument)
            var theirs = try #require(original.instrument)
            (ours.sustainLoop, ours.releaseLoop, theirs.sustainLoop, theirs.releaseLoop) = (nil, nil, nil, nil)
            #expect(ours == theirs, "\(ext)")
            if ext != "caf" {
                let sound = try #require(try SoundFile(path: output).instrument())
                #expect(
                    sound.loops.map { [$0[1], $0[2]] } == properties.loops.map { [Int($0.start), Int($0.end)] },
                    "\(ext)")
            }
            input = output
        }
        steps.removeAll()
        // CAF and WAV have no place for AIFF's comments and annotations; AIFF to AIFF keeps them.
        let direct = folder.path + "/direct.aiff"
        try AudioConverter.convert(input: source, output: direct, settings: settings("BEI16"))
        let final = try AudioFile(path: direct).properties
        #expect(final.comments == original.comments)
        #expect(final.annotations == original.annotations)
        #expect(final.loops == original.loops)
    }
}
