import Foundation

/// How far a figure may move between a baseline and a current run, and how sure the change
/// must be, before `evalbench compare` (or `run --baseline`) calls it a regression.
package struct ComparisonThresholds: Sendable, Equatable {
    /// The largest pass-rate drop (baseline − current, a fraction) that is not a regression;
    /// 0 means any drop counts.
    package var maxPassRateDrop: Double
    /// The largest latency p50 increase (current / baseline − 1) that is not a regression;
    /// nil leaves latency ungated.
    package var maxLatencyIncrease: Double?
    /// A change past its threshold is a regression only when its p-value is below this.
    package var alpha: Double

    package init(maxPassRateDrop: Double = 0, maxLatencyIncrease: Double? = nil, alpha: Double = 0.05) {
        self.maxPassRateDrop = maxPassRateDrop
        self.maxLatencyIncrease = maxLatencyIncrease
        self.alpha = alpha
    }
}

/// A case run that passed in one run and did not pass (failed or errored) in the other.
package struct CaseFlip: Sendable, Equatable {
    package enum Direction: String, Sendable {
        /// pass → fail or error: McNemar's b.
        case regressed
        /// fail or error → pass: McNemar's c.
        case fixed
    }

    /// `suite/case/variant/backend/reasoning/repeat`.
    package var key: String
    package var suite: String
    package var caseID: String
    package var group: SummaryGroupKey
    package var repeatIndex: Int
    package var baselineStatus: RequestResult.Status
    package var currentStatus: RequestResult.Status
    package var direction: Direction
    /// Why the side that did not pass did not: its first failed assertion's explanation or its
    /// error, from the current run for a regression and from the baseline for a fix.
    package var explanation: String?
}

/// A case run left out of the paired comparison: recorded in one run only, or skipped in either.
package struct UncomparedCaseRun: Sendable, Equatable {
    package enum Reason: String, Sendable {
        case onlyInBaseline = "only in the baseline"
        case onlyInCurrent = "only in the current run"
        case skipped = "skipped"
    }

    package var key: String
    package var group: SummaryGroupKey
    /// Nil when the baseline has no such case run.
    package var baselineStatus: RequestResult.Status?
    /// Nil when the current run has no such case run.
    package var currentStatus: RequestResult.Status?
    package var reason: Reason
}

/// A change past its threshold (a regression when significant), or a significant improvement.
package struct ComparisonFinding: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case passRateDrop, latencyIncrease, passRateRise, latencyDecrease

        /// Whether the change is for the worse, so that it can fail the gate.
        package var isWorse: Bool { self == .passRateDrop || self == .latencyIncrease }
    }

    package var group: SummaryGroupKey
    package var kind: Kind
    /// Its p-value is below alpha.
    package var significant: Bool
    /// `pass rate −75.0 pts (16/16 → 4/16 paired), McNemar p = 0.0005`.
    package var text: String
}

