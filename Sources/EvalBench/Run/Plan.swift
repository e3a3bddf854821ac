import Foundation

/// One case run to perform: a case on a backend at a reasoning level, for one repeat.
package struct PlannedCaseRun: Sendable, Equatable {
    /// `suite/case/variant/backend/reasoning/repeat`: the key given, else made from the parts
    /// when read (a run read from a plan does not build its key until it is asked for).
    package var key: String {
        get {
            givenKey ?? Self.key(suite: suite, caseID: evalCase.id, variant: variant, backend: backend, reasoning: reasoning,
                                 repeatIndex: repeatIndex)
        }
        set { givenKey = newValue }
    }
    fileprivate var givenKey: String?
    package var suite: String
    /// The case as this run sends it (its variant applied). The plan holds each case once, in
    /// one array, for every backend, level and repeat of it: a case inline (248 bytes, plus
    /// what it points to) was most of a planned run.
    package var evalCase: EvalCase {
        get { cases.all[caseIndex] }
        set {
            cases = PlanCases([newValue])
            caseIndex = 0
        }
    }
    fileprivate var cases: PlanCases
    fileprivate var caseIndex: Int
    package var variant: String
    package var backend: String
    package var reasoning: ReasoningLevel
    /// Counts from 1.
    package var repeatIndex: Int
    /// The suite's latency targets, recorded with each result for goodput.
    package var slo: ServiceLevel? = nil
    /// Its position in the plan, recorded with each result so that reports list case runs
    /// in plan order (suite order, case order, variant order as declared, backend order,
    /// none < light < moderate < deep, repeat), not in the order they finished.
    package var index = 0

    package init(key: String, suite: String, evalCase: EvalCase, variant: String, backend: String, reasoning: ReasoningLevel,
                 repeatIndex: Int, slo: ServiceLevel? = nil, index: Int = 0) {
        self.init(key: key, suite: suite, cases: PlanCases([evalCase]), caseIndex: 0, variant: variant, backend: backend,
                  reasoning: reasoning, repeatIndex: repeatIndex, slo: slo, index: index)
    }

    /// A case run whose case is `cases.all[caseIndex]`; with no `key`, its key is made from its parts.
    fileprivate init(key: String?, suite: String, cases: PlanCases, caseIndex: Int, variant: String, backend: String,
                     reasoning: ReasoningLevel, repeatIndex: Int, slo: ServiceLevel?, index: Int) {
        givenKey = key
        self.suite = suite
        self.cases = cases
        self.caseIndex = caseIndex
        self.variant = variant
        self.backend = backend
        self.reasoning = reasoning
        self.repeatIndex = repeatIndex
        self.slo = slo
        self.index = index
    }

    /// `suite/case/variant/backend/reasoning/repeat`: the key the planner gives a run.
    static func key(suite: String, caseID: String, variant: String, backend: String, reasoning: ReasoningLevel,
                    repeatIndex: Int) -> String {
        [suite, caseID, variant, backend, reasoning.rawValue, String(repeatIndex)].joined(separator: "/")
    }

    /// The backend and level the case run of `result` was planned on, read from its key: a
    /// result records those its turn was sent on, which a turn's switch changes, and every turn
    /// of a case run shares the key. Nil when the key is not one the planner makes for the
    /// result's suite, case, variant and repeat.
    package static func plannedBackendAndLevel(of result: RequestResult) -> (backend: String, reasoning: ReasoningLevel)? {
        let prefix = "\(result.suite)/\(result.caseID)/\(result.variant)/", suffix = "/\(result.repeatIndex)"
        let key = result.key
        guard key.count > prefix.count + suffix.count, key.hasPrefix(prefix), key.hasSuffix(suffix) else { return nil }
        let middle = key.dropFirst(prefix.count).dropLast(suffix.count)
        guard let slash = middle.lastIndex(of: "/"), let level = ReasoningLevel(rawValue: String(middle[middle.index(after: slash)...])),
              slash > middle.startIndex else { return nil }
        return (String(middle[..<slash]), level)
    }

    package static func == (lhs: PlannedCaseRun, rhs: PlannedCaseRun) -> Bool {
        lhs.key == rhs.key && lhs.suite == rhs.suite && lhs.variant == rhs.variant && lhs.backend == rhs.backend
            && lhs.reasoning == rhs.reasoning && lhs.repeatIndex == rhs.repeatIndex && lhs.slo == rhs.slo
            && lhs.index == rhs.index && lhs.evalCase == rhs.evalCase
    }
}

