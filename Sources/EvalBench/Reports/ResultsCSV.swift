import Foundation

/// `results.csv`: one row per request, in the order given (DESIGN.md, "Files a run writes").
package enum ResultsCSV {
    /// The column names, in order.
    package static let columns = [
        "suite", "case", "turn", "variant", "backend", "model", "reasoning", "repeat", "status", "error_kind",
        "latency_ms", "ttft_ms", "ttfa_ms", "tpot_ms", "output_tps", "input_tokens", "cached_input_tokens",
        "output_tokens", "reasoning_tokens", "cache_hit_ratio", "cost_usd", "failed_assertions", "tool_calls", "tool_rounds",
    ]

    /// The whole file: times in ms with 2 decimals, ratios with 4, cost with up to 6, tokens
    /// as integers, and an empty cell for anything not reported.
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
        let sink = try ReportFileSink(file)
        var csv = CSVWriter(header: columns)
        for result in results {
            csv.append(row(result))
            if csv.text.utf8.count >= 1 << 20 { try sink.write(csv.takeText()) }
        }
        try sink.write(csv.takeText())
        try sink.finish()
    }

    private static func row(_ result: RequestResult) -> [CSVCell] {
        let usage = result.usage
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
            .text(result.failedAssertions.isEmpty ? nil : result.failedAssertions.map(\.name).joined(separator: "; ")),
            .integer(result.toolCalls?.count),
            .integer(result.toolRoundCount),
        ]
    }
}