/// One backend × reasoning × variant in both runs: pass rates, paired flips, latency and
/// tokens side by side, with the tests' p-values.
package struct GroupComparison: Sendable, Equatable {
    package var group: SummaryGroupKey
    /// The group's summary in each run; nil when that run does not have it.
    package var baseline: GroupSummary?
    package var current: GroupSummary?
    /// Case runs in both runs and skipped in neither: the pairs McNemar's test is on.
    package var pairedCaseRuns = 0
    /// Of those, how many passed in the baseline and in the current run.
    package var pairedPassedBaseline = 0
    package var pairedPassedCurrent = 0
    /// McNemar's b: paired case runs that went pass → fail or error.
    package var passToFail = 0
    /// McNemar's c: paired case runs that went fail or error → pass.
    package var failToPass = 0
    /// Case runs only in one run or skipped in either.
    package var uncomparedCaseRuns = 0
    /// The paired case runs gathered per case (`suite/case`), in the baseline's order: the
    /// units of the pass-rate test, as repeats of one case are not independent.
    package var pairedCases: [PairedCase] = []
    var pairedCaseIndex: [String: Int] = [:]

    /// Adds one paired case run of case `caseKey` to its case.
    mutating func pair(case caseKey: String, passedBefore: Bool, passedNow: Bool) {
        let (index, isNew) = pairedCaseIndex.number(of: caseKey)
        if isNew { pairedCases.append(PairedCase(baselinePassed: 0, baselineRan: 0, currentPassed: 0, currentRan: 0)) }
        pairedCases[index].baselineRan += 1
        pairedCases[index].currentRan += 1
        if passedBefore { pairedCases[index].baselinePassed += 1 }
        if passedNow { pairedCases[index].currentPassed += 1 }
    }

    /// Current − baseline pass rate over each run's whole group; nil when either has none.
    package var passRateChange: Double? {
        guard let before = baseline?.passRate, let after = current?.passRate else { return nil }
        return after - before
    }

    /// Current − baseline pass rate over the paired case runs, (c − b) / pairs: what the gate
    /// and McNemar's test judge. Nil without pairs.
    package var pairedPassRateChange: Double? {
        pairedCaseRuns > 0 ? Double(failToPass - passToFail) / Double(pairedCaseRuns) : nil
    }

    /// The paired test of the pass-rate change over cases (each case's change in pass fraction
    /// k/N; exact McNemar when every changed case changed wholly, as with one repeat); nil
    /// without pairs.
    package var passRateTest: PairedCaseTest? {
        pairedCaseRuns > 0 ? PairedCaseTest(pairedCases) : nil
    }

    /// The p-value of `passRateTest`: with one repeat per case, the exact McNemar p-value of
    /// the paired flips. Nil without pairs.
    package var passRateP: Double? { passRateTest?.pValue }

    /// Each case's median timed latency and TTFT on this group, over all its repeats and
    /// turns, in each run, in the order the cases first come: the units of the latency tests.
    package var baselineCaseMedians = CaseMedians()
    package var currentCaseMedians = CaseMedians()

    /// Two-sided Mann-Whitney U p-values over the cases timed in each run, each case by the
    /// median of its timed requests: repeats (and turns) of one case are not independent, so
    /// they do not make a change more significant. With one timed request per case this is the
    /// test over the timed requests. Nil when either run has no timed case.
    package var latencyMannWhitneyP: Double? {
        mannWhitneyU(currentCaseMedians.latenciesMs, baselineCaseMedians.latenciesMs)?.pValue
    }
    package var ttftMannWhitneyP: Double? {
        mannWhitneyU(currentCaseMedians.ttftsMs, baselineCaseMedians.ttftsMs)?.pValue
    }

    /// Current / baseline percentiles; nil when either is unknown or the baseline's is 0.
    package var latencyP50Ratio: Double? { Self.ratio(current?.latencyP50Ms, baseline?.latencyP50Ms) }
    package var latencyP95Ratio: Double? { Self.ratio(current?.latencyP95Ms, baseline?.latencyP95Ms) }
    package var ttftP50Ratio: Double? { Self.ratio(current?.ttftP50Ms, baseline?.ttftP50Ms) }
    package var ttftP95Ratio: Double? { Self.ratio(current?.ttftP95Ms, baseline?.ttftP95Ms) }

    /// Current − baseline token-weighted cache-hit ratio; nil when either is unknown.
    package var cacheHitRatioChange: Double? {
        guard let before = baseline?.usage.cacheHitRatio, let after = current?.usage.cacheHitRatio else { return nil }
        return after - before
    }

    /// Current − baseline cost in US dollars; nil unless both runs priced their requests.
    package var costChange: Double? {
        guard let before = baseline?.costUSD, let after = current?.costUSD else { return nil }
        return after - before
    }

    static func ratio(_ after: Double?, _ before: Double?) -> Double? {
        guard let after, let before, before > 0 else { return nil }
        return after / before
    }
}

