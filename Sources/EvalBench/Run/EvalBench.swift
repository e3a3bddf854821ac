import Foundation

/// evalbench as a library: runs suites in-process and returns the report, so that an app
/// target or its test host can run them (the only way to reach Private Cloud Compute, whose
/// entitlement belongs to signed apps).
///
/// ```swift
/// let report = try await EvalBench.run(suites: [suitePath], config: configPath)
/// #expect(report.passRate >= 0.9)
/// ```
public enum EvalBench {
    /// Loads the suites and the config at these paths, runs them, writes the usual report
    /// files to `outputDirectory` (default: a new folder under the temporary directory) and
    /// returns the report. Throws `LoadError` for suite or config problems (nothing is sent)
    /// and `EvalBenchError.nothingRan` when no case could run.
    public static func run(suites: [String], config: String, backends: [String] = [],
                           reasoning: [ReasoningLevel]? = nil, repeatCount: Int? = nil, caseIDs: [String] = [],
                           tags: [String] = [], outputDirectory: String? = nil,
                           environment: [String: String] = ProcessInfo.processInfo.environment,
                           transport: any HTTPStreaming = DefaultStreamTransport(),
                           onResult: @escaping @Sendable (RequestResult) -> Void = { _ in }) async throws -> EvalReport {
        let directory = outputDirectory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("evalbench-\(UUID().uuidString)").path
        let request = RunRequest(suitePaths: suites, configPath: config, backends: backends, reasoning: reasoning,
                                 repeatCount: repeatCount, outputDirectory: directory, caseIDs: caseIDs, tags: tags,
                                 environment: environment)
        return try await run(request, transport: transport, onResult: onResult)
    }

    /// Runs a `RunRequest` as `evalbench run` would, and returns the report.
    public static func run(_ request: RunRequest, transport: any HTTPStreaming = DefaultStreamTransport(),
                           onResult: @escaping @Sendable (RequestResult) -> Void = { _ in }) async throws -> EvalReport {
        let loaded = try EvalRun.load(request)
        let outcome = try await EvalRun.execute(loaded, request, transport: transport, onEvent: { event in
            if case let .recorded(result) = event { onResult(result) }
        })
        guard let report = EvalReport(outcome) else {
            throw EvalBenchError.nothingRan(reasons: outcome.verdict.notes + outcome.verdict.reasons)
        }
        return report
    }
}

/// Why `EvalBench.run` returned no report.
public enum EvalBenchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Every case run was skipped (every backend unavailable here, or every level unsupported).
    case nothingRan(reasons: [String])

    public var description: String {
        switch self {
        case let .nothingRan(reasons):
            (["no case ran, so there is no pass rate"] + reasons).joined(separator: "; ")
        }
    }
}

/// A finished run: its pass rate, one summary per backend × reasoning × variant, every case
/// run and request, the gate's verdict and where the report files are.
public struct EvalReport: Sendable {
    /// Passed / ran over every case run of every backend: errors count against it, skipped
    /// case runs do not. There is no report in which nothing ran.
    public let passRate: Double
    /// One summary per backend × reasoning × variant (`summary.csv`'s rows).
    public let groups: [GroupSummary]
    public let caseRuns: [CaseRun]
    public let results: [RequestResult]
    /// The default gate (every case passes) on these results, with notes on backends that
    /// cannot run here.
    public let verdict: Gate.Verdict
    /// Where `results.jsonl`, `summary.md` and the CSV files were written.
    public let outputDirectory: URL

    /// Nil when no case run ran, as there is no pass rate then.
    init?(_ outcome: RunOutcome) {
        let aggregate = RunAggregate(outcome.results)
        groups = aggregate.groups
        caseRuns = aggregate.caseRuns
        results = outcome.results
        verdict = outcome.verdict
        outputDirectory = outcome.outputDirectory
        let ran = aggregate.caseRuns.filter { $0.status != .skipped }
        guard !ran.isEmpty else { return nil }
        passRate = Double(ran.filter { $0.status == .pass }.count) / Double(ran.count)
    }

    /// The summary of one backend at one level (and variant).
    public func summary(backend: String, reasoning: ReasoningLevel = .none,
                        variant: String = Planner.defaultVariant) -> GroupSummary? {
        groups.first { $0.group.backend == backend && $0.group.reasoning == reasoning && $0.group.variant == variant }
    }

    /// The case runs that failed or errored, for a test's failure message.
    public var failures: [CaseRun] { caseRuns.filter { $0.status == .fail || $0.status == .error } }
}
