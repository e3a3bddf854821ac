/// Everything the reports compute from a run's results: its case runs and one summary per
/// backend × reasoning × variant. One pass over the results, then one sort per percentile.
package struct RunAggregate: Sendable {
    /// The case runs, in the order their first request appears in the results. They are read
    /// from the results (a `ResultTable`) as they are asked for, not kept as copies.
    package private(set) var caseRuns = CaseRunList()
    /// One summary per backend × reasoning × variant, in first-seen order.
    package private(set) var groups: [GroupSummary] = []
    /// Each case's repeats per backend × reasoning × variant, in first-seen order.
    package private(set) var repeats = CaseRepeatsList()
    /// The index in `repeats` of each case run's case on its group, in the order of `caseRuns`:
    /// the case runs one JUnit testcase reports. In a temporary file a block at a time, as the
    /// table's rows are: 4 bytes a case run were memory each request added to a report.
    package private(set) var repeatOfCaseRun = FileBackedArray<UInt32>()
    /// Each case run's status (`CaseRun.status`), in the order of `caseRuns`: computed once here,
    /// since every report asks for it and it walks the case run's requests.
    package private(set) var statuses: [RequestResult.Status] = []

    /// The suite, case and group of case run `index` (of `caseRuns`), without reading its
    /// requests: the reports that need only these, and the status, do not build the case run.
    package func caseRepeats(ofCaseRun index: Int) -> CaseRepeats {
        repeats[Int(repeatOfCaseRun[index])]
    }

    /// Aggregates `results`, which may come in any order (turns and case runs interleaved):
    /// case runs and groups come out in plan order (`RequestResult.planIndex`), then in the
    /// order given for results without one. Every turn counts in its case run's group, so a
    /// turn that switches backend or level adds no group of its own. Results given as a
    /// `ResultTable` are not copied. With `bootstrapIntervals`, each group also gets the case
    /// bootstrap intervals of its latency and TTFT percentiles (summary.md's; seconds for a
    /// million results, so only the reports ask for them).
    package init<Results: Sequence<RequestResult>>(_ results: Results, bootstrapIntervals: Bool = false) {
        let table = results as? ResultTable ?? ResultTable(results)
        let (order, keyed) = Self.planOrder(table)
        var groups = CaseRunGroups(computesIntervals: bootstrapIntervals)
        var statuses: [RequestResult.Status] = []
        if keyed {
            caseRuns = CaseRunList(table, caseRunOf: Self.caseRunsByKey(table, order: order), order: order)
            for caseRun in caseRuns {
                statuses.append(caseRun.status)
                groups.add(caseRun, status: statuses[statuses.count - 1])
            }
        } else {
            // In plan order a case run's turns are neighbours (one plan index per case run), so
            // each case run is finished as soon as the next begins: every result is read once.
            var starts = Positions()
            var current: [RequestResult] = []
            func finishCurrent() {
                guard !current.isEmpty else { return }
                let caseRun = CaseRun(turnOrdered: current)
                statuses.append(caseRun.status)
                groups.add(caseRun, status: statuses[statuses.count - 1])
                current.removeAll(keepingCapacity: true)
            }
            for position in order.indices {
                let result = table[Int(order[position])]
                if let last = current.last, last.planIndex != result.planIndex || last.caseRunKey != result.caseRunKey {
                    finishCurrent()
                }
                if current.isEmpty { starts.append(Int32(position)) }
                current.append(result)
            }
            finishCurrent()
            caseRuns = CaseRunList(table, rows: order, starts: starts)
        }
        self.statuses = statuses
        (repeats, self.groups) = groups.finished()
        repeatOfCaseRun = groups.repeatOfCaseRun
    }

    /// The case run of each of `order`'s positions, for results some of which have no plan
    /// index: by key, each case run numbered in the order its first request comes.
    private static func caseRunsByKey(_ table: ResultTable, order: Positions) -> [Int32] {
        var indexByKey: [String: Int32] = [:]
        return order.map { row in
            indexByKey.number(of: table[Int(row)].caseRunKey).number
        }
    }

    /// The aggregate of `caseRuns` (a subset of another aggregate's, such as a tag's), in the
    /// order given, each case run's requests in turn order. The case runs are shared, not
    /// copied: their requests are the same arrays. `statuses`, when given, are theirs
    /// (`CaseRun.status`, as another aggregate computed them), so they are not computed again.
    package init(caseRuns subset: [CaseRun], statuses known: [RequestResult.Status]? = nil) {
        caseRuns = CaseRunList(subset)
        var groups = CaseRunGroups()
        let known = known?.count == subset.count ? known : nil
        for (index, caseRun) in subset.enumerated() {
            statuses.append(known?[index] ?? caseRun.status)
            groups.add(caseRun, status: statuses[index])
        }
        (repeats, self.groups) = groups.finished()
        repeatOfCaseRun = groups.repeatOfCaseRun
    }

    /// The group summaries that `RunAggregate(caseRuns:statuses:)` gives for `caseRuns` (any
    /// collection of them, such as a lazy view of a tag's case runs), without keeping a copy of
    /// the case runs.
    package static func groups<CaseRuns: Collection<CaseRun>>(of caseRuns: CaseRuns,
                                                              statuses: [RequestResult.Status]) -> [GroupSummary] {
        var groups = CaseRunGroups()
        let known = statuses.count == caseRuns.count ? statuses : nil
        for (index, caseRun) in caseRuns.enumerated() { groups.add(caseRun, status: known?[index] ?? caseRun.status) }
        return groups.finished().groups
    }

    /// The positions of `results` by plan index, then turn; results without a plan index after,
    /// as given. `keyed` is true when some result has no plan index, so case runs must be found by key.
    /// Results already in that order (a merged run's, a run at concurrency 1, the bench's) are
    /// not sorted, and their order takes no memory.
    static func planOrder(_ results: ResultTable) -> (order: Positions, keyed: Bool) {
        var inOrder = true
        var previous: (plan: Int, turn: Int)?
        for index in results.indices {
            guard let plan = results.planIndex(at: index) else {
                inOrder = false
                break
            }
            let turn = results.turn(at: index)
            if let previous, (plan, turn) < previous {
                inOrder = false
                break
            }
            previous = (plan, turn)
        }
        if inOrder {
            var order = Positions()
            for index in results.indices { order.append(Int32(truncatingIfNeeded: index)) }
            return (order, false)
        }
        return sortedPlanOrder(results)
    }

    private static func sortedPlanOrder(_ results: ResultTable) -> (order: Positions, keyed: Bool) {
        struct Position: Comparable {
            var plan: Int
            var minor: Int
            var index: Int32

            static func < (lhs: Position, rhs: Position) -> Bool {
                (lhs.plan, lhs.minor, lhs.index) < (rhs.plan, rhs.minor, rhs.index)
            }
        }
        var keyed = false
        var positions: [Position] = []
        positions.reserveCapacity(results.count)
        for index in results.indices {
            if let plan = results.planIndex(at: index) {
                positions.append(Position(plan: plan, minor: results.turn(at: index), index: Int32(index)))
            } else {
                keyed = true
                positions.append(Position(plan: .max, minor: index, index: Int32(index)))
            }
        }
        positions.sort()
        var order = Positions()
        for position in positions { order.append(position.index) }
        return (order, keyed)
    }
}

