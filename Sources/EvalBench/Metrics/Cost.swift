import Foundation

extension Pricing {
    /// The cost in US dollars of one request with `usage`, or nil when a figure the price
    /// needs was not reported or a needed price is not configured: unknown is empty, never 0.
    ///
    /// Uncached input is input − cached − cache writes; cached input is charged at
    /// `cachedInputPerMTok` and cache writes at `cacheWritePerMTok` (each the input price when
    /// absent); output at `outputPerMTok`; plus `perRequest`.
    public func costUSD(for usage: Usage) -> Double? {
        var total = perRequest ?? 0
        var priced = perRequest != nil
        if let inputPerMTok {
            guard let input = usage.inputTokens else { return nil }
            let cached = usage.cachedInputTokens ?? 0
            let written = usage.cacheWriteInputTokens ?? 0
            total += Double(max(0, input - cached - written)) * inputPerMTok / 1_000_000
            total += Double(cached) * (cachedInputPerMTok ?? inputPerMTok) / 1_000_000
            total += Double(written) * (cacheWritePerMTok ?? inputPerMTok) / 1_000_000
            priced = true
        }
        if let outputPerMTok {
            guard let output = usage.outputTokens else { return nil }
            total += Double(output) * outputPerMTok / 1_000_000
            priced = true
        }
        return priced ? total : nil
    }
}
