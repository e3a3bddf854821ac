import Testing
@testable import EvalBench

/// Six case runs on one backend: 3 pass, a two-turn case failing at turn 2, a two-turn case
/// erroring at turn 2, and one skipped.
private let craftedResults: [RequestResult] = [
    fixtureResult(caseID: "a", status: .pass, latencyMs: 100, ttftMs: 10,
                  usage: Usage(inputTokens: 1000, cachedInputTokens: 900, outputTokens: 5), costUSD: 0.001),
    fixtureResult(caseID: "b", status: .pass, latencyMs: 200, ttftMs: 20,
                  usage: Usage(inputTokens: 100, cachedInputTokens: 0, outputTokens: 5)),
    fixtureResult(caseID: "c", status: .pass, latencyMs: 300, ttftMs: 30, usage: Usage(inputTokens: 50)),
    fixtureResult(caseID: "trip", turn: 1, turns: 2, status: .pass, latencyMs: 400, ttftMs: 40,
                  usage: Usage(inputTokens: 200, cachedInputTokens: 0)),
    fixtureResult(caseID: "chat", turn: 1, turns: 2, status: .pass, latencyMs: 500, ttftMs: 50,
                  usage: Usage(inputTokens: 200, cachedInputTokens: 0)),
    fixtureResult(caseID: "trip", turn: 2, turns: 2, status: .fail, latencyMs: 600, ttftMs: 5,
                  usage: Usage(inputTokens: 400, cachedInputTokens: 200), failedAssertion: "mentions museum"),
    fixtureResult(caseID: "chat", turn: 2, turns: 2, status: .error, errorKind: .timeout,
                  errorMessage: "no answer within 120 s"),
    fixtureResult(caseID: "d", reasoning: .none, status: .skipped),
]

@Test("Positions 0, 1, 2, … are held as a count until one is not, then read back the same")
func positionsHeldAsCount() {
    var positions = Positions()
    for index in 0..<5 { positions.append(Int32(index)) }
    #expect(positions.isIdentity && Array(positions) == [0, 1, 2, 3, 4])
    positions.append(9)
    positions.append(5)
    #expect(!positions.isIdentity && Array(positions) == [0, 1, 2, 3, 4, 9, 5])
    var first = Positions()
    first.append(3)
    #expect(!first.isIdentity && Array(first) == [3] && Positions().isEmpty)
}

@Test("Results in plan order and the same results shuffled aggregate alike; only the shuffled ones are sorted")
func inOrderAndShuffled() {
    var results: [RequestResult] = []
    for index in 0..<40 {
        var result = fixtureResult(caseID: "c\(index / 2)", turn: index % 2 + 1, turns: 2, status: index % 3 == 0 ? .fail : .pass,
                                   latencyMs: Double(index))
        result.planIndex = index / 2
        results.append(result)
    }
    var shuffled = results
    shuffled.swapAt(0, 39)
    shuffled.swapAt(5, 20)
    #expect(RunAggregate.planOrder(ResultTable(results)).order.isIdentity)
    #expect(!RunAggregate.planOrder(ResultTable(shuffled)).order.isIdentity)
    let inOrder = RunAggregate(results), sorted = RunAggregate(shuffled)
    #expect(inOrder.caseRuns.map { $0.requests.map { "\($0.key) \($0.turn)" } }
            == sorted.caseRuns.map { $0.requests.map { "\($0.key) \($0.turn)" } })
    #expect(inOrder.statuses == sorted.statuses && inOrder.groups.map(\.latencyP50Ms) == sorted.groups.map(\.latencyP50Ms))
}

@Test("A case run fails when one turn fails and errors when one turn errors")
func caseRunStatus() {
    let aggregate = RunAggregate(craftedResults)
    let statuses = Dictionary(uniqueKeysWithValues: aggregate.caseRuns.map { ($0.caseID, $0.status) })
    #expect(statuses == ["a": .pass, "b": .pass, "c": .pass, "trip": .fail, "chat": .error, "d": .skipped])
    #expect(aggregate.caseRuns.first { $0.caseID == "trip" }?.firstFailedAssertion == "mentions museum")
    #expect(aggregate.caseRuns.first { $0.caseID == "chat" }?.firstErrorKind == .timeout)
}

@Test("Errors count against the pass rate and skipped case runs are left out of it")
func passRateCountsErrors() throws {
    let summary = try #require(RunAggregate(craftedResults).groups.first)
    #expect(summary.cases == 6)
    #expect(summary.passed == 3)
    #expect(summary.failed == 1)
    #expect(summary.errors == 1)
    #expect(summary.skipped == 1)
    #expect(summary.passRate == 3.0 / 5.0)
    let interval = try #require(wilsonInterval(successes: 3, trials: 5))
    #expect(summary.passRateLow == interval.low)
    #expect(summary.passRateHigh == interval.high)
    #expect(summary.errorCounts == [.timeout: 1])
    #expect(summary.firstErrorMessages == [.timeout: "no answer within 120 s"])
}

