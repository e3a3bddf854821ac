/// What the recommendation needs beyond the results: the pass-rate targets, which backends
/// are the on-device model and Private Cloud Compute, and the on-device context window.
package struct RecommendationSettings: Sendable, Equatable {
    /// `--target`: overrides every suite's own.
    package var target: Double?
    /// Each suite's `target`, by suite name.
    package var suiteTargets: [String: Double]
    /// Backend name → where its model runs, from each backend's kind.
    package var placements: [String: BackendPlacement]
    /// The on-device model's window the context-fit check counts against.
    package var onDeviceWindow: Int

    /// The target when neither `--target` nor the suite sets one.
    package static let defaultTarget = 0.8
    /// The on-device window on OS 26 (DESIGN.md; 8192 on OS 27 on newer devices).
    package static let defaultOnDeviceWindow = 4096

    package init(target: Double? = nil, suiteTargets: [String: Double] = [:], placements: [String: BackendPlacement] = [:],
                onDeviceWindow: Int = RecommendationSettings.defaultOnDeviceWindow) {
        self.target = target
        self.suiteTargets = suiteTargets
        self.placements = placements
        self.onDeviceWindow = onDeviceWindow
    }
}

/// The recommendation for one tag (a feature of the suite), or for all cases: every backend ×
/// reasoning × variant measured on its cases, and the one that meets the pass-rate target
/// (the 95% interval's lower bound at or above it) and the suite's latency targets at the
/// lowest cost, then the lowest p50 latency.
package struct TagRecommendation: Sendable, Equatable {
    /// The tag; nil for the row over all cases.
    package var tag: String?
    /// Distinct cases with the tag.
    package var cases: Int
    package var target: Double
    /// `command line` (`--target`), `suite` or `default`.
    package var targetSource: String
    /// The suite's latency targets, when its cases declare them.
    package var slo: ServiceLevel?
    /// One per backend × reasoning × variant that ran any of the tag's cases, in report order.
    package var candidates: [Candidate]
    /// Index into `candidates` of the pick; nil when none meets both targets.
    package var recommendedIndex: Int?
    /// Whether the tag's cases fit the on-device window.
    package var onDevice: OnDeviceFit
    /// Requests one task (a case run) spends of a user's daily Private Cloud Compute quota:
    /// one per turn.
    package var pccRequestsPerTask: Double?
    /// The same, counted on the `apple-pcc` backends that ran, retries included; nil when none ran.
    package var pccMeasuredRequestsPerTask: Double?

    /// One backend × reasoning × variant on the tag's cases.
    package struct Candidate: Sendable, Equatable {
        /// Aggregated over the tag's results only, exactly as summary.csv aggregates a run,
        /// without its timed samples (`timedLatenciesMs`, `timedTTFTsMs` are empty): its
        /// percentiles are kept, and a tag's samples would outlive the recommendation.
        package var summary: GroupSummary
        /// The pass rate's lower bound is at or above the target.
        package var meetsTarget: Bool
        /// p95 latency and p95 TTFT within the suite's `slo`; nil when it declares none.
        package var meetsLatency: Bool?

        package var eligible: Bool { meetsTarget && meetsLatency != false }
    }

    /// The recommended candidate, if any.
    package var recommended: Candidate? { recommendedIndex.map { candidates[$0] } }

    /// The candidate with the highest lower bound (at equal bounds the cheaper, then the
    /// first), shown when none qualifies.
    package var closest: Candidate? {
        var best: Candidate?
        for candidate in candidates {
            guard let current = best else { best = candidate; continue }
            let low = candidate.summary.passRateLow ?? -1, bestLow = current.summary.passRateLow ?? -1
            let cost = candidate.summary.costPerThousandCasesUSD ?? .infinity
            let bestCost = current.summary.costPerThousandCasesUSD ?? .infinity
            if low > bestLow || (low == bestLow && cost < bestCost) { best = candidate }
        }
        return best
    }

    /// The tag's name in reports.
    package var label: String { tag ?? Recommendation.allCasesLabel }
}

/// How the cases of a tag compare with the on-device context window.
package struct OnDeviceFit: Sendable, Equatable {
    package var window: Int
    /// The largest request any case of the tag needs with its answer, in estimated tokens, and
    /// that case's id.
    package var largestTokens: Int?
    package var largestCase: String?
    /// Cases whose estimate is over the window.
    package var overflowing: [String]
    /// Cases an on-device (`apple-system`) backend answered with `context_overflow`: measured.
    package var measuredOverflowing: [String]

    /// Every case fits: none over the window by estimate or by measurement.
    package var fits: Bool { overflowing.isEmpty && measuredOverflowing.isEmpty }
}

