import Foundation

/// Statistics that treat the case as the unit of independence: repeats of one case are
/// samples within that case, not more cases (Miller, "Adding Error Bars to Evals", 2024).
/// Asking the same question three times does not make a suite three times larger, so an
/// interval or a test over case runs would narrow with `--repeat` for no reason.
///
/// With one repeat per case every figure here equals the plain one over case runs: the
/// interval is the Wilson interval of passed / ran, the test is exact McNemar.

/// The 95% interval of a pass rate over `cases` independent cases, the Wilson score interval
/// with the number of cases as n: each case contributes its pass fraction k/N, and the rate's
/// sampling error comes from which cases the suite has, so repeats do not narrow it. With
/// one repeat per case this is `wilsonInterval(successes: passed, trials: ran)`. Nil without
/// cases or with a rate outside 0...1.
package func caseClusteredInterval(passRate: Double, cases: Int, z: Double = 1.959964) -> (low: Double, high: Double)? {
    guard cases > 0, passRate.isFinite, (0...1).contains(passRate) else { return nil }
    let n = Double(cases)
    let zSquared = z * z
    let denominator = 1 + zSquared / n
    let center = (passRate + zSquared / (2 * n)) / denominator
    let halfWidth = z / denominator * (passRate * (1 - passRate) / n + zSquared / (4 * n * n)).squareRoot()
    let low = passRate <= 0 ? 0 : max(0, center - halfWidth)
    let high = passRate >= 1 ? 1 : min(1, center + halfWidth)
    return (low, high)
}

/// One case in both runs of a comparison: how many of its paired repeats ran and passed in each.
package struct PairedCase: Sendable, Equatable {
    package var baselinePassed: Int
    package var baselineRan: Int
    package var currentPassed: Int
    package var currentRan: Int

    package init(baselinePassed: Int, baselineRan: Int, currentPassed: Int, currentRan: Int) {
        self.baselinePassed = baselinePassed
        self.baselineRan = baselineRan
        self.currentPassed = currentPassed
        self.currentRan = currentRan
    }
}

/// The paired test of a pass-rate change over cases, and how its p-value was obtained.
package struct PairedCaseTest: Sendable, Equatable {
    package enum Method: String, Sendable {
        /// Every changed case went wholly one way (k/N from 0 to 1 or back): exact McNemar on
        /// the changed cases, which is what the sign-flip test is then.
        case exactMcNemar = "exact McNemar over cases"
        /// The exact distribution of the sign-flip (paired permutation) test on the per-case
        /// changes in pass fraction.
        case exactSignFlip = "exact sign-flip test over cases"
        /// The same test's normal approximation, for suites too large to enumerate.
        case normalSignFlip = "sign-flip test over cases, normal approximation"
    }

    /// Two-sided: the chance of a total change at least this large, either way, were each
    /// case's change equally likely to have gone the other way.
    package var pValue: Double
    package var method: Method
    /// Cases whose pass fraction changed: the only ones that carry information.
    package var changedCases: Int
    /// Cases compared (ran in both runs).
    package var cases: Int

    /// The test over `cases`; cases that ran in only one run are left out.
    package init(_ cases: [PairedCase]) {
        let compared = cases.filter { $0.baselineRan > 0 && $0.currentRan > 0 }
        self.cases = compared.count
        let changes = compared.map { Self.change(of: $0) }.filter { $0.numerator != 0 }
        changedCases = changes.count
        if changes.allSatisfy({ abs($0.numerator) == $0.denominator }) {
            let fixed = changes.filter { $0.numerator > 0 }.count
            pValue = mcNemarExactPValue(b: changes.count - fixed, c: fixed)
            method = .exactMcNemar
            return
        }
        let scale = changes.reduce(1) { leastCommonMultiple($0, $1.denominator, cap: 10_000) ?? 0 }
        let integers = scale > 0 ? changes.map { abs($0.numerator) * (scale / $0.denominator) } : []
        let total = integers.reduce(0, +)
        if scale > 0, integers.count.multipliedReportingOverflow(by: total).partialValue <= 50_000_000 {
            let observed = changes.reduce(0) { $0 + $1.numerator * (scale / $1.denominator) }
            pValue = Self.exactSignFlipP(integers, observed: abs(observed))
            method = .exactSignFlip
        } else {
            let values = changes.map { Double($0.numerator) / Double($0.denominator) }
            pValue = Self.normalSignFlipP(values)
            method = .normalSignFlip
        }
    }

    /// current k/N − baseline k/N as one fraction.
    static func change(of pair: PairedCase) -> (numerator: Int, denominator: Int) {
        let denominator = pair.baselineRan * pair.currentRan
        let numerator = pair.currentPassed * pair.baselineRan - pair.baselinePassed * pair.currentRan
        let divisor = greatestCommonDivisor(abs(numerator), denominator)
        return (numerator / divisor, denominator / divisor)
    }

    /// P(|Σ ±xᵢ| ≥ observed) with fair, independent signs, by dynamic programming over the sums.
    static func exactSignFlipP(_ magnitudes: [Int], observed: Int) -> Double {
        let total = magnitudes.reduce(0, +)
        guard total > 0 else { return 1 }
        // probabilities[s + total] = P(Σ = s) over the magnitudes so far.
        var probabilities = [Double](repeating: 0, count: 2 * total + 1)
        probabilities[total] = 1
        var reach = 0
        for x in magnitudes where x > 0 {
            var next = [Double](repeating: 0, count: probabilities.count)
            for s in (total - reach)...(total + reach) where probabilities[s] > 0 {
                next[s - x] += probabilities[s] / 2
                next[s + x] += probabilities[s] / 2
            }
            probabilities = next
            reach += x
        }
        var tail = 0.0
        for (index, probability) in probabilities.enumerated() where abs(index - total) >= observed {
            tail += probability
        }
        return min(1, tail)
    }

    /// The normal approximation: Σ dᵢ has mean 0 and variance Σ dᵢ² under fair signs.
    static func normalSignFlipP(_ changes: [Double]) -> Double {
        let variance = changes.reduce(0) { $0 + $1 * $1 }
        guard variance > 0 else { return 1 }
        let z = abs(changes.reduce(0, +)) / variance.squareRoot()
        return min(1, erfc(z / 2.0.squareRoot()))
    }
}

func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
    var (a, b) = (a, b)
    while b != 0 { (a, b) = (b, a % b) }
    return max(a, 1)
}

/// lcm(a, b), or nil when it passes `cap`.
func leastCommonMultiple(_ a: Int, _ b: Int, cap: Int) -> Int? {
    guard a > 0, b > 0 else { return nil }
    let (product, overflow) = (a / greatestCommonDivisor(a, b)).multipliedReportingOverflow(by: b)
    return overflow || product > cap ? nil : product
}
