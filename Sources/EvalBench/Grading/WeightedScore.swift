/// The weighted share of assertions that passed: Σ weight · passed / Σ weight.
public struct WeightedScore: Sendable, Equatable {
    /// Σ weight over the assertions that passed.
    public private(set) var earned: Double = 0
    /// Σ weight over all of them.
    public private(set) var total: Double = 0
    /// How many failed, for the rule without a threshold (every assertion passes).
    public private(set) var failures = 0

    /// An empty score: no assertions, so no value, and it passes.
    public init() {}

    /// The score of `results`.
    public init(_ results: [AssertionResult]) {
        for result in results { add(result) }
    }

    /// Counts one assertion's verdict at its weight.
    public mutating func add(_ result: AssertionResult) {
        total += result.weight
        if result.passed { earned += result.weight } else { failures += 1 }
    }

    /// Adds another score's assertions, as a case adds its turns.
    public mutating func add(_ other: WeightedScore) {
        earned += other.earned
        total += other.total
        failures += other.failures
    }

    /// earned / total; nil when there were no assertions, or when the weights sum beyond
    /// what a Double holds (weights are bounded at load; a suite built in Swift may not be).
    public var value: Double? {
        guard total > 0, total.isFinite else { return nil }
        return earned / total
    }

    /// Without a threshold, whether every assertion passed; with one, whether the score
    /// reaches it. Nothing to check passes.
    public func passes(threshold: Double?) -> Bool {
        guard let threshold else { return failures == 0 }
        guard total > 0 else { return true }
        // Weights such as 0.1 are not exact in binary: 0.3 of 0.1 + 0.2 must still pass 0.3.
        return earned >= threshold * total - 1e-9 * total
    }
}
