import Foundation

/// What the report files are written from: a run's results and when it ran.
package struct ReportInput: Sendable {
    /// Every request of the run, in any order, kept compactly (`ResultTable`).
    package var results: ResultTable
    /// The suites run, for the title.
    package var suiteNames: [String]
    /// When the run started and ended.
    package var startedAt: Date
    package var endedAt: Date
    /// A note per backend name shown in the report, such as its reasoning-level mapping or
    /// why it was unavailable.
    package var backendNotes: [String: String]
    /// How each backend sent each reasoning level (backend → level name → what was sent, or
    /// why it was skipped), for the reasoning section.
    package var reasoningMappings: [String: [String: String]]
    /// Targets and backend kinds for the recommendation section and recommendation.csv.
    package var recommendation = RecommendationSettings()
    /// For an interrupted run, the sentence every report opens with; nil when it went to the end.
    package var interruption: String?
    /// For one shard of a run (`run --shard K/N`), `K/N`: its reports cover that shard's cases
    /// only, and say so; nil for a whole run or a merge.
    package var shard: String?
    /// For a merge of only some of a run's shards, the sentence every report opens with; nil
    /// for a whole run.
    package var partialMerge: String?
    /// The `--baseline` run's results, for the baseline answers and flips in report.html's case
    /// grid; nil without a baseline.
    package var baselineResults: ResultTable?
    /// The verdict summary.md and report.html open with; nil when none was decided (a
    /// library caller's own reports, a run.json from before verdicts were recorded).
    package var verdict: RecordedVerdict?
    /// Said under the verdict when the reports are written again later (`evalbench report`):
    /// the verdict is the one recorded then, not decided again.
    package var verdictNote: String?

    /// Why no recommendation is made: the run was interrupted, or merged from only some of its
    /// shards, so its figures cover part of the plan; nil when one is made.
    package var recommendationWithheld: String? {
        if interruption != nil { return RecommendationMarkdown.withheld }
        return partialMerge == nil ? nil : RecommendationMarkdown.withheldFromPartialMerge
    }

    /// With no `suiteNames`, the suites of `results` in first-seen order.
    package init<Results: Sequence<RequestResult>>(
        results: Results, suiteNames: [String] = [], startedAt: Date, endedAt: Date,
        backendNotes: [String: String] = [:], reasoningMappings: [String: [String: String]] = [:]
    ) {
        let results = results as? ResultTable ?? ResultTable(results)
        self.results = results
        self.suiteNames = suiteNames.isEmpty ? Self.suites(in: results) : suiteNames
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.backendNotes = backendNotes
        self.reasoningMappings = reasoningMappings
    }

    /// Each result's suite read on its own (not the whole result), and looked up in `seen` only
    /// when it differs from the one before (a table shares equal strings, so that is one compare).
    private static func suites(in results: ResultTable) -> [String] {
        var seen: Set<String> = []
        var names: [String] = []
        var previous: String?
        for index in results.indices {
            let suite = results.suite(at: index)
            if suite == previous { continue }
            previous = suite
            if seen.insert(suite).inserted { names.append(suite) }
        }
        return names
    }
}
