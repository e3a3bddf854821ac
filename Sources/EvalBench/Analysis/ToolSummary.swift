import Foundation

/// The tool calls of one backend × reasoning × variant: summary.md's Tools section and
/// summary.csv's `tool_calls` and `tool_rounds`.
public struct ToolSummary: Sendable, Equatable {
    /// Requests (turns) that had tools in force or made a call.
    public var turns = 0
    /// Of `turns`, those graded by at least one tool assertion.
    public var gradedTurns = 0
    /// Of `gradedTurns`, those whose tool assertions all passed: tool-call accuracy's numerator.
    public var passedTurns = 0
    /// Σ tool calls.
    public var calls = 0
    /// Of `calls`, those whose arguments parsed as JSON.
    public var parsedCalls = 0
    /// Σ rounds of tool calls.
    public var rounds = 0
    /// The largest tool set any of its turns sent, in estimated tokens; nil when none said.
    public var largestToolSetTokens: Int?
    /// The largest tool set counted by the backend's tokenizer; nil where none was counted.
    public var largestCountedToolSetTokens: Int?
    /// How `largestCountedToolSetTokens` was counted.
    public var countedToolSetMethod: String?
    /// Calls no canned result matched (an unknown tool, malformed or unexpected arguments), by
    /// `name(arguments)`, with how often each was made.
    public var wrongCalls: [String: Int] = [:]

    /// The assertion types that grade tool calls.
    public static let assertionTypes: Set = ["toolCalled", "toolNotCalled", "toolSequence", "toolArgumentsValid",
                                             "maxToolCalls", "maxToolRounds"]

    /// An empty summary.
    public init() {}

    /// passedTurns / gradedTurns; nil when no tool assertion graded a turn.
    public var accuracy: Double? { gradedTurns > 0 ? Double(passedTurns) / Double(gradedTurns) : nil }

    /// The most frequent wrong calls, most frequent first (ties by name).
    public func mostFrequentWrongCalls(_ limit: Int = 3) -> [(call: String, count: Int)] {
        wrongCalls.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(limit).map { ($0.key, $0.value) }
    }

    /// Adds one result's calls and tool assertions.
    mutating func add(_ result: RequestResult) {
        guard let calls = result.toolCalls else { return }
        turns += 1
        self.calls += calls.count
        parsedCalls += calls.filter { $0.arguments != nil }.count
        rounds += result.toolRoundCount ?? 0
        if let tokens = result.toolDefinitionTokens { largestToolSetTokens = max(largestToolSetTokens ?? 0, tokens) }
        if let tokens = result.toolDefinitionTokensCounted, tokens > (largestCountedToolSetTokens ?? -1) {
            largestCountedToolSetTokens = tokens
            countedToolSetMethod = result.toolDefinitionTokensMethod
        }
        for call in calls where !call.matched { wrongCalls[call.summary, default: 0] += 1 }
        let graded = result.assertions.filter { Self.assertionTypes.contains($0.type) }
        if !graded.isEmpty {
            gradedTurns += 1
            if graded.allSatisfy(\.passed) { passedTurns += 1 }
        }
    }
}
