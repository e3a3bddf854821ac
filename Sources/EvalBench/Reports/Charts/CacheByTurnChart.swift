/// The cache-hit ratio (Σ cached ÷ Σ input tokens) at each turn of the multi-turn cases, one
/// line per group: how much of the growing conversation the backend served from its cache.
enum CacheByTurnChart {
    /// Nil when no group has multi-turn results, so there is nothing to draw.
    static func render(groups: [GroupSummary]) -> (svg: String, hasData: Bool)? {
        guard groups.contains(where: { !$0.turns.isEmpty }) else { return nil }
        var series: [LineChart.Series] = []
        var unreported: [String] = []
        for (index, summary) in groups.enumerated() where !summary.turns.isEmpty {
            let turns = summary.turns.compactMap { turn in turn.usage.cacheHitRatio.map { (turn: turn.turn, ratio: $0) } }
            guard !turns.isEmpty else {
                unreported.append(summary.group.label)
                continue
            }
            series.append(LineChart.Series(
                label: summary.group.label, styleIndex: index,
                points: turns.map { (Double($0.turn), $0.ratio * 100) },
                markers: turns.map {
                    LineChart.Marker(x: Double($0.turn), y: $0.ratio * 100,
                                     data: [("turn", String($0.turn)),
                                            ("cache-hit-ratio", DecimalText.fixed($0.ratio, places: 4) ?? "")])
                },
                data: [("turns", String(turns.count))]))
        }
        var notes = ["Cached input tokens ÷ input tokens at each turn, over the multi-turn cases' requests that reported both."]
        if !unreported.isEmpty {
            notes.append("Not plotted, cached input tokens not reported: " + unreported.joined(separator: ", ") + ".")
        }
        let turns = groups.flatMap { $0.turns.map { Double($0.turn) } }
        let chart = LineChart(
            title: "Cache hit by turn", xLabel: "Turn", yLabel: "Cache hit (% of input tokens)",
            xAxis: Axis(covering: turns, minimumStep: 1), yAxis: Axis(covering: [0, 100]),
            series: series, stepped: false, notes: notes,
            noData: "No data: no backend reported cached input tokens for its multi-turn cases.")
        return (chart.render(), !series.isEmpty)
    }
}