/// A baseline run against a current one (`evalbench compare`): case runs joined by key, the
/// flips, per-group changes with their significance, and the verdict that decides exit code 1.
package struct Comparison: Sendable {
    package var thresholds: ComparisonThresholds
    /// One per backend × reasoning × variant: the baseline's order, then groups new in the current run.
    package private(set) var groups: [GroupComparison] = []
    /// Paired case runs whose verdict flipped, in the baseline's order.
    package private(set) var flips: [CaseFlip] = []
    /// Case runs not compared in pairs.
    package private(set) var uncompared: [UncomparedCaseRun] = []
    /// Changes past a threshold, significant or not, and significant improvements.
    package private(set) var findings: [ComparisonFinding] = []
    /// Case runs in each run.
    package private(set) var baselineCaseRuns = 0
    package private(set) var currentCaseRuns = 0

    /// Compares `current` with `baseline`, both as read from their results.jsonl.
    package init(baseline: some Collection<RequestResult>, current: some Collection<RequestResult>,
                 thresholds: ComparisonThresholds = ComparisonThresholds()) {
        self.thresholds = thresholds
        let before = RunAggregate(baseline)
        let after = RunAggregate(current)
        baselineCaseRuns = before.caseRuns.count
        currentCaseRuns = after.caseRuns.count

        var groupIndex: [SummaryGroupKey: Int] = [:]
        func index(of key: SummaryGroupKey) -> Int {
            let (index, isNew) = groupIndex.number(of: key)
            if isNew { groups.append(GroupComparison(group: key)) }
            return index
        }
        for summary in before.groups { groups[index(of: summary.group)].baseline = summary }
        for summary in after.groups { groups[index(of: summary.group)].current = summary }

        var baselineSamples = CaseSamples(before), currentSamples = CaseSamples(after)
        // Case runs by key, as their places in the aggregates: the case runs are built from the
        // results when asked for, so a million of them are never held at once.
        var currentByKey = CaseRunIndex(after.caseRuns)
        for (position, new) in after.caseRuns.enumerated() {
            currentByKey.insert(new.key, at: position)
            currentSamples.add(new, at: position)
        }
        var baselineKeys = CaseRunIndex(before.caseRuns)
        for (position, old) in before.caseRuns.enumerated() {
            baselineKeys.insert(old.key, at: position)
            baselineSamples.add(old, at: position)
            let slot = index(of: old.group)
            guard let new = currentByKey.caseRun(old.key) else {
                uncompared.append(UncomparedCaseRun(key: old.key, group: old.group, baselineStatus: old.status,
                                                    currentStatus: nil, reason: .onlyInBaseline))
                groups[slot].uncomparedCaseRuns += 1
                continue
            }
            if old.status == .skipped || new.status == .skipped {
                uncompared.append(UncomparedCaseRun(key: old.key, group: old.group, baselineStatus: old.status,
                                                    currentStatus: new.status, reason: .skipped))
                groups[slot].uncomparedCaseRuns += 1
                continue
            }
            groups[slot].pairedCaseRuns += 1
            let passedBefore = old.status == .pass
            let passedNow = new.status == .pass
            groups[slot].pair(case: old.suite + "\u{1F}" + old.caseID, passedBefore: passedBefore, passedNow: passedNow)
            if passedBefore { groups[slot].pairedPassedBaseline += 1 }
            if passedNow { groups[slot].pairedPassedCurrent += 1 }
            guard passedBefore != passedNow else { continue }
            if passedBefore { groups[slot].passToFail += 1 } else { groups[slot].failToPass += 1 }
            flips.append(CaseFlip(key: old.key, suite: old.suite, caseID: old.caseID, group: old.group,
                                  repeatIndex: old.repeatIndex, baselineStatus: old.status, currentStatus: new.status,
                                  direction: passedBefore ? .regressed : .fixed,
                                  explanation: Self.explanation(passedBefore ? new : old)))
        }
        for new in after.caseRuns where !baselineKeys.contains(new.key) {
            uncompared.append(UncomparedCaseRun(key: new.key, group: new.group, baselineStatus: nil,
                                                currentStatus: new.status, reason: .onlyInCurrent))
            groups[index(of: new.group)].uncomparedCaseRuns += 1
        }
        let baselineMedians = baselineSamples.mediansByGroup(), currentMedians = currentSamples.mediansByGroup()
        for slot in groups.indices {
            groups[slot].baselineCaseMedians = baselineMedians[groups[slot].group] ?? CaseMedians()
            groups[slot].currentCaseMedians = currentMedians[groups[slot].group] ?? CaseMedians()
        }
        findings = groups.flatMap { Self.findings(for: $0, thresholds: thresholds) }
    }

    /// The findings that fail the gate: past their threshold, for the worse, and significant.
    package var regressions: [ComparisonFinding] { findings.filter { $0.kind.isWorse && $0.significant } }

    /// True when any change fails the gate.
    package var isRegression: Bool { !regressions.isEmpty }

    /// A failed gate on a regression, else success (DESIGN.md, "Exit codes").
    package var exitStatus: ExitStatus { isRegression ? .gateFailed : .success }

    /// One line: `Regression: …`, `No regression; improved: …`, or `No significant change`,
    /// followed by the changes past a threshold that were not significant.
    package var verdict: String {
        func list(_ items: [ComparisonFinding]) -> String {
            items.map { "\($0.group.label): \($0.text)" }.joined(separator: "; ")
        }
        if isRegression { return "Regression: " + list(regressions) }
        let improvements = findings.filter { !$0.kind.isWorse && $0.significant }
        let notSignificant = findings.filter { $0.kind.isWorse && !$0.significant }
        var line = improvements.isEmpty ? "No significant change" : "No regression; improved: " + list(improvements)
        if !notSignificant.isEmpty { line += (improvements.isEmpty ? ": " : "; ") + list(notSignificant) }
        return line
    }

    /// What the gate found in one group.
    static func findings(for group: GroupComparison, thresholds: ComparisonThresholds) -> [ComparisonFinding] {
        var found: [ComparisonFinding] = []
        if let change = group.pairedPassRateChange, let pairedTest = group.passRateTest {
            let p = pairedTest.pValue
            let significant = p < thresholds.alpha
            let counts = "(\(group.pairedPassedBaseline)/\(group.pairedCaseRuns) → \(group.pairedPassedCurrent)/\(group.pairedCaseRuns) paired; "
                + "\(group.passToFail) pass → fail, \(group.failToPass) fail → pass)"
            let test = ComparisonText.testName(pairedTest) + " " + ComparisonText.pIs(p)
            if -change > thresholds.maxPassRateDrop {
                found.append(ComparisonFinding(group: group.group, kind: .passRateDrop, significant: significant,
                                               text: "pass rate \(ComparisonText.points(change)) \(counts), "
                                                   + (significant ? test : "not significant (\(test))")))
            } else if change > 0, significant {
                found.append(ComparisonFinding(group: group.group, kind: .passRateRise, significant: true,
                                               text: "pass rate \(ComparisonText.points(change)) \(counts), \(test)"))
            }
        }
        if let limit = thresholds.maxLatencyIncrease, let ratio = group.latencyP50Ratio,
           let p = group.latencyMannWhitneyP, let before = group.baseline?.latencyP50Ms, let after = group.current?.latencyP50Ms {
            let significant = p < thresholds.alpha
            let test = "Mann-Whitney \(ComparisonText.pIs(p))"
            let figures = "latency p50 \(ComparisonText.milliseconds(before)) → \(ComparisonText.milliseconds(after)) ms (\(ComparisonText.percentChange(ratio)))"
            if ratio - 1 > limit {
                let worse = significant && after > before
                found.append(ComparisonFinding(group: group.group, kind: .latencyIncrease, significant: worse,
                                               text: figures + ", " + (worse ? test : "not significant (\(test))")))
            } else if 1 - ratio > limit, significant, after < before {
                found.append(ComparisonFinding(group: group.group, kind: .latencyDecrease, significant: true,
                                               text: figures + ", " + test))
            }
        }
        return found
    }

    /// Why a case run did not pass, in one line: its first error or failed assertion.
    static func explanation(_ caseRun: CaseRun) -> String? {
        let multiTurn = caseRun.turns > 1
        func turn(_ request: RequestResult) -> String { multiTurn ? "turn \(request.turn): " : "" }
        if let errored = caseRun.requests.first(where: { $0.status == .error }) {
            let kind = errored.errorKind?.rawValue ?? "error"
            return turn(errored) + "error \(kind)" + (errored.errorMessage.map { ": \($0)" } ?? "")
        }
        for request in caseRun.requests {
            if let assertion = request.failedAssertions.first {
                return turn(request) + "\(assertion.name): \(assertion.message ?? "failed")"
            }
        }
        if caseRun.status == .fail {
            if let threshold = caseRun.requests.first?.threshold, let score = caseRun.score {
                return "weighted score \(ComparisonText.decimal(score, places: 3)) is below the threshold \(ComparisonText.decimal(threshold, places: 3))"
            }
            return "a turn is missing from the results"
        }
        return nil
    }
}

