import Foundation

/// The outcome of a two-sided Mann-Whitney U test of sample `x` against sample `y`.
package struct MannWhitneyResult: Sendable, Equatable {
    /// U of the first sample: the number of (x, y) pairs with x > y, ties counting one half.
    package let u: Double
    /// The two-sided p-value from the normal approximation with tie and continuity corrections.
    package let pValue: Double
}

/// The two-sided Mann-Whitney U test of whether `x` and `y` come from the same distribution,
/// by the normal approximation with the tie correction to the variance and a continuity
/// correction of ½; nil when either sample is empty. When every value is tied p is 1.
package func mannWhitneyU(_ x: [Double], _ y: [Double]) -> MannWhitneyResult? {
    guard !x.isEmpty, !y.isEmpty else { return nil }
    let n1 = Double(x.count)
    let n2 = Double(y.count)
    let pooled = (x.map { ($0, true) } + y.map { ($0, false) }).sorted { $0.0 < $1.0 }
    var rankSumOfX = 0.0
    var tieTerm = 0.0
    var start = 0
    while start < pooled.count {
        var end = start
        while end + 1 < pooled.count && pooled[end + 1].0 == pooled[start].0 { end += 1 }
        // Ranks count from 1; a run of ties shares the mean of the ranks it spans.
        let averageRank = Double(start + end + 2) / 2
        let tied = Double(end - start + 1)
        tieTerm += tied * tied * tied - tied
        for index in start...end where pooled[index].1 { rankSumOfX += averageRank }
        start = end + 1
    }
    let u = rankSumOfX - n1 * (n1 + 1) / 2
    let n = n1 + n2
    let mean = n1 * n2 / 2
    let variance = n1 * n2 / 12 * ((n + 1) - tieTerm / (n * (n - 1)))
    guard variance > 0 else { return MannWhitneyResult(u: u, pValue: 1) }
    let z = max(0, abs(u - mean) - 0.5) / variance.squareRoot()
    return MannWhitneyResult(u: u, pValue: min(1, erfc(z / 2.0.squareRoot())))
}
