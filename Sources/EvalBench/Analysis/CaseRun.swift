/// One case run: every turn of one case × variant × backend × reasoning level × repeat,
/// the unit that `cases`, `passed` and the pass rate count.
public struct CaseRun: Sendable, Equatable {
    /// `suite/case/variant/backend/reasoning/repeat`, shared by all its turns.
    public var key: String
    /// The suite's name.
    public var suite: String
    /// The case's `id` within its suite.
    public var caseID: String
    /// The backend × reasoning × variant it ran on.
    public var group: SummaryGroupKey
    /// Counts from 1.
    public var repeatIndex: Int
    /// How many turns the case has.
    public var turns: Int
    /// Its requests, by turn.
    public private(set) var requests: [RequestResult]

    /// A case run holding its first request.
    public init(first request: RequestResult) {
        key = request.caseRunKey
        suite = request.suite
        caseID = request.caseID
        group = SummaryGroupKey(request)
        repeatIndex = request.repeatIndex
        turns = request.turns
        requests = [request]
    }

    /// A case run of `requests`, which are its turns in turn order (at least one).
    init(turnOrdered requests: [RequestResult]) {
        self.init(first: requests[0])
        self.requests = requests
    }

    /// Adds a later turn, keeping the requests in turn order.
    public mutating func add(_ request: RequestResult) {
        requests.append(request)
        if let previous = requests.dropLast().last, previous.turn > request.turn {
            requests.sort { $0.turn < $1.turn }
        }
    }

    /// `error` when any turn errored; else `fail` when any turn failed; else `skipped` when
    /// a turn was skipped; else `pass` when every turn 1...turns passed. A case run with a
    /// turn missing from the results has not passed, so it is `fail`. With a `threshold`, a
    /// case run whose turns all ran passes when its weighted score over every turn's
    /// assertions reaches it, whatever the single turns scored.
    public var status: RequestResult.Status {
        if let threshold = requests.first?.threshold {
            if requests.contains(where: { $0.status == .error }) { return .error }
            if requests.contains(where: { $0.status == .skipped }) { return .skipped }
            let complete = Set(requests.map(\.turn)).isSuperset(of: 1...max(turns, 1))
            return complete && weightedScore.passes(threshold: threshold) ? .pass : .fail
        }
        var failed = false
        var skipped = false
        var consecutiveTurns = 0
        for request in requests {
            switch request.status {
            case .error: return .error
            case .fail: failed = true
            case .skipped: skipped = true
            case .pass: break
            }
            if request.turn == consecutiveTurns + 1 { consecutiveTurns += 1 }
        }
        if failed { return .fail }
        if skipped { return .skipped }
        return consecutiveTurns >= turns ? .pass : .fail
    }

    /// Σ weight · passed / Σ weight over the assertions of every turn.
    public var weightedScore: WeightedScore {
        var score = WeightedScore()
        for request in requests { score.add(WeightedScore(request.assertions)) }
        return score
    }

    /// The case run's score from 0 to 1; nil when it has no graded assertions.
    public var score: Double? { weightedScore.value }

    /// Σ cost of its turns; nil when a turn that ran has no cost (unknown price or usage),
    /// since part of a case's cost is not its cost; nil when no turn ran.
    public var costUSD: Double? {
        var total: Double?
        for request in requests where request.status != .skipped {
            guard let cost = request.costUSD else { return nil }
            total = (total ?? 0) + cost
        }
        return total
    }

    /// The first errored turn's error kind, in turn order.
    public var firstErrorKind: ErrorKind? {
        requests.first { $0.status == .error }?.errorKind
    }

    /// The name of the first failed assertion, in turn order.
    public var firstFailedAssertion: String? {
        for request in requests {
            if let assertion = request.failedAssertions.first { return assertion.name }
        }
        return nil
    }
}
