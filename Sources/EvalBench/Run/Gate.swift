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
        var groups: [String: (passed: Int, counted: Int)] = [:]
        var order: [String] = []
        var failing: [String] = []
        for caseRun in CaseRunStatus.summarise(results) {
            let group = "\(caseRun.backend)/\(caseRun.reasoning.rawValue)/\(caseRun.variant)"
            if groups[group] == nil { order.append(group) }
            var counts = groups[group, default: (0, 0)]
            if caseRun.status != .skipped { counts.counted += 1 }
            if caseRun.status == .pass { counts.passed += 1 }
            if caseRun.status == .fail || caseRun.status == .error { failing.append(caseRun.key) }
            groups[group] = counts
        }
        var reasons: [String] = []
        if let minPassRate {
            for group in order {
                let counts = groups[group]!
                let rate = counts.counted > 0 ? Double(counts.passed) / Double(counts.counted) : 1
                if rate < minPassRate {
                    reasons.append("\(group): pass rate \(Self.percent(rate)) is below --min-pass-rate \(Self.percent(minPassRate))")
                }
            }
        } else if !failing.isEmpty {
            reasons.append("\(failing.count) case run(s) did not pass (default gate: every case passes); first: \(failing[0])")
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

/// The status of one case run (all turns of one case × backend × level × variant × repeat).
struct CaseRunStatus: Sendable, Equatable {
    var key: String
    var backend: String
    var reasoning: ReasoningLevel
    var variant: String
    var status: RequestResult.Status

    /// A case run errors when any turn errored, fails when any turn failed, is skipped when
    /// every turn was skipped, and passes otherwise.
    static func summarise(_ results: [RequestResult]) -> [CaseRunStatus] {
        var index: [String: Int] = [:]
        var runs: [CaseRunStatus] = []
        for result in results {
            if let position = index[result.key] {
                runs[position].status = combine(runs[position].status, result.status)
            } else {
                index[result.key] = runs.count
                runs.append(CaseRunStatus(key: result.key, backend: result.backend, reasoning: result.reasoning,
                                          variant: result.variant, status: result.status))
            }
        }
        return runs
    }

    private static func combine(_ a: RequestResult.Status, _ b: RequestResult.Status) -> RequestResult.Status {
        let rank: [RequestResult.Status: Int] = [.skipped: 0, .pass: 1, .fail: 2, .error: 3]
        if a == .skipped || b == .skipped {
            // A turn skipped after an error belongs to an errored run; one skipped for a
            // reasoning level makes the whole run skipped.
            let other = a == .skipped ? b : a
            return other == .error ? .error : (other == .skipped ? .skipped : other)
        }
        return rank[a]! >= rank[b]! ? a : b
    }
}
