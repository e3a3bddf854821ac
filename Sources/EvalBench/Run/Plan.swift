import Foundation

/// One case run to perform: a case on a backend at a reasoning level, for one repeat.
public struct PlannedCaseRun: Sendable, Equatable {
    /// `suite/case/variant/backend/reasoning/repeat`.
    public var key: String
    public var suite: String
    public var evalCase: EvalCase
    public var variant: String
    public var backend: String
    public var reasoning: ReasoningLevel
    /// Counts from 1.
    public var repeatIndex: Int
    /// The suite's latency targets, recorded with each result for goodput.
    public var slo: ServiceLevel? = nil
}

/// What to run, before anything is sent: the expanded matrix.
public struct RunPlan: Sendable, Equatable {
    public var caseRuns: [PlannedCaseRun]

    /// The number of requests (turns) the plan sends, skipped ones included.
    public var requestCount: Int { caseRuns.reduce(0) { $0 + $1.evalCase.turns.count } }
}

/// Which part of the matrix to run.
public struct PlanSelection: Sendable, Equatable {
    public var backends: [String]
    /// Overrides every suite's `reasoning`; nil runs each suite at its own levels, else at
    /// `defaultReasoning`.
    public var reasoning: [ReasoningLevel]?
    /// The levels for suites that name none (the config's `defaults.reasoning`, else `none`).
    public var defaultReasoning: [ReasoningLevel]
    /// Overrides every suite's `repeat`.
    public var repeatCount: Int?
    /// Only cases with these ids (`id` or `suite/id`); empty means all.
    public var caseIDs: [String]
    /// Only cases with at least one of these tags; empty means all.
    public var tags: [String]
    /// Only these prompt variants (`--variant`); empty means all.
    public var variants: [String] = []

    public init(backends: [String], reasoning: [ReasoningLevel]? = nil, defaultReasoning: [ReasoningLevel] = [.none],
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
public enum Planner {
    public static let defaultVariant = "default"

    public static func plan(_ suites: [Suite], _ selection: PlanSelection) -> RunPlan {
        var runs: [PlannedCaseRun] = []
        for suite in suites {
            let repeats = max(1, selection.repeatCount ?? suite.repeatCount ?? 1)
            let levels = selection.reasoning ?? suite.reasoning ?? selection.defaultReasoning
            for evalCase in suite.cases where selects(evalCase, in: suite, selection) {
                let variants = suite.variants.isEmpty ? [PromptVariant(name: defaultVariant)] : suite.variants
                for variant in variants where selection.variants.isEmpty || selection.variants.contains(variant.name) {
                    let variantCase = variant.applied(to: evalCase)
                    for backend in selection.backends {
                        for level in levels {
                            for index in 1...repeats {
                                let key = [suite.name, evalCase.id, variant.name, backend, level.rawValue, String(index)]
                                    .joined(separator: "/")
                                runs.append(PlannedCaseRun(key: key, suite: suite.name, evalCase: variantCase,
                                                           variant: variant.name, backend: backend,
                                                           reasoning: level, repeatIndex: index, slo: suite.slo))
                            }
                        }
                    }
                }
            }
        }
        return RunPlan(caseRuns: runs)
    }

    private static func selects(_ evalCase: EvalCase, in suite: Suite, _ selection: PlanSelection) -> Bool {
        let idMatches = selection.caseIDs.isEmpty
            || selection.caseIDs.contains(evalCase.id) || selection.caseIDs.contains("\(suite.name)/\(evalCase.id)")
        let tagMatches = selection.tags.isEmpty || !Set(selection.tags).isDisjoint(with: evalCase.tags)
        return idMatches && tagMatches
    }
}
