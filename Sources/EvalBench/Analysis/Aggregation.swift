/// Everything the reports compute from a run's results: its case runs and one summary per
/// backend × reasoning × variant. One pass over the results, then one sort per percentile.
package struct RunAggregate: Sendable {
    /// The case runs, in the order their first request appears in the results.
    package private(set) var caseRuns: [CaseRun] = []
    /// One summary per backend × reasoning × variant, in first-seen order.
    package private(set) var groups: [GroupSummary] = []
    /// Each case's repeats per backend × reasoning × variant, in first-seen order.
    package private(set) var repeats: [CaseRepeats] = []
    /// Each case run's status (`CaseRun.status`), in the order of `caseRuns`: computed once here,
    /// since every report asks for it and it walks the case run's requests.
    package private(set) var statuses: [RequestResult.Status] = []

    /// Aggregates `results`, which may come in any order (turns and case runs interleaved):
    /// case runs and groups come out in plan order (`RequestResult.planIndex`), then in the
    /// order given for results without one. Every turn counts in its case run's group, so a
    /// turn that switches backend or level adds no group of its own.
    package init<Results: Sequence<RequestResult>>(_ results: Results) {
        var groupIndexByKey: [SummaryGroupKey: Int] = [:]
        var caseRunIndexByKey: [String: Int] = [:]
        var groupIndexOfCaseRun: [Int] = []
        var accumulators: [GroupAccumulator] = []
        let (ordered, keyed) = Self.planOrder(results)
        var lastPlanIndex: Int?

        for result in ordered {
            let groupIndex: Int
            if let index = Self.caseRun(of: result, lastPlanIndex: lastPlanIndex, caseRuns: caseRuns, byKey: caseRunIndexByKey) {
                caseRuns[index].add(result)
                groupIndex = groupIndexOfCaseRun[index]
            } else {
                let groupKey = SummaryGroupKey(result)
                if let index = groupIndexByKey[groupKey] {
                    groupIndex = index
                } else {
                    groupIndex = accumulators.count
                    groupIndexByKey[groupKey] = groupIndex
                    accumulators.append(GroupAccumulator(group: groupKey))
                }
                if keyed { caseRunIndexByKey[result.caseRunKey] = caseRuns.count }
                caseRuns.append(CaseRun(first: result))
                groupIndexOfCaseRun.append(groupIndex)
            }
            lastPlanIndex = result.planIndex
            accumulators[groupIndex].add(result)
        }
        apply(Self.finish(caseRuns, groupIndexOfCaseRun: groupIndexOfCaseRun, accumulators: accumulators, statuses: nil))
    }

    /// The index of `result`'s case run among `caseRuns` so far, nil for a new one. In plan order
    /// a case run's turns are neighbours (one plan index per case run, and one case run per plan
    /// index), so a result with a plan index belongs to the last case run or to a new one, and
    /// no key is hashed or kept for it. Only when some result has no plan index (`keyed`) are
    /// the case runs found by key, as before plan indexes existed.
    private static func caseRun(of result: RequestResult, lastPlanIndex: Int?, caseRuns: [CaseRun],
                                byKey: [String: Int]) -> Int? {
        if let planIndex = result.planIndex, planIndex == lastPlanIndex, let last = caseRuns.indices.last,
           caseRuns[last].key == result.caseRunKey {
            return last
        }
        return byKey.isEmpty ? nil : byKey[result.caseRunKey]
    }

    /// The aggregate of `caseRuns` (a subset of another aggregate's, such as a tag's), in the
    /// order given, each case run's requests in turn order. The case runs are shared, not
    /// copied: their requests are the same arrays. `statuses`, when given, are theirs
    /// (`CaseRun.status`, as another aggregate computed them), so they are not computed again.
    package init(caseRuns subset: [CaseRun], statuses known: [RequestResult.Status]? = nil) {
        caseRuns = subset
        let (groupIndexOfCaseRun, accumulators) = Self.accumulate(subset)
        apply(Self.finish(subset, groupIndexOfCaseRun: groupIndexOfCaseRun, accumulators: accumulators,
                          statuses: known?.count == subset.count ? known : nil))
    }

    /// The group summaries that `RunAggregate(caseRuns:statuses:)` gives for `caseRuns` (any
    /// collection of them, such as a lazy view of a tag's case runs), without keeping a copy of
    /// the case runs.
    package static func groups<CaseRuns: Collection<CaseRun>>(of caseRuns: CaseRuns,
                                                              statuses: [RequestResult.Status]) -> [GroupSummary] {
        let (groupIndexOfCaseRun, accumulators) = accumulate(caseRuns)
        return finish(caseRuns, groupIndexOfCaseRun: groupIndexOfCaseRun, accumulators: accumulators,
                      statuses: statuses.count == caseRuns.count ? statuses : nil).groups
    }

    /// Each case run's group (indices into the accumulators, in first-seen order), and the
    /// groups' running sums over every request of the case runs.
    private static func accumulate<CaseRuns: Collection<CaseRun>>(_ caseRuns: CaseRuns)
        -> (groupIndexOfCaseRun: [Int], accumulators: [GroupAccumulator]) {
        var groupIndexByKey: [SummaryGroupKey: Int] = [:]
        var groupIndexOfCaseRun: [Int] = []
        var accumulators: [GroupAccumulator] = []
        for caseRun in caseRuns {
            let groupIndex: Int
            if let index = groupIndexByKey[caseRun.group] {
                groupIndex = index
            } else {
                groupIndex = accumulators.count
                groupIndexByKey[caseRun.group] = groupIndex
                accumulators.append(GroupAccumulator(group: caseRun.group))
            }
            groupIndexOfCaseRun.append(groupIndex)
            for request in caseRun.requests { accumulators[groupIndex].add(request) }
        }
        return (groupIndexOfCaseRun, accumulators)
    }

    /// What `finish` computes from the case runs: their statuses, repeats and group summaries.
    private struct Finished {
        var statuses: [RequestResult.Status]
        var repeats: [CaseRepeats]
        var groups: [GroupSummary]
    }

    private mutating func apply(_ finished: Finished) {
        statuses = finished.statuses
        repeats = finished.repeats
        groups = finished.groups
    }

    /// Counts each case run in its group, folds the repeats of each case, and finishes the groups.
    private static func finish<CaseRuns: Collection<CaseRun>>(
        _ caseRuns: CaseRuns, groupIndexOfCaseRun: [Int], accumulators: [GroupAccumulator],
        statuses known: [RequestResult.Status]?
    ) -> Finished {
        var accumulators = accumulators
        let statuses = known ?? caseRuns.map(\.status)
        for (status, groupIndex) in zip(statuses, groupIndexOfCaseRun) {
            accumulators[groupIndex].count(status)
        }
        var repeats: [CaseRepeats] = []
        var repeatIndexByKey: [CaseGroupKey: Int] = [:]
        var last: (key: CaseGroupKey, index: Int)?
        for ((caseRun, status), groupIndex) in zip(zip(caseRuns, statuses), groupIndexOfCaseRun) {
            let key = CaseGroupKey(suite: caseRun.suite, caseID: caseRun.caseID, group: caseRun.group)
            let index: Int
            // In plan order a case's repeats are neighbours, so most keys are the last one's.
            if let last, last.key == key {
                index = last.index
            } else if let existing = repeatIndexByKey[key] {
                index = existing
            } else {
                index = repeats.count
                repeatIndexByKey[key] = index
                repeats.append(CaseRepeats(suite: caseRun.suite, caseID: caseRun.caseID, group: caseRun.group))
                accumulators[groupIndex].repeatIndices.append(index)
            }
            last = (key, index)
            repeats[index].count(status)
        }
        for index in accumulators.indices {
            let ran = accumulators[index].repeatIndices.map { repeats[$0] }.filter { $0.ran > 0 }
            accumulators[index].summary.distinctCases = ran.count
            accumulators[index].summary.casesPassingEveryRepeat = ran.filter(\.passedEveryRepeat).count
        }
        return Finished(statuses: statuses, repeats: repeats, groups: accumulators.map { $0.finished() })
    }

    /// `results` by plan index, then turn; results without a plan index after, as given. Only
    /// the order is sorted (indices, not results), so a million results are not copied once more.
    /// `keyed` is true when some result has no plan index, so case runs must be found by key.
    static func planOrder<Results: Sequence<RequestResult>>(_ results: Results)
        -> (results: LazyMapSequence<[Int], RequestResult>, keyed: Bool) {
        let all = results as? [RequestResult] ?? Array(results)
        let order = all.indices.sorted { lhs, rhs in
            let left = (all[lhs].planIndex ?? .max, all[lhs].planIndex == nil ? lhs : all[lhs].turn)
            let right = (all[rhs].planIndex ?? .max, all[rhs].planIndex == nil ? rhs : all[rhs].turn)
            return left != right ? left < right : lhs < rhs
        }
        return (order.lazy.map { all[$0] }, all.contains { $0.planIndex == nil })
    }
}

