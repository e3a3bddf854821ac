import Foundation

/// The checks that decide a run's exit code (DESIGN.md, "Exit codes").
public struct Gate: Sendable, Equatable {
    /// Fail unless the pass rate of every backend × level × variant reaches this; when nil,
    /// the default gate applies: every case passes.
    public var minPassRate: Double?

    public init(minPassRate: Double? = nil) {
        self.minPassRate = minPassRate
    }

    /// The verdict on a run's results.
    public func evaluate(_ results: [RequestResult], unavailableBackends: [String]) -> Verdict {
        if !unavailableBackends.isEmpty {
            return Verdict(exitCode: 3, reasons: unavailableBackends.map { "backend '\($0)' is unavailable" })
        }
        let aggregate = RunAggregate(results)
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
        return Verdict(exitCode: reasons.isEmpty ? 0 : 1, reasons: reasons)
    }

    public struct Verdict: Sendable, Equatable {
        public var exitCode: Int32
        public var reasons: [String]
    }

    static func percent(_ value: Double) -> String {
        String(format: "%.1f%%", value * 100)
    }
}
