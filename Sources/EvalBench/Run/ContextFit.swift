import Foundation

/// A backend's context window in tokens, and how evalbench knows it.
public struct ContextWindow: Sendable, Equatable {
    public var tokens: Int
    /// "config contextSize", "reported by the framework", or the documented default.
    public var origin: String
    /// A larger window the same model has elsewhere (the on-device model's 8192 on OS 27), to
    /// say whether a case that overflows this one would fit there.
    public var larger: Int?

    public init(tokens: Int, origin: String, larger: Int? = nil) {
        self.tokens = tokens
        self.origin = origin
        self.larger = larger
    }
}

/// A backend that knows its own context window, or counts tokens with its own tokenizer.
public protocol ContextMeasuring: Sendable {
    /// The window; nil when unknown.
    func contextWindow() async -> ContextWindow?
    /// The backend's own token count of `text`; nil when it has no counter here.
    func countTokens(_ text: String) async -> Int?
}

/// The context-fit pre-flight of `evalbench plan`: each case's largest turn against each
/// backend's window, before a request is spent.
public struct ContextFitReport: Sendable, Equatable {
    public var backend: String
    /// Nil when the window is unknown (no `contextSize`), so nothing could be checked.
    public var window: ContextWindow?
    /// `counted` when the backend's tokenizer counted every input, else `estimated`.
    public var source: TokenSource
    /// Distinct cases checked.
    public var casesChecked: Int
    /// The cases that do not fit, in suite order.
    public var overflows: [Overflow]

    /// One case whose largest turn needs more than the window.
    public struct Overflow: Sendable, Equatable {
        public var suite: String
        public var caseID: String
        /// The turn that needs the most, counting from 1.
        public var turn: Int
        /// Instructions, earlier prompts and this turn's prompt.
        public var inputTokens: Int
        /// Earlier answers at `maxOutputTokens` each plus this answer's `maxOutputTokens`; 0
        /// when the case sets no `maxOutputTokens`.
        public var outputHeadroom: Int
        public var totalTokens: Int { inputTokens + outputHeadroom }
    }
}

public enum ContextFit {
    /// Checks every case of `plan` that runs on each of `backends` (in that order).
    public static func check(_ plan: RunPlan, backends: [(name: String, backend: any Backend, config: BackendConfig?)]) async -> [ContextFitReport] {
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
                let (need, counted) = await largestTurn(evalCase, counter: measuring)
                if !counted { report.source = .estimated }
                if need.totalTokens > window.tokens {
                    report.overflows.append(ContextFitReport.Overflow(suite: suite, caseID: evalCase.id, turn: need.turn,
                                                                      inputTokens: need.input, outputHeadroom: need.headroom))
                }
            }
            reports.append(report)
        }
        return reports
    }

    /// The turn of `evalCase` that needs the most tokens, and whether a tokenizer counted them.
    static func largestTurn(_ evalCase: EvalCase, counter: (any ContextMeasuring)?) async -> (need: (turn: Int, input: Int, headroom: Int, totalTokens: Int), counted: Bool) {
        var largest = (turn: 1, input: 0, headroom: 0, totalTokens: 0)
        var counted = true
        let maxOutput = evalCase.options.maxOutputTokens ?? 0
        for index in evalCase.turns.indices {
            let prompts = evalCase.turns[...index].map { ChatMessage(role: .user, content: $0.prompt) }
            let text = AppleTokenAccounting.inputText(instructions: evalCase.instructions, messages: prompts)
            let input: Int
            if let count = await counter?.countTokens(text) {
                input = count
            } else {
                input = TokenEstimate.tokens(in: text)
                counted = false
            }
            let headroom = maxOutput * (index + 1)
            if input + headroom > largest.totalTokens {
                largest = (index + 1, input, headroom, input + headroom)
            }
        }
        return (largest, counted)
    }
}
