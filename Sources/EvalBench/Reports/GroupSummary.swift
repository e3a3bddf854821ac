/// The aggregate of one backend × reasoning × variant: a row of `summary.csv` and of the
/// headline table (DESIGN.md, "Metrics").
public struct GroupSummary: Sendable, Equatable {
    public var group: SummaryGroupKey
    /// The first model any of its requests reported.
    public var model: String?
    /// Case runs (one case × repeat).
    public var cases = 0
    /// Case runs in which every turn passed.
    public var passed = 0
    /// Case runs that did not pass, error or skip.
    public var failed = 0
    /// Case runs in which any turn errored.
    public var errors = 0
    public var skipped = 0
    /// passed / (cases − skipped): errors count against it; nil when nothing ran.
    public var passRate: Double?
    /// The 95% Wilson score interval of `passRate`.
    public var passRateLow: Double?
    public var passRateHigh: Double?
    /// Nearest-rank percentiles over the successful (pass or fail) requests that have them.
    public var latencyP50Ms: Double?
    public var latencyP95Ms: Double?
    public var ttftP50Ms: Double?
    public var ttftP95Ms: Double?
    /// Token sums and the token-weighted cache-hit ratio over all its requests.
    public var usage = UsageTotals()
    /// Σ cost; nil when no request had one.
    public var costUSD: Double?
    /// Errored requests per kind.
    public var errorCounts: [ErrorKind: Int] = [:]
    /// The first message recorded for each error kind.
    public var firstErrorMessages: [ErrorKind: String] = [:]
    /// Per-turn cache behaviour of its multi-turn cases, by turn.
    public var turns: [TurnSummary] = []

    public init(group: SummaryGroupKey) {
        self.group = group
    }
}

/// Cache behaviour at one turn index across the multi-turn case runs of a group: how much
/// of the growing conversation prefix the backend served from its cache.
public struct TurnSummary: Sendable, Equatable {
    /// Counts from 1.
    public var turn: Int
    /// Requests at this turn.
    public var requests: Int
    /// Token sums and Σcached / Σinput at this turn.
    public var usage: UsageTotals
    /// Nearest-rank median TTFT over the successful requests at this turn.
    public var ttftP50Ms: Double?

    public init(turn: Int, requests: Int, usage: UsageTotals, ttftP50Ms: Double?) {
        self.turn = turn
        self.requests = requests
        self.usage = usage
        self.ttftP50Ms = ttftP50Ms
    }
}
