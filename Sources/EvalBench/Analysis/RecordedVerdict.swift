import Foundation

/// A run's verdict as run.json and the reports keep it: what the terminal said at the end
/// (PASS, FAIL, ERROR or INTERRUPTED, the exit code and why), what the gates checked, and the
/// notes. summary.md opens with it, so that a job page's step summary says whether the gate
/// held and why, not only the figures.
package struct RecordedVerdict: Sendable, Codable, Equatable {
    /// `ExitStatus.verdictWord`: PASS, FAIL, ERROR or INTERRUPTED.
    package var status: String
    package var exitCode: Int32
    /// Why the gate failed; empty when it held.
    package var reasons: [String]
    /// What the gates checked, one line each (`Gate.checks`).
    package var checks: [String]
    /// What a reader should know that did not decide the exit code.
    package var notes: [String]

    /// `verdict` with what the gates checked; none for an interrupted run, whose gates were not applied.
    package init(_ verdict: Gate.Verdict, checks: @autoclosure () -> [String]) {
        status = verdict.exitStatus.verdictWord
        exitCode = verdict.exitStatus.rawValue
        reasons = verdict.reasons
        self.checks = verdict.exitStatus == .interrupted ? [] : checks()
        notes = verdict.notes
    }

    /// Most reasons, checks or notes summary.md and report.html list; the rest are counted,
    /// and all are in run.json.
    package static let listLimit = 20

    /// What reports written again later (`evalbench report`) say under the verdict: it is the
    /// one recorded when the run ended, not decided again.
    package static let rewrittenNote = "Recorded when the run ended: `evalbench report` wrote these reports again from "
        + "results.jsonl and did not apply the gates again."

    /// The exit code's meaning, or nil for a code this build does not know (a newer run.json).
    package var meaning: String? {
        ExitStatus(rawValue: exitCode)?.meaning
    }
}

extension Gate {
    /// What this gate checks on a run of `suites` (their names) with `suiteGates` (suite name →
    /// its `gates`, for those that have them), compared with `baseline` if any: one line each,
    /// as the reports list them beside the verdict. Mirrors `evaluate`.
    /// `emptyShard`: this is a shard that holds no case, let pass though no `--allow-empty` was given.
    package func checks(suites: [String], suiteGates: [String: SuiteGates], baseline: String?, emptyShard: Bool = false) -> [String] {
        var checks: [String] = []
        var seen: Set<String> = []
        let suites = suites.filter { seen.insert($0).inserted }
        if let minPassRate {
            checks.append("every backend × reasoning × variant passes at least \(Self.percent(minPassRate)) of its case runs (--min-pass-rate)")
        } else {
            let gated = suites.filter { suiteGates[$0]?.minPassRate != nil }
            for suite in gated {
                let rate = Self.percent(suiteGates[suite]?.minPassRate ?? 0)
                checks.append("suite '\(suite)': every backend × reasoning × variant passes at least \(rate) of its case runs (its gates.minPassRate)")
            }
            if everyCaseMustPassByDefault {
                let others = suites.filter { suiteGates[$0]?.minPassRate == nil }
                if gated.isEmpty {
                    checks.append("every case run passes (the default gate; --min-pass-rate sets a pass rate instead)")
                } else if !others.isEmpty {
                    checks.append("every case run of " + others.map { "'\($0)'" }.joined(separator: ", ") + " passes (the default gate)")
                }
            }
        }
        // As `evaluate`: under a pass-rate gate above 0, a backend stopped early is no pass.
        let passRateGated = minPassRate.map { $0 > 0 } ?? suites.contains { (suiteGates[$0]?.minPassRate ?? 0) > 0 }
        if passRateGated {
            checks.append("no backend was stopped by fail fast (defaults.failFastAfter): its pass rate would cover only the case runs sent before")
        }
        if let maxErrorRate {
            checks.append("at most \(Self.percent(maxErrorRate)) of the requests sent end in an error (--max-error-rate)")
        } else {
            for suite in suites {
                guard let limit = suiteGates[suite]?.maxErrorRate else { continue }
                checks.append("suite '\(suite)': at most \(Self.percent(limit)) of its requests sent end in an error (its gates.maxErrorRate)")
            }
        }
        if let baseline { checks.append("no significant regression against the baseline \(baseline) (--baseline)") }
        checks.append(emptyShard ? "a shard that holds no case passes: evalbench merge gates the whole run"
            : allowsEmptyRun ? "a run in which no case ran passes (--allow-empty)"
            : "at least one case ran (--allow-empty lets a run of none pass)")
        checks.append("every backend selected could be reached and used")
        return checks
    }
}
