import EvalBench
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Progress on stderr: a live bar on a terminal, a plain line every few seconds otherwise.
final class Progress: @unchecked Sendable {
    // @unchecked: every mutable field is read and written under `lock`.
    private let lock = NSLock()
    private let total: Int
    private let live: Bool
    private let enabled: Bool
    private let started = Date()
    private var done = 0
    private var counts: [RequestResult.Status: Int] = [:]
    private var lastPrint = Date.distantPast

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
        live = isatty(STDERR_FILENO) == 1
    }

    func record(_ result: RequestResult) {
        lock.lock()
        done += 1
        counts[result.status, default: 0] += 1
        let now = Date()
        let due = live ? now.timeIntervalSince(lastPrint) >= 0.1 : now.timeIntervalSince(lastPrint) >= 5
        let line = due || done == total ? render(now) : nil
        if line != nil { lastPrint = now }
        lock.unlock()
        if let line, enabled { write(line) }
    }

    func finish() {
        guard enabled, live else { return }
        write("\n")
    }

    private func render(_ now: Date) -> String {
        let elapsed = now.timeIntervalSince(started)
        let eta = done > 0 ? elapsed / Double(done) * Double(total - done) : 0
        let summary = "\(done)/\(total) requests · \(counts[.pass] ?? 0) pass · \(counts[.fail] ?? 0) fail · \(counts[.error] ?? 0) error · \(counts[.skipped] ?? 0) skipped · \(Self.clock(elapsed)) elapsed · ETA \(Self.clock(eta))"
        guard live else { return "evalbench: \(summary)\n" }
        let width = 24
        let filled = total > 0 ? width * done / total : width
        return "\r\u{1B}[2K[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] " + summary
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return String(format: "%d:%02d", whole / 60, whole % 60)
    }
}