extension Comparison {
    /// Whether two runs hold a result of the same key (skipped or not): when they hold none
    /// (other suites, backends or levels), comparing them compares nothing. Keys are compared by
    /// hash, 8 bytes a result, read from the tables' rows; a collision only lets such a pair through.
    package static func shareACaseRun(_ baseline: ResultTable, _ current: ResultTable) -> Bool {
        holdsAnyKey(current, of: Set(baseline.indices.lazy.map { baseline.key(at: $0).hashValue }))
    }

    /// Whether `table` holds a result whose key's hash is among `keys`.
    package static func holdsAnyKey(_ table: ResultTable, of keys: Set<Int>) -> Bool {
        table.indices.contains { keys.contains(table.key(at: $0).hashValue) }
    }

    /// Case runs that both runs ran (in neither skipped), over every group: 0 when what they
    /// share was skipped in one of them, as a backend unavailable on the CI machine leaves it.
    package var pairedCaseRuns: Int { groups.reduce(0) { $0 + $1.pairedCaseRuns } }

    /// The results of the run in `directory`, for `role` ("baseline" or "current") in messages.
    /// Throws a `Diagnostic` naming the path (and the line of a malformed result) with how to fix it.
    /// Kept as a `ResultTable`, so comparing two million-result runs holds neither as copies.