/// A case within one backend × reasoning × variant: its repeats fold together.
private struct CaseGroupKey: Hashable {
    var suite: String
    var caseID: String
    var group: SummaryGroupKey
}

/// The running sums of one group while the results stream past.
private struct GroupAccumulator {
    /// The counts and sums so far; percentiles and the pass rate come in `finished()`.
    var summary: GroupSummary
    var latenciesMs: [Double] = []
    var ttftsMs: [Double] = []
    var ttfasMs: [Double] = []
    var turns: [Int: TurnAccumulator] = [:]
    var metricIndexByName: [String: Int] = [:]
    /// Indices into the aggregate's `repeats` of this group's cases.
    var repeatIndices: [Int] = []
    /// Σ cost over the requests whose cost is known; the group's cost only when all are.
    var knownCostUSD = 0.0

    init(group: SummaryGroupKey) {
        summary = GroupSummary(group: group)
    }

    mutating func add(_ result: RequestResult) {
        if summary.model == nil { summary.model = result.model }
        if result.status != .skipped {
            // Skipped requests were not sent: they have no usage and cost nothing.
            summary.usage.add(result.usage)
            if result.usage.reasoningTokens != nil { summary.requestsReportingReasoning += 1 }
            if result.usage.outputTokens != nil { summary.requestsReportingOutput += 1 }
            summary.requestsSent += 1
            if let cost = result.costUSD {
                knownCostUSD += cost
                summary.requestsWithCost += 1
            }
        }
        if result.toolCalls != nil {
            var tools = summary.tools ?? ToolSummary()
            tools.add(result)
            summary.tools = tools
        }
        if result.status == .error, let kind = result.errorKind {
            summary.errorCounts[kind, default: 0] += 1
            if summary.firstErrorMessages[kind] == nil { summary.firstErrorMessages[kind] = result.errorMessage }
        }
        // A fallback's answer was graded, but its timings are another backend's.
        // So are a replayed answer's: the earlier run measured them.
        let succeeded = (result.status == .pass || result.status == .fail) && result.hasOwnTiming
            && result.cached != true
        if result.replayed == true { summary.replayedRequests += 1 }
        if let slo = result.slo, result.status != .skipped, result.hasOwnTiming {
            summary.sloRequests += 1
            if result.status != .error, slo.isMet(by: result.timing) { summary.goodRequests += 1 }
        }
        if succeeded, let latency = result.timing?.latencyMs { latenciesMs.append(latency) }
        if succeeded, let ttft = result.timing?.ttftMs { ttftsMs.append(ttft) }
        if succeeded, let ttfa = result.timing?.ttfaMs { ttfasMs.append(ttfa) }
        if result.turns > 1 {
            turns[result.turn, default: TurnAccumulator()].add(result, succeeded: succeeded)
        }
        for assertion in result.assertions {
            guard let name = assertion.metric else { continue }
            let index: Int
            if let existing = metricIndexByName[name] {
                index = existing
            } else {
                index = summary.metrics.count
                metricIndexByName[name] = index
                summary.metrics.append(NamedMetric(name: name))
            }
            summary.metrics[index].total += 1
            if assertion.passed { summary.metrics[index].passed += 1 }
        }
    }

