/// One case's repeats on one backend × reasoning × variant: how many ran and how many passed,
/// for the pass fraction k/N, pass^N and the flaky-case listing.
package struct CaseRepeats: Sendable, Equatable {
    package var suite: String
    package var caseID: String
    package var group: SummaryGroupKey
    /// Repeats that ran (not skipped): N.
    package var ran = 0
    /// Repeats that passed: k.
    package var passed = 0

    package init(suite: String, caseID: String, group: SummaryGroupKey) {
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
    package var passFraction: Double? { ran > 0 ? Double(passed) / Double(ran) : nil }
    /// pass^N: every repeat that ran passed (and at least one ran).
    package var passedEveryRepeat: Bool { ran > 0 && passed == ran }
    /// Some repeats passed and some did not: 0 < k < N.
    package var isFlaky: Bool { passed > 0 && passed < ran }
}
