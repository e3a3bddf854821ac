import Foundation

/// A loaded, validated and fully templated eval suite (`"format": "evalbench.suite/1"`).
public struct Suite: Sendable, Codable, Equatable {
    /// The suite's name, used in result keys and report titles.
    public var name: String
    /// The file the suite was loaded from, as given on the command line.
    public var file: String
    public var cases: [EvalCase]
    /// How many independent times each case runs unless the command line says otherwise.
    public var repeatCount: Int?
    /// What the suite checks, for reports.
    public var description: String?
    /// The reasoning levels the suite runs at unless the command line says otherwise.
    public var reasoning: [ReasoningLevel]?

    public init(name: String, file: String, cases: [EvalCase], repeatCount: Int? = nil,
                description: String? = nil, reasoning: [ReasoningLevel]? = nil) {
        self.name = name
        self.file = file
        self.cases = cases
        self.repeatCount = repeatCount
        self.description = description
        self.reasoning = reasoning
    }
}

/// One case of a suite: a single prompt, or a conversation of turns run in order on one session.
public struct EvalCase: Sendable, Codable, Equatable {
    public var id: String
    public var tags: [String]
    /// Instructions (the system prompt) after templating; the case's own, else the suite's.
    public var instructions: String?
    /// Generation options: the case's merged over the suite's.
    public var options: GenerationOptions
    /// The turns in order; a `prompt` case has exactly one. Each turn's `expect` already
    /// includes the case-level assertions when it is the last turn.
    public var turns: [Turn]
    /// What the case checks, for reports.
    public var description: String?
    /// The weighted score (0…1) the case needs to pass; without one, every assertion must pass.
    public var threshold: Double?

    public init(id: String, tags: [String] = [], instructions: String? = nil,
                options: GenerationOptions = GenerationOptions(), turns: [Turn],
                description: String? = nil, threshold: Double? = nil) {
        self.id = id
        self.tags = tags
        self.instructions = instructions
        self.options = options
        self.turns = turns
        self.description = description
        self.threshold = threshold
    }

    /// Whether the case is a conversation of more than one turn.
    public var isMultiTurn: Bool { turns.count > 1 }
}

/// One user message of a case and the assertions that grade the answer to it.
public struct Turn: Sendable, Codable, Equatable {
    /// The prompt after `{{name}}` templating.
    public var prompt: String
    public var expect: [Assertion]

    public init(prompt: String, expect: [Assertion] = []) {
        self.prompt = prompt
        self.expect = expect
    }
}

/// Sampling and length options a case asks for; `nil` leaves the backend's default.
public struct GenerationOptions: Sendable, Codable, Equatable, Hashable {
    public var temperature: Double?
    public var maxOutputTokens: Int?
    public var topP: Double?
    public var seed: Int?
    public var stop: [String]?

    public init(temperature: Double? = nil, maxOutputTokens: Int? = nil, topP: Double? = nil,
                seed: Int? = nil, stop: [String]? = nil) {
        self.temperature = temperature
        self.maxOutputTokens = maxOutputTokens
        self.topP = topP
        self.seed = seed
        self.stop = stop
    }

    /// These options with every unset field taken from `base`.
    public func merged(over base: GenerationOptions) -> GenerationOptions {
        GenerationOptions(
            temperature: temperature ?? base.temperature,
            maxOutputTokens: maxOutputTokens ?? base.maxOutputTokens,
            topP: topP ?? base.topP,
            seed: seed ?? base.seed,
            stop: stop ?? base.stop
        )
    }
}
