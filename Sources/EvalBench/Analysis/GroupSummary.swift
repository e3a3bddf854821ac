/// The aggregate of one backend × reasoning × variant: a row of `summary.csv` and of the
/// headline table (DESIGN.md, "Metrics").
public struct GroupSummary: Sendable, Equatable {
    /// The backend × reasoning × variant it summarises.
    public var group: SummaryGroupKey
    /// The model most of its answered (pass or fail) requests reported, the first to come
    /// among equals; with no answered request, the first model any request was recorded with.
    public var model: String?
    /// The model names its answered requests reported, counted (see `modelText`).
    package var models = ModelTally()
    /// Case runs (one case × repeat).
    public var cases = 0
    /// Case runs in which every turn passed.
    public var passed = 0
    /// Case runs that did not pass, error or skip.
    public var failed = 0
    /// Case runs in which any turn errored.
    public var errors = 0
    /// Case runs that were skipped (a level the backend cannot honour, or it was unavailable).
    public var skipped = 0
    /// passed / (cases − skipped): errors count against it; nil when nothing ran.
    public var passRate: Double?
    /// The lower bound of the 95% case-clustered interval of `passRate`: the Wilson score
    /// interval with the number of distinct cases as n, so repeats do not narrow it (with one
    /// repeat per case, the Wilson interval over case runs).
    public var passRateLow: Double?
    /// The upper bound of the same interval.
    public var passRateHigh: Double?
    /// Nearest-rank median latency over the successful (pass or fail) requests.
    public var latencyP50Ms: Double?
    /// Nearest-rank 95th-percentile latency over the successful requests.
    public var latencyP95Ms: Double?
    /// Nearest-rank median TTFT over the successful requests.
    public var ttftP50Ms: Double?
    /// Nearest-rank 95th-percentile TTFT over the successful requests.
    public var ttftP95Ms: Double?
    /// The latencies (ms) the latency percentiles are taken over, ascending: the successful
    /// requests timed in this run (replayed, response-cache and fallback answers left out).
    /// Comparisons and bootstrap intervals need the samples themselves; they are held in 4
    /// bytes each while every one is a whole number of microseconds (see `TimedSamples`).
    public var timedLatenciesMs: TimedSamples = []
    /// The TTFTs (ms) the TTFT percentiles are taken over, ascending, from the same timed requests.
    public var timedTTFTsMs: TimedSamples = []
    /// Nearest-rank 90th-percentile latency (ms) over the successful requests.
    public var latencyP90Ms: Double?
    /// Nearest-rank 99th-percentile latency (ms) over the successful requests.
    public var latencyP99Ms: Double?
    /// Nearest-rank 90th-percentile TTFT (ms) over the successful requests.
    public var ttftP90Ms: Double?
    /// Nearest-rank 99th-percentile TTFT (ms) over the successful requests.
    public var ttftP99Ms: Double?
    /// Requests that ran under a suite `slo` with timing measured in this run (not skipped,
    /// replayed or a fallback's): goodput's denominator.
    public var sloRequests = 0
    /// Of `sloRequests`, those that did not error and met every declared target: goodput's numerator.
    public var goodRequests = 0
    /// Distinct cases of which at least one repeat ran (not skipped).
    public var distinctCases = 0
    /// Of `distinctCases`, those whose every repeat that ran passed (pass^N).
    public var casesPassingEveryRepeat = 0
    /// Requests replayed from an earlier run, left out of the latency and TTFT figures.
    public var replayedRequests = 0
    /// Nearest-rank median time to the first answer token over the successful requests.
    public var ttfaP50Ms: Double?
    /// Nearest-rank 95th-percentile time to the first answer token over the successful requests.
    public var ttfaP95Ms: Double?
    /// Requests that reported reasoning tokens: the denominator of `reasoningTokensPerRequest`.
    public var requestsReportingReasoning = 0
    /// Requests that reported output tokens: the denominator of `outputTokensPerRequest`.
    public var requestsReportingOutput = 0
    /// Token sums over its sent requests (each nil unless every one reported it, with the
    /// counts that did) and the token-weighted cache-hit ratio.
    public var usage = UsageTotals()
    /// Σ cost in US dollars over its sent requests; nil when any one's cost is unknown (a sum
    /// with an unknown part is unknown, never a lower bound shown as the total). See
    /// `requestsWithCost` of `requestsSent`.
    public var costUSD: Double?
    /// Errored requests per kind.
    public var errorCounts: [ErrorKind: Int] = [:]
    /// The first message recorded for each error kind.
    public var firstErrorMessages: [ErrorKind: String] = [:]
    /// Per-turn cache behaviour of its multi-turn cases, by turn.
    public var turns: [TurnSummary] = []
    /// The pass rate of each named assertion, in first-seen order.
    public var metrics: [NamedMetric] = []
    /// The tool calls of its requests that had tools; nil when none had any.
    public var tools: ToolSummary?

