/// The nearest-rank p50, p90, p95 and p99 of a set of measurements, the summary evalbench
/// compares latency by: percentiles rather than mean ± sd, because latency is multimodal.
package struct LatencyPercentiles: Sendable, Equatable, Codable {
    package let p50: Double
    package let p90: Double
    package let p95: Double
    package let p99: Double

    /// The percentiles of `values` in any order; nil when there are none.
    package init?(_ values: [Double]) {
        let sorted = values.sorted()
        guard let p50 = percentile(50, of: sorted), let p90 = percentile(90, of: sorted),
              let p95 = percentile(95, of: sorted), let p99 = percentile(99, of: sorted) else { return nil }
        self.p50 = p50
        self.p90 = p90
        self.p95 = p95
        self.p99 = p99
    }
}
