import Foundation

/// A backend's context window in tokens, and how evalbench knows it.
package struct ContextWindow: Sendable, Equatable {
    package var tokens: Int
    /// "config contextSize", "reported by the framework", or the documented default.
    package var origin: String
    /// A larger window the same model has elsewhere (the on-device model's 8192 on OS 27), to
    /// say whether a case that overflows this one would fit there.
    package var larger: Int?

    package init(tokens: Int, origin: String, larger: Int? = nil) {
        self.tokens = tokens
        self.origin = origin
        self.larger = larger
    }
}

/// A backend that knows its own context window, or counts tokens with its own tokenizer.
package protocol ContextMeasuring: Sendable {
    /// The window; nil when unknown.
    func contextWindow() async -> ContextWindow?
    /// The backend's own token count of `text`; nil when it has no counter here.
    func countTokens(_ text: String) async -> Int?
    /// The count of `text` as that part of a request (a model may count instructions and
    /// schemas apart from prompts); by default as `countTokens(_:)`.
    func countTokens(_ text: String, as part: ContextPart) async -> Int?
}

/// The parts of a request a tokenizer may count differently.
package enum ContextPart: Sendable {
    case instructions, prompt, schema
}

extension ContextMeasuring {
    package func countTokens(_ text: String, as part: ContextPart) async -> Int? {
        await countTokens(text)
    }
}

/// The context-fit pre-flight of `evalbench plan`: each case's largest turn against each
/// backend's window, before a request is spent.
package struct ContextFitReport: Sendable, Equatable {
    package var backend: String
    /// Nil when the window is unknown (no `contextSize`), so nothing could be checked.
    package var window: ContextWindow?
    /// `counted` when the backend's tokenizer counted every input, else `estimated`.
    package var source: TokenSource
    /// Distinct cases checked.
    package var casesChecked: Int
    /// The cases that do not fit, in suite order.
    package var overflows: [Overflow]
    /// Every checked case's largest turn, split by part; empty when the window is unknown.
    package var budgets: [Budget] = []

    /// Where the tokens of a case's largest turn go.
    package struct Budget: Sendable, Equatable {
        package var suite: String
        package var caseID: String
        /// The turn that needs the most, counting from 1.
        package var turn: Int
        package var instructions: Int
        /// The case's `output` schema, where it is sent in the request.
        package var schema: Int
        /// Earlier prompts, and earlier answers at `maxOutputTokens` each.
        package var history: Int
        package var prompt: Int
        /// This answer's `maxOutputTokens`.
        package var output: Int
        package var total: Int { instructions + schema + history + prompt + output }
    }

    /// One case whose largest turn needs more than the window.
    package struct Overflow: Sendable, Equatable {
        package var suite: String
        package var caseID: String
        /// The turn that needs the most, counting from 1.
        package var turn: Int
        /// Instructions, earlier prompts and this turn's prompt.
        package var inputTokens: Int
        /// Earlier answers at `maxOutputTokens` each plus this answer's `maxOutputTokens`; 0
        /// when the case sets no `maxOutputTokens`.
        package var outputHeadroom: Int
        package var totalTokens: Int { inputTokens + outputHeadroom }
    }
}

