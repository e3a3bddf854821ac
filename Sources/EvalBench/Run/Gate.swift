import Foundation

/// The checks that decide a run's exit code (DESIGN.md, "Exit codes").
public struct Gate: Sendable, Equatable {
    /// Fail unless the pass rate of every backend × level × variant reaches this; when nil,
    /// the default gate applies: every case passes.
    public var minPassRate: Double?

    public init(minPassRate: Double? = nil) {
        self.minPassRate = minPassRate
    }

    /// The verdict on a run's results. `unavailableBackends` fail the run as infrastructure
    /// (exit 3); `unavailableHere` (backend → reason) cannot run on this platform: their
    /// skipped case runs are noted and leave the gate to the other backends, unless nothing ran.
    public func evaluate(_ results: [RequestResult], unavailableBackends: [String],
                         unavailableHere: [String: String] = [:]) -> Verdict {
        let notes = unavailableHere.keys.sorted().map { "backend '\($0)' cannot run here, its case runs are skipped: \(unavailableHere[$0]!)" }
        if !unavailableBackends.isEmpty {
            return Verdict(exitCode: 3, reasons: unavailableBackends.map { "backend '\($0)' is unavailable" }, notes: notes)
        }
        let aggregate = RunAggregate(results)
        if !unavailableHere.isEmpty, !aggregate.caseRuns.isEmpty, aggregate.caseRuns.allSatisfy({ $0.status == .skipped }) {
            return Verdict(exitCode: 3, reasons: ["no case ran: every selected backend was skipped, and \(unavailableHere.keys.sorted().joined(separator: ", ")) cannot run here"],
                           notes: notes)
        }
        var reasons: [String] = []
        if let minPassRate {
            for group in aggregate.groups {
                let rate = group.passRate ?? 1
                if rate < minPassRate {
                    reasons.append("\(group.group.label): pass rate \(Self.percent(rate)) is below --min-pass-rate \(Self.percent(minPassRate))")
                }
            }
        } else {
            let failing = aggregate.caseRuns.filter { $0.status == .fail || $0.status == .error }
            if let first = failing.first {
                reasons.append("\(failing.count) case run(s) did not pass (default gate: every case passes); first: \(first.key)")
            }
        }
        return Verdict(exitCode: reasons.isEmpty ? 0 : 1, reasons: reasons, notes: notes)
    }

    public struct Verdict: Sendable, Equatable {
        public var exitCode: Int32
        /// Why the gate failed; empty when it held.
        public var reasons: [String]
        /// What a reader should know that did not decide the exit code (backends that cannot
        /// run on this platform).
        public var notes: [String] = []
    }

    static func percent(_ value: Double) -> String {
        String(format: "%.1f%%", value * 100)
    }
}
