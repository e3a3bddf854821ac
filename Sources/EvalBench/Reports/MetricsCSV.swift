/// `metrics.csv`: one row per backend × reasoning × variant × named assertion, beside
/// `summary.csv`, whose columns are fixed.
package enum MetricsCSV {
    /// The column names, in order.
    package static let columns = ["backend", "model", "reasoning", "variant", "metric", "passed", "total", "rate"]

    /// The whole file: the rate with 4 decimals; only a header when no assertion is named.
    package static func render(_ groups: [GroupSummary]) -> String {
        var csv = CSVWriter(header: columns)
        for summary in groups {
            for metric in summary.metrics {
                csv.append([
                    .text(summary.group.backend),
                    .text(summary.model),
                    .text(summary.group.reasoning.rawValue),
                    .text(summary.group.variant),
                    .text(metric.name),
                    .integer(metric.passed),
                    .integer(metric.total),
                    .fixed(metric.rate, places: 4),
                ])
            }
        }
        return csv.text
    }
}
