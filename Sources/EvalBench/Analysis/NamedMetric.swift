/// A named assertion's results in one backend × reasoning × variant: how often it passed
/// over the turns that graded it (errored and skipped requests grade nothing).
public struct NamedMetric: Sendable, Equatable {
    /// The assertion's `name`.
    public var name: String
    /// Verdicts that passed.
    public var passed = 0
    /// Verdicts counted: one per graded turn that has the assertion.
    public var total = 0

    /// A metric named `name` with `passed` of `total` verdicts counted so far.
    public init(name: String, passed: Int = 0, total: Int = 0) {
        self.name = name
        self.passed = passed
        self.total = total
    }

    /// passed / total; nil when it was never graded.
    public var rate: Double? { total > 0 ? Double(passed) / Double(total) : nil }
}
