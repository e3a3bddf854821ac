import Foundation

/// SplitMix64 (Steele, Lea and Flood 2014): a small, fast generator whose whole output is
/// fixed by its seed, so a bootstrap run twice on the same data gives the same interval.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The smallest sample a bootstrap interval is given for; below it the resamples repeat too
/// few distinct values for the interval to mean much.
package let minimumBootstrapSampleSize = 20

/// The percentile-bootstrap 95% interval of the nearest-rank percentile `p` of `values`:
/// `resamples` resamples with replacement drawn from a SplitMix64 seeded with `seed`, and
/// the 2.5th and 97.5th nearest-rank percentiles of their percentile. Nil for fewer than
/// ``minimumBootstrapSampleSize`` values.
package func bootstrapPercentileInterval(
    _ p: Double, of values: [Double], resamples: Int = 1000, seed: UInt64 = 0x5EED
) -> (low: Double, high: Double)? {
    bootstrapPercentileIntervals([p], of: values, resamples: resamples, seed: seed)?.first
}

/// ``bootstrapPercentileInterval(_:of:resamples:seed:)`` for several percentiles at once, in
/// the order of `ps`: every percentile is read from the same resamples, so each interval is
/// the one the single-percentile call gives with the same seed, for the cost of one. Each value
/// is its own unit: ``caseBootstrapPercentileIntervals(_:of:cases:resamples:seed:)`` with one
/// value per case.
package func bootstrapPercentileIntervals(
    _ ps: [Double], of values: [Double], resamples: Int = 1000, seed: UInt64 = 0x5EED
) -> [(low: Double, high: Double)]? {
    guard values.count <= Int(UInt32.max) else { return nil }
    return caseBootstrapPercentileIntervals(ps, of: values, numberedCases: (0..<values.count).map { UInt32(truncatingIfNeeded: $0) },
                                            caseCount: values.count, resamples: resamples, seed: seed)
}

/// The percentile-bootstrap 95% intervals of the nearest-rank percentiles `ps` of `values`,
/// with the case as the unit: `cases[i]` names the case of `values[i]` (any numbers; equal
/// numbers, one case). Each resample draws as many cases as there are, with replacement, from
/// a SplitMix64 seeded with `seed`, and pools every value of each case drawn (all its repeats
/// and turns) as often as it was drawn; its percentile is the nearest rank of that pool.
/// Repeats of a case are not independent, so they do not narrow the interval as more cases
/// would. With one value per case, numbered in the order of `values`, this is the bootstrap
/// over the values, draw for draw. Nil for fewer than ``minimumBootstrapSampleSize`` cases.
package func caseBootstrapPercentileIntervals(
    _ ps: [Double], of values: [Double], cases: [UInt32], resamples: Int = 1000, seed: UInt64 = 0x5EED
) -> [(low: Double, high: Double)]? {
    // The cases numbered 0, 1, … in the order they first come.
    var numberOf: [UInt32: UInt32] = [:]
    let numbered = cases.map { numberOf.number(of: $0).number }
    return caseBootstrapPercentileIntervals(ps, of: values, numberedCases: numbered, caseCount: numberOf.count,
                                            resamples: resamples, seed: seed)
}

/// The same with the cases already numbered: each of `numberedCases` in 0..<`caseCount`, each
/// number used (callers that hold their cases as runs number the runs, not every value).
func caseBootstrapPercentileIntervals(
    _ ps: [Double], of values: [Double], numberedCases: [UInt32], caseCount: Int, resamples: Int = 1000, seed: UInt64 = 0x5EED
) -> [(low: Double, high: Double)]? {
    guard values.count == numberedCases.count, resamples > 0, !ps.isEmpty,
          let pools = CasePools(values, numberedCases: numberedCases, caseCount: caseCount) else { return nil }
    var intervals: [(low: Double, high: Double)] = []
    for var list in pools.estimates(ps, resamples: resamples, seed: seed) {
        list.sort()
        guard let low = percentile(2.5, of: list), let high = percentile(97.5, of: list) else { return nil }
        intervals.append((low, high))
    }
    return intervals
}

