import Foundation

/// What an assertion can look at: the answer and the request's measurements.
public struct GradingInput: Sendable {
    public var output: String
    public var latencyMs: Double?
    public var ttftMs: Double?
    public var usage: Usage

    public init(output: String, latencyMs: Double?, ttftMs: Double?, usage: Usage) {
        self.output = output
        self.latencyMs = latencyMs
        self.ttftMs = ttftMs
        self.usage = usage
    }
}

/// Runs a turn's assertions. Patterns were checked at load time and are compiled per check.
public struct Grader: Sendable {
    public init() {}

    /// Every assertion's verdict, in order.
    public func grade(_ assertions: [Assertion], _ input: GradingInput) -> [AssertionResult] {
        assertions.map { grade($0, input) }
    }

    public func grade(_ assertion: Assertion, _ input: GradingInput) -> AssertionResult {
        let verdict = evaluate(assertion.check, input)
        return AssertionResult(
            type: assertion.type,
            name: assertion.name ?? Self.describe(assertion.check),
            passed: verdict == nil,
            message: verdict
        )
    }

    /// nil when the check holds, else why not (expected versus actual).
    private func evaluate(_ check: Assertion.Check, _ input: GradingInput) -> String? {
        let output = input.output
        switch check {
        case let .contains(value, ignoreCase):
            return Self.find(value, in: output, ignoreCase) ? nil
                : "expected the answer to contain \(Self.quote(value)); got \(Self.quote(output, limit: 200))"
        case let .notContains(value, ignoreCase):
            return Self.find(value, in: output, ignoreCase)
                ? "expected the answer not to contain \(Self.quote(value)); got \(Self.quote(output, limit: 200))" : nil
        case let .equals(value, ignoreCase):
            let answer = output.trimmingCharacters(in: .whitespacesAndNewlines)
            let equal = ignoreCase ? answer.caseInsensitiveCompare(value) == .orderedSame : answer == value
            return equal ? nil : "expected the answer (trimmed) to equal \(Self.quote(value)); got \(Self.quote(answer, limit: 200))"
        case let .startsWith(value, ignoreCase):
            let answer = output.drop { $0.isWhitespace }
            let prefix = answer.prefix(value.count)
            let starts = ignoreCase ? String(prefix).caseInsensitiveCompare(value) == .orderedSame : String(prefix) == value
            return starts ? nil : "expected the answer to start with \(Self.quote(value)); got \(Self.quote(String(answer), limit: 200))"
        case let .regex(pattern, ignoreCase):
            return Self.matches(pattern, output, ignoreCase) ? nil
                : "expected a match for /\(pattern)/; got \(Self.quote(output, limit: 200))"
        case let .notRegex(pattern, ignoreCase):
            return Self.matches(pattern, output, ignoreCase)
                ? "expected no match for /\(pattern)/; got \(Self.quote(output, limit: 200))" : nil
        case let .maxLatencyMs(limit):
            guard let latency = input.latencyMs else { return "latency was not measured" }
            return latency <= limit ? nil : "expected latency <= \(Self.number(limit)) ms; got \(Self.number(latency)) ms"
        case let .maxTTFTMs(limit):
            guard let ttft = input.ttftMs else { return "time to first token was not measured (no token streamed)" }
            return ttft <= limit ? nil : "expected TTFT <= \(Self.number(limit)) ms; got \(Self.number(ttft)) ms"
        case let .maxOutputTokens(limit):
            guard let tokens = input.usage.outputTokens else { return "the backend did not report output tokens" }
            return tokens <= limit ? nil : "expected at most \(limit) output tokens; got \(tokens)"
        case let .minCacheHitRatio(minimum):
            guard let ratio = input.usage.cacheHitRatio else {
                return "the backend did not report cached and total input tokens"
            }
            return ratio >= minimum ? nil
                : "expected cache-hit ratio >= \(Self.number(minimum)); got \(Self.number(ratio)) (\(input.usage.cachedInputTokens ?? 0) of \(input.usage.inputTokens ?? 0) input tokens cached)"
        }
    }

    /// A short description of a check, used as its name in reports.
    public static func describe(_ check: Assertion.Check) -> String {
        func flag(_ ignoreCase: Bool) -> String { ignoreCase ? " (ignoring case)" : "" }
        switch check {
        case let .contains(value, ignoreCase): return "contains \(quote(value, limit: 40))\(flag(ignoreCase))"
        case let .notContains(value, ignoreCase): return "notContains \(quote(value, limit: 40))\(flag(ignoreCase))"
        case let .equals(value, ignoreCase): return "equals \(quote(value, limit: 40))\(flag(ignoreCase))"
        case let .startsWith(value, ignoreCase): return "startsWith \(quote(value, limit: 40))\(flag(ignoreCase))"
        case let .regex(pattern, ignoreCase): return "regex /\(pattern.prefix(40))/\(ignoreCase ? "i" : "")"
        case let .notRegex(pattern, ignoreCase): return "notRegex /\(pattern.prefix(40))/\(ignoreCase ? "i" : "")"
        case let .maxLatencyMs(limit): return "maxLatencyMs \(number(limit))"
        case let .maxTTFTMs(limit): return "maxTTFTMs \(number(limit))"
        case let .maxOutputTokens(limit): return "maxOutputTokens \(limit)"
        case let .minCacheHitRatio(minimum): return "minCacheHitRatio \(number(minimum))"
        }
    }

    private static func find(_ value: String, in text: String, _ ignoreCase: Bool) -> Bool {
        text.range(of: value, options: ignoreCase ? [.caseInsensitive] : []) != nil
    }

    private static func matches(_ pattern: String, _ text: String, _ ignoreCase: Bool) -> Bool {
        // Patterns were compiled once at load time, so this cannot fail for a loaded suite;
        // a pattern that does not compile never matches.
        guard let regex = try? NSRegularExpression(pattern: pattern, options: ignoreCase ? [.caseInsensitive] : []) else {
            return false
        }
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    static func quote(_ text: String, limit: Int = 80) -> String {
        let clipped = text.count > limit ? String(text.prefix(limit)) + "…" : text
        let escaped = clipped
            .replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"\(escaped)\""
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.2f", value)
    }
}
