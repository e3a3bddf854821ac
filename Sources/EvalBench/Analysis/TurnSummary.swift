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
    /// Σ shared / Σ total prefix characters over the requests at this turn that have a
    /// previous request: the ideal cache-hit ratio (characters, a proxy for tokens).
    public var idealRatio: Double?

    /// The cache behaviour at `turn`.
    public init(turn: Int, requests: Int, usage: UsageTotals, ttftP50Ms: Double?, idealRatio: Double? = nil) {
        self.turn = turn
        self.requests = requests
        self.usage = usage
        self.ttftP50Ms = ttftP50Ms
        self.idealRatio = idealRatio
    }
}
