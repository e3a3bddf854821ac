import Foundation

/// The 95% Wilson score interval of a proportion `successes / trials`, clamped to 0...1;
/// nil when there are no trials. Unlike the normal approximation it stays inside 0...1 and
/// is honest for small samples and for rates of 0 or 1.
package func wilsonInterval(successes: Int, trials: Int, z: Double = 1.959964) -> (low: Double, high: Double)? {
    guard trials > 0 else { return nil }
    let n = Double(trials)
    let p = Double(successes) / n
    let zSquared = z * z
    let denominator = 1 + zSquared / n
    let center = (p + zSquared / (2 * n)) / denominator
    let halfWidth = z / denominator * (p * (1 - p) / n + zSquared / (4 * n * n)).squareRoot()
    // At 0/n and n/n the bound is 0 or 1 exactly; rounding must not push it off by an ulp.
    let low = successes <= 0 ? 0 : max(0, center - halfWidth)
    let high = successes >= trials ? 1 : min(1, center + halfWidth)
    return (low, high)
}

/// The nearest-rank percentile `p` (0...100) of ascending `sorted` values: the value at rank
/// ⌈p/100 · n⌉ (counting from 1), and the minimum for p = 0; nil for no values.
package func percentile<Sorted: RandomAccessCollection<Double>>(_ p: Double, of sorted: Sorted) -> Double? where Sorted.Index == Int {
    guard !sorted.isEmpty else { return nil }
    // p · n / 100 rather than p / 100 · n: 95 · 20 / 100 is exactly 19, 0.95 · 20 may not be.
    let rank = Int((p * Double(sorted.count) / 100).rounded(.up))
    return sorted[sorted.startIndex + min(max(rank, 1), sorted.count) - 1]
}
