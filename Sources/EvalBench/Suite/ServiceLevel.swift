/// A suite's latency targets (`"slo": {"ttftMs": 300, "latencyMs": 2000}`): a successful request
/// that meets every declared target counts toward goodput.
public struct ServiceLevel: Sendable, Codable, Equatable {
    /// The most time to the first token, in ms; nil when not declared.
    public var ttftMs: Double?
    /// The most end-to-end latency, in ms; nil when not declared.
    public var latencyMs: Double?

    /// Targets in ms; nil declares none.
    public init(ttftMs: Double? = nil, latencyMs: Double? = nil) {
        self.ttftMs = ttftMs
        self.latencyMs = latencyMs
    }

    /// Whether `timing` meets every declared target; a declared target whose figure was not
    /// measured is not met.
    public func isMet(by timing: RequestTiming?) -> Bool {
        if let ttftMs {
            guard let measured = timing?.ttftMs, measured <= ttftMs else { return false }
        }
        if let latencyMs {
            guard let measured = timing?.latencyMs, measured <= latencyMs else { return false }
        }
        return true
    }
}

/// A suite's own gates (`"gates": {"minPassRate": 0.8, "maxErrorRate": 0.1}`), applied to its
/// results unless the command line's `--min-pass-rate` or `--max-error-rate` overrides them.
public struct SuiteGates: Sendable, Codable, Equatable {
    /// The least pass rate of each backend × level × variant on this suite.
    public var minPassRate: Double?
    /// The most errored requests / requests on this suite; above it the run exits 3.
    public var maxErrorRate: Double?

    /// Gates of a suite; nil declares none.
    public init(minPassRate: Double? = nil, maxErrorRate: Double? = nil) {
        self.minPassRate = minPassRate
        self.maxErrorRate = maxErrorRate
    }
}
