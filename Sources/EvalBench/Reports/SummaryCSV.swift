/// `summary.csv`: one row per backend × reasoning × variant (DESIGN.md, "Files a run writes").
package enum SummaryCSV {
    /// The column names, in order.
    package static let columns = [
        "backend", "model", "reasoning", "variant", "cases", "passed", "failed", "errors", "skipped",
        "pass_rate", "pass_rate_low", "pass_rate_high", "latency_p50_ms", "latency_p95_ms", "ttft_p50_ms",
        "ttft_p95_ms", "input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens",
        "cache_hit_ratio", "cost_usd",
    ]
    /// Columns after the fixed ones and before the `metric:<name>` columns.
    /// The `requests_*` counts say how many sent requests reported each figure: a token or
    /// cost cell is empty unless all of them did. `token_source` is `reported`, `counted`,
    /// `estimated` or `mixed: …`, then `(N impossible or unreadable, left out)` when some usage
    /// could not be true (alone when none could). `tool_calls` and `tool_rounds` are empty for a group without tools.
    /// `distinct_models` counts the model names its answered requests reported (empty above
    /// `ModelTally.capacity`, which are not counted one by one) and `model_requests` those that
    /// reported `model`, the most frequent: a router's fallbacks show there.
    package static let extraColumns = ["latency_p90_ms", "latency_p99_ms", "ttft_p90_ms", "ttft_p99_ms", "goodput",
                                       "requests_sent", "requests_reporting_input", "requests_reporting_cached",
                                       "requests_reporting_output", "requests_reporting_reasoning", "requests_with_cost",
                                       "token_source", "tool_calls", "tool_rounds", "distinct_models", "model_requests"]

    /// The whole file: rates and ratios with 4 decimals, times in ms with 2, cost with up to
    /// 6, tokens as integers, and an empty cell for anything not reported. After the fixed
    /// columns come `extraColumns` (goodput empty without a suite `slo`; `tool_calls` and `tool_rounds` the sums over requests with tools, empty without any), then one `metric:<name>` column per named assertion holds its pass rate in that
    /// group (empty where the group never graded it); metrics.csv has the counts.
    package static func render(_ groups: [GroupSummary]) -> String {
        var names: [String] = []
        var seen: Set<String> = []
        for summary in groups {
            for metric in summary.metrics where seen.insert(metric.name).inserted { names.append(metric.name) }
        }
        var csv = CSVWriter(header: columns + extraColumns + names.map { "metric:" + $0 })
        for summary in groups {
            let metricCells: [CSVCell] = names.map { name in
                .fixed(summary.metrics.first { $0.name == name }?.rate, places: 4)
            }
            csv.append(cells(summary) + metricCells)
        }
        return csv.text
    }

    /// One group's cells for `columns` followed by `extraColumns`, formatted as the file has them.
    package static func cells(_ summary: GroupSummary) -> [CSVCell] {
        [
            .text(summary.group.backend),
            .text(summary.model),
            .text(summary.group.reasoning.rawValue),
            .text(summary.group.variant),
            .integer(summary.cases),
            .integer(summary.passed),
            .integer(summary.failed),
            .integer(summary.errors),
            .integer(summary.skipped),
            .fixed(summary.passRate, places: 4),
            .fixed(summary.passRateLow, places: 4),
            .fixed(summary.passRateHigh, places: 4),
            .fixed(summary.latencyP50Ms, places: 2),
            .fixed(summary.latencyP95Ms, places: 2),
            .fixed(summary.ttftP50Ms, places: 2),
            .fixed(summary.ttftP95Ms, places: 2),
            .integer(summary.usage.inputTokens),
            .integer(summary.usage.cachedInputTokens),
            .integer(summary.usage.outputTokens),
            .integer(summary.usage.reasoningTokens),
            .fixed(summary.usage.cacheHitRatio, places: 4),
            .trimmed(summary.costUSD, maxPlaces: 6),
            .fixed(summary.latencyP90Ms, places: 2),
            .fixed(summary.latencyP99Ms, places: 2),
            .fixed(summary.ttftP90Ms, places: 2),
            .fixed(summary.ttftP99Ms, places: 2),
            .fixed(summary.goodput, places: 4),
            .integer(summary.requestsSent),
            .integer(summary.usage.reported(.input)),
            .integer(summary.usage.reported(.cached)),
            .integer(summary.usage.reported(.output)),
            .integer(summary.usage.reported(.reasoning)),
            .integer(summary.requestsWithCost),
            .text(summary.usage.sourceSummary),
            .integer(summary.tools?.calls),
            .integer(summary.tools?.rounds),
            .integer(summary.models.distinctNames),
            .integer(summary.models.ranked.first?.requests ?? 0),
        ]
    }
}
