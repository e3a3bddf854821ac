import Foundation

/// evalbench as a library: the one entry point. It runs suites in-process against the
/// config's backends and any backends of the caller's own, writes the usual report files and
/// returns the results and the verdict, so that an app target or its test host can evaluate
/// the app's own model setup (the only way to reach Private Cloud Compute, whose entitlement
/// belongs to signed apps).
///
/// ```swift
/// var evaluation = Evaluation(suites: [.file("evals/support.json")], config: .file("evalbench.json"))
/// evaluation.backendNames = ["local"]
/// let report = try await evaluation.run()
/// #expect(report.passRate >= 0.9)
/// ```
///
/// Suites and the config may be files or values built in Swift, and `backends` takes any
/// type conforming to `Backend`, for example one that wraps the app's own
/// `LanguageModelSession` with its tools and instructions.
public struct Evaluation: Sendable {
    /// Where a suite comes from.
    public enum SuiteSource: Sendable {
        /// A suite file (`evals/*.json`), loaded and checked as `evalbench run` loads it.
        case file(String)
        /// A suite built in Swift; checked for distinct, non-empty case ids, turns and prompts.
        case suite(Suite)
    }

    /// Where the backend config comes from.
    public enum ConfigSource: Sendable {
        /// A config file (`evalbench.json`), loaded and checked as `evalbench run` loads it.
        case file(String)
        /// A config built in Swift; checked for distinct names and the kinds' own rules.
        case config(Config)
    }

    /// The suites to run, in order.
    public var suites: [SuiteSource]
    /// The backend config; nil means `./evalbench.json` when `backends` is empty, and no
    /// config at all (only `backends`) otherwise.
    public var config: ConfigSource?
    /// Backends of the caller's own, run beside the config's under their `name`s. Their cost
    /// is unknown (never 0) and they are never answered from the response cache.
    public var backends: [any Backend]
    /// The backends to run, by name (`--backend`); empty means the config's
    /// `defaults.backends`, else every configured backend and every backend in `backends`.
    public var backendNames: [String] = []
    /// Reasoning levels (`--reasoning`); nil uses each suite's, then the config's, then `none`.
    public var reasoning: [ReasoningLevel]?
    /// Repeats of each case (`--repeat`); nil uses each suite's `repeat`, else 1.
    public var repeatCount: Int?
    /// Requests in flight at once (`--concurrency`); nil uses the config's `defaults.concurrency`.
    public var concurrency: Int?
    /// Only these case ids (`--case`); empty means all.
    public var caseIDs: [String] = []
    /// Only cases with one of these tags (`--tag`); empty means all.
    public var tags: [String] = []
    /// Only these prompt variants (`--variant`); empty means all.
    public var variants: [String] = []
    /// Where the report files go; nil means a new folder under the temporary directory.
    public var outputDirectory: String?
    /// The gate the verdict applies (`--min-pass-rate`, `--max-error-rate`); by default every
    /// case must pass.
    public var gate = Gate()
    /// The environment API keys are read from (never logged or recorded).
    public var environment: [String: String] = ProcessInfo.processInfo.environment
    /// The backend kinds a config may name: the built-in ones, and any the app registers.
    public var backendKinds = BackendKindRegistry.builtIn
    /// The HTTP transport (tests pass a scripted one).
    package var transport: any HTTPStreaming = DefaultStreamTransport()

    /// An evaluation of `suites` on the backends of `config` and on `backends`.
    public init(suites: [SuiteSource], config: ConfigSource? = nil, backends: [any Backend] = []) {
        self.suites = suites
        self.config = config
        self.backends = backends
    }