package enum ContextFit {
    /// Checks every case of `plan` that runs on each of `backends` (in that order).
    package static func check(_ plan: RunPlan, backends: [(name: String, backend: any Backend, config: BackendConfig?)]) async -> [ContextFitReport] {
        var reports: [ContextFitReport] = []
        for (name, backend, config) in backends {
            let measuring = backend as? any ContextMeasuring
            var window = await measuring?.contextWindow()
            if window == nil, let size = config?.contextSize { window = ContextWindow(tokens: size, origin: "config contextSize") }
            var seen: Set<String> = []
            var cases: [(suite: String, evalCase: EvalCase)] = []
            for caseRun in plan.caseRuns where caseRun.backend == name && seen.insert("\(caseRun.suite)/\(caseRun.evalCase.id)").inserted {
                cases.append((caseRun.suite, caseRun.evalCase))
            }
            var report = ContextFitReport(backend: name, window: window, source: .counted, casesChecked: cases.count, overflows: [])
            guard let window else {
                report.source = .estimated
                reports.append(report)
                continue
            }
            for (suite, evalCase) in cases {
                let (turns, counted) = await turnNeeds(evalCase, counter: measuring)
                if !counted { report.source = .estimated }
                if let largest = turns.max(by: { $0.total < $1.total }) {
                    report.budgets.append(ContextFitReport.Budget(
                        suite: suite, caseID: evalCase.id, turn: largest.turn, instructions: largest.instructions,
                        schema: largest.schema, history: largest.history, prompt: largest.prompt, output: largest.output))
                }
                // The first turn that does not fit: a conversation can outgrow the window late.
                if let first = turns.first(where: { $0.total > window.tokens }) {
                    report.overflows.append(ContextFitReport.Overflow(
                        suite: suite, caseID: evalCase.id, turn: first.turn,
                        inputTokens: first.instructions + first.schema + first.earlierPrompts + first.prompt,
                        outputHeadroom: first.earlierAnswers + first.output))
                }
            }
            reports.append(report)
        }
        return reports
    }

    /// What each turn of `evalCase` needs, by part, and whether a tokenizer counted it all.
    static func turnNeeds(_ evalCase: EvalCase, counter: (any ContextMeasuring)?) async -> (turns: [TurnNeed], counted: Bool) {
        var counted = true
        func tokens(_ text: String?, as part: ContextPart = .prompt) async -> Int {
            guard let text, !text.isEmpty else { return 0 }
            if let count = await counter?.countTokens(text, as: part) { return count }
            counted = false
            return TokenEstimate.tokens(in: text)
        }
        let maxOutput = evalCase.options.maxOutputTokens ?? 0
        let instructions = await tokens(evalCase.instructions, as: .instructions)
        let schema = await tokens(evalCase.output?.schemaText, as: .schema)
        var turns: [TurnNeed] = []
        var earlierPrompts = 0
        for (index, turn) in evalCase.turns.enumerated() {
            let prompt = await tokens(turn.prompt)
            turns.append(TurnNeed(turn: index + 1, instructions: instructions, schema: schema, earlierPrompts: earlierPrompts,
                                  earlierAnswers: maxOutput * index, prompt: prompt, output: maxOutput))
            earlierPrompts += prompt
        }
        return (turns, counted)
    }

    /// One turn's need.
    struct TurnNeed {
        var turn: Int
        var instructions: Int
        var schema: Int
        var earlierPrompts: Int
        var earlierAnswers: Int
        var prompt: Int
        var output: Int
        var history: Int { earlierPrompts + earlierAnswers }
        var total: Int { instructions + schema + history + prompt + output }
    }
}

extension ContextFitReport {
    /// The report as `evalbench plan` prints it: the window and how inputs were counted, each
    /// case's budget by part, each case that does not fit, and the count.
    package var lines: [String] {
        guard let window else {
            return ["context \(backend): window unknown; set contextSize to check that its cases fit"]
        }
        let counting = source == .counted ? "inputs counted by the model's tokenizer"
            : "inputs estimated (\(TokenEstimate.rule))"
        var lines = ["context \(backend): \(window.tokens) tokens (\(window.origin)); \(counting); earlier answers and this answer at maxOutputTokens each"]
        func share(_ tokens: Int) -> String {
            String(format: "%.1f%%", Double(tokens) / Double(window.tokens) * 100)
        }
        for budget in budgets {
            var parts = ["instructions \(share(budget.instructions))"]
            if budget.schema > 0 { parts.append("schema \(share(budget.schema))") }
            parts += ["history \(share(budget.history))", "prompt \(share(budget.prompt))", "output \(share(budget.output))"]
            lines.append("budget \(backend): \(budget.suite)/\(budget.caseID) turn \(budget.turn): \(parts.joined(separator: " · ")) = \(share(budget.total)) of \(window.tokens)")
        }
        for overflow in overflows {
            let outgrows = overflow.turn > 1 ? " (the conversation outgrows the window at turn \(overflow.turn))" : ""
            var line = "context \(backend): does not fit\(outgrows): \(overflow.suite)/\(overflow.caseID) turn \(overflow.turn) needs \(overflow.totalTokens) tokens (input \(overflow.inputTokens) + output \(overflow.outputHeadroom)) > \(window.tokens)"
            if let larger = window.larger {
                line += overflow.totalTokens > larger ? "; over \(larger) too" : "; fits \(larger)"
            }
            lines.append(line)
        }
        lines.append("context \(backend): \(overflows.count) of \(casesChecked) cases do not fit (\(source.rawValue))")
        return lines
    }
}
