import Foundation

/// report.html's case grid: one row per case, one column per backend × reasoning × variant,
/// each cell the case's answer there with its verdict and figures, and, for a run with a
/// baseline, the baseline's verdict and answer beside it. Built by `CaseGridCollector`.
package struct CaseGrid: Sendable {
    /// One backend × reasoning × variant.
    package struct Column: Sendable, Equatable {
        package var group: SummaryGroupKey
        package var label: String { group.label }
    }

    /// One turn of a cell's first repeat.
    package struct Turn: Sendable, Equatable {
        package var turn: Int
        package var prompt: String
        /// The answer, cut to `CaseGrid.answerLimit` characters; nil when there was none.
        package var answer: String?
        /// Characters left out of `answer`.
        package var omittedCharacters: Int
        package var status: RequestResult.Status
        /// The error kind and message, or why the turn was skipped.
        package var error: String?
        /// The failing assertions' explanations.
        package var failures: [String]
        package var latencyMs: Double?
        package var ttftMs: Double?
        /// Why the request's usage cannot all be true, when it cannot: its token figures are
        /// then nil here (they are in results.jsonl as reported).
        package var usageSuspect: String?
        package var inputTokens: Int?
        package var cachedInputTokens: Int?
        package var outputTokens: Int?
        package var cacheHitRatio: Double?
        /// Each tool call as `name(arguments) → result`.
        package var toolCalls: [String]
    }

    /// The baseline's verdict on the same case and column.
    package struct Baseline: Sendable, Equatable {
        package var status: RequestResult.Status
        package var answer: String?
        /// Whether the verdict changed between pass and not pass.
        package var flipped: Bool
    }

    /// A case on one column: its repeats' verdict and the turns of its first repeat.
    package struct Cell: Sendable, Equatable {
        package var status: RequestResult.Status
        package var repeats: Int
        package var passedRepeats: Int
        package var turns: [Turn]
        package var baseline: Baseline?
    }

    /// A case: its cells by column index.
    package struct Row: Sendable, Equatable {
        package var suite: String
        package var caseID: String
        package var tags: [String]
        package var cells: [Int: Cell]
        /// The worst verdict of its cells: error, then fail, then pass, then skipped.
        package var status: RequestResult.Status {
            cells.values.map(\.status).max { CaseGrid.severity($0) < CaseGrid.severity($1) } ?? .skipped
        }
        package var flipped: Bool { cells.values.contains { $0.baseline?.flipped == true } }
    }

    package var columns: [Column]
    /// The rows shown: failing and flipped cases first, then the rest, each in plan order.
    package var rows: [Row]
    /// Cases in the run, shown or not.
    package var totalCases: Int
    /// Whether a baseline was compared.
    package var hasBaseline: Bool

    /// The longest answer a cell shows; the rest is in results.jsonl.
    package static let answerLimit = 2_000
    /// Above this many cells only failing cases and a sample of the rest are shown.
    package static let cellLimit = 2_000

    static func severity(_ status: RequestResult.Status) -> Int {
        switch status {
        case .error: 3
        case .fail: 2
        case .pass: 1
        case .skipped: 0
        }
    }

    /// How the rows were chosen, when not every case is shown.
    package var sampleNote: String? {
        guard rows.count < totalCases else { return nil }
        return "Showing \(rows.count) of \(totalCases) cases: every failing, erroring or flipped case first, then a "
            + "sample of the rest, to keep the page usable. Every case is in cases.csv and its figures in results.csv and every answer in results.jsonl."
    }
}

