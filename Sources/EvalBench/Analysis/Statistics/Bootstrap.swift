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
/// the one the single-percentile call gives with the same seed, for the cost of one.
package func bootstrapPercentileIntervals(
    _ ps: [Double], of values: [Double], resamples: Int = 1000, seed: UInt64 = 0x5EED
) -> [(low: Double, high: Double)]? {
    guard values.count >= minimumBootstrapSampleSize, resamples > 0, !ps.isEmpty else { return nil }
    var generator = SplitMix64(seed: seed)
    let count = values.count
    // A resample's nearest-rank percentile is its value at rank ⌈p · n / 100⌉. Rather than
    // sort every resample (n log n each, too slow for 100,000 requests), count how often each
    // position of the sorted values is drawn and walk the counts to that rank: the same draws
    // give the same value, in O(n) per resample.
    // Positions and counts are 32-bit: for the tens of thousands of samples a group has, both
    // arrays fit in a core's cache, and the random increments below are nearly all the time.
    guard count <= Int(UInt32.max) else { return nil }
    let ascending = values.indices.sorted { values[$0] < values[$1] }
    var sortedPositionOf = [UInt32](repeating: 0, count: count)
    for (sortedPosition, index) in ascending.enumerated() { sortedPositionOf[index] = UInt32(truncatingIfNeeded: sortedPosition) }
    let sorted = ascending.map { values[$0] }
    let ranks = ps.map { min(max(Int(($0 * Double(count) / 100).rounded(.up)), 1), count) }
    // Walk the ranks in ascending order in one pass over the counts.
    let walkOrder = ranks.indices.sorted { ranks[$0] < ranks[$1] }
    var draws = [UInt32](repeating: 0, count: count)
    var estimates = [[Double]](repeating: [], count: ps.count)
    for index in estimates.indices { estimates[index].reserveCapacity(resamples) }
    for _ in 0..<resamples {
        draws.withUnsafeMutableBufferPointer { buffer in
            buffer.update(repeating: 0)
            sortedPositionOf.withUnsafeBufferPointer { positions in
                for _ in 0..<count {
                    // Multiply-high maps 64 random bits onto 0..<count without a modulo's bias toward low indices.
                    let index = Int(generator.next().multipliedFullWidth(by: UInt64(count)).high)
                    // At most `count` draws land on one position, so the count cannot overflow.
                    buffer[Int(positions[index])] &+= 1
                }
            }
        }
        var seen = 0
        var position = 0
        for which in walkOrder {
            while seen + Int(draws[position]) < ranks[which] {
                seen += Int(draws[position])
                position += 1
            }
            estimates[which].append(sorted[position])
        }
    }
    var intervals: [(low: Double, high: Double)] = []
    for var list in estimates {
        list.sort()
        guard let low = percentile(2.5, of: list), let high = percentile(97.5, of: list) else { return nil }
        intervals.append((low, high))
    }
    return intervals
}