/// Group summaries built one case run at a time, in the order the case runs come: what an
/// aggregate's `groups` and `repeats` are, without holding the case runs. Each case's repeats
/// on a group are counted under two small numbers (the case's and the group's), not a copy of
/// their names, so a tag's summaries of a million case runs take a few megabytes.
struct CaseRunGroups {
    /// Whether `finished` lists each case's repeats (an aggregate's), not only the groups (a tag's).
    private let keepsRepeats: Bool
    /// Whether `finished` gives each group its case bootstrap intervals (see `GroupSummary.latencyIntervals`).
    private let computesIntervals: Bool
    private var groupIndexByKey: [SummaryGroupKey: Int] = [:]
    private var accumulators: [GroupAccumulator] = []
    private var caseIndexByKey: [CaseKey: UInt32] = [:]
    private var cases: [CaseKey] = []
    private var lastCase: (key: CaseKey, index: UInt32)?
    private var repeatIndexByKey: [RepeatKey: UInt32] = [:]
    private var repeatSets: [RepeatSet] = []
    private var lastRepeat: (key: RepeatKey, index: UInt32)?
    /// The index in `repeatSets` of each case run added, when `keepsRepeats`.
    private(set) var repeatOfCaseRun = FileBackedArray<UInt32>()

    /// The sorted samples of the groups these case runs are a subset of, by group.
    private var references: [SummaryGroupKey: GroupAccumulator.Reference] = [:]

