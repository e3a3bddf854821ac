/// The case × group grid of the Markdown report: one row per suite/case, one column per
/// backend × reasoning × variant, each cell the verdict of that case's runs there.
struct CaseMatrix {
    /// `suite/case` per row, in first-seen order.
    private(set) var rowLabels: [String] = []
    /// `cells[row][column]`, columns in the order of the aggregate's groups.
    private(set) var cells: [[Cell]] = []

    /// The verdicts of one case's runs (its repeats) in one group.
    struct Cell {
        var runs = 0
        var skipped = 0
        /// Skipped because the backend cannot run on this platform.
        var unavailable = 0
        var passed = 0
        /// The verdict of the first run, shown when there are no repeats.
        var firstRunVerdict = ""

        /// `pass`, `fail: <assertion>` (`fail: score 0.50 < 0.75` under a threshold), `error: <kind>` or `skipped`; with repeats `k/N pass`
        /// over the runs that were not skipped; `—` when the case did not run in this group.
        var text: String {
            if runs == 0 { return "—" }
            if runs == unavailable { return "unavailable" }
            if runs == skipped { return "skipped" }
            if runs == 1 { return firstRunVerdict }
            return "\(passed)/\(runs - skipped) pass"
        }
    }

    init(_ aggregate: RunAggregate) {
        var columnByGroup: [SummaryGroupKey: Int] = [:]
        for (column, summary) in aggregate.groups.enumerated() {
            columnByGroup[summary.group] = column
        }
        var rowByCase: [CaseKey: Int] = [:]
        // A case run's suite, case and group come from the aggregate; the case run itself is
        // built only when its cell shows its verdict (the first run) or it was skipped.
        for (index, status) in aggregate.statuses.enumerated() {
            let repeats = aggregate.caseRepeats(ofCaseRun: index)
            guard let column = columnByGroup[repeats.group] else { continue }
            let caseKey = CaseKey(suite: repeats.suite, caseID: repeats.caseID)
            let (row, isNew) = rowByCase.number(of: caseKey)
            if isNew {
                rowLabels.append("\(repeats.suite)/\(repeats.caseID)")
                cells.append(Array(repeating: Cell(), count: aggregate.groups.count))
            }
            cells[row][column].add(status: status) { aggregate.caseRuns[index] }
        }
    }
}

extension CaseMatrix.Cell {
    /// Longest assertion name shown in a cell before it is cut.
    private static let assertionNameLimit = 40

    /// Counts the case run `caseRun` gives, whose `status` the aggregate computed; `caseRun` is
    /// called only when the verdict needs more than the status.
    mutating func add(status: RequestResult.Status, _ caseRun: () -> CaseRun) {
        runs += 1
        switch status {
        case .pass: passed += 1
        case .skipped:
            skipped += 1
            if caseRun().requests.first?.errorKind == .unavailable { unavailable += 1 }
        case .fail, .error: break
        }
        guard runs == 1 else { return }
        switch status {
        case .pass: firstRunVerdict = "pass"
        case .skipped: firstRunVerdict = "skipped"
        case .error: firstRunVerdict = caseRun().firstErrorKind.map { "error: \($0.rawValue)" } ?? "error"
        case .fail:
            let caseRun = caseRun()
            if let threshold = caseRun.requests.first?.threshold, let score = caseRun.score {
                firstRunVerdict = "fail: score \(DecimalText.fixed(score, places: 2) ?? "n/a") < \(DecimalText.trimmed(threshold, maxPlaces: 4) ?? "n/a")"
                return
            }
            firstRunVerdict = caseRun.firstFailedAssertion.map {
                "fail: " + MarkdownTable.truncate($0, to: Self.assertionNameLimit)
            } ?? "fail"
        }
    }
}
