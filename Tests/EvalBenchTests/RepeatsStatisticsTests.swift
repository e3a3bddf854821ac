import Foundation
import Testing
@testable import EvalBench

/// `cases` single-turn cases c1…cN, each asked `repeats` times with the same verdict on every
/// repeat (a deterministic model), `status(i)` deciding case i's.
private func deterministicRun(_ cases: Int, repeats: Int, status: (Int) -> RequestResult.Status) -> [RequestResult] {
    (1...cases).flatMap { index in
        (1...repeats).map { repeatIndex in
            fixtureResult(caseID: "c\(index)", repeatIndex: repeatIndex, status: status(index),
                          failedAssertion: status(index) == .fail ? "contains \"Paris\"" : nil)
        }
    }
}

/// Repeats are samples within a case, not more cases (issue 16): asking the same question
/// again must not make a change significant or an interval narrower.
@Suite("Repeats counted as samples within a case")
struct RepeatsStatisticsTests {
    @Test("the same 2 deterministic flips of 20 cases: not significant, exit 0, with 1 repeat and with 5", arguments: [1, 3, 5])
    func twoFlipsAreNotSignificant(repeats: Int) {
        let baseline = deterministicRun(20, repeats: repeats) { _ in .pass }
        let current = deterministicRun(20, repeats: repeats) { $0 <= 2 ? .fail : .pass }
        let comparison = Comparison(baseline: baseline, current: current)
        let group = comparison.groups[0]
        #expect(group.pairedCaseRuns == 20 * repeats)
        #expect(group.passRateTest?.cases == 20)
        #expect(group.passRateTest?.changedCases == 2)
        #expect(group.passRateP == 0.5, "exact McNemar over cases: 2 against 0 is p = 0.5 whatever the repeats")
        #expect(comparison.exitStatus == .success)
        #expect(!comparison.isRegression)
    }

    @Test("10 of 20 cases flipped: a regression, exit 1, with 1 repeat and with 5", arguments: [1, 5])
    func tenFlipsAreSignificant(repeats: Int) {
        let baseline = deterministicRun(20, repeats: repeats) { _ in .pass }
        let current = deterministicRun(20, repeats: repeats) { $0 <= 10 ? .fail : .pass }
        let comparison = Comparison(baseline: baseline, current: current)
        #expect(comparison.groups[0].passRateP == mcNemarExactPValue(b: 10, c: 0))
        #expect(comparison.exitStatus == .gateFailed)
    }

    @Test("a case that flips in some repeats counts by its change in pass fraction: the sign-flip test over cases")
    func partialFlipsUseTheSignFlipTest() throws {
        // c1 goes 3/3 → 1/3, c2 3/3 → 2/3, c3 0/3 → 1/3; the rest stay.
        let baseline = (1...10).flatMap { index in
            (1...3).map { fixtureResult(caseID: "c\(index)", repeatIndex: $0, status: index == 3 ? .fail : .pass) }
        }
        let currentPasses: [Int: Int] = [1: 1, 2: 2, 3: 1]
        let current = (1...10).flatMap { index in
            (1...3).map { repeatIndex in
                fixtureResult(caseID: "c\(index)", repeatIndex: repeatIndex,
                              status: repeatIndex <= (currentPasses[index] ?? 3) ? .pass : .fail)
            }
        }
        let test = try #require(Comparison(baseline: baseline, current: current).groups[0].passRateTest)
        #expect(test.method == .exactSignFlip)
        #expect(test.cases == 10 && test.changedCases == 3)
        // Changes in thirds: −2, −1, +1; |Σ| = 2 of the 8 equally likely sign patterns:
        // sums −4, −2, −2, 0, 0, 2, 2, 4 → P(|Σ| ≥ 2) = 6/8.
        #expect(abs(test.pValue - 0.75) < 1e-12)
    }

    @Test("the pass-rate interval is over cases: 5 repeats of 10 cases give the interval of 10 cases, not of 50 case runs")
    func intervalIsOverCases() throws {
        let once = RunAggregate(deterministicRun(10, repeats: 1) { $0 <= 8 ? .pass : .fail }).groups[0]
        let five = RunAggregate(deterministicRun(10, repeats: 5) { $0 <= 8 ? .pass : .fail }).groups[0]
        #expect(once.passRate == 0.8 && five.passRate == 0.8)
        let wilson = try #require(wilsonInterval(successes: 8, trials: 10))
        #expect(once.passRateLow == wilson.low && once.passRateHigh == wilson.high, "one repeat: the Wilson interval, as before")
        #expect(five.passRateLow == wilson.low && five.passRateHigh == wilson.high, "five repeats do not narrow it")
        let overRuns = try #require(wilsonInterval(successes: 40, trials: 50))
        #expect(overRuns.low > wilson.low, "the interval over 50 case runs would be narrower")
    }

    @Test("the recommendation's lower bound does not reach the target by repeating: 9 of 10 cases, 5 repeats")
    func recommendationIsNotFooledByRepeats() throws {
        let results = deterministicRun(10, repeats: 5) { $0 <= 9 ? .pass : .fail }
        let group = RunAggregate(results).groups[0]
        // 45 of 50 case runs would have a Wilson lower bound of 78.6%, over the 0.75 target;
        // over 10 cases it is 59.6%.
        #expect(try #require(wilsonInterval(successes: 45, trials: 50)).low > 0.75)
        #expect(try #require(group.passRateLow) < 0.75)
    }

    @Test("summary.md says the intervals are over the distinct cases when cases repeat, and nothing with one repeat")
    func summarySaysTheMethod() {
        func summary(_ repeats: Int) -> String {
            let input = ReportInput(results: deterministicRun(10, repeats: repeats) { $0 <= 8 ? .pass : .fail },
                                    startedAt: Date(timeIntervalSince1970: 0), endedAt: Date(timeIntervalSince1970: 1))
            return SummaryMarkdown.render(input, aggregate: RunAggregate(input.results))
        }
        #expect(summary(3).contains("Pass-rate intervals are clustered by case (the Wilson interval with the number of distinct cases as n), "
            + "as repeats of a case are not independent: local · none · default: 30 case runs of 10 cases."))
        #expect(!summary(1).contains("Pass-rate intervals are clustered by case ("))
    }
}