/// The values sorted, with each one's case, and how many values each case has: what every
/// resample of the case bootstrap reads.
private struct CasePools {
    let sorted: [Double]
    let caseOfSorted: [UInt32]
    let sizes: [Int]

    /// Nil for fewer than ``minimumBootstrapSampleSize`` cases, a number outside 0..<`caseCount`,
    /// or a pool whose size could not be counted.
    init?(_ values: [Double], numberedCases: [UInt32], caseCount: Int) {
        // A pool is at most one draw per case, each of the largest case: values × cases must fit an Int.
        guard caseCount >= minimumBootstrapSampleSize, !values.count.multipliedReportingOverflow(by: caseCount).overflow else { return nil }
        var sizes = [Int](repeating: 0, count: caseCount)
        for number in numberedCases {
            guard Int(number) < caseCount else { return nil }
            sizes[Int(number)] += 1
        }
        guard !sizes.contains(0) else { return nil }
        let ascending = values.indices.sorted { values[$0] < values[$1] }
        sorted = ascending.map { values[$0] }
        caseOfSorted = ascending.map { numberedCases[$0] }
        self.sizes = sizes
    }

    /// Each resample's nearest-rank percentile `ps[i]`, in `estimates[i]`, the resamples drawn
    /// from a SplitMix64 seeded with `seed`.
    ///
    /// A pool's nearest-rank percentile is its value at rank ⌈p · size / 100⌉. Rather than sort
    /// every pool (n log n each, too slow for 100,000 requests), count how often each case is
    /// drawn and walk the sorted values, each weighing as often as its case was drawn, to that
    /// rank: the same draws give the same value, in O(n) per resample. Ranks in the upper half
    /// are walked down from the largest value (p99 is then 1% of the way), the others up from
    /// the smallest. Counts are 32-bit: for the tens of thousands of cases a group has they fit
    /// in a core's cache, and the random increments below are nearly all the time.
    func estimates(_ ps: [Double], resamples: Int, seed: UInt64) -> [[Double]] {
        let upward = ps.indices.filter { ps[$0] <= 50 }.sorted { ps[$0] < ps[$1] }
        let downward = ps.indices.filter { ps[$0] > 50 }.sorted { ps[$0] > ps[$1] }
        let caseCount = sizes.count
        var generator = SplitMix64(seed: seed)
        var draws = [UInt32](repeating: 0, count: caseCount)
        var estimates = [[Double]](repeating: [], count: ps.count)
        for index in estimates.indices { estimates[index].reserveCapacity(resamples) }
        sizes.withUnsafeBufferPointer { sizes in
            caseOfSorted.withUnsafeBufferPointer { caseOfSorted in
                draws.withUnsafeMutableBufferPointer { draws in
                    for _ in 0..<resamples {
                        draws.update(repeating: 0)
                        var poolSize = 0
                        for _ in 0..<caseCount {
                            // Multiply-high maps 64 random bits onto 0..<caseCount without a modulo's bias toward low numbers.
                            let drawn = Int(generator.next().multipliedFullWidth(by: UInt64(caseCount)).high)
                            // At most `caseCount` draws land on one case, so the count cannot overflow.
                            draws[drawn] &+= 1
                            poolSize &+= sizes[drawn]
                        }
                        func rank(_ which: Int) -> Int {
                            min(max(Int((ps[which] * Double(poolSize) / 100).rounded(.up)), 1), poolSize)
                        }
                        // Up: the first position whose weight so far reaches the rank.
                        var below = 0, position = 0
                        for which in upward {
                            let wanted = rank(which)
                            while below + Int(draws[Int(caseOfSorted[position])]) < wanted {
                                below += Int(draws[Int(caseOfSorted[position])])
                                position += 1
                            }
                            estimates[which].append(sorted[position])
                        }
                        // Down: the same position, found as the first whose weight above it leaves the rank reached.
                        var above = 0
                        position = sorted.count - 1
                        for which in downward {
                            let allowed = poolSize - rank(which)
                            while position > 0, above + Int(draws[Int(caseOfSorted[position])]) <= allowed {
                                above += Int(draws[Int(caseOfSorted[position])])
                                position -= 1
                            }
                            estimates[which].append(sorted[position])
                        }
                    }
                }
            }
        }
        return estimates
    }
}
