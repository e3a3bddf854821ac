import Foundation

/// The exact two-sided McNemar p-value for paired outcomes, from the discordant pairs only:
/// `b` pairs that went one way (say pass→fail) and `c` that went the other. Under no change
/// each discordant pair is a fair coin, so p = min(1, 2 · P(X ≤ min(b, c))) with
/// X ~ Binomial(b + c, ½); p is 1 when there are no discordant pairs.
package func mcNemarExactPValue(b: Int, c: Int) -> Double {
    precondition(b >= 0 && c >= 0, "discordant pair counts cannot be negative")
    let n = b + c
    guard n > 0 else { return 1 }
    var tail = 0.0
    if n <= 1000 {
        // Term by term from 2⁻ⁿ, so small counts come out exact (3 against 4 is exactly 1).
        var term = pow(0.5, Double(n))
        for i in 0...min(b, c) {
            tail += term
            term = term * Double(n - i) / Double(i + 1)
        }
    } else {
        // In log space, where 2⁻ⁿ would underflow.
        let logHalfPower = Double(n) * log(0.5)
        for i in 0...min(b, c) {
            tail += exp(logBinomialCoefficient(n, i) + logHalfPower)
        }
    }
    return min(1, 2 * tail)
}

/// ln C(n, k) through lgamma, exact enough for p-values.
func logBinomialCoefficient(_ n: Int, _ k: Int) -> Double {
    lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1))
}
