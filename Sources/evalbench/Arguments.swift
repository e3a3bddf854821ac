import EvalBench
import EvalBenchCommandLine

/// How evalbench reads option values: each check is used by the declaration (so a bad value
/// is refused while parsing) and the reading beside it converts the value it let through.
enum Values {
    /// `0.2`, or `20%` as 0.2.
    static func number(_ text: String) -> Double? {
        text.hasSuffix("%") ? Double(text.dropLast()).map { $0 / 100 } : Double(text)
    }

    /// A fraction in 0...1, or a percentage.
    static func fraction(_ text: String) -> Double? {
        number(text).flatMap { (0...1).contains($0) ? $0 : nil }
    }

    /// `0.8` as `80%`, for help pages.
    static func percent(_ value: Double) -> String { "\(String(format: "%g", value * 100))%" }

    static func checkFraction(_ text: String) -> String? {
        fraction(text) == nil ? "must be a fraction in 0...1 (or a percentage), got '\(text)'" : nil
    }

    static func checkWholeNumber(minimum: Int) -> @Sendable (String) -> String? {
        { text in Int(text).map { $0 >= minimum } == true ? nil : "must be a whole number >= \(minimum), got '\(text)'" }
    }

    static func checkTarget(_ text: String) -> String? {
        if let problem = checkFraction(text) { return problem }
        return fraction(text) == 0 ? "must be above 0, such as 0.8 or 80%" : nil
    }

    static func checkLatencyIncrease(_ text: String) -> String? {
        guard let increase = number(text), increase >= 0, increase.isFinite else {
            return "must be a fraction >= 0 (0.2 or 20% allows +20%), got '\(text)'"
        }
        return nil
    }

    static func checkAlpha(_ text: String) -> String? {
        guard let alpha = number(text), alpha > 0, alpha < 1 else {
            return "must be a significance level between 0 and 1, exclusive (such as 0.05), got '\(text)'"
        }
        return nil
    }

    /// `K/N` with 1 ≤ K ≤ N ≤ `RunLimits.maxShards`, or `auto`.
    static func checkShard(_ text: String) -> String? {
        Shard.problem(text)
    }

    /// `--shards N`: a whole number of shards, 1 to `RunLimits.maxShards`.
    static func checkShardCount(_ text: String) -> String? {
        guard let count = Int(text) else { return "must be a number of shards from 1 to \(RunLimits.maxShards), got '\(text)'" }
        return Shard.countProblem(count)
    }

    /// Each name of a comma-separated list is a reasoning level.
    static func checkReasoningLevels(_ text: String) -> String? {
        guard let unknown = ParsedCommand.items(text).first(where: { ReasoningLevel(rawValue: $0) == nil }) else { return nil }
        let hint = suggestion(for: unknown, among: ReasoningLevel.allCases.map(\.rawValue)).map { " (did you mean '\($0)'?)" } ?? ""
        return "has an unknown reasoning level '\(unknown)'\(hint); use none, light, moderate or deep, comma-separated"
    }
}

extension ParsedCommand {
    /// The run that `run`, `validate` and `plan` describe; every value was checked while parsing.
    func runRequest() -> RunRequest {
        var request = RunRequest(
            suitePaths: arguments, configPath: value(Options.config), backends: list(Options.backend),
            reasoning: reasoningLevels(), repeatCount: value(Options.repeatCount).flatMap { Int($0) },
            concurrency: value(Options.concurrency).flatMap { Int($0) },
            outputDirectory: value(Options.out), resumeDirectory: value(Options.resume),
            caseIDs: list(Options.caseID), tags: list(Options.tag),
            gate: Gate(minPassRate: value(Options.minPassRate).flatMap(Values.fraction),
                       maxErrorRate: value(Options.maxErrorRate).flatMap(Values.fraction),
                       allowsEmptyRun: has(Options.allowEmpty)),
            arguments: Array(CommandLine.arguments.dropFirst()))
        request.variants = list(Options.variant)
        if let limit = value(Options.maxRequests).flatMap({ Int($0) }) { request.maxRequests = limit }
        request.resumeChanged = has(Options.resumeChanged)
        request.target = target()
        request.baselineDirectory = value(Options.baseline)
        request.shard = value(Options.shard).flatMap { ShardRequest($0, count: value(Options.shards).flatMap { Int($0) }) }
        request.comparisonThresholds = comparisonThresholds()
        if has(Options.cache) {
            request.cacheDirectory = ResponseCache.defaultDirectory(environment: request.environment)
        }
        return request
    }

    /// `--reasoning` without repeats, or nil when not given (the suites' and config's defaults apply).
    func reasoningLevels() -> [ReasoningLevel]? {
        var seen: Set<ReasoningLevel> = []
        let levels = list(Options.reasoning).compactMap(ReasoningLevel.init(rawValue:)).filter { seen.insert($0).inserted }
        return levels.isEmpty ? nil : levels
    }

    /// `--max-pass-rate-drop`, `--max-latency-increase` and `--alpha`, with their defaults.
    func comparisonThresholds() -> ComparisonThresholds {
        var thresholds = ComparisonThresholds()
        if let drop = value(Options.maxPassRateDrop).flatMap(Values.fraction) { thresholds.maxPassRateDrop = drop }
        if let increase = value(Options.maxLatencyIncrease).flatMap(Values.number) { thresholds.maxLatencyIncrease = increase }
        if let alpha = value(Options.alpha).flatMap(Values.number) { thresholds.alpha = alpha }
        return thresholds
    }

    /// `--target`: the recommendation's pass-rate target.
    func target() -> Double? { value(Options.target).flatMap(Values.fraction) }
}
