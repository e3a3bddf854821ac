/// One case's repeats on one backend × reasoning × variant: how many ran and how many passed,
/// for the pass fraction k/N, pass^N and the flaky-case listing.
public struct CaseRepeats: Sendable, Equatable {
    public var suite: String
    public var caseID: String
    public var group: SummaryGroupKey
    /// Repeats that ran (not skipped): N.
    public var ran = 0
    /// Repeats that passed: k.
    public var passed = 0

    public init(suite: String, caseID: String, group: SummaryGroupKey) {
        self.suite = suite
        self.caseID = caseID
        self.group = group
    }

    mutating func count(_ status: RequestResult.Status) {
        guard status != .skipped else { return }
        ran += 1
        if status == .pass { passed += 1 }
    }

    /// k/N as a fraction; nil when no repeat ran.
    public var passFraction: Double? { ran > 0 ? Double(passed) / Double(ran) : nil }
    /// pass^N: every repeat that ran passed (and at least one ran).
    public var passedEveryRepeat: Bool { ran > 0 && passed == ran }
    /// Some repeats passed and some did not: 0 < k < N.
    public var isFlaky: Bool { passed > 0 && passed < ran }
}
