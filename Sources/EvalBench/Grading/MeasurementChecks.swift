/// The checks on a request's measurements: time and tokens.
enum MeasurementChecks {
    static func latency(_ latency: Double?, _ limit: Double) -> CheckOutcome {
        CheckOutcome(holds: latency.map { $0 <= limit } ?? false, expected: "latency <= \(Grader.number(limit)) ms",
                     actual: latency.map { "\(Grader.number($0)) ms" } ?? "nothing: latency was not measured")
    }

    static func ttft(_ ttft: Double?, _ limit: Double) -> CheckOutcome {
        CheckOutcome(holds: ttft.map { $0 <= limit } ?? false, expected: "TTFT <= \(Grader.number(limit)) ms",
                     actual: ttft.map { "\(Grader.number($0)) ms" } ?? "nothing: time to first token was not measured (no token streamed)")
    }

    static func outputTokens(_ usage: Usage, _ limit: Int) -> CheckOutcome {
        CheckOutcome(holds: usage.outputTokens.map { $0 <= limit } ?? false, expected: "at most \(limit) output tokens",
                     actual: usage.outputTokens.map(String.init) ?? "nothing: the backend did not report output tokens")
    }

    static func cacheHitRatio(_ usage: Usage, _ minimum: Double) -> CheckOutcome {
        guard let ratio = usage.cacheHitRatio else {
            return CheckOutcome(holds: false, expected: "cache-hit ratio >= \(Grader.number(minimum))",
                                actual: "nothing: the backend did not report cached and total input tokens")
        }
        return CheckOutcome(holds: ratio >= minimum, expected: "cache-hit ratio >= \(Grader.number(minimum))",
                            actual: "\(Grader.number(ratio)) (\(usage.cachedInputTokens ?? 0) of \(usage.inputTokens ?? 0) input tokens cached)")
    }
}
