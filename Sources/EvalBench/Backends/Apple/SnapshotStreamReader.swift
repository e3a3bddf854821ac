import Foundation

/// Turns the framework's cumulative snapshots into the answer, its deltas and its timestamps.
/// The first snapshot can be empty or the text `"null"`: neither is a token. The on-device
/// model and PCC stream no reasoning text, so the first token is also the first answer token.
struct SnapshotStreamReader {
    let stopwatch: Stopwatch
    /// `stop` sequences of the case: the framework has none, so the answer is cut here.
    let stopSequences: [String]
    private(set) var text = ""
    private(set) var usage: AppleUsage?
    private(set) var firstTokenMs: Double?
    private var placeholderMs: Double?
    private(set) var lastSnapshotMs: Double?
    /// Set once a stop sequence appeared; later snapshots only move the end (the stream is
    /// drained, not cancelled, so the session's transcript keeps the turn).
    private(set) var stopped = false

    init(stopwatch: Stopwatch, stopSequences: [String] = []) {
        self.stopwatch = stopwatch
        self.stopSequences = stopSequences.filter { !$0.isEmpty }
    }

    /// Takes the snapshot that arrived at `nanos` (`DispatchTime.uptimeNanoseconds`) and returns
    /// the new text it adds; the whole text when the snapshot rewrote earlier text.
    @discardableResult
    mutating func consume(_ snapshot: AppleSnapshot, atNanos nanos: UInt64) -> String {
        let at = stopwatch.ms(atNanos: nanos)
        lastSnapshotMs = at
        if let usage = snapshot.usage { self.usage = usage }
        // After a stop sequence the stream is only drained: the answer is already cut.
        if stopped { return "" }
        var content = snapshot.content
        if let cut = stopSequences.compactMap({ content.range(of: $0)?.lowerBound }).min() {
            content = String(content[..<cut])
            stopped = true
        }
        if firstTokenMs == nil {
            if content.isEmpty { return "" }
            if content == "null" {
                if placeholderMs == nil { placeholderMs = at }
                text = content
                return ""
            }
            firstTokenMs = at
        }
        let delta = content.hasPrefix(text) ? String(content.dropFirst(text.count)) : content
        text = content
        return delta
    }

    /// The measurements so far; `end` is the last snapshot, or now when there was none.
    func timing() -> RequestTiming {
        // An answer that is really the text "null" started when that snapshot came.
        let first = firstTokenMs ?? (text == "null" ? placeholderMs : nil)
        return RequestTiming(startedAt: stopwatch.startedAt, firstTokenMs: first, firstAnswerTokenMs: first,
                             endMs: lastSnapshotMs ?? stopwatch.ms())
    }
}
