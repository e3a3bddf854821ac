import Foundation

/// How the reports write percentages, milliseconds and pass rates: one decimal, `.` as the
/// separator whatever the locale, and `n/a` for a value that is missing or not finite.
enum ReportFormat {
    /// `83.3` for a ratio of 0.833.
    static func percentNumber(_ ratio: Double) -> String {
        DecimalText.fixed(ratio * 100, places: 1) ?? "n/a"
    }

    /// `83.3%` for a ratio of 0.833.
    static func percent(_ ratio: Double?) -> String {
        guard let text = ratio.flatMap({ DecimalText.fixed($0 * 100, places: 1) }) else { return "n/a" }
        return text + "%"
    }

    /// `12.3`: milliseconds, and per-request averages such as tokens.
    static func oneDecimal(_ value: Double?) -> String {
        value.flatMap { DecimalText.fixed($0, places: 1) } ?? "n/a"
    }

    /// `12.3` milliseconds.
    static func milliseconds(_ value: Double?) -> String { oneDecimal(value) }

    /// `412.3 ms`, or `n/a` with no unit when there is no figure.
    static func millisecondsWithUnit(_ value: Double?) -> String { value == nil ? "n/a" : milliseconds(value) + " ms" }

    /// `83.3% [55.2–95.3]`: a group's pass rate with its 95% interval.
    static func passRate(_ summary: GroupSummary) -> String {
        guard let rate = summary.passRate, let low = summary.passRateLow, let high = summary.passRateHigh else { return "n/a" }
        return "\(percentNumber(rate))% [\(percentNumber(low))–\(percentNumber(high))]"
    }
}