/// The "Recommendation" section of summary.md and `recommendation.csv`.
package enum Recommendation {
    package static let allCasesLabel = "(all cases)"

    /// One recommendation over all cases, then one per tag in first-seen order.
    /// `aggregate`, when given, is `RunAggregate(results)` already computed (the report
    /// writer's), reused for the all-cases row; each tag's is made from the case runs of the
    /// cases with that tag (a case's requests share its tags). Every row is tallied in one pass
    /// over the case runs, so each is read once, not once per tag.
    package static func compute(_ results: some Collection<RequestResult>, aggregate: RunAggregate? = nil,
                               settings: RecommendationSettings) -> [TagRecommendation] {
        guard !results.isEmpty else { return [] }
        let tags: [String]
        if let table = results as? ResultTable {
            // A table gives each result's tags without reading the rest of it.
            tags = firstSeen(table.indices.lazy.map { table.tags(at: $0) })
        } else {
            tags = firstSeen(results.lazy.map(\.tags))
        }
        let all = aggregate ?? RunAggregate(results)
        var lookup = TagLookup(tags)
        var overall = Tally(countsGroups: false)
        var tallies = tags.map { _ in Tally(subsetOf: all.groups) }
        for (caseRun, status) in zip(all.caseRuns, all.statuses) {
            // Each case run's token estimate once, for every row that includes it.
            let fit = CaseRunFit(caseRun, settings: settings)
            overall.add(caseRun, status: status, fit: fit, settings: settings)
            for position in lookup.positions(of: caseRun) {
                tallies[position].add(caseRun, status: status, fit: fit, settings: settings)
            }
        }
        return [overall.recommendation(nil, groups: all.groups, settings: settings)]
            + tags.indices.map { index in
                // Finished where it is held, so its samples are sorted without a copy.
                tallies[index].recommendation(tags[index], groups: tallies[index].groups.finished().groups, settings: settings)
            }
    }

    /// Every tag of `tagSets`, in first-seen order.
    private static func firstSeen(_ tagSets: some Sequence<[String]>) -> [String] {
        var tags: [String] = []
        var seen: Set<String> = []
        var previous: [String] = []
        for resultTags in tagSets where resultTags != previous {
            // A case's requests share one tags array, so the comparison is of two pointers.
            previous = resultTags
            for tag in resultTags where seen.insert(tag).inserted { tags.append(tag) }
        }
        return tags
    }

    /// Where the tags a case run's requests carry are among a run's tags.
    struct TagLookup {
        private let indexByTag: [String: Int]
        /// A case's requests share one tags array: its positions are looked up once, not per request.
        private var previous: (tags: [String], positions: [Int]) = ([], [])

        init(_ tags: [String]) {
            indexByTag = Dictionary(tags.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }

        /// The positions of the tags any of `caseRun`'s requests carries, each once, in the
        /// order they first appear.
        mutating func positions(of caseRun: CaseRun) -> [Int] {
            var positions: [Int] = []
            for request in caseRun.requests {
                if request.tags != previous.tags {
                    previous = (request.tags, request.tags.compactMap { indexByTag[$0] })
                }
                for position in previous.positions where !positions.contains(position) { positions.append(position) }
            }
            return positions
        }
    }

    /// What one recommendation row counts over its case runs, one case run at a time.
    private struct Tally {
        /// The row's groups; the all-cases row uses the aggregate's instead.
        var groups = CaseRunGroups(keepsRepeats: false)
        let countsGroups: Bool
        var suites: Set<String> = []
        var slo: ServiceLevel?
        var distinctCases: Set<CaseKey> = []
        var last: CaseKey?
        var onDevice = OnDeviceTally()
        var ran = 0
        var turns = 0
        var ranOnPCC = 0
        var attemptsOnPCC = 0

        /// The all-cases row, whose groups are the aggregate's.
        init(countsGroups: Bool) {
            self.countsGroups = countsGroups
        }

        /// A tag's row, whose groups are a subset of `whole`, the aggregate's.
        init(subsetOf whole: [GroupSummary]) {
            countsGroups = true
            groups = CaseRunGroups(subsetOf: whole)
        }

        mutating func add(_ caseRun: CaseRun, status: RequestResult.Status, fit: CaseRunFit,
                          settings: RecommendationSettings) {
            if countsGroups { groups.add(caseRun, status: status) }
            // A case run's requests share its suite and its service level.
            if slo == nil { slo = caseRun.requests.lazy.compactMap(\.slo).first }
            onDevice.add(caseRun, fit: fit)
            if status != .skipped {
                // One Private Cloud Compute request per turn: the mean turns of the case runs that ran.
                ran += 1
                turns &+= max(caseRun.turns, 1)
                if settings.placements[caseRun.group.backend] == .privateCloudCompute {
                    ranOnPCC += 1
                    // An answer from evalbench's response cache made no attempt and spent nothing.
                    for request in caseRun.requests where request.status != .skipped { attemptsOnPCC &+= request.attempts }
                }
            }
            // In plan order a case's case runs are neighbours: most are the last one's case.
            let key = CaseKey(suite: caseRun.suite, caseID: caseRun.caseID)
            guard key != last else { return }
            last = key
            suites.insert(caseRun.suite)
            distinctCases.insert(key)
        }

        /// The row, whose group summaries are `groups`.
        func recommendation(_ tag: String?, groups: [GroupSummary], settings: RecommendationSettings) -> TagRecommendation {
            let (target, source): (Double, String) = {
                if let target = settings.target { return (target, "command line") }
                if let target = suites.compactMap({ settings.suiteTargets[$0] }).max() { return (target, "suite") }
                return (RecommendationSettings.defaultTarget, "default")
            }()
            let candidates = groups.filter { $0.cases - $0.skipped > 0 }.map { summary in
                var summary = summary
                summary.timedLatenciesMs = []
                summary.timedTTFTsMs = []
                return TagRecommendation.Candidate(summary: summary,
                                            meetsTarget: (summary.passRateLow ?? 0) >= target - 1e-12,
                                            meetsLatency: slo.map { meets($0, summary) })
            }
            return TagRecommendation(
                tag: tag, cases: distinctCases.count, target: target, targetSource: source, slo: slo,
                candidates: candidates, recommendedIndex: ranked(candidates).first,
                onDevice: onDevice.fit(settings: settings),
                pccRequestsPerTask: ran > 0 ? Double(turns) / Double(ran) : nil,
                // Σ attempts on Private Cloud Compute backends / their case runs that ran.
                pccMeasuredRequestsPerTask: settings.placements.values.contains(.privateCloudCompute) && ranOnPCC > 0
                    ? Double(attemptsOnPCC) / Double(ranOnPCC) : nil)
        }
    }

    /// The eligible candidates, cheapest first (a known cost before an unknown one), then by
    /// p50 latency, then in the order given.
    private static func ranked(_ candidates: [TagRecommendation.Candidate]) -> [Int] {
        candidates.indices.filter { candidates[$0].eligible }.sorted { left, right in
            let a = candidates[left].summary, b = candidates[right].summary
            switch (a.costPerThousandCasesUSD, b.costPerThousandCasesUSD) {
            case let (x?, y?) where x != y: return x < y
            case (_?, nil): return true
            case (nil, _?): return false
            default: break
            }
            let x = a.latencyP50Ms ?? .infinity, y = b.latencyP50Ms ?? .infinity
            return x != y ? x < y : left < right
        }
    }

    /// One case run's largest request with its answer, estimated, and whether the on-device
    /// model refused one of its requests for the context size.
    struct CaseRunFit {
        var largest: Int
        var overflowedOnDevice: Bool

        init(_ caseRun: CaseRun, settings: RecommendationSettings) {
            var history = 0
            largest = 0
            overflowedOnDevice = false
            for request in caseRun.requests where request.status != .skipped {
                let instructions = TokenEstimate.tokens(in: request.instructions ?? "")
                let prompt = TokenEstimate.tokens(in: request.prompt)
                let answer = TokenEstimate.tokens(in: request.output ?? "")
                largest = max(largest, instructions + history + prompt + answer)
                history += prompt + answer
                if request.errorKind == .contextOverflow, settings.placements[request.backend] == .onDevice {
                    overflowedOnDevice = true
                }
            }
        }
    }

    /// p95 latency and p95 TTFT within each declared target; a missing figure does not meet it.
    static func meets(_ slo: ServiceLevel, _ summary: GroupSummary) -> Bool {
        if let limit = slo.latencyMs, (summary.latencyP95Ms ?? .infinity) > limit { return false }
        if let limit = slo.ttftMs, (summary.ttftP95Ms ?? .infinity) > limit { return false }
        return true
    }

    /// Each case's largest request with its answer, estimated from the recorded text by
    /// `TokenEstimate`'s rule: instructions, every prompt so far, the earlier answers and this
    /// answer. The largest over every case run of the case.
    private struct OnDeviceTally {
        var largestByCase: [String: Int] = [:]
        var order: [String] = []
        var measured: [String] = []
        var measuredSet: Set<String> = []

        mutating func add(_ caseRun: CaseRun, fit: CaseRunFit) {
            if fit.overflowedOnDevice, measuredSet.insert(caseRun.caseID).inserted { measured.append(caseRun.caseID) }
            guard fit.largest > 0 else { return }
            if largestByCase[caseRun.caseID] == nil { order.append(caseRun.caseID) }
            largestByCase[caseRun.caseID] = max(largestByCase[caseRun.caseID] ?? 0, fit.largest)
        }

        func fit(settings: RecommendationSettings) -> OnDeviceFit {
            let largest = order.max { largestByCase[$0, default: 0] < largestByCase[$1, default: 0] }
            return OnDeviceFit(window: settings.onDeviceWindow, largestTokens: largest.flatMap { largestByCase[$0] },
                               largestCase: largest,
                               overflowing: order.filter { largestByCase[$0, default: 0] > settings.onDeviceWindow },
                               measuredOverflowing: measured)
        }
    }
}
