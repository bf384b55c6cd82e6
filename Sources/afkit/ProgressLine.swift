import AudioConversion
import AudioFormats
import FileAccess
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The line a conversion redraws on standard error while it works, as `ffmpeg -stats` does: the files done (a
/// batch), the file being written, how far into it and how fast (`batch: 3/10 files · long.wav 00:02:13.4 of
/// 00:10:00.0 · 41.2x`; a loudness normalization's stretches named: `long.wav measuring loudness, pass 2
/// 00:01:10.2 of 00:10:00.0 · 310.5x`, the speed each stretch's own). Drawn with `\r` at most four times a
/// second, from a quarter of a second in (a short conversion draws nothing), and cleared at the end. Any thread may report; one draws at a time.
final class ProgressLine: Sendable {
    /// What the line shows, kept between draws.
    private struct State {
        var done = 0
        /// Each file being written: when its current stretch started (the file, or a pass or an encode after
        /// another: its speed is counted from there) and the position it started at, and how far it has come.
        var files: [String: (started: Double, from: Int64, progress: ConversionProgress?)] = [:]
        /// The file the line shows: the one that reported last.
        var shown: String?
        var lastDraw = -Double.infinity
        var drawn = false
    }

    /// Whether a line is drawn now (a line of any command): an interruption clears it before it says so.
    static let isDrawn = Atomic(false)

    private let command: String
    private let total: Int?
    private let started = ProgressLine.now()
    private let state = Mutex(State())

    /// A line for `command`, counting `total` files where it converts several.
    init(command: String, total: Int? = nil) {
        self.command = command
        self.total = total
    }

    /// Whether a command shows the line: on a terminal, or where `--progress` forces it; never with `--quiet`.
    static func isShown(forced: Bool, quiet: Bool) -> Bool { !quiet && (forced || standardErrorIsTerminal) }

    /// Seconds on the monotonic clock.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `file` has started (its speed is counted from now).
    func begin(_ file: String) {
        state.withLock { $0.files[file] = (Self.now(), 0, nil) }
    }

    /// `file` has come as far as `progress` says: the line is redrawn if a quarter of a second has passed.
    func report(_ file: String, _ progress: ConversionProgress) {
        state.withLock { state in
            var entry = state.files[file] ?? (Self.now(), 0, nil)
            // A new stretch (another pass, or the encode again from the start): its speed is its own.
            if let last = entry.progress,
                last.activity != progress.activity || last.framesWritten > progress.framesWritten
            {
                entry.started = Self.now()
                entry.from = progress.framesWritten
            }
            entry.progress = progress
            state.files[file] = entry
            state.shown = file
            draw(&state, force: false)
        }
    }

    /// `file` is finished (converted, current or failed): the count moves on, and the line is redrawn.
    func end(_ file: String) {
        state.withLock { state in
            state.files[file] = nil
            state.done += 1
            if state.shown == file { state.shown = state.files.keys.first }
            draw(&state, force: state.drawn)
        }
    }

    /// Clears the line where it was drawn (at the end); the next report draws it again.
    func clear() {
        state.withLock { state in
            if state.drawn { Output.clearTerminalLine() }
            state.drawn = false
            Self.isDrawn.store(false, ordering: .relaxed)
        }
    }

    /// Writes `text` (whole lines) to standard error under the line: cleared first, redrawn by the next report.
    func write(_ text: String) {
        state.withLock { state in
            if state.drawn { Output.clearTerminalLine() }
            Output.standardError(text)
            state.drawn = false
            Self.isDrawn.store(false, ordering: .relaxed)
        }
    }

    private func draw(_ state: inout State, force: Bool) {
        let now = Self.now()
        guard force || (now - started >= 0.25 && now - state.lastDraw >= 0.25) else { return }
        state.lastDraw = now
        var parts: [String] = []
        if let total { parts.append("\(state.done)/\(total) files") }
        if let name = state.shown, let file = state.files[name], let progress = file.progress, progress.sampleRate > 0 {
            let position = Double(progress.framesWritten) / progress.sampleRate
            var text = PathEscaping.controlEscaped(name.split(separator: "/").last.map(String.init) ?? name)
            if let activity = progress.activity { text += " " + activity }
            text += " " + clockTime(position, fractionDigits: 1)
            if let expected = progress.expectedFrames {
                text += " of " + clockTime(Double(expected) / progress.sampleRate, fractionDigits: 1)
            }
            let elapsed = now - file.started
            // (From a second into the stretch: a speed at its first draw says nothing.)
            if elapsed >= 1 {
                let covered = Double(progress.framesWritten - file.from) / progress.sampleRate
                text += " · " + fixedPoint(covered / elapsed, places: 1) + "x"
            }
            parts.append(text)
        }
        guard !parts.isEmpty else { return }
        Output.clearTerminalLine()
        Output.standardError("\(command): " + parts.joined(separator: " · "))
        state.drawn = true
        Self.isDrawn.store(true, ordering: .relaxed)
    }
}
