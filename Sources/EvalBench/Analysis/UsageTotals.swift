/// Token sums over many requests, each with how many requests reported it. A sum over
/// requests where any one did not report the figure is unknown (nil), never a partial sum
/// read as the whole; `reported(_:)` says how many did, for "n of m reported". The cache-hit
/// ratio is token-weighted over the requests that reported both of its terms. A request whose
/// figures cannot all be true (`Usage.implausibility`) is counted apart (`suspectRequests`)
/// and its figures count as not reported.
public struct UsageTotals: Sendable, Equatable {
    /// One figure's running sum and how many requests reported it.
    struct Sum: Sendable, Equatable {
        var total = 0
        var reported = 0

        mutating func add(_ value: Int?) {
            guard let value else { return }
            total = TokenArithmetic.sum(total, value)
            reported += 1
        }
    }

    /// The requests added: the denominator of every "n of m reported".
    public private(set) var requests = 0
    /// Requests whose reported figures cannot all be true, left out of the sums.
    public private(set) var suspectRequests = 0
    private var input = Sum()
    private var cached = Sum()
    private var cacheWrite = Sum()
    private var output = Sum()
    private var reasoning = Sum()
    /// Σ cached and Σ input over the requests that reported both: the cache-hit ratio's terms.
    private var cachedTokensReportedWithInput = 0
    private var inputTokensReportedWithCached = 0
    /// How many requests' figures came from each source (`reported`, `counted`, `estimated`).
    public private(set) var sources: [TokenSource: Int] = [:]

    /// Empty totals: every sum unknown until requests are added.
    public init() {}

    /// Σ input tokens; nil unless every request added reported them.
    public var inputTokens: Int? { complete(input) }
    /// Σ cached input tokens; nil unless every request added reported them.
    public var cachedInputTokens: Int? { complete(cached) }
    /// Σ input tokens written to the prompt cache; nil unless every request added reported them.
    public var cacheWriteInputTokens: Int? { complete(cacheWrite) }
    /// Σ output tokens; nil unless every request added reported them.
    public var outputTokens: Int? { complete(output) }
    /// Σ reasoning tokens; nil unless every request added reported them.
    public var reasoningTokens: Int? { complete(reasoning) }

    /// The figures a request can report, for `reported(_:)`.
    public enum Figure: Sendable {
        case input, cached, cacheWrite, output, reasoning
    }

    /// How many of the `requests` reported `figure`.
    public func reported(_ figure: Figure) -> Int { sum(figure).reported }

    /// Σ `figure` over the requests that reported it: a part, for means per reporting request,
    /// never to be shown as the whole.
    public func reportedTotal(_ figure: Figure) -> Int { sum(figure).total }

    private func sum(_ figure: Figure) -> Sum {
        switch figure {
        case .input: input
        case .cached: cached
        case .cacheWrite: cacheWrite
        case .output: output
        case .reasoning: reasoning
        }
    }

    /// Adds one request's usage; add only requests that were sent (not skipped ones).
    public mutating func add(_ usage: Usage) {
        requests += 1
        guard usage.implausibility == nil else {
            suspectRequests += 1
            return
        }
        input.add(usage.inputTokens)
        cached.add(usage.cachedInputTokens)
        cacheWrite.add(usage.cacheWriteInputTokens)
        output.add(usage.outputTokens)
        reasoning.add(usage.reasoningTokens)
        if let source = usage.source { sources[source, default: 0] += 1 }
        if let cachedTokens = usage.cachedInputTokens, let inputTokens = usage.inputTokens {
            cachedTokensReportedWithInput = TokenArithmetic.sum(cachedTokensReportedWithInput, cachedTokens)
            inputTokensReportedWithCached = TokenArithmetic.sum(inputTokensReportedWithCached, inputTokens)
        }
    }

    /// Σ cached / Σ input over the requests that reported both (the ratio of sums, not the
    /// mean of ratios); nil when none did or their input sums to 0.
    public var cacheHitRatio: Double? {
        guard inputTokensReportedWithCached > 0 else { return nil }
        return Double(cachedTokensReportedWithInput) / Double(inputTokensReportedWithCached)
    }

    /// Where the figures that count came from: `reported`, `counted` or `estimated` when from one
    /// source, `mixed: 3 reported, 1 estimated` otherwise (how many requests reported at all is
    /// `reported(_:)`'s), then `(1 impossible or unreadable, left out)` when some requests' usage
    /// could not all be true; nil when no request said.
    public var sourceSummary: String? {
        let order: [TokenSource] = [.reported, .counted, .estimated]
        let present = order.filter { (sources[$0] ?? 0) > 0 }
        let leftOut = suspectRequests > 0 ? "\(suspectRequests) impossible or unreadable, left out" : nil
        guard !present.isEmpty else { return leftOut }
        let source = present.count == 1 ? present[0].rawValue
            : "mixed: " + present.map { "\(sources[$0]!) \($0.rawValue)" }.joined(separator: ", ")
        return source + (leftOut.map { " (\($0))" } ?? "")
    }

    private func complete(_ sum: Sum) -> Int? {
        requests > 0 && sum.reported == requests ? sum.total : nil
    }
}