/// A plan's cases (variants applied), each once, in one array every planned run points into.
private final class PlanCases: Sendable {
    let all: [EvalCase]

    init(_ all: [EvalCase]) {
        self.all = all
    }
}

/// What to run, before anything is sent: the expanded matrix.
package struct RunPlan: Sendable, Equatable {
    package var caseRuns: PlannedCaseRuns

    /// The plan of `caseRuns`, held compactly.
    package init(caseRuns: PlannedCaseRuns) {
        self.caseRuns = caseRuns
    }

    /// The plan of the case runs given, in their order.
    package init(caseRuns: [PlannedCaseRun]) {
        self.caseRuns = PlannedCaseRuns(caseRuns)
    }

    /// The number of requests (turns) the plan sends, skipped ones included.
    package var requestCount: Int { caseRuns.requestCount }
}

/// A plan's case runs, 32 bytes each: what a case shares on every backend, level and repeat (its
/// suite, its case with the variant applied, the variant's name, the suite's targets) is held
/// once, in a `PlanSlot`, and each run names its slot, backend, level, repeat and position. Each
/// `PlannedCaseRun` (with its key, `suite/case/variant/backend/reasoning/repeat`) is made when it
/// is read. A million planned runs took 252 MB as values, most of it their keys and strings.
package struct PlannedCaseRuns: RandomAccessCollection, Sendable, Equatable, ExpressibleByArrayLiteral {
    private var slots: PlanSlots
    private var entries: [Entry]
    /// The keys that are not their parts joined (runs given as values), by position.
    private var keptKeys: [Int: String] = [:]

    /// One run: its slot and backend by number, its level, repeat and position in the plan.
    fileprivate struct Entry {
        var slot: UInt32
        var backend: UInt32
        var repeatIndex: Int
        var index: Int
        var reasoning: UInt8

        init(slot: Int, backend: Int, reasoning: ReasoningLevel, repeatIndex: Int, index: Int) {
            self.slot = UInt32(truncatingIfNeeded: slot)
            self.backend = UInt32(truncatingIfNeeded: backend)
            self.reasoning = UInt8(ReasoningLevel.allCases.firstIndex(of: reasoning) ?? 0)
            self.repeatIndex = repeatIndex
            self.index = index
        }
    }

    private init(slots: PlanSlots, entries: [Entry], keptKeys: [Int: String] = [:]) {
        self.slots = slots
        self.entries = entries
        self.keptKeys = keptKeys
    }

    /// Runs of `slots` and `backends` (a plan's: `Planner.plan`).
    fileprivate init(slots: [PlanSlot], backends: [String], entries: [Entry]) {
        self.init(slots: PlanSlots(slots, backends: backends), entries: entries)
    }

    /// `caseRuns`, each with a slot of its own (a plan made by `Planner.plan` shares them).
    package init(_ caseRuns: [PlannedCaseRun]) {
        var slots: [PlanSlot] = []
        var backends: [String] = []
        var backendIndex: [String: Int] = [:]
        var entries: [Entry] = []
        var keptKeys: [Int: String] = [:]
        for (position, run) in caseRuns.enumerated() {
            slots.append(PlanSlot(suite: run.suite, cases: run.cases, caseIndex: run.caseIndex, variant: run.variant, slo: run.slo))
            let (backend, isNew) = backendIndex.number(of: run.backend)
            if isNew { backends.append(run.backend) }
            entries.append(Entry(slot: slots.count - 1, backend: backend, reasoning: run.reasoning,
                                 repeatIndex: run.repeatIndex, index: run.index))
            if run.key != PlannedCaseRun.key(suite: run.suite, caseID: run.evalCase.id, variant: run.variant, backend: run.backend,
                                             reasoning: run.reasoning, repeatIndex: run.repeatIndex) {
                keptKeys[position] = run.key
            }
        }
        self.init(slots: PlanSlots(slots, backends: backends), entries: entries, keptKeys: keptKeys)
    }

    /// The runs listed, each with a slot of its own.
    package init(arrayLiteral caseRuns: PlannedCaseRun...) {
        self.init(caseRuns)
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { entries.count }

    package subscript(position: Int) -> PlannedCaseRun {
        let entry = entries[position], slot = slots.all[Int(entry.slot)]
        let backend = slots.backends[Int(entry.backend)], reasoning = ReasoningLevel.allCases[Int(entry.reasoning)]
        return PlannedCaseRun(key: keptKeys.isEmpty ? nil : keptKeys[position], suite: slot.suite, cases: slot.cases,
                              caseIndex: slot.caseIndex, variant: slot.variant, backend: backend, reasoning: reasoning,
                              repeatIndex: entry.repeatIndex, slo: slot.slo, index: entry.index)
    }

    /// The run at `position` with its key made once, for code that reads it for every request
    /// of the run (each result records it), as the runner's queues do.
    package func keyed(_ position: Int) -> PlannedCaseRun {
        var run = self[position]
        if run.givenKey == nil { run.givenKey = run.key }
        return run
    }

    /// The backend of the run at `position`, without making the run.
    package func backend(at position: Int) -> String {
        slots.backends[Int(entries[position].backend)]
    }

    /// The runs for which `isIncluded` is true, in order, held as compactly (the slots shared).
    package func filtered(_ isIncluded: (PlannedCaseRun) -> Bool) -> PlannedCaseRuns {
        var kept: [Entry] = []
        var keys: [Int: String] = [:]
        for position in indices where isIncluded(self[position]) {
            if let key = keptKeys[position] { keys[kept.count] = key }
            kept.append(entries[position])
        }
        return PlannedCaseRuns(slots: slots, entries: kept, keptKeys: keys)
    }

    /// The number of requests (turns) the runs send.
    var requestCount: Int {
        entries.reduce(0) { $0 + slots.all[Int($1.slot)].evalCase.turns.count }
    }

    /// How many slots (what a case's runs share) the runs hold: a plan's cases × variants.
    package var slotCount: Int { slots.all.count }

    /// Where the run at `position` lies in the matrix, without making the run. A plan's runs
    /// come in the order of their coordinates (the planner's loops, a shard's or a filter's
    /// subset of them, or runs given as values, each in a slot of its own), which is what
    /// `PlanLookup` searches.
    func coordinates(at position: Int) -> PlanCoordinates {
        let entry = entries[position]
        return PlanCoordinates(slot: entry.slot, backend: entry.backend, reasoning: entry.reasoning, repeatIndex: entry.repeatIndex)
    }

    /// The suite, case and variant of slot `slot` (a coordinate's).
    func slotName(_ slot: Int) -> PlanSlotName {
        let slot = slots.all[slot]
        return PlanSlotName(suite: slot.suite, caseID: slot.evalCase.id, variant: slot.variant)
    }

    /// The backends the runs name by number (a coordinate's `backend`).
    var backendNames: [String] { slots.backends }

    /// The keys of runs given with a key other than their parts joined, by position.
    var givenKeys: [Int: String] { keptKeys }

    /// The bytes a planned run takes here, besides what its case shares with the others.
    package static var bytesPerRun: Int { MemoryLayout<Entry>.stride }

    package static func == (lhs: PlannedCaseRuns, rhs: PlannedCaseRuns) -> Bool {
        lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0 == $1 }
    }
}

