import Testing
@testable import EvalBench

@Test("The Wilson interval of 8 in 10 is 0.4902 to 0.9433")
func wilsonEightOfTen() throws {
    let interval = try #require(wilsonInterval(successes: 8, trials: 10))
    #expect(abs(interval.low - 0.4902) < 0.0001)
    #expect(abs(interval.high - 0.9433) < 0.0001)
}

@Test("The Wilson interval of 1 in 2 is symmetric around one half")
func wilsonOneOfTwo() throws {
    let interval = try #require(wilsonInterval(successes: 1, trials: 2))
    #expect(abs(interval.low - 0.0945) < 0.0001)
    #expect(abs(interval.high - 0.9055) < 0.0001)
}

@Test("The Wilson interval of 0 in n starts at exactly 0 and of n in n ends at exactly 1")
func wilsonEdges() throws {
    let none = try #require(wilsonInterval(successes: 0, trials: 10))
    #expect(none.low == 0)
    #expect(abs(none.high - 0.2775) < 0.0001)
    let all = try #require(wilsonInterval(successes: 10, trials: 10))
    #expect(all.high == 1)
    #expect(abs(all.low - 0.7225) < 0.0001)
}

@Test("The Wilson interval of no trials is nil")
func wilsonNoTrials() {
    #expect(wilsonInterval(successes: 0, trials: 0) == nil)
}

@Test("Nearest-rank p50 of 1...10 is 5 and p95 of 1...20 is 19")
func nearestRankPercentiles() {
    let oneToTen = (1...10).map(Double.init)
    let oneToTwenty = (1...20).map(Double.init)
    #expect(percentile(50, of: oneToTen) == 5)
    #expect(percentile(95, of: oneToTwenty) == 19)
    #expect(percentile(100, of: oneToTwenty) == 20)
    #expect(percentile(0, of: oneToTwenty) == 1)
    #expect(percentile(90, of: [15, 20, 35, 40, 50]) == 50)
    #expect(percentile(40, of: [15, 20, 35, 40, 50]) == 20)
}

@Test("Every percentile of a single value is that value, and of no values nil")
func percentileOfOneValue() {
    #expect(percentile(0, of: [42]) == 42)
    #expect(percentile(50, of: [42]) == 42)
    #expect(percentile(95, of: [42]) == 42)
    #expect(percentile(50, of: []) == nil)
}

@Test("Usage totals are unknown unless every request reported the figure, and weight the cache ratio by tokens")
func usageTotals() {
    var totals = UsageTotals()
    #expect(totals.inputTokens == nil)
    #expect(totals.cacheHitRatio == nil)
    totals.add(Usage(inputTokens: 1000, cachedInputTokens: 900, outputTokens: 10, source: .reported))
    totals.add(Usage(inputTokens: 100, cachedInputTokens: 0, source: .reported))
    totals.add(Usage(inputTokens: 50, source: .estimated))
    #expect(totals.requests == 3)
    #expect(totals.inputTokens == 1150, "all three reported input tokens")
    #expect(totals.cachedInputTokens == nil, "two of three reported cached tokens: the sum is unknown")
    #expect(totals.reported(.cached) == 2 && totals.reportedTotal(.cached) == 900)
    #expect(totals.outputTokens == nil && totals.reported(.output) == 1)
    #expect(totals.reasoningTokens == nil)
    #expect(totals.sourceSummary == "mixed: 2 reported, 1 estimated")
    var overflowing = UsageTotals()
    overflowing.add(Usage(inputTokens: Int.max))
    overflowing.add(Usage(inputTokens: 1))
    #expect(overflowing.inputTokens == nil && overflowing.suspectRequests == 1,
            "2^63−1 tokens cannot be true: left out, and adding them does not trap")
    // Σcached / Σinput over the two that reported both: 900 / 1100, not the mean 0.45.
    #expect(totals.cacheHitRatio == 900.0 / 1100.0)
}
