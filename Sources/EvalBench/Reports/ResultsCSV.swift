import Foundation

/// `results.csv`: one row per request, in the order given (DESIGN.md, "Files a run writes").
package enum ResultsCSV {
    /// The column names, in order.
    package static let columns = [
        "suite", "case", "turn", "variant", "backend", "model", "reasoning", "repeat", "status", "error_kind",
        "latency_ms", "ttft_ms", "ttfa_ms", "tpot_ms", "output_tps", "input_tokens", "cached_input_tokens",
        "output_tokens", "reasoning_tokens", "cache_hit_ratio", "cost_usd", "failed_assertions", "tool_calls", "tool_rounds",
        "usage_suspect",
    ]

    /// The whole file: times in ms with 2 decimals, ratios with 4, cost with up to 6, tokens
    /// as integers, and an empty cell for anything not reported. A request whose usage cannot
    /// all be true has empty token cells and `usage_suspect` saying why; its figures as
    /// reported are in results.jsonl.
    package static func render(_ results: [RequestResult]) -> String {
        var csv = CSVWriter(header: columns)
        csv.reserveCapacity(results.count * 200)
        for result in results {
            csv.append(row(result))
        }
        return csv.text
    }

    /// Writes the same text as `render` to `file` (replacing it atomically), about a
    /// mebibyte at a time, so the whole file is never held in memory.
    package static func write(_ results: some Sequence<RequestResult>, to file: URL) throws {
        try write(figures: results.lazy.map(RequestFigures.init), to: file)
    }

    /// `write` from what the file shows of each request (`CaseRunList.requestFigures` reads
    /// them from a table without building the requests: a million rows took a fifth of a
    /// report's CPU when each was built whole).
    package static func write(figures: some Sequence<RequestFigures>, to file: URL) throws {
        let sink = try ReportFileSink(file)
        var csv = CSVWriter(header: columns)
        for result in figures {
            csv.append(row(result))
            if csv.text.utf8.count >= 1 << 20 { try sink.write(csv.takeText()) }
        }
        try sink.write(csv.takeText())
        try sink.finish()
    }

    private static func row(_ result: RequestResult) -> [CSVCell] {
        row(RequestFigures(result))
    }

    private static func row(_ result: RequestFigures) -> [CSVCell] {
        // Figures that cannot all be true are not shown as numbers, nor are rates made of them.
        let suspect = result.usage.implausibility
        let usage = suspect == nil ? result.usage : Usage()
        let timing = result.timing
        return [
            .text(result.suite),
            .text(result.caseID),
            .integer(result.turn),
            .text(result.variant),
            .text(result.backend),
            .text(result.model),
            .text(result.reasoning.rawValue),
            .integer(result.repeatIndex),
            .text(result.status.rawValue),
            .text(result.errorKind?.rawValue),
            .fixed(timing?.latencyMs, places: 2),
            .fixed(timing?.ttftMs, places: 2),
            .fixed(timing?.ttfaMs, places: 2),
            .fixed(timing?.tpotMs(outputTokens: usage.outputTokens), places: 2),
            .fixed(timing?.outputTokensPerSecond(outputTokens: usage.outputTokens), places: 2),
            .integer(usage.inputTokens),
            .integer(usage.cachedInputTokens),
            .integer(usage.outputTokens),
            .integer(usage.reasoningTokens),
            .fixed(usage.cacheHitRatio, places: 4),
            .trimmed(result.costUSD, maxPlaces: 6),
            .text(result.failedAssertionNames.isEmpty ? nil : result.failedAssertionNames.joined(separator: "; ")),
            .integer(result.toolCallCount),
            .integer(result.toolRoundCount),
            .text(suspect),
        ]
    }
}

/// What results.csv shows of one request: a `RequestResult`'s, or read from a `ResultTable`'s
/// row without building the result (`ResultTable.figures(at:)`).
package struct RequestFigures: Sendable {
    package var suite: String
    package var caseID: String
    package var turn: Int
    package var variant: String
    package var backend: String
    package var model: String?
    package var reasoning: ReasoningLevel
    package var repeatIndex: Int
    package var status: RequestResult.Status
    package var errorKind: ErrorKind?
    package var timing: RequestTiming?
    package var usage: Usage
    package var costUSD: Double?
    /// The names of the assertions that failed, in order.
    package var failedAssertionNames: [String]
    package var toolCallCount: Int?
    package var toolRoundCount: Int?

    package init(_ result: RequestResult) {
        self.init(suite: result.suite, caseID: result.caseID, turn: result.turn, variant: result.variant, backend: result.backend,
                  model: result.model, reasoning: result.reasoning, repeatIndex: result.repeatIndex, status: result.status,
                  errorKind: result.errorKind, timing: result.timing, usage: result.usage, costUSD: result.costUSD,
                  failedAssertionNames: result.failedAssertions.map(\.name), toolCallCount: result.toolCalls?.count,
                  toolRoundCount: result.toolRoundCount)
    }

    package init(suite: String, caseID: String, turn: Int, variant: String, backend: String, model: String?,
                 reasoning: ReasoningLevel, repeatIndex: Int, status: RequestResult.Status, errorKind: ErrorKind?,
                 timing: RequestTiming?, usage: Usage, costUSD: Double?, failedAssertionNames: [String],
                 toolCallCount: Int?, toolRoundCount: Int?) {
        self.suite = suite
        self.caseID = caseID
        self.turn = turn
        self.variant = variant
        self.backend = backend
        self.model = model
        self.reasoning = reasoning
        self.repeatIndex = repeatIndex
        self.status = status
        self.errorKind = errorKind
        self.timing = timing
        self.usage = usage
        self.costUSD = costUSD
        self.failedAssertionNames = failedAssertionNames
        self.toolCallCount = toolCallCount
        self.toolRoundCount = toolRoundCount
    }
}
