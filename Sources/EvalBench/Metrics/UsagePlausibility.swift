/// What a server may report and what it may not: token counts are never negative, never
/// above `plausibleTokenLimit`, and the parts never exceed their whole. A hostile or broken
/// server can send any integer; evalbench records it as sent, flags it, and keeps it out of
/// sums, ratios and costs, so that no figure it reports can trap or mislead.
extension Usage {
    /// The most tokens one request can plausibly report for any figure: a thousand times the
    /// largest context window of 2026.
    package static let plausibleTokenLimit = 1_000_000_000

    /// Why these figures cannot all be true, or nil when they can: `suspect` when a backend
    /// already said so, else what the figures themselves show.
    package var implausibility: String? {
        // Set by a backend that saw a part of a figure out of range (a sum would hide it).
        if let suspect { return suspect }
        let figures: [(String, Int?)] = [
            ("input_tokens", inputTokens), ("cached_input_tokens", cachedInputTokens),
            ("cache_write_input_tokens", cacheWriteInputTokens), ("output_tokens", outputTokens),
            ("reasoning_tokens", reasoningTokens),
        ]
        for case let (name, value?) in figures {
            if let why = Self.impossibility(of: name, value) { return why }
        }
        if let input = inputTokens {
            let parts = (cachedInputTokens ?? 0) + (cacheWriteInputTokens ?? 0)
            if parts > input { return "cached and cache-write input tokens (\(parts)) exceed input_tokens \(input)" }
        }
        if let output = outputTokens, let reasoning = reasoningTokens, reasoning > output {
            return "reasoning_tokens \(reasoning) exceed output_tokens \(output)"
        }
        return nil
    }

    /// Why one count, `name` as a server reported it, cannot be true whatever the others say
    /// (it is negative, or above `plausibleTokenLimit`); nil when it can.
    package static func impossibility(of name: String, _ value: Int) -> String? {
        if value < 0 { return "\(name) \(value) is negative" }
        if value > plausibleTokenLimit { return "\(name) \(value) is above \(plausibleTokenLimit), more than any model takes" }
        return nil
    }

    /// These figures as reported, with `suspect` saying why when they cannot all be true.
    package func checked() -> Usage {
        var usage = self
        usage.suspect = implausibility
        return usage
    }
}

/// Sums of counts a server reports, which can be any integer: they saturate at the bounds of
/// `Int` instead of trapping, and the saturated sum is then flagged as implausible.
package enum TokenArithmetic {
    /// a + b, held at Int.max or Int.min when it would overflow.
    package static func sum(_ values: Int...) -> Int {
        values.reduce(0) { total, value in
            let (result, overflow) = total.addingReportingOverflow(value)
            guard overflow else { return result }
            return value > 0 ? .max : .min
        }
    }
}

extension UnreadableCounts {
    /// These, then each of `parts` (a count by its name on the wire) that cannot be true on its
    /// own: the counts no figure may be summed from. A sum with an impossible part is unknown,
    /// not a figure that looks possible (10 prompt tokens and -5 tool-use ones are not 5 input).
    func addingImpossible(_ parts: [(String, Int?)]) -> UnreadableCounts {
        var unusable = self
        for case let (name, value?) in parts {
            if let why = Usage.impossibility(of: name, value) { unusable.add(name, note: why) }
        }
        return unusable
    }
}