/// Collects a run's case runs, one at a time, into a `CaseGrid`: each cell's verdict and
/// counts, and the number of its first case run, whose turns are read again only for the cells
/// shown (a million case runs would otherwise hold a million cells' answers for 2,000 shown).
package struct CaseGridCollector: Sendable {
    private var columns: [CaseGrid.Column] = []
    private var columnIndex: [SummaryGroupKey: Int] = [:]
    /// Each case's suite, id and tags, in the order the cases first come.
    private var heads: [Head] = []
    /// Each case's cells by column, 16 bytes each; a case's array reaches only as far as its
    /// last column with a cell. (A dictionary of whole cells a case took about 2 KB over 20
    /// columns: a tenth of a million-result report's heap for 10,000 cases.)
    private var tallies: [[Tally]] = []
    private var rowIndex: [CaseKey: Int] = [:]
    private var baseline: [String: CaseGrid.Baseline] = [:]

    private struct Head: Sendable {
        var suite: String
        var caseID: String
        var tags: [String]
    }

    /// A cell's verdict and counts, and the number of its first case run; none while `repeats` is 0.
    private struct Tally: Sendable {
        var status = RequestResult.Status.skipped
        var repeats: UInt32 = 0
        var passedRepeats: UInt32 = 0
        var firstCaseRun: Int32 = 0
    }

    package init() {}

    /// The grid of `aggregate`'s case runs, with `baseline`'s beside them.
    package static func grid(_ aggregate: RunAggregate, baseline: ResultTable?) -> CaseGrid {
        var collector = CaseGridCollector()
        for (index, status) in aggregate.statuses.enumerated() {
            collector.add(aggregate.caseRepeats(ofCaseRun: index), at: index, status: status) {
                aggregate.caseRuns[index].requests.first?.tags ?? []
            }
        }
        let before = RunAggregate(baseline ?? ResultTable())
        for (caseRun, status) in zip(before.caseRuns, before.statuses) { collector.addBaseline(caseRun, status: status) }
        return collector.grid(caseRuns: aggregate.caseRuns)
    }

    /// Adds the case run at `index` of the aggregate's, of the case and group `repeats` names;
    /// `status` is its `CaseRun.status`, as the aggregate computed it. The case run is not built:
    /// `tags` (its first request's) is called for a case's first row only.
    private mutating func add(_ repeats: CaseRepeats, at index: Int, status: RequestResult.Status, tags: () -> [String]) {
        let column = columnIndex[repeats.group] ?? {
            columns.append(CaseGrid.Column(group: repeats.group))
            columnIndex[repeats.group] = columns.count - 1
            return columns.count - 1
        }()
        let (row, isNewRow) = rowIndex.number(of: CaseKey(suite: repeats.suite, caseID: repeats.caseID))
        if isNewRow {
            heads.append(Head(suite: repeats.suite, caseID: repeats.caseID, tags: tags()))
            tallies.append([])
        }
        if tallies[row].count <= column {
            tallies[row].append(contentsOf: repeatElement(Tally(), count: column + 1 - tallies[row].count))
        }
        let passed: UInt32 = status == .pass ? 1 : 0
        if tallies[row][column].repeats > 0 {
            tallies[row][column].repeats &+= 1
            tallies[row][column].passedRepeats &+= passed
            if CaseGrid.severity(status) > CaseGrid.severity(tallies[row][column].status) { tallies[row][column].status = status }
        } else {
            tallies[row][column] = Tally(status: status, repeats: 1, passedRepeats: passed, firstCaseRun: Int32(truncatingIfNeeded: index))
        }
    }

    /// Adds one case run of the baseline run (its first repeat per case and column is kept), of `status`.
    package mutating func addBaseline(_ caseRun: CaseRun, status: RequestResult.Status) {
        let key = Self.cellKey(caseRun.suite, caseRun.caseID, caseRun.group)
        guard baseline[key] == nil else { return }
        let answer = caseRun.requests.last?.output.map { String($0.prefix(CaseGrid.answerLimit)) }
        baseline[key] = CaseGrid.Baseline(status: status, answer: answer, flipped: false)
    }

    /// Row `row`'s cells by column, without their turns, each with the baseline's verdict beside it.
    private func cells(ofRow row: Int) -> [Int: CaseGrid.Cell] {
        var cells: [Int: CaseGrid.Cell] = [:]
        for (column, tally) in tallies[row].enumerated() where tally.repeats > 0 {
            cells[column] = CaseGrid.Cell(status: tally.status, repeats: Int(tally.repeats), passedRepeats: Int(tally.passedRepeats),
                                          turns: [], baseline: baselineCell(row: row, column: column, status: tally.status))
        }
        return cells
    }

    /// The baseline's verdict on row `row`'s case in `column`, flipped when it and `status`
    /// differ between pass and not pass; nil when the baseline has none.
    private func baselineCell(row: Int, column: Int, status: RequestResult.Status) -> CaseGrid.Baseline? {
        guard !baseline.isEmpty, var before = baseline[Self.cellKey(heads[row].suite, heads[row].caseID, columns[column].group)] else {
            return nil
        }
        before.flipped = (before.status == .pass) != (status == .pass)
        return before
    }

    /// The grid; above `cellLimit` cells, failing and flipped cases and an even sample of the
    /// rest. The cells shown get the turns of their first case run, read from `caseRuns`.
    private func grid(cellLimit: Int = CaseGrid.cellLimit, caseRuns: CaseRunList) -> CaseGrid {
        func row(_ index: Int) -> CaseGrid.Row {
            CaseGrid.Row(suite: heads[index].suite, caseID: heads[index].caseID, tags: heads[index].tags, cells: cells(ofRow: index))
        }
        // A case with a failing, erroring or flipped cell is notable (its row's status is fail
        // or error, or it is flipped), read from the tallies without building its row.
        func isNotable(_ index: Int) -> Bool {
            tallies[index].indices.contains { column in
                let tally = tallies[index][column]
                guard tally.repeats > 0 else { return false }
                if tally.status == .fail || tally.status == .error { return true }
                return baselineCell(row: index, column: column, status: tally.status)?.flipped == true
            }
        }
        var notable: [Int] = []
        var rest: [Int] = []
        for index in heads.indices {
            if isNotable(index) { notable.append(index) } else { rest.append(index) }
        }
        let perRow = max(columns.count, 1)
        let room = max(0, cellLimit / perRow - notable.count)
        if rest.count > room {
            let stride = Double(rest.count) / Double(max(room, 1))
            rest = room == 0 ? [] : (0..<room).map { rest[Int(Double($0) * stride)] }
        }
        let shown = (Array(notable.prefix(max(cellLimit / perRow, 1))) + rest).map { index in
            var shownRow = row(index)
            for (column, tally) in tallies[index].enumerated() where tally.repeats > 0 {
                shownRow.cells[column]?.turns = caseRuns[Int(tally.firstCaseRun)].requests.map(Self.turn)
            }
            return shownRow
        }
        return CaseGrid(columns: columns, rows: shown, totalCases: heads.count, hasBaseline: !baseline.isEmpty)
    }

    private static func cellKey(_ suite: String, _ caseID: String, _ group: SummaryGroupKey) -> String {
        "\(suite)/\(caseID)/\(group.backend)/\(group.reasoning.rawValue)/\(group.variant)"
    }

    private static func turn(_ request: RequestResult) -> CaseGrid.Turn {
        let answer = request.output
        let suspect = request.usage.implausibility
        let usage = suspect == nil ? request.usage : Usage()
        let error = request.skipReason ?? request.errorKind.map { kind in
            kind.rawValue + (request.errorMessage.map { ": " + $0 } ?? "")
        }
        return CaseGrid.Turn(
            turn: request.turn, prompt: String(request.prompt.prefix(CaseGrid.answerLimit)),
            answer: answer.map { String($0.prefix(CaseGrid.answerLimit)) },
            omittedCharacters: max(0, (answer?.count ?? 0) - CaseGrid.answerLimit),
            status: request.status, error: error,
            failures: request.failedAssertions.map { $0.name + ": " + ($0.message ?? "failed") },
            latencyMs: request.timing?.latencyMs, ttftMs: request.timing?.ttftMs, usageSuspect: suspect,
            inputTokens: usage.inputTokens, cachedInputTokens: usage.cachedInputTokens,
            outputTokens: usage.outputTokens, cacheHitRatio: usage.cacheHitRatio,
            toolCalls: (request.toolCalls ?? []).map(Self.describe))
    }

    private static func describe(_ call: ToolCallRecord) -> String {
        let arguments = call.arguments?.jsonText ?? call.argumentsText ?? ""
        let result = call.result.map { " → " + String($0.prefix(200)) } ?? ""
        return "\(call.name)(\(arguments.prefix(200)))" + result + (call.matched ? "" : " (no canned result matched)")
    }
}
