import Foundation

/// One case run to perform: a case on a backend at a reasoning level, for one repeat.
package struct PlannedCaseRun: Sendable, Equatable {
    /// `suite/case/variant/backend/reasoning/repeat`.
    package var key: String
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
    private var caseIndex: Int
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

    /// A case run whose case is `cases.all[caseIndex]`.
    fileprivate init(key: String, suite: String, cases: PlanCases, caseIndex: Int, variant: String, backend: String,
                     reasoning: ReasoningLevel, repeatIndex: Int, slo: ServiceLevel?, index: Int) {
        self.key = key
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
    package var caseRuns: [PlannedCaseRun]

    /// The number of requests (turns) the plan sends, skipped ones included.
    package var requestCount: Int { caseRuns.reduce(0) { $0 + $1.evalCase.turns.count } }
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
        // Each run names its case by index into one array of the plan's cases, made at the end.
        var runs: [PlannedCaseRun] = []
        var cases: [EvalCase] = []
        let pending = PlanCases([])
        for suite in suites {
            let repeats = max(1, selection.repeatCount ?? suite.repeatCount ?? 1)
            let named = selection.reasoning ?? suite.reasoning ?? selection.defaultReasoning
            let levels = ReasoningLevel.allCases.filter(named.contains)
            for evalCase in suite.cases where selects(evalCase, in: suite, selection) {
                let variants = suite.variants.isEmpty ? [PromptVariant(name: defaultVariant)] : suite.variants
                for variant in variants where selection.variants.isEmpty || selection.variants.contains(variant.name) {
                    let caseIndex = cases.count
                    cases.append(variant.applied(to: evalCase))
                    for backend in selection.backends {
                        for level in levels {
                            for index in 1...repeats {
                                let key = [suite.name, evalCase.id, variant.name, backend, level.rawValue, String(index)]
                                    .joined(separator: "/")
                                runs.append(PlannedCaseRun(key: key, suite: suite.name, cases: pending, caseIndex: caseIndex,
                                                           variant: variant.name, backend: backend, reasoning: level,
                                                           repeatIndex: index, slo: suite.slo, index: runs.count))
                            }
                        }
                    }
                }
            }
        }
        let shared = PlanCases(cases)
        for position in runs.indices { runs[position].cases = shared }
        return RunPlan(caseRuns: runs)
    }

    /// How many requests `plan(suites, selection)` would send, counted without building it:
    /// a matrix too large to hold is refused before it fills the memory. Held at Int.max.
    package static func requestCount(_ suites: [Suite], _ selection: PlanSelection) -> Int {
        var total = 0
        for suite in suites {
            let repeats = max(1, selection.repeatCount ?? suite.repeatCount ?? 1)
            let levels = (selection.reasoning ?? suite.reasoning ?? selection.defaultReasoning).count
            let variants = suite.variants.isEmpty ? 1
                : suite.variants.filter { selection.variants.isEmpty || selection.variants.contains($0.name) }.count
            let turns = suite.cases.filter { selects($0, in: suite, selection) }.reduce(0) { $0 + $1.turns.count }
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
