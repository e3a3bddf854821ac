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
        let expected = "at most \(limit) output tokens"
        if let why = usage.implausibility { return CheckOutcome(holds: false, expected: expected, actual: impossible(why)) }
        return CheckOutcome(holds: usage.outputTokens.map { $0 <= limit } ?? false, expected: expected,
                            actual: usage.outputTokens.map(String.init) ?? "nothing: the backend did not report output tokens")
    }

    static func cacheHitRatio(_ usage: Usage, _ minimum: Double) -> CheckOutcome {
        let expected = "cache-hit ratio >= \(Grader.number(minimum))"
        guard let ratio = usage.cacheHitRatio else {
            let actual = if let why = usage.implausibility {
                impossible(why)
            } else if usage.cachedInputTokens == nil || usage.inputTokens == nil {
                "nothing: the backend did not report cached and total input tokens"
            } else {
                "nothing: the backend reported 0 input tokens"
            }
            return CheckOutcome(holds: false, expected: expected, actual: actual)
        }
        return CheckOutcome(holds: ratio >= minimum, expected: expected,
                            actual: "\(Grader.number(ratio)) (\(usage.cachedInputTokens ?? 0) of \(usage.inputTokens ?? 0) input tokens cached)")
    }

    /// What a check of usage says when the backend's figures cannot all be true: none is used.
    private static func impossible(_ why: String) -> String {
        "nothing usable: the backend reported impossible usage (\(why))"
    }
}
