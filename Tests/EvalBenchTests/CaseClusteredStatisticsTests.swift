import Foundation
import Testing
@testable import EvalBench

@Suite("Statistics over cases, with repeats as samples within a case")
struct CaseClusteredStatisticsTests {
    /// `cases` deterministic cases, each repeated `repeats` times, of which `flipped` went from
    /// passing every repeat to failing every repeat.
    static func deterministic(cases: Int, flipped: Int, repeats: Int) -> [PairedCase] {
        (0..<cases).map { index in
            PairedCase(baselinePassed: repeats, baselineRan: repeats,
                       currentPassed: index < flipped ? 0 : repeats, currentRan: repeats)
        }
    }

    @Test("with one repeat the interval is the Wilson interval over case runs")
    func oneRepeatIsWilson() throws {
        for (passed, ran) in [(15, 16), (0, 16), (16, 16), (7, 20), (1, 1)] {
            let plain = try #require(wilsonInterval(successes: passed, trials: ran))
            let clustered = try #require(caseClusteredInterval(passRate: Double(passed) / Double(ran), cases: ran))
            #expect(abs(plain.low - clustered.low) < 1e-12 && abs(plain.high - clustered.high) < 1e-12)
        }
    }

    @Test("asking the same 16 questions three times does not narrow the interval")
    func repeatsDoNotNarrow() throws {
        let once = try #require(caseClusteredInterval(passRate: 15.0 / 16, cases: 16))
        let overCaseRuns = try #require(wilsonInterval(successes: 45, trials: 48))
        #expect(once.low < overCaseRuns.low, "over case runs the interval narrows: \(overCaseRuns) against \(once)")
        #expect(try #require(caseClusteredInterval(passRate: 45.0 / 48, cases: 16)) == once)
        #expect(caseClusteredInterval(passRate: .nan, cases: 16) == nil)
        #expect(caseClusteredInterval(passRate: 0.5, cases: 0) == nil)
    }

    @Test("2 deterministic flips are not significant with any number of repeats (p = 0.5)")
    func twoFlips() {
        for repeats in [1, 3, 5, 10] {
            let test = PairedCaseTest(Self.deterministic(cases: 20, flipped: 2, repeats: repeats))
            #expect(test.pValue == 0.5, "repeat \(repeats)")
            #expect(test.method == .exactMcNemar && test.changedCases == 2 && test.cases == 20)
        }
    }

    @Test("10 of 20 cases flipped is significant with one repeat and with five (p = 2⁻⁹)")
    func tenFlips() {
        for repeats in [1, 5] {
            let test = PairedCaseTest(Self.deterministic(cases: 20, flipped: 10, repeats: repeats))
            #expect(abs(test.pValue - pow(0.5, 9)) < 1e-15, "repeat \(repeats): \(test.pValue)")
        }
    }

    @Test("with one repeat the test is exact McNemar on the flips")
    func oneRepeatIsMcNemar() {
        let pairs = [PairedCase(baselinePassed: 1, baselineRan: 1, currentPassed: 0, currentRan: 1),
                     PairedCase(baselinePassed: 1, baselineRan: 1, currentPassed: 0, currentRan: 1),
                     PairedCase(baselinePassed: 1, baselineRan: 1, currentPassed: 0, currentRan: 1),
                     PairedCase(baselinePassed: 0, baselineRan: 1, currentPassed: 1, currentRan: 1),
                     PairedCase(baselinePassed: 1, baselineRan: 1, currentPassed: 1, currentRan: 1)]
        #expect(PairedCaseTest(pairs).pValue == mcNemarExactPValue(b: 3, c: 1))
    }

    @Test("partial changes use the exact sign-flip distribution, checked by enumeration")
    func exactSignFlip() {
        // Changes of −2/3, −1/3, −1, +1/3: in thirds, magnitudes 2, 1, 3, 1 and the sum −5.
        let pairs = [PairedCase(baselinePassed: 3, baselineRan: 3, currentPassed: 1, currentRan: 3),
                     PairedCase(baselinePassed: 2, baselineRan: 3, currentPassed: 1, currentRan: 3),
                     PairedCase(baselinePassed: 3, baselineRan: 3, currentPassed: 0, currentRan: 3),
                     PairedCase(baselinePassed: 1, baselineRan: 3, currentPassed: 2, currentRan: 3)]
        let test = PairedCaseTest(pairs)
        #expect(test.method == .exactSignFlip)
        // The 16 sign patterns of 2, 1, 3, 1 whose |sum| ≥ 5.
        var extreme = 0
        for mask in 0..<16 {
            var sum = 0
            for (bit, magnitude) in [2, 1, 3, 1].enumerated() { sum += (mask >> bit) & 1 == 1 ? magnitude : -magnitude }
            if abs(sum) >= 5 { extreme += 1 }
        }
        #expect(abs(test.pValue - Double(extreme) / 16) < 1e-12, "\(test.pValue) against \(extreme)/16")
    }

    @Test("no change gives p = 1; cases that ran in one run only are left out")
    func noChange() {
        let pairs = [PairedCase(baselinePassed: 2, baselineRan: 3, currentPassed: 2, currentRan: 3),
                     PairedCase(baselinePassed: 0, baselineRan: 0, currentPassed: 3, currentRan: 3)]
        let test = PairedCaseTest(pairs)
        #expect(test.pValue == 1 && test.cases == 1 && test.changedCases == 0)
    }

    @Test("a suite too large to enumerate falls back to the normal approximation, which agrees with the exact test")
    func normalApproximation() {
        let many = (0..<3000).map { index in
            PairedCase(baselinePassed: 3, baselineRan: 3, currentPassed: index % 3 == 0 ? 1 : (index % 5 == 0 ? 3 : 2), currentRan: 3)
                .with(currentRan: index % 7 == 0 ? 7 : 3)
        }
        let test = PairedCaseTest(many)
        #expect(test.method == .normalSignFlip, "3,000 changed cases in 21sts are past the exact test's budget")
        #expect(test.pValue < 1e-6, "most cases dropped: \(test.pValue)")
        let changes = [Double](repeating: -1.0 / 3, count: 40) + [Double](repeating: 1.0 / 3, count: 25)
        let normal = PairedCaseTest.normalSignFlipP(changes)
        let exact = PairedCaseTest.exactSignFlipP([Int](repeating: 1, count: 65), observed: 15)
        #expect(abs(normal - exact) < 0.02, "normal \(normal) against exact \(exact)")
    }
}

extension PairedCase {
    func with(currentRan: Int) -> PairedCase {
        PairedCase(baselinePassed: baselinePassed, baselineRan: baselineRan,
                   currentPassed: min(currentPassed, currentRan), currentRan: currentRan)
    }
}