    /// The model as summary.md and report.html show it: `model` when every answered request
    /// reported it, else each name with its requests (`small-fallback-v1 (4), big-model-v2 (1)`).
    package var modelText: String? {
        models.text ?? model
    }

    /// goodRequests / sloRequests: errors count against it; nil without an slo or without requests.
    public var goodput: Double? {
        sloRequests > 0 ? Double(goodRequests) / Double(sloRequests) : nil
    }

    /// Σ cost / case runs that ran (not skipped) × 1,000: what 1,000 cases would cost in US
    /// dollars; nil when the cost is unknown or nothing ran.
    public var costPerThousandCasesUSD: Double? {
        guard let costUSD, cases - skipped > 0 else { return nil }
        return costUSD / Double(cases - skipped) * 1000
    }

    /// Σ reasoning tokens / requests that reported them; nil when none did.
    public var reasoningTokensPerRequest: Double? {
        let reporting = usage.reported(.reasoning)
        return reporting > 0 ? Double(usage.reportedTotal(.reasoning)) / Double(reporting) : nil
    }

    /// Σ output tokens / requests that reported them; nil when none did.
    public var outputTokensPerRequest: Double? {
        let reporting = usage.reported(.output)
        return reporting > 0 ? Double(usage.reportedTotal(.output)) / Double(reporting) : nil
    }

    /// Requests sent (not skipped): the m of "n of m reported" for tokens and cost.
    public var requestsSent = 0
    /// Of those, the requests whose cost is known; `costUSD` is nil unless it is all of them.
    public var requestsWithCost = 0
    /// The 95% case bootstrap intervals of the latency p50, p90, p95 and p99 (in that order),
    /// resampling cases with all their timed requests (see `caseBootstrapPercentileIntervals`);
    /// nil with fewer than 20 timed cases, or when the aggregate was not asked for them.
    package var latencyIntervals: [PercentileInterval]?
    /// The same for TTFT.
    package var ttftIntervals: [PercentileInterval]?
    /// The distinct cases among the timed latencies and TTFTs; nil when the intervals were not
    /// computed (the cases were not counted), 0 when nothing was timed.
    package var timedLatencyCases: Int?
    package var timedTTFTCases: Int?

    /// An empty summary, before any result is counted.
    public init(group: SummaryGroupKey) {
        self.group = group
    }
}

/// A 95% interval of one percentile.
package struct PercentileInterval: Sendable, Equatable {
    package var low: Double
    package var high: Double
}

extension GroupSummary {
    /// The percentiles whose bootstrap intervals summary.md gives.
    package static let bootstrapPercentiles: [Double] = [50, 90, 95, 99]
    /// How many resamples, and the generator's seed: fixed, so a report rewritten from the same
    /// results gives the same intervals.
    package static let bootstrapResamples = 1000
    package static let bootstrapSeed: UInt64 = 0x5EED

    /// The case bootstrap intervals of `bootstrapPercentiles` of `values`, whose cases are
    /// `numberedCases`, numbered 0..<`caseCount`.
    static func bootstrapIntervals(_ values: [Double], numberedCases: [UInt32], caseCount: Int) -> [PercentileInterval]? {
        caseBootstrapPercentileIntervals(bootstrapPercentiles, of: values, numberedCases: numberedCases, caseCount: caseCount,
                                         resamples: bootstrapResamples, seed: bootstrapSeed)?
            .map { PercentileInterval(low: $0.low, high: $0.high) }
    }
}