    init(keepsRepeats: Bool = true, computesIntervals: Bool = false) {
        self.keepsRepeats = keepsRepeats
        self.computesIntervals = computesIntervals
    }

    /// Groups of a subset of the case runs `whole` summarises (a tag's of an aggregate's): their
    /// latencies and TTFTs are held as a `SampleSubset` of `whole`'s (4 bytes a sample, or one
    /// bit per sample of the whole group once that is less), and the finished groups keep their
    /// percentiles, exact, but not their samples.
    init(subsetOf whole: [GroupSummary]) {
        keepsRepeats = false
        computesIntervals = false
        for summary in whole {
            references[summary.group] = GroupAccumulator.Reference(latenciesMs: summary.timedLatenciesMs,
                                                                   ttftsMs: summary.timedTTFTsMs)
        }
    }

    /// Counts `caseRun`, whose status is `status`, and every one of its requests in its group.
    mutating func add(_ caseRun: CaseRun, status: RequestResult.Status) {
        let (groupIndex, isNewGroup) = groupIndexByKey.number(of: caseRun.group)
        if isNewGroup { accumulators.append(GroupAccumulator(group: caseRun.group, reference: references[caseRun.group])) }
        let key = RepeatKey(caseIndex: caseIndex(CaseKey(suite: caseRun.suite, caseID: caseRun.caseID)),
                            groupIndex: UInt32(truncatingIfNeeded: groupIndex))
        let index: UInt32
        // In plan order a case's repeats are neighbours, so most keys are the last one's.
        if let lastRepeat, lastRepeat.key == key {
            index = lastRepeat.index
        } else {
            let isNew: Bool
            (index, isNew) = repeatIndexByKey.number(of: key)
            if isNew { repeatSets.append(RepeatSet(key: key)) }
        }
        lastRepeat = (key, index)
        // The case's repeat set on this group names the case its samples belong to.
        for request in caseRun.requests { accumulators[groupIndex].add(request, case: computesIntervals ? index : nil) }
        accumulators[groupIndex].count(status)
        repeatSets[Int(index)].count(status)
        if keepsRepeats { repeatOfCaseRun.append(index) }
    }

    /// Gives each group the case bootstrap intervals of its latency and TTFT percentiles, on
    /// every core, from its samples in the order they came with their cases (`finish` sorts them).
    private mutating func addIntervals() {
        let found = concurrentMap(accumulators.indices.map { $0 }) { [accumulators] index in
            let group = accumulators[index]
            return (group.latencyCases.intervals(of: group.latenciesMs), group.ttftCases.intervals(of: group.ttftsMs))
        }
        for (index, (latency, ttft)) in found.enumerated() {
            (accumulators[index].summary.latencyIntervals, accumulators[index].summary.timedLatencyCases) = latency
            (accumulators[index].summary.ttftIntervals, accumulators[index].summary.timedTTFTCases) = ttft
            accumulators[index].latencyCases = CaseRuns()
            accumulators[index].ttftCases = CaseRuns()
        }
    }

    /// The number of the case `key`, numbered as the cases first come.
    private mutating func caseIndex(_ key: CaseKey) -> UInt32 {
        // A case's case runs are neighbours in plan order; equal strings shared by a table compare at once.
        if let lastCase, lastCase.key == key { return lastCase.index }
        let (index, isNew) = caseIndexByKey.number(of: key)
        if isNew && keepsRepeats { cases.append(key) }
        lastCase = (key, index)
        return index
    }

    /// Each case's repeats (empty unless `keepsRepeats`), and the groups with their
    /// percentiles and intervals.
    /// Each group's samples are sorted where they are, not copied.
    mutating func finished() -> (repeats: CaseRepeatsList, groups: [GroupSummary]) {
        for repeatSet in repeatSets where repeatSet.ran > 0 {
            accumulators[Int(repeatSet.key.groupIndex)].summary.distinctCases += 1
            if repeatSet.passed == repeatSet.ran { accumulators[Int(repeatSet.key.groupIndex)].summary.casesPassingEveryRepeat += 1 }
        }
        let repeats = keepsRepeats
            ? CaseRepeatsList(cases: cases, groups: accumulators.map(\.summary.group), sets: repeatSets)
            : CaseRepeatsList()
        if computesIntervals { addIntervals() }
        var groups: [GroupSummary] = []
        for index in accumulators.indices { groups.append(accumulators[index].finish()) }
        return (repeats, groups)
    }
}