/// Where a planned run lies in the matrix: its slot (case and variant) and backend by number,
/// its level (by its place in `ReasoningLevel.allCases`) and repeat, compared in that order.
struct PlanCoordinates: Comparable {
    var slot: UInt32
    var backend: UInt32
    var reasoning: UInt8
    var repeatIndex: Int

    static func < (lhs: PlanCoordinates, rhs: PlanCoordinates) -> Bool {
        (lhs.slot, lhs.backend, lhs.reasoning, lhs.repeatIndex) < (rhs.slot, rhs.backend, rhs.reasoning, rhs.repeatIndex)
    }
}

/// What names a plan's slot: its suite, case and variant.
struct PlanSlotName: Hashable, Sendable {
    var suite: String
    var caseID: String
    var variant: String
}

/// What the runs of one case (with its variant applied) share on every backend, level and repeat.
private struct PlanSlot: Sendable {
    var suite: String
    var cases: PlanCases
    var caseIndex: Int
    var variant: String
    var slo: ServiceLevel?

    var evalCase: EvalCase { cases.all[caseIndex] }
}

/// A plan's slots and backend names, shared by the plan and every part filtered from it.
private final class PlanSlots: Sendable {
    let all: [PlanSlot]
    let backends: [String]

    init(_ all: [PlanSlot], backends: [String]) {
        self.all = all
        self.backends = backends
    }
}