@Test("Percentiles are nearest-rank over the requests that passed or failed")
func latencyPercentiles() throws {
    let summary = try #require(RunAggregate(craftedResults).groups.first)
    #expect(summary.latencyP50Ms == 300)
    #expect(summary.latencyP95Ms == 600)
    #expect(summary.ttftP50Ms == 20)
    #expect(summary.ttftP95Ms == 50)
}

@Test("A token sum or cost with an unknown part is unknown, with the counts that reported it; the cache ratio is token-weighted")
func tokenSums() throws {
    let summary = try #require(RunAggregate(craftedResults).groups.first)
    #expect(summary.requestsSent == 7)
    #expect(summary.usage.inputTokens == nil, "the timed-out request did not report input tokens")
    #expect(summary.usage.reported(.input) == 6 && summary.usage.reportedTotal(.input) == 1950)
    #expect(summary.usage.cachedInputTokens == nil)
    #expect(summary.usage.reported(.cached) == 5 && summary.usage.reportedTotal(.cached) == 1100)
    #expect(summary.usage.outputTokens == nil)
    #expect(summary.usage.reported(.output) == 2)
    #expect(summary.usage.reasoningTokens == nil)
    #expect(summary.costUSD == nil, "one request had a cost, six did not: the sum is unknown, not 0.001")
    #expect(summary.requestsWithCost == 1)
    #expect(summary.costPerThousandCasesUSD == nil)
    // Σcached / Σinput over the requests reporting both; the mean of their ratios is 0.28.
    let ratio = try #require(summary.usage.cacheHitRatio)
    #expect(ratio == 1100.0 / 1900.0)
    #expect(abs(ratio - (0.9 + 0 + 0 + 0 + 0.5) / 5) > 0.2)
}

@Test("Cost and every token figure are null for a group that reported none")
func unreportedGroup() throws {
    let summary = try #require(RunAggregate([fixtureResult(caseID: "a", status: .pass, latencyMs: 1)]).groups.first)
    #expect(summary.usage.inputTokens == nil && summary.usage.outputTokens == nil && summary.usage.reported(.input) == 0)
    #expect(summary.usage.cacheHitRatio == nil)
    #expect(summary.costUSD == nil)
    #expect(RunAggregate([fixtureResult(caseID: "a", status: .skipped)]).groups.first?.passRate == nil)
}

@Test("The per-turn table covers multi-turn cases only, turn by turn")
func perTurnAggregate() throws {
    let turns = try #require(RunAggregate(craftedResults).groups.first).turns
    #expect(turns.map(\.turn) == [1, 2])
    #expect(turns.map(\.requests) == [2, 2])
    #expect(turns[0].usage.cacheHitRatio == 0)
    #expect(turns[1].usage.cacheHitRatio == 0.5)
    #expect(turns[0].ttftP50Ms == 40)
    #expect(turns[1].ttftP50Ms == 5)
}

@Test("Groups are backend × reasoning × variant in first-seen order, with the first reported model")
func groupOrder() {
    let results = [
        fixtureResult(caseID: "a", backend: "cloud", model: nil, reasoning: .deep, status: .pass),
        fixtureResult(caseID: "a", backend: "local", status: .pass),
        fixtureResult(caseID: "b", backend: "cloud", model: "big-model", reasoning: .deep, status: .fail),
        fixtureResult(caseID: "a", variant: "terse", backend: "local", status: .pass),
        fixtureResult(caseID: "a", backend: "cloud", reasoning: .light, status: .pass),
    ]
    let groups = RunAggregate(results).groups
    #expect(groups.map(\.group.label) == [
        "cloud · deep · default", "local · none · default", "local · none · terse", "cloud · light · default",
    ])
    #expect(groups[0].model == "big-model")
    #expect(groups[0].cases == 2)
}

@Test("Turns recorded out of order still make one case run, and a missing turn is not a pass")
func interleavedTurns() {
    let results = [
        fixtureResult(caseID: "t", turn: 2, turns: 3, status: .pass),
        fixtureResult(caseID: "u", turn: 1, turns: 2, status: .pass),
        fixtureResult(caseID: "t", turn: 1, turns: 3, status: .pass),
        fixtureResult(caseID: "t", turn: 3, turns: 3, status: .pass),
    ]
    let caseRuns = RunAggregate(results).caseRuns
    #expect(caseRuns.map(\.caseID) == ["t", "u"])
    #expect(caseRuns[0].requests.map(\.turn) == [1, 2, 3])
    #expect(caseRuns.map(\.status) == [.pass, .fail])
}
