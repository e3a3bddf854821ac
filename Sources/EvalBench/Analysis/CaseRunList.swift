/// An aggregate's case runs: each read from the results it was aggregated from when it is asked
/// for, its requests in turn order, so a million case runs are not held twice (as results and
/// as case runs). A list made from case runs (a tag's subset) holds them as given.
package struct CaseRunList: RandomAccessCollection, Sendable {
    private enum Storage: Sendable {
        case caseRuns([CaseRun])
        /// `rows` holds the table's positions, each case run's in turn order; case run `i` is
        /// `rows[starts[i]..<starts[i + 1]]`.
        case table(ResultTable, rows: Positions, starts: Positions)
    }

    private var storage: Storage

    /// No case runs.
    package init() {
        storage = .caseRuns([])
    }

    /// The case runs given, as they are.
    package init(_ caseRuns: [CaseRun]) {
        storage = .caseRuns(caseRuns)
    }

    /// The case runs of `table` whose first request is at each of `starts` in `rows` (a case
    /// run's requests are neighbours there, in turn order).
    init(_ table: ResultTable, rows: Positions, starts: Positions) {
        var starts = starts
        starts.append(Int32(truncatingIfNeeded: rows.count))
        storage = .table(table, rows: rows, starts: starts)
    }

    /// The case runs of `table` when they are not neighbours in `order`: `caseRunOf` gives the
    /// case run of each position of `order`. Each case run's requests keep the order of `order`
    /// among equal turns.
    init(_ table: ResultTable, caseRunOf: [Int32], order: Positions) {
        let arranged = order.indices.sorted { lhs, rhs in
            let left = (caseRunOf[lhs], table.turn(at: Int(order[lhs])), lhs)
            let right = (caseRunOf[rhs], table.turn(at: Int(order[rhs])), rhs)
            return left < right
        }
        var starts = Positions(), rows = Positions()
        for (position, index) in arranged.enumerated() where position == 0 || caseRunOf[arranged[position - 1]] != caseRunOf[index] {
            starts.append(Int32(position))
        }
        for index in arranged { rows.append(order[index]) }
        self.init(table, rows: rows, starts: starts)
    }

    package var startIndex: Int { 0 }

    package var endIndex: Int {
        switch storage {
        case let .caseRuns(caseRuns): caseRuns.count
        case let .table(_, _, starts): starts.count - 1
        }
    }

    /// Calls `body` with the status of each of case run `position`'s requests, in turn order,
    /// and its latency (ms) when this run timed it (`RequestResult.hasOwnTiming`); read from the
    /// table without building the requests when the list is a table's.
    package func forEachStatusAndOwnLatency(of position: Int, _ body: (RequestResult.Status, Double?) -> Void) {
        switch storage {
        case let .caseRuns(caseRuns):
            for request in caseRuns[position].requests {
                body(request.status, request.hasOwnTiming ? request.timing?.latencyMs : nil)
            }
        case let .table(table, rows, starts):
            for index in Int(starts[position])..<Int(starts[position + 1]) {
                let (status, ownLatency) = table.statusAndOwnLatency(at: Int(rows[index]))
                body(status, ownLatency)
            }
        }
    }

    /// What results.csv shows of every request, case run after case run, each in turn order
    /// (the order of `flatMap(\.requests)`), read from the table without building the
    /// requests when the list is a table's.
    package var requestFigures: AnySequence<RequestFigures> {
        switch storage {
        case let .caseRuns(caseRuns):
            AnySequence(caseRuns.lazy.flatMap(\.requests).map(RequestFigures.init))
        case let .table(table, rows, _):
            // The rows are the case runs' requests, one case run after another, in turn order.
            AnySequence(rows.lazy.map { table.figures(at: Int($0)) })
        }
    }

    /// The key of case run `position`, read from its first request without building it when
    /// the list is a table's.
    package func key(of position: Int) -> String {
        switch storage {
        case let .caseRuns(caseRuns): caseRuns[position].key
        case let .table(table, rows, starts): table.key(at: Int(rows[Int(starts[position])]))
        }
    }

    package subscript(position: Int) -> CaseRun {
        switch storage {
        case let .caseRuns(caseRuns):
            return caseRuns[position]
        case let .table(table, rows, starts):
            let requests = (Int(starts[position])..<Int(starts[position + 1])).map { table[Int(rows[$0])] }
            return CaseRun(turnOrdered: requests)
        }
    }
}

/// Positions that are most often 0, 1, 2, … (results in plan order, one request a case run):
/// held as their count until one is not, then as 4 bytes each, in a temporary file.
struct Positions: RandomAccessCollection, Sendable {
    /// Nil while every position is its own index; else in a temporary file a block at a time,
    /// as the table's rows are (4 bytes a request or case run of results out of plan order).
    private var values: FileBackedArray<Int32>?
    private var identityCount = 0

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { values?.count ?? identityCount }

    subscript(index: Int) -> Int32 {
        values?[index] ?? Int32(truncatingIfNeeded: index)
    }

    /// Whether every position is its own index (no array is held).
    var isIdentity: Bool { values == nil }

    mutating func append(_ value: Int32) {
        if values == nil {
            if Int(value) == identityCount {
                identityCount += 1
                return
            }
            var identity = FileBackedArray<Int32>()
            for index in 0..<identityCount { identity.append(Int32(truncatingIfNeeded: index)) }
            values = identity
        }
        values!.append(value)
    }
}