    package static func readResults(inRun directory: String, role: String) throws -> ResultTable {
        let run = RunDirectory(path: directory)
        let results = try run.readResultTable(role: role)
        guard !results.isEmpty else {
            throw Diagnostic(file: run.results.path, message: "the \(role) \(RunDirectory.FileName.results) holds no results",
                             fix: "compare against a run that finished at least one request")
        }
        return results
    }

    /// Writes `compare.md` and `compare.csv` into `directory`, creating it if needed.
    /// `baselineName` and `currentName` say in compare.md which runs these were.
    package func write(to directory: URL, baselineName: String, currentName: String) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ReportWriteFailure(path: directory.path, reason: error.localizedDescription)
        }
        let run = RunDirectory(directory)
        for (name, text) in [(RunDirectory.FileName.compareMarkdown, CompareMarkdown.render(self, baselineName: baselineName, currentName: currentName)),
                             (RunDirectory.FileName.compareCSV, CompareCSV.render(self))] {
            let file = run.file(name)
            do {
                try TemporaryFiles.writeAtomically(Data(TerminalText.forReport(text, file: file).utf8), to: file)
            } catch {
                throw ReportWriteFailure(path: file.path, reason: error.localizedDescription)
            }
        }
    }
}

/// How comparison figures read in text: signed points, ratios, p-values.
enum ComparisonText {
    /// `McNemar` when the test is exact McNemar (every changed case changed wholly, as with
    /// one repeat), else `sign-flip over cases`.
    static func testName(_ test: PairedCaseTest) -> String {
        test.method == .exactMcNemar ? "McNemar" : "sign-flip over \(test.cases) cases"
    }

    /// `−6.3 pts`, `+12.5 pts`, `±0.0 pts` for a change of fractions.
    static func points(_ change: Double) -> String {
        let text = DecimalText.fixed(abs(change) * 100, places: 1) ?? "n/a"
        let zero = !text.contains { $0 != "0" && $0 != "." }
        return (zero ? "±" : change < 0 ? "−" : "+") + text + " pts"
    }

    /// `+20.0%` for a ratio of 1.2, `−50.0%` for 0.5.
    static func percentChange(_ ratio: Double) -> String {
        let change = ratio - 1
        let text = DecimalText.fixed(abs(change) * 100, places: 1) ?? "n/a"
        let zero = !text.contains { $0 != "0" && $0 != "." }
        return (zero ? "±" : change < 0 ? "−" : "+") + text + "%"
    }

    /// Two significant digits (`0.5`, `0.0005`, `0.012`), and `< 0.0001` below that.
    static func pValue(_ p: Double) -> String {
        guard p >= 0.0001 else { return "< 0.0001" }
        let places = max(1, 1 - Int(log10(p).rounded(.down)))
        return DecimalText.trimmed(p, maxPlaces: min(places, 9)) ?? "n/a"
    }

    /// `p = 0.022`, or `p < 0.0001`.
    static func pIs(_ p: Double) -> String {
        let text = pValue(p)
        return text.hasPrefix("<") ? "p \(text)" : "p = \(text)"
    }

    static func milliseconds(_ value: Double) -> String { DecimalText.fixed(value, places: 1) ?? "n/a" }

    static func decimal(_ value: Double, places: Int) -> String { DecimalText.trimmed(value, maxPlaces: places) ?? "n/a" }
}

/// Each case's median timed latency and TTFT on one group (see `GroupComparison.latencyMannWhitneyP`).
package struct CaseMedians: Sendable, Equatable {
    /// One per case with a timed latency, in the order the cases first come.
    package var latenciesMs: [Double] = []
    /// One per case with a timed TTFT.
    package var ttftsMs: [Double] = []

    package init(latenciesMs: [Double] = [], ttftsMs: [Double] = []) {
        self.latenciesMs = latenciesMs
        self.ttftsMs = ttftsMs
    }
}