/// Which part of the matrix to run.
package struct PlanSelection: Sendable, Equatable {
    package var backends: [String]
    /// Overrides every suite's `reasoning`; nil runs each suite at its own levels, else at
    /// `defaultReasoning`.
    package var reasoning: [ReasoningLevel]?
    /// The levels for suites that name none (the config's `defaults.reasoning`, else `none`).
    package var defaultReasoning: [ReasoningLevel]
    /// Overrides every suite's `repeat`.
    package var repeatCount: Int?
    /// Only cases with these ids (`id` or `suite/id`); empty means all.
    package var caseIDs: [String]
    /// Only cases with at least one of these tags; empty means all.
    package var tags: [String]
    /// Only these prompt variants (`--variant`); empty means all.
    package var variants: [String] = []

    package init(backends: [String], reasoning: [ReasoningLevel]? = nil, defaultReasoning: [ReasoningLevel] = [.none],
                repeatCount: Int? = nil, caseIDs: [String] = [], tags: [String] = [], variants: [String] = []) {
        self.variants = variants
        self.backends = backends
        self.reasoning = reasoning
        self.defaultReasoning = defaultReasoning
        self.repeatCount = repeatCount
        self.caseIDs = caseIDs
        self.tags = tags
    }
}

/// Expands suites × cases × backends × reasoning levels × repeats into case runs with stable keys.
package enum Planner {
    package static let defaultVariant = "default"

    package static func plan(_ suites: [Suite], _ selection: PlanSelection) -> RunPlan {
        // Each run names its case's slot (suite, case with its variant applied, variant, the
        // suite's targets), made once per case and variant, and its backend by number.
        var entries: [PlannedCaseRuns.Entry] = []
        var cases: [EvalCase] = []
        var slots: [(suite: String, caseIndex: Int, variant: String, slo: ServiceLevel?)] = []
        for suite in suites {
            let repeats = max(1, selection.repeatCount ?? suite.repeatCount ?? 1)
            let named = selection.reasoning ?? suite.reasoning ?? selection.defaultReasoning
            let levels = ReasoningLevel.allCases.filter(named.contains)
            for evalCase in suite.cases where selects(evalCase, in: suite, selection) {
                let variants = suite.variants.isEmpty ? [PromptVariant(name: defaultVariant)] : suite.variants
                for variant in variants where selection.variants.isEmpty || selection.variants.contains(variant.name) {
                    cases.append(variant.applied(to: evalCase))
                    slots.append((suite.name, cases.count - 1, variant.name, suite.slo))
                    for backend in selection.backends.indices {
                        for level in levels {
                            for index in 1...repeats {
                                entries.append(PlannedCaseRuns.Entry(slot: slots.count - 1, backend: backend, reasoning: level,
                                                                     repeatIndex: index, index: entries.count))
                            }
                        }
                    }
                }
            }
        }
        let shared = PlanCases(cases)
        return RunPlan(caseRuns: PlannedCaseRuns(slots: slots.map { PlanSlot(suite: $0.suite, cases: shared, caseIndex: $0.caseIndex,
                                                                              variant: $0.variant, slo: $0.slo) },
                                                 backends: selection.backends, entries: entries))
    }

    /// How many requests `plan(suites, selection)` would send, counted without building it:
    /// a matrix too large to hold is refused before it fills the memory. Held at Int.max.
    package static func requestCount(_ suites: [Suite], _ selection: PlanSelection, shard: Shard? = nil) -> Int {
        var total = 0
        for suite in suites {
            let repeats = max(1, selection.repeatCount ?? suite.repeatCount ?? 1)
            let levels = (selection.reasoning ?? suite.reasoning ?? selection.defaultReasoning).count
            let variants = suite.variants.isEmpty ? 1
                : suite.variants.filter { selection.variants.isEmpty || selection.variants.contains($0.name) }.count
            let turns = suite.cases.filter { evalCase in
                selects(evalCase, in: suite, selection) && shard?.contains(suite: suite.name, caseID: evalCase.id) != false
            }.reduce(0) { $0 + $1.turns.count }
            var count = turns
            for factor in [variants, selection.backends.count, levels, repeats] {
                let (product, overflow) = count.multipliedReportingOverflow(by: factor)
                count = overflow ? .max : product
            }
            let (sum, overflow) = total.addingReportingOverflow(count)
            total = overflow ? .max : sum
        }
        return total
    }

    private static func selects(_ evalCase: EvalCase, in suite: Suite, _ selection: PlanSelection) -> Bool {
        let idMatches = selection.caseIDs.isEmpty
            || selection.caseIDs.contains(evalCase.id) || selection.caseIDs.contains("\(suite.name)/\(evalCase.id)")
        let tagMatches = selection.tags.isEmpty || !Set(selection.tags).isDisjoint(with: evalCase.tags)
        return idMatches && tagMatches
    }
}
