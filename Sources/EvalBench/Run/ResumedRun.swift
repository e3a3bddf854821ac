import Foundation

/// What `--resume` keeps of the run it continues, read when the run is loaded, before anything
/// is sent: the results of the case runs that finished there (`RunDirectory.finishedResults`)
/// whose inputs have not changed since (`ResumeCheck`) and that this run plans (`PlanLookup`),
/// each given its place in this plan; which of the plan's case runs they finish; and what was
/// left out, and why. Results of case
/// runs this run does not plan (other repeats, levels, variants, cases or backends) are left
/// out as stale ones are: counted in the reports and gates, they would judge another plan.
package struct ResumedRun: Sendable {
    /// What changed since the resumed run.
    package var check: ResumeCheck
    /// The results kept, in the order results.jsonl had them: the run's results.jsonl starts with them.
    package var results: ResultTable
    /// The plan positions of the case runs they finish: the runner sends the others.
    package var finished: FinishedCaseRuns
    /// Finished case runs left out because their inputs changed (sent again where the plan has them).
    package var staleCaseRuns = 0
    /// Finished case runs left out because this run does not plan them.
    package var unplanned = UnplannedCaseRuns()

    /// Reads the finished results of `directory`, keeping those of `plan`'s case runs that
    /// `check` does not find stale.
    package static func read(_ directory: RunDirectory, plan: PlannedCaseRuns, check: ResumeCheck) throws -> ResumedRun {
        let lookup = PlanLookup(plan)
        var finished = FinishedCaseRuns(count: plan.count)
        var stale = 0
        var unplanned = UnplannedCaseRuns()
        let results = try directory.finishedResults { result in
            // Every turn of a case run gets the same answer: each is counted on its first turn.
            let first = result.turn == 1
            if check.isStale(result) {
                if first { stale += 1 }
                return nil
            }
            guard let position = lookup.position(of: result) else {
                if first { unplanned.add(lookup.mismatch(of: result)) }
                return nil
            }
            finished.insert(position)
            // Its place in this plan, which another repeat count, level or case list numbers
            // otherwise (a place another case run now has would merge their turns in the
            // reports), and the suite's latency targets as they are now, which goodput counts against.
            let run = plan[position]
            var kept = result
            kept.planIndex = run.index
            kept.slo = run.slo
            return kept
        }
        return ResumedRun(check: check, results: results, finished: finished, staleCaseRuns: stale, unplanned: unplanned)
    }

    /// Whether the resume must be accepted with `--resume-changed`: an input changed, or the
    /// resumed run finished case runs this run does not plan.
    package var needsConsent: Bool { !check.isUnchanged || unplanned.count > 0 }

    /// What changed and what this run does not plan, as a refusal lists it.
    package var summary: String {
        let parts = [check.summary, unplanned.count == 0 ? "" : "not in this run's plan: \(unplanned.summary)"]
        return parts.filter { !$0.isEmpty }.joined(separator: "; ")
    }

    /// The note the verdict carries when the resume was accepted with changes; nil without any.
    package var verdictNote: String? {
        guard needsConsent else { return nil }
        let leftOut = unplanned.count == 0 ? "" : ", and \(unplanned.count) finished case runs this run does not plan were left out"
        return "resumed with changes (\(summary)): changed and added cases and variants ran again, deleted ones were dropped" + leftOut
    }

    /// What the terminal says was left out of the resumed run's finished case runs, and why;
    /// nil when nothing was.
    package var leftOutLine: String? {
        guard staleCaseRuns + unplanned.count > 0 else { return nil }
        var parts: [String] = []
        if unplanned.count > 0 {
            parts.append("\(unplanned.count) finished case runs left out of results.jsonl and the reports, as this run does not plan them: \(unplanned.summary)")
        }
        if staleCaseRuns > 0 {
            parts.append("\(staleCaseRuns) finished case runs left out as their inputs changed (sent again where this run plans them)")
        }
        return parts.joined(separator: "; ")
    }
}

/// Finished case runs of a resumed run that this run does not plan, counted by why (the first
/// part of their key the plan lacks), with the first few names of each.
package struct UnplannedCaseRuns: Sendable, Equatable {
    private struct Tally: Sendable, Equatable {
        var count = 0
        var names: [String] = []
        var more = false
    }

    /// How many case runs.
    package private(set) var count = 0
    private var tallies: [PlanLookup.Mismatch: Tally] = [:]

    /// Counts one case run, not planned for `mismatch`.
    mutating func add(_ mismatch: (PlanLookup.Mismatch, name: String)) {
        count += 1
        var tally = tallies[mismatch.0, default: Tally()]
        tally.count += 1
        if !tally.names.contains(mismatch.name) {
            if tally.names.count < 5 { tally.names.append(mismatch.name) } else { tally.more = true }
        }
        tallies[mismatch.0] = tally
    }

    /// `repeat 2 (4 case runs); cases s/a, s/b (2 case runs)`.
    package var summary: String {
        PlanLookup.Mismatch.allCases.compactMap { mismatch in
            guard let tally = tallies[mismatch] else { return nil }
            let noun = tally.names.count == 1 && !tally.more ? mismatch.noun.one : mismatch.noun.several
            let names = tally.names.sorted().joined(separator: ", ") + (tally.more ? " and more" : "")
            return "\(noun) \(names) (\(tally.count) case run\(tally.count == 1 ? "" : "s"))"
        }.joined(separator: "; ")
    }
}

/// The positions in a plan of the case runs a resumed run finished, a bit each: the runner sends
/// the others. (A set of their keys took about 100 bytes a case run.)
package struct FinishedCaseRuns: Sendable, Equatable {
    private var words: [UInt64]

    /// None finished, of a plan of `count` runs.
    package init(count: Int = 0) {
        words = Array(repeating: 0, count: (count + 63) / 64)
    }

    mutating func insert(_ position: Int) {
        words[position >> 6] |= 1 << UInt64(position & 63)
    }

    /// Whether the run at `position` finished.
    package func contains(_ position: Int) -> Bool {
        position >> 6 < words.count && words[position >> 6] & (1 << UInt64(position & 63)) != 0
    }
}