/// Case runs of a `CaseRunList` by key, in about 16 bytes each rather than the key and the
/// case run: the key's hash is kept with the case run's place, and a case run found by hash is
/// built and its key compared, so a key whose hash another key has is kept in full (a
/// collision of 64-bit hashes, so almost never). When a key comes twice the later place wins.
struct CaseRunIndex {
    private let caseRuns: CaseRunList
    private let hash: @Sendable (String) -> Int
    private var byHash: [Int: Int32] = [:]
    private var collided: [String: Int32] = [:]

    /// `hash` is the key's hash value; tests give one that collides.
    init(_ caseRuns: CaseRunList, hash: @escaping @Sendable (String) -> Int = { $0.hashValue }) {
        self.caseRuns = caseRuns
        self.hash = hash
    }

    mutating func insert(_ key: String, at position: Int) {
        let place = Int32(truncatingIfNeeded: position), hashed = hash(key)
        if let held = byHash[hashed], caseRuns.key(of: Int(held)) != key {
            collided[key] = place
        } else {
            byHash[hashed] = place
        }
    }

    /// The case run of `key`, built from its results; nil when none has it.
    func caseRun(_ key: String) -> CaseRun? {
        place(of: key).map { caseRuns[$0] }
    }

    /// Whether a case run has `key`, without building it.
    func contains(_ key: String) -> Bool {
        place(of: key) != nil
    }

    private func place(of key: String) -> Int? {
        if let place = byHash[hash(key)], caseRuns.key(of: Int(place)) == key { return Int(place) }
        return collided[key].map(Int.init)
    }
}

/// The timed latencies and TTFTs of one run's case runs, gathered by group and case (every
/// turn in its case run's group, as the group summaries count them).
struct CaseSamples {
    /// Each case's repeat set on a group (the aggregate's `repeats`): the groups, and how many
    /// of its case runs are still to come.
    private let groups: [SummaryGroupKey]
    private let setOfCaseRun: FileBackedArray<UInt32>
    private var remaining: [UInt32]
    /// The samples of the sets some but not all of whose case runs have come: in plan order a
    /// case's runs are neighbours, so these are a few, not every case's.
    private var open: [UInt32: (latencies: [Double], ttfts: [Double])] = [:]
    /// Each set's medians once all its case runs have come.
    private var latencyMedians: [Double?]
    private var ttftMedians: [Double?]

    /// For the case runs of `aggregate`, each added in turn with `add(_:at:)`.
    init(_ aggregate: RunAggregate) {
        groups = aggregate.repeats.map(\.group)
        setOfCaseRun = aggregate.repeatOfCaseRun
        var remaining = [UInt32](repeating: 0, count: groups.count)
        for set in setOfCaseRun { remaining[Int(set)] &+= 1 }
        self.remaining = remaining
        latencyMedians = [Double?](repeating: nil, count: groups.count)
        ttftMedians = latencyMedians
    }

    /// Adds the samples of `caseRun`, the aggregate's case run at `position`.
    mutating func add(_ caseRun: CaseRun, at position: Int) {
        guard position < setOfCaseRun.count else { return }
        let set = setOfCaseRun[position]
        var samples = open.removeValue(forKey: set) ?? ([], [])
        for request in caseRun.requests where request.isTimedSample {
            if let latency = request.timing?.latencyMs { samples.latencies.append(latency) }
            if let ttft = request.timing?.ttftMs { samples.ttfts.append(ttft) }
        }
        remaining[Int(set)] &-= 1
        if remaining[Int(set)] == 0 {
            latencyMedians[Int(set)] = Self.median(samples.latencies)
            ttftMedians[Int(set)] = Self.median(samples.ttfts)
        } else {
            open[set] = samples
        }
    }

    /// The median of each case's samples on each group, leaving out cases with none, in the
    /// order the cases first come.
    func mediansByGroup() -> [SummaryGroupKey: CaseMedians] {
        var medians: [SummaryGroupKey: CaseMedians] = [:]
        for set in groups.indices {
            if let latency = latencyMedians[set] { medians[groups[set], default: CaseMedians()].latenciesMs.append(latency) }
            if let ttft = ttftMedians[set] { medians[groups[set], default: CaseMedians()].ttftsMs.append(ttft) }
        }
        return medians
    }

    /// The middle value, or the mean of the two middle values; nil for none.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.count == 1 ? values : values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : sorted[middle - 1] / 2 + sorted[middle] / 2
    }
}
