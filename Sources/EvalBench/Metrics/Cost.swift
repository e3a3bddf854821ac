import Foundation

extension Pricing {
    /// The cost in US dollars of one request with `usage`, or nil when a figure the price
    /// needs was not reported or a needed price is not configured: unknown is empty, never 0.
    ///
    /// Uncached input is input − cached − cache writes; cached input is charged at
    /// `cachedInputPerMTok` and cache writes at `cacheWritePerMTok` (each the input price when
    /// absent); output at `outputPerMTok`; plus `perRequest`. When cached input or cache writes
    /// are priced apart from input and the server did not report them, the split of the input
    /// is unknown, and so is the cost (billing them all at the input price would be a guess). Figures that cannot all be true,
    /// and a cost too large to be a number, are unknown too (see `pricedCost(for:)` for why).
    public func costUSD(for usage: Usage) -> Double? {
        pricedCost(for: usage).usd
    }

    /// The cost of one request with `usage`, and, when it is unknown though prices are set,
    /// why: the figures are implausible, or the product is not a finite number.
    package func pricedCost(for usage: Usage) -> (usd: Double?, unknownBecause: String?) {
        var total = perRequest ?? 0
        var priced = perRequest != nil
        if inputPerMTok != nil || outputPerMTok != nil, let reason = usage.implausibility {
            return (nil, "cost unknown: the reported usage is implausible (\(reason))")
        }
        // In Double: token counts are bounded by the check above, and no product can trap.
        if let inputPerMTok {
            guard let input = usage.inputTokens else { return (nil, nil) }
            if usage.cachedInputTokens == nil, let price = cachedInputPerMTok, price != inputPerMTok {
                return (nil, "cost unknown: cached input tokens are priced apart from input and were not reported")
            }
            if usage.cacheWriteInputTokens == nil, let price = cacheWritePerMTok, price != inputPerMTok {
                return (nil, "cost unknown: cache writes are priced apart from input and were not reported")
            }
            let cached = Double(usage.cachedInputTokens ?? 0)
            let written = Double(usage.cacheWriteInputTokens ?? 0)
            total += max(0, Double(input) - cached - written) * inputPerMTok / 1_000_000
            total += cached * (cachedInputPerMTok ?? inputPerMTok) / 1_000_000
            total += written * (cacheWritePerMTok ?? inputPerMTok) / 1_000_000
            priced = true
        }
        if let outputPerMTok {
            guard let output = usage.outputTokens else { return (nil, nil) }
            total += Double(output) * outputPerMTok / 1_000_000
            priced = true
        }
        guard priced else { return (nil, nil) }
        guard total.isFinite else { return (nil, "cost unknown: the prices times the tokens is not a finite number") }
        return (total, nil)
    }
}