/// A suite and case id, without building a string of them (the aggregate's, the
/// recommendation's, the case matrix's and the case grid's rows).
struct CaseKey: Hashable {
    var suite: String
    var caseID: String
}

/// A case on a group, by their numbers.
struct RepeatKey: Hashable {
    var caseIndex: UInt32
    var groupIndex: UInt32
}

/// How many of a case's repeats on a group ran and passed, in 16 bytes.
struct RepeatSet {
    var key: RepeatKey
    var ran: UInt32 = 0
    var passed: UInt32 = 0

    mutating func count(_ status: RequestResult.Status) {
        guard status != .skipped else { return }
        ran &+= 1
        if status == .pass { passed &+= 1 }
    }
}

/// An aggregate's `CaseRepeats`, each made when asked for from 16 bytes (the case's and the
/// group's numbers, the counts), not held with copies of their names.
package struct CaseRepeatsList: RandomAccessCollection, Sendable {
    private var cases: [CaseKey] = []
    private var groups: [SummaryGroupKey] = []
    private var sets: [RepeatSet] = []

    /// None.
    package init() {}

    init(cases: [CaseKey], groups: [SummaryGroupKey], sets: [RepeatSet]) {
        self.cases = cases
        self.groups = groups
        self.sets = sets
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { sets.count }

    package subscript(position: Int) -> CaseRepeats {
        let set = sets[position], key = cases[Int(set.key.caseIndex)]
        var repeats = CaseRepeats(suite: key.suite, caseID: key.caseID, group: groups[Int(set.key.groupIndex)])
        repeats.ran = Int(set.ran)
        repeats.passed = Int(set.passed)
        return repeats
    }
}

/// The running sums of one group while the results stream past.
private struct GroupAccumulator {
    /// The counts and sums so far; percentiles and the pass rate come in `finished()`.
    var summary: GroupSummary
    var latenciesMs: TimedSamples = []
    var ttftsMs: TimedSamples = []
    var ttfasMs: TimedSamples = []
    /// The cases of `latenciesMs` and `ttftsMs` (each its repeat set's number), when the
    /// bootstrap intervals are computed: a case's samples are neighbours in plan order, so one
    /// entry per run of samples of one case, not one per sample.
    var latencyCases = CaseRuns()
    var ttftCases = CaseRuns()
    var turns: [Int: TurnAccumulator] = [:]
    var metricIndexByName: [String: Int] = [:]
    /// Σ cost over the requests whose cost is known; the group's cost only when all are.
    var knownCostUSD = 0.0
    /// A tag's share of the whole group's samples, when this group counts a subset of another.
    var latencySubset: SampleSubset?
    var ttftSubset: SampleSubset?
    /// Held against the whole group's TTFTs, which most TTFAs equal (all but a reasoning model's).
    var ttfaSubset: SampleSubset?

    /// A whole group's samples, sorted.
    struct Reference {
        var latenciesMs: TimedSamples
        var ttftsMs: TimedSamples
    }

    /// With a `reference`, the group counts a subset of that group's requests (a tag's): its
    /// latencies, TTFTs and TTFAs are held as `SampleSubset`s of the reference's.
    init(group: SummaryGroupKey, reference: Reference? = nil) {
        summary = GroupSummary(group: group)
        if let reference {
            latencySubset = SampleSubset(of: reference.latenciesMs)
            ttftSubset = SampleSubset(of: reference.ttftsMs)
            ttfaSubset = SampleSubset(of: reference.ttftsMs)
        }
    }

    /// Counts `result`; `case`, when given, names its case for the bootstrap intervals.
    mutating func add(_ result: RequestResult, case caseNumber: UInt32? = nil) {
        if summary.model == nil { summary.model = result.model }
        // An error or a skip carries the configured name, not one a server reported.
        if result.status == .pass || result.status == .fail, let model = result.model { summary.models.add(model) }
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
        let succeeded = result.isTimedSample
        if result.replayed == true { summary.replayedRequests += 1 }
        if let slo = result.slo, result.status != .skipped, result.hasOwnTiming {
            summary.sloRequests += 1
            if result.status != .error, slo.isMet(by: result.timing) { summary.goodRequests += 1 }
        }
        if succeeded, let latency = result.timing?.latencyMs {
            if latencySubset != nil { latencySubset!.insert(latency) } else { latenciesMs.append(latency) }
            if let caseNumber { latencyCases.append(caseNumber, at: latenciesMs.count - 1) }
        }
        if succeeded, let ttft = result.timing?.ttftMs {
            if ttftSubset != nil { ttftSubset!.insert(ttft) } else { ttftsMs.append(ttft) }
            if let caseNumber { ttftCases.append(caseNumber, at: ttftsMs.count - 1) }
        }
        if succeeded, let ttfa = result.timing?.ttfaMs {
            if ttfaSubset != nil { ttfaSubset!.insert(ttfa) } else { ttfasMs.append(ttfa) }
        }
        if result.turns > 1 {
            turns[result.turn, default: TurnAccumulator()].add(result, succeeded: succeeded)
        }
        for assertion in result.assertions {
            guard let name = assertion.metric else { continue }
            let (index, isNew) = metricIndexByName.number(of: name)
            if isNew { summary.metrics.append(NamedMetric(name: name)) }
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

    /// The group's summary, its samples sorted in place (so the summary shares them).
    mutating func finish() -> GroupSummary {
        var summary = summary
        if let mostFrequent = summary.models.ranked.first { summary.model = mostFrequent.name }
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
        if let latencySubset { latenciesMs = latencySubset.sortedValues() } else { latenciesMs.sort() }
        if let ttftSubset { ttftsMs = ttftSubset.sortedValues() } else { ttftsMs.sort() }
        // Kept with the summary for the reports: without the room their arrays grew into.
        latenciesMs.shrinkToFit()
        ttftsMs.shrinkToFit()
        if let ttfaSubset { ttfasMs = ttfaSubset.sortedValues() } else { ttfasMs.sort() }
        let latencies = latenciesMs, ttfts = ttftsMs, ttfas = ttfasMs
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
        summary.ttfaP50Ms = percentile(50, of: ttfas)
        summary.ttfaP95Ms = percentile(95, of: ttfas)
        if latencySubset != nil {
            // A subset's samples are its whole group's again: not kept twice.
            summary.timedLatenciesMs = []
            summary.timedTTFTsMs = []
            latenciesMs = []
            ttftsMs = []
            ttfasMs = []
            latencySubset = nil
            ttftSubset = nil
            ttfaSubset = nil
        }
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
    var ttftsMs: TimedSamples = []
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
        var sorted = ttftsMs
        sorted.sort()
        return TurnSummary(turn: turn, requests: requests, usage: usage, ttftP50Ms: percentile(50, of: sorted),
                           idealRatio: totalCharacters > 0 ? Double(sharedCharacters) / Double(totalCharacters) : nil)
    }
}

/// Which case each of a group's samples belongs to, as runs of neighbouring samples of one
/// case: in plan order a case's repeats and turns are neighbours, so this holds one entry per
/// case, not per sample (results out of plan order just make more runs).
struct CaseRuns: Sendable {
    /// Where each run starts among the samples, and its case.
    private var starts: [UInt32] = []
    private var cases: [UInt32] = []

    /// Sample `position` (the next one) is of case `caseNumber`.
    mutating func append(_ caseNumber: UInt32, at position: Int) {
        if cases.last == caseNumber { return }
        starts.append(UInt32(truncatingIfNeeded: position))
        cases.append(caseNumber)
    }

    /// The case bootstrap intervals of `samples` (which these runs describe), and how many cases they are of.
    func intervals(of samples: TimedSamples) -> ([PercentileInterval]?, Int?) {
        if samples.isEmpty { return (nil, 0) }
        guard samples.count <= Int(UInt32.max), starts.first == 0 else { return (nil, nil) }
        // The runs' cases numbered 0, 1, … as they first come (a case out of plan order has several runs).
        var numberOf: [UInt32: UInt32] = [:]
        var caseOfSample = [UInt32](repeating: 0, count: samples.count)
        for run in starts.indices {
            let number = numberOf.number(of: cases[run]).number
            let end = run + 1 < starts.count ? Int(starts[run + 1]) : samples.count
            for position in Int(starts[run])..<end { caseOfSample[position] = number }
        }
        return (GroupSummary.bootstrapIntervals(samples.array, numberedCases: caseOfSample, caseCount: numberOf.count), numberOf.count)
    }
}