    mutating func count(_ status: RequestResult.Status) {
        summary.cases += 1
        switch status {
        case .pass: summary.passed += 1
        case .fail: summary.failed += 1
        case .error: summary.errors += 1
        case .skipped: summary.skipped += 1
        }
    }

    func finished() -> GroupSummary {
        var summary = summary
        // A sum with an unknown part is unknown: one sent request without a cost leaves the group's unknown.
        summary.costUSD = summary.requestsSent > 0 && summary.requestsWithCost == summary.requestsSent && knownCostUSD.isFinite
            ? knownCostUSD : nil
        let ran = summary.cases - summary.skipped
        if ran > 0 {
            let passRate = Double(summary.passed) / Double(ran)
            summary.passRate = passRate
            // The case is the unit: repeats are samples within a case, so n is the number of
            // distinct cases that ran (with one repeat each, this is the Wilson interval over case runs).
            let interval = caseClusteredInterval(passRate: passRate, cases: max(summary.distinctCases, 1))
            summary.passRateLow = interval?.low
            summary.passRateHigh = interval?.high
        }
        let latencies = latenciesMs.sorted()
        let ttfts = ttftsMs.sorted()
        summary.latencyP50Ms = percentile(50, of: latencies)
        summary.latencyP90Ms = percentile(90, of: latencies)
        summary.latencyP95Ms = percentile(95, of: latencies)
        summary.latencyP99Ms = percentile(99, of: latencies)
        summary.ttftP50Ms = percentile(50, of: ttfts)
        summary.ttftP90Ms = percentile(90, of: ttfts)
        summary.ttftP95Ms = percentile(95, of: ttfts)
        summary.ttftP99Ms = percentile(99, of: ttfts)
        summary.timedLatenciesMs = latencies
        summary.timedTTFTsMs = ttfts
        let ttfas = ttfasMs.sorted()
        summary.ttfaP50Ms = percentile(50, of: ttfas)
        summary.ttfaP95Ms = percentile(95, of: ttfas)
        summary.turns = turns.keys.sorted().compactMap { turn in
            turns[turn].map { $0.summary(turn: turn) }
        }
        return summary
    }
}

/// The running sums of one turn index within a group.
private struct TurnAccumulator {
    var requests = 0
    var usage = UsageTotals()
    var ttftsMs: [Double] = []
    var sharedCharacters = 0
    var totalCharacters = 0

    mutating func add(_ result: RequestResult, succeeded: Bool) {
        requests += 1
        if result.status != .skipped { usage.add(result.usage) }
        if succeeded, let ttft = result.timing?.ttftMs { ttftsMs.append(ttft) }
        if let prefix = result.prefix {
            sharedCharacters += prefix.sharedCharacters
            totalCharacters += prefix.totalCharacters
        }
    }

    func summary(turn: Int) -> TurnSummary {
        TurnSummary(turn: turn, requests: requests, usage: usage, ttftP50Ms: percentile(50, of: ttftsMs.sorted()),
                    idealRatio: totalCharacters > 0 ? Double(sharedCharacters) / Double(totalCharacters) : nil)
    }
}
