/// `compare.csv`: one row per backend × reasoning × variant of a comparison (README, "Comparing
/// runs"). A figure not available in either run is an empty cell, never 0.
package enum CompareCSV {
    /// The column names, in order.
    package static let columns = [
        "backend", "reasoning", "variant", "baseline_model", "current_model", "verdict",
        "paired_case_runs", "pass_to_fail", "fail_to_pass", "uncompared_case_runs",
        "baseline_cases", "baseline_passed", "baseline_pass_rate", "baseline_pass_rate_low", "baseline_pass_rate_high",
        "current_cases", "current_passed", "current_pass_rate", "current_pass_rate_low", "current_pass_rate_high",
        "pass_rate_change", "paired_pass_rate_change", "paired_cases", "changed_cases", "pass_rate_test", "pass_rate_p",
        "baseline_timed_requests", "current_timed_requests",
        "baseline_latency_p50_ms", "current_latency_p50_ms", "latency_p50_ratio",
        "baseline_latency_p95_ms", "current_latency_p95_ms", "latency_p95_ratio", "latency_mann_whitney_p",
        "baseline_ttft_p50_ms", "current_ttft_p50_ms", "ttft_p50_ratio",
        "baseline_ttft_p95_ms", "current_ttft_p95_ms", "ttft_p95_ratio", "ttft_mann_whitney_p",
        "baseline_input_tokens", "current_input_tokens", "baseline_cached_input_tokens", "current_cached_input_tokens",
        "baseline_output_tokens", "current_output_tokens",
        "baseline_cache_hit_ratio", "current_cache_hit_ratio", "cache_hit_ratio_change",
        "baseline_cost_usd", "current_cost_usd", "cost_change_usd",
    ]

    /// The whole file: rates, ratios and changes of fractions with 4 decimals, p-values with
    /// their shortest exact decimal text (`0.00048828125`, `1e-12`), times in ms with 2, cost with up to 6, counts and tokens as integers.
    /// `verdict` is `regression` (fails the gate), `not_significant` (past a threshold, not
    /// significant), `improved` (significantly better) or `ok`.
    package static func render(_ comparison: Comparison) -> String {
        var csv = CSVWriter(header: columns)
        for group in comparison.groups {
            let before = group.baseline
            let after = group.current
            let findings = comparison.findings.filter { $0.group == group.group }
            let verdict: String
            if findings.contains(where: { $0.kind.isWorse && $0.significant }) {
                verdict = "regression"
            } else if findings.contains(where: { $0.kind.isWorse }) {
                verdict = "not_significant"
            } else if !findings.isEmpty {
                verdict = "improved"
            } else {
                verdict = "ok"
            }
            csv.append([
                .text(group.group.backend), .text(group.group.reasoning.rawValue), .text(group.group.variant),
                .text(before?.model), .text(after?.model), .text(verdict),
                .integer(group.pairedCaseRuns), .integer(group.passToFail), .integer(group.failToPass),
                .integer(group.uncomparedCaseRuns),
                .integer(before?.cases), .integer(before?.passed), .fixed(before?.passRate, places: 4),
                .fixed(before?.passRateLow, places: 4), .fixed(before?.passRateHigh, places: 4),
                .integer(after?.cases), .integer(after?.passed), .fixed(after?.passRate, places: 4),
                .fixed(after?.passRateLow, places: 4), .fixed(after?.passRateHigh, places: 4),
                .fixed(group.passRateChange, places: 4), .fixed(group.pairedPassRateChange, places: 4),
                .integer(group.passRateTest?.cases), .integer(group.passRateTest?.changedCases),
                .text(group.passRateTest?.method.rawValue), pValue(group.passRateP),
                .integer(before?.timedLatenciesMs.count), .integer(after?.timedLatenciesMs.count),
                .fixed(before?.latencyP50Ms, places: 2), .fixed(after?.latencyP50Ms, places: 2),
                .fixed(group.latencyP50Ratio, places: 4),
                .fixed(before?.latencyP95Ms, places: 2), .fixed(after?.latencyP95Ms, places: 2),
                .fixed(group.latencyP95Ratio, places: 4), pValue(group.latencyMannWhitneyP),
                .fixed(before?.ttftP50Ms, places: 2), .fixed(after?.ttftP50Ms, places: 2),
                .fixed(group.ttftP50Ratio, places: 4),
                .fixed(before?.ttftP95Ms, places: 2), .fixed(after?.ttftP95Ms, places: 2),
                .fixed(group.ttftP95Ratio, places: 4), pValue(group.ttftMannWhitneyP),
                .integer(before?.usage.inputTokens), .integer(after?.usage.inputTokens),
                .integer(before?.usage.cachedInputTokens), .integer(after?.usage.cachedInputTokens),
                .integer(before?.usage.outputTokens), .integer(after?.usage.outputTokens),
                .fixed(before?.usage.cacheHitRatio, places: 4), .fixed(after?.usage.cacheHitRatio, places: 4),
                .fixed(group.cacheHitRatioChange, places: 4),
                .trimmed(before?.costUSD, maxPlaces: 6), .trimmed(after?.costUSD, maxPlaces: 6),
                .trimmed(group.costChange, maxPlaces: 6),
            ])
        }
        return csv.text
    }

    /// A p-value as Swift's shortest round-trip text, so a tiny one never reads as 0.
    private static func pValue(_ p: Double?) -> CSVCell {
        .text(p.map { String($0) })
    }
}
