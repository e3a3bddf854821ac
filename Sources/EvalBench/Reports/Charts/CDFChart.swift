/// One step of an empirical CDF: the share of the values at or below `value`.
package struct CDFStep: Sendable, Equatable {
    package var value: Double
    /// In 0…1.
    package var fraction: Double

    package init(value: Double, fraction: Double) {
        self.value = value
        self.fraction = fraction
    }
}

/// The empirical cumulative distribution of a sample.
package enum EmpiricalCDF {
    /// One step per distinct finite value, ascending: F(v) = (values ≤ v) / count. The last
    /// step is at 1; no values give no steps.
    package static func steps<Values: Sequence<Double>>(_ values: Values) -> [CDFStep] {
        let sorted = values.filter(\.isFinite).sorted()
        var steps: [CDFStep] = []
        let count = Double(sorted.count)
        for (index, value) in sorted.enumerated() {
            let fraction = Double(index + 1) / count
            if steps.last?.value == value {
                steps[steps.count - 1].fraction = fraction
            } else {
                steps.append(CDFStep(value: value, fraction: fraction))
            }
        }
        return steps
    }

    /// `steps` with those left out that move the curve less than 1/`resolution` of the value
    /// range and of 0…1 past the last step kept: the first and last steps are always kept, and
    /// the drawn curve is never more than 1/`resolution` from the full one. A run of 100,000
    /// requests draws at most about 2 × `resolution` steps instead of 100,000.
    package static func thinned(_ steps: [CDFStep], resolution: Int = 400) -> [CDFStep] {
        guard steps.count > 2 * resolution, let first = steps.first, let last = steps.last, resolution > 0 else { return steps }
        let valueStep = (last.value - first.value) / Double(resolution)
        let fractionStep = 1 / Double(resolution)
        var kept = [first]
        for step in steps.dropFirst().dropLast() {
            let previous = kept[kept.count - 1]
            if step.value - previous.value >= valueStep || step.fraction - previous.fraction >= fractionStep {
                kept.append(step)
            }
        }
        kept.append(last)
        return kept
    }
}

/// The latency or TTFT distribution of each group as an empirical CDF, over the successful
/// requests timed in this run: the figures summary.csv's percentiles come from.
enum CDFChart {
    /// Which timing a chart shows.
    enum Measure {
        case latency, ttft

        var name: String { self == .latency ? "Latency" : "TTFT" }

        /// The group's timed samples of this measure, ascending: those its percentiles are taken over.
        func samples(of summary: GroupSummary) -> TimedSamples {
            self == .latency ? summary.timedLatenciesMs : summary.timedTTFTsMs
        }
    }

    /// Draws each group's samples as the aggregate keeps them (sorted, every turn in its case
    /// run's group), so the curves are those of summary.csv's percentiles, with no pass over
    /// the results of its own (the two charts' passes were a thirteenth of a million-result report).
    static func render(_ measure: Measure, groups: [GroupSummary]) -> (svg: String, hasData: Bool) {
        var series: [LineChart.Series] = []
        var untimed: [String] = []
        var thinnedGroups = 0
        for (index, summary) in groups.enumerated() {
            let sorted = measure.samples(of: summary)
            guard !sorted.isEmpty else {
                untimed.append(summary.group.label)
                continue
            }
            let allSteps = EmpiricalCDF.steps(sorted)
            let steps = EmpiricalCDF.thinned(allSteps)
            if steps.count < allSteps.count { thinnedGroups += 1 }
            func ms(_ value: Double?) -> String { value.flatMap { DecimalText.fixed($0, places: 2) } ?? "" }
            let median = percentile(50, of: sorted)
            series.append(LineChart.Series(
                label: summary.group.label, styleIndex: index,
                points: steps.map { ($0.value, $0.fraction * 100) },
                markers: median.map { [LineChart.Marker(x: $0, y: 50, data: [("p50", ms($0))])] } ?? [],
                data: [("count", String(sorted.count)), ("min", ms(sorted.first)), ("p50", ms(median)),
                       ("p90", ms(percentile(90, of: sorted))), ("p95", ms(percentile(95, of: sorted))),
                       ("p99", ms(percentile(99, of: sorted))), ("max", ms(sorted.last))]))
        }
        var notes: [String] = []
        if !series.isEmpty {
            notes.append("Each step is the share of a group's successful requests timed in this run that took at most "
                + "that long; markers sit at the median. Replayed, fallback and cached answers are left out.")
        }
        if thinnedGroups > 0 {
            notes.append("Large groups are drawn through fewer steps, never more than 0.25% of either axis from "
                + "the full curve; the percentiles are taken over every request.")
        }
        if !untimed.isEmpty && !series.isEmpty {
            notes.append("Not plotted, no successful request timed in this run: " + untimed.joined(separator: ", ") + ".")
        }
        let chart = LineChart(
            title: "\(measure.name) distribution (empirical CDF)", xLabel: "\(measure.name) (ms)",
            yLabel: "Requests at or below (%)",
            xAxis: Axis(covering: series.flatMap { $0.points.map(\.x) }, includingZero: true),
            yAxis: Axis(covering: [0, 100]), series: series, stepped: true, notes: notes,
            noData: groups.isEmpty ? "No data: the run has no results."
                : "No data: no successful request with a \(measure.name) was timed in this run.")
        return (chart.render(), !series.isEmpty)
    }
}