    /// Loads and checks everything, runs it and writes the report files. Throws `LoadError`
    /// with every suite or config problem (nothing is sent then) and `EvaluationError.nothingRan`
    /// when no case could run; `onResult` sees each request's result as it is recorded.
    public func run(onResult: @escaping @Sendable (RequestResult) -> Void = { _ in }) async throws -> EvaluationReport {
        let request = runRequest()
        let loaded = try EvalRun.load(request)
        let outcome = try await EvalRun.execute(loaded, request, transport: transport, onEvent: { event in
            if case let .recorded(result) = event { onResult(result) }
        })
        guard let report = EvaluationReport(outcome) else {
            throw EvaluationError.nothingRan(reasons: outcome.verdict.notes + outcome.verdict.reasons)
        }
        return report
    }

    /// The request `evalbench run` would make of the same settings.
    package func runRequest() -> RunRequest {
        var request = RunRequest(suitePaths: [], backends: backendNames, reasoning: reasoning, repeatCount: repeatCount,
                                 concurrency: concurrency,
                                 outputDirectory: outputDirectory ?? FileManager.default.temporaryDirectory
                                     .appendingPathComponent("evalbench-\(UUID().uuidString)").path,
                                 caseIDs: caseIDs, tags: tags, gate: gate, environment: environment)
        request.sources = suites
        request.variants = variants
        request.backendKinds = backendKinds
        request.providedBackends = backends
        switch config {
        case let .file(path): request.configPath = path
        case let .config(value): request.configValue = value
        case nil: if !backends.isEmpty { request.configValue = Config(file: nil, backends: []) }
        }
        return request
    }
}

/// Why `Evaluation.run` returned no report.
public enum EvaluationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Every case run was skipped (every backend unavailable here, or every level unsupported).
    case nothingRan(reasons: [String])

    /// The reasons, on one line.
    public var description: String {
        switch self {
        case let .nothingRan(reasons):
            (["no case ran, so there is no pass rate"] + reasons).joined(separator: "; ")
        }
    }
}

/// A finished run: its pass rate, one summary per backend × reasoning × variant, every case
/// run and request, the gate's verdict and where the report files are.
public struct EvaluationReport: Sendable {
    /// Passed / ran over every case run of every backend: errors count against it, skipped
    /// case runs do not. There is no report in which nothing ran.
    public let passRate: Double
    /// One summary per backend × reasoning × variant (`summary.csv`'s rows).
    public let groups: [GroupSummary]
    /// Every case × repeat of every backend, level and variant.
    public let caseRuns: [CaseRun]
    /// Every request, as `results.jsonl` records it.
    public let results: [RequestResult]
    /// The gate's verdict on these results, with notes on backends that cannot run here.
    public let verdict: Gate.Verdict
    /// Where `results.jsonl`, `summary.md` and the CSV files were written.
    public let outputDirectory: URL

    /// Nil when no case run ran, as there is no pass rate then.
    init?(_ outcome: RunOutcome) {
        let aggregate = RunAggregate(outcome.results)
        groups = aggregate.groups
        caseRuns = Array(aggregate.caseRuns)
        results = Array(outcome.results)
        verdict = outcome.verdict
        outputDirectory = outcome.outputDirectory
        let ran = aggregate.caseRuns.filter { $0.status != .skipped }
        guard !ran.isEmpty else { return nil }
        passRate = Double(ran.filter { $0.status == .pass }.count) / Double(ran.count)
    }

    /// The exit code `evalbench run` would give: 0 when every gate held, 1 for a failed gate,
    /// 3 for infrastructure (see `ExitStatus`).
    public var exitStatus: ExitStatus { verdict.exitStatus }

    /// summary.md's headline table (backend, model, pass rate with its interval, latency,
    /// TTFT, tokens, cache hit, cost), in Markdown.
    public var headline: String { SummaryMarkdown.headlineTable(RunAggregate(results)) }

    /// The summary of one backend at one level (and variant).
    public func summary(backend: String, reasoning: ReasoningLevel = .none,
                        variant: String = "default") -> GroupSummary? {
        groups.first { $0.group.backend == backend && $0.group.reasoning == reasoning && $0.group.variant == variant }
    }

    /// The case runs that failed or errored, for a test's failure message.
    public var failures: [CaseRun] { caseRuns.filter { $0.status == .fail || $0.status == .error } }
}
