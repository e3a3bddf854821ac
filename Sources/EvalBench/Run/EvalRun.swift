import Foundation

/// Everything a run needs to know, as the command line or a caller states it.
package struct RunRequest: Sendable {
    package var suitePaths: [String]
    /// The backend config; nil uses `./evalbench.json`.
    package var configPath: String?
    /// `--backend`; empty uses the config's `defaults.backends`, else every backend.
    package var backends: [String]
    /// `--reasoning`; nil uses each suite's `reasoning`, then the config's `defaults.reasoning`, then `none`.
    package var reasoning: [ReasoningLevel]?
    package var repeatCount: Int?
    package var concurrency: Int?
    /// The output directory; nil uses `reports/<suite>-<timestamp>/`.
    package var outputDirectory: String?
    /// An earlier run's directory whose finished case runs are kept and not sent again.
    package var resumeDirectory: String?
    package var caseIDs: [String]
    package var tags: [String]
    /// `--variant`: only these prompt variants; empty means all.
    package var variants: [String] = []
    /// `--resume-changed`: resume even when the suites or config changed since the resumed run,
    /// sending the changed and added cases and variants again and dropping the deleted ones.
    package var resumeChanged = false
    /// `--max-requests`: the most requests the matrix may send; a larger one is refused at load.
    package var maxRequests = RunLimits.defaultMaxRequests
    /// `--cache`: answer repeated requests from evalbench's response cache in this directory.
    package var cacheDirectory: URL?
    /// `--target`: the recommendation's pass-rate target, over each suite's `target`.
    package var target: Double?
    package var gate: Gate
    /// `--baseline`: an earlier run's directory to compare the finished run with; a
    /// regression (see `ComparisonThresholds`) fails the run with exit code 1.
    package var baselineDirectory: String?
    /// What counts as a regression against `baselineDirectory`.
    package var comparisonThresholds = ComparisonThresholds()
    package var arguments: [String]
    package var environment: [String: String]
    /// The backend kinds the config may name: the built-in ones, and any an app registers.
    package var backendKinds = BackendKindRegistry.builtIn
    /// Suites after those of `suitePaths`: files, or values built in Swift (`Evaluation`).
    package var sources: [Evaluation.SuiteSource] = []
    /// A config built in Swift, used instead of `configPath`.
    package var configValue: Config?
    /// Backends of the caller's own, run beside the config's (`Evaluation.backends`).
    package var providedBackends: [any Backend] = []
    /// Whether the API keys of the backends the run uses must be set (false for `validate`
    /// without `--check-secrets` and for `plan`, which send nothing).
    package var checkSecrets = true
    /// `--shard`: run only this part of the cases; nil runs them all.
    package var shard: ShardRequest?

    package init(suitePaths: [String], configPath: String? = nil, backends: [String] = [],
                reasoning: [ReasoningLevel]? = nil, repeatCount: Int? = nil, concurrency: Int? = nil,
                outputDirectory: String? = nil, resumeDirectory: String? = nil, caseIDs: [String] = [],
                tags: [String] = [], gate: Gate = Gate(), arguments: [String] = [],
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.suitePaths = suitePaths
        self.configPath = configPath
        self.backends = backends
        self.reasoning = reasoning
        self.repeatCount = repeatCount
        self.concurrency = concurrency
        self.outputDirectory = outputDirectory
        self.resumeDirectory = resumeDirectory
        self.caseIDs = caseIDs
        self.tags = tags
        self.gate = gate
        self.arguments = arguments
        self.environment = environment
    }
}

/// A run's inputs after loading and checking, before anything is sent.
package struct LoadedRun: Sendable {
    package var suites: [Suite]
    package var config: Config
    package var backendNames: [String]
    package var plan: RunPlan
    /// Backends a turn switches to, or a judge or similar assertion calls, that the selection
    /// does not name: started too, not planned.
    package var switchBackendNames: [String] = []
    /// The results of `--baseline`'s run, read and checked before anything is sent.
    package var baselineResults: ResultTable?
    /// With `--resume`, what the resumed run finished that this run keeps, what changed since
    /// (accepted with `--resume-changed`) and what was left out.
    package var resumed: ResumedRun?
    /// What run.json records of `--shard`; `plan` then holds only the shard's case runs.
    package var shard: ShardRecord?
}

/// How a run ended.
package struct RunOutcome: Sendable {
    package var outputDirectory: URL
    /// Every result of the run, as the store kept them (compactly; each reads back whole).
    package var results: ResultTable
    package var verdict: Gate.Verdict
    /// The comparison with `--baseline`, when one was given; written as compare.md and compare.csv.
    package var comparison: Comparison?
    /// When the run was interrupted, how much of it did not run.
    package var interruption: RunMetadata.Interruption?
}

/// Load → plan → prepare backends → run → record → report, the path behind `evalbench run`.
package enum EvalRun {
    /// Loads and checks suites and config; throws `LoadError` with every problem found.
    package static func load(_ request: RunRequest) throws -> LoadedRun {
        var diagnostics: [Diagnostic] = []
        var suites: [Suite] = []
        // Suites with problems, as far as they were read: cross-checked too, never run.
        var partial: [Suite] = []
        for source in request.suitePaths.map(Evaluation.SuiteSource.file) + request.sources {
            switch source {
            case let .file(path):
                let (suite, problems) = SuiteLoader.loadReportingAll(path: path)
                diagnostics += problems?.diagnostics ?? []
                if let suite { if problems == nil { suites.append(suite) } else { partial.append(suite) } }
            case let .suite(suite):
                do {
                    try SuiteChecks.check(suite)
                    suites.append(suite)
                } catch {
                    diagnostics += error.diagnostics
                    partial.append(suite)
                }
            }
        }
        var config: Config
        do {
            if let value = request.configValue {
                config = value
                try ConfigChecks.check(value)
            } else {
                config = try loadConfig(request.configPath, kinds: request.backendKinds)
            }
            try ConfigChecks.add(request.providedBackends, to: &config)
        } catch {
            throw LoadError(diagnostics + error.diagnostics)
        }
        let names = selectedBackends(request, config)
        diagnostics += ConfigLoader.checkSelection(config, backends: names, environment: request.environment,
                                                   checkingSecrets: request.checkSecrets)
        var validation = PlanValidation(suites: suites + partial, config: config, selected: names)
        validation.check(request)
        diagnostics += validation.diagnostics
        var baselineResults: ResultTable?
        if let baseline = request.baselineDirectory {
            do {
                baselineResults = try Comparison.readResults(inRun: baseline, role: "baseline")
            } catch let diagnostic as Diagnostic {
                diagnostics.append(diagnostic)
            }
        }
        var shard: Shard?
        do { shard = try request.shard?.resolve(environment: request.environment) } catch let diagnostic as Diagnostic {
            diagnostics.append(diagnostic)
        }
        diagnostics += directoryProblems(request)
        guard diagnostics.isEmpty else { throw LoadError(diagnostics) }
        let selection = PlanSelection(backends: names, reasoning: request.reasoning,
                                      defaultReasoning: config.defaults.reasoning ?? [.none], repeatCount: request.repeatCount,
                                      caseIDs: request.caseIDs, tags: request.tags, variants: request.variants)
        // A shard sends its own cases' requests: the limit is each machine's.
        let requests = Planner.requestCount(suites, selection, shard: shard)
        guard requests <= request.maxRequests else {
            let what = shard.map { "shard \($0) of the matrix" } ?? "the matrix"
            throw LoadError([Diagnostic(file: request.suitePaths.first ?? "suite",
                                        message: "\(what) would send \(requests == .max ? "more than \(Int.max)" : "\(requests)") requests (turns × variants × backends × levels × repeats), more than --max-requests \(request.maxRequests)",
                                        fix: "lower repeat, the backends or the reasoning levels, select cases with --case or --tag, or raise --max-requests")])
        }
        var plan = Planner.plan(suites, selection)
        if plan.caseRuns.isEmpty {
            throw LoadError([Diagnostic(file: request.suitePaths.first ?? "suite",
                                        message: "the selection matches no case (--case \(request.caseIDs), --tag \(request.tags))",
                                        fix: "check the case ids and tags; `evalbench validate` lists the suite's cases")])
        }
        if let baselineResults, let path = request.baselineDirectory, let problem = unrelatedBaseline(baselineResults, plan: plan, path: path) {
            throw LoadError([problem])
        }
        let sharded = shard.map { plan.sharded($0) }
        if let sharded { plan = sharded.plan }
        let resumed = try resume(request, suites: suites, config: config, backends: names, plan: plan.caseRuns, shard: shard)
        return LoadedRun(suites: suites, config: config, backendNames: names, plan: plan,
                         switchBackendNames: validation.extraBackends,
                         baselineResults: baselineResults, resumed: resumed, shard: sharded?.record)
    }

    /// The backends the run uses: `--backend`, else `defaults.backends`, else every one configured.
    /// A name given twice (`--backend a,a`) is run once: twice, every case run had a twin with the
    /// same key, counted as a second case in every figure.
    static func selectedBackends(_ request: RunRequest, _ config: Config) -> [String] {
        var seen: Set<String> = []
        return (request.backends.isEmpty ? (config.defaults.backends ?? config.backends.map(\.name)) : request.backends)
            .filter { seen.insert($0).inserted }
    }

    /// Where the run writes (`--out`) and what it resumes (`--resume`, also where it writes
    /// without `--out`), checked before a backend starts or a directory is made.
    static func directoryProblems(_ request: RunRequest) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        if let path = request.outputDirectory, let problem = OutputDirectoryCheck.problem(path, option: "--out") {
            problems.append(problem)
        }
        if let path = request.resumeDirectory, let problem = RunDirectory(path: path).missingResults(role: "resumed")
            ?? (request.outputDirectory == nil ? OutputDirectoryCheck.problem(path, option: "--resume") : nil) {
            problems.append(problem)
        }
        let written = request.outputDirectory.map { ($0, "--out") } ?? request.resumeDirectory.map { ($0, "--resume") }
        if let (path, option) = written, let baseline = request.baselineDirectory,
           let problem = OutputDirectoryCheck.overwrite(path, option: option, kept: [(baseline, "--baseline")]) {
            problems.append(problem)
        }
        return problems
    }

    /// A baseline that shares no case run with the plan (another suite, other backends) gives
    /// a comparison of nothing, which would pass every regression gate: it is refused. (Keys
    /// are compared by hash, 8 bytes a planned case run; a collision only lets one through.)
    static func unrelatedBaseline(_ baseline: ResultTable, plan: RunPlan, path: String) -> Diagnostic? {
        guard !Comparison.holdsAnyKey(baseline, of: Set(plan.caseRuns.lazy.map(\.key.hashValue))) else { return nil }
        let suites = { (names: [String]) in Array(Set(names)).sorted().joined(separator: ", ") }
        return Diagnostic(file: RunDirectory(path: path).results.path,
                          message: "the baseline shares no case run with this run (its suites: \(suites(baseline.map(\.suite))); this run's: \(suites(plan.caseRuns.map(\.suite))))",
                          fix: "pass the --out of an earlier run of the same suites, backends and levels")
    }

    /// With `--resume`, what the resumed run finished that this run keeps (`ResumedRun`). A
    /// change since that run, or finished case runs this `plan` does not have, is refused,
    /// listing them, unless `--resume-changed` accepts it. Nil without `--resume`; a run.json
    /// that cannot be read is refused.
    static func resume(_ request: RunRequest, suites: [Suite], config: Config, backends: [String],
                       plan: PlannedCaseRuns, shard: Shard? = nil) throws(LoadError) -> ResumedRun? {
        guard let path = request.resumeDirectory else { return nil }
        let directory = RunDirectory(path: path)
        // A run.json that cannot be read is refused: without it, nothing says which kept results are stale.
        let metadata: RunMetadata
        do {
            metadata = try directory.readMetadata()
        } catch let diagnostic as Diagnostic {
            throw LoadError([diagnostic])
        } catch {
            throw LoadError([Diagnostic(file: directory.metadata.path, message: ResultStore.describe(error))])
        }
        // Another shard's directory holds other cases: resumed, its results would be kept
        // beside this shard's, and merge would find them twice.
        let then = metadata.shard.map { Shard(index: $0.index, count: $0.count) }
        guard then == shard else {
            let name = { (shard: Shard?) in shard.map { "shard \($0)" } ?? "not sharded" }
            throw LoadError([Diagnostic(file: directory.metadata.path,
                                        message: "the run being resumed is \(name(then)), and this run is \(name(shard))",
                                        fix: "resume each shard's own directory with the same --shard, or start a new run with --out")])
        }
        let resumed: ResumedRun
        do {
            resumed = try ResumedRun.read(directory, plan: plan,
                                          check: ResumeCheck(metadata, suites: suites, config: config, backends: backends))
        } catch let diagnostic as Diagnostic {
            throw LoadError([diagnostic])
        } catch {
            throw LoadError([Diagnostic(file: directory.results.path, message: ResultStore.describe(error))])
        }
        guard resumed.needsConsent, !request.resumeChanged else { return resumed }
        throw LoadError([refusal(resumed, of: directory)])
    }

    /// Why resuming `directory` is refused without `--resume-changed`, and what to do instead.
    private static func refusal(_ resumed: ResumedRun, of directory: RunDirectory) -> Diagnostic {
        let check = resumed.check
        let message = check.isUnchanged
            ? "the run being resumed finished case runs this run does not plan (\(resumed.unplanned.summary)): counted in its reports and gates, they would judge another plan"
            : "the suites or config differ from those of the run being resumed (\(resumed.summary)): its results for them are stale"
        var ways: [String] = []
        if !check.droppedBackends.isEmpty { ways.append("select the backends it ran with --backend") }
        if resumed.unplanned.count > 0 {
            ways.append("run the plan it ran (its --backend, --reasoning, --repeat, --variant, --case and --tag; run.json's `arguments`)")
        }
        ways.append("pass --resume-changed to run the changed and added cases and variants again and drop the deleted ones"
            + (resumed.unplanned.count > 0 ? " and the case runs this run does not plan" : ""))
        ways.append("start a new run with --out")
        return Diagnostic(file: directory.metadata.path, message: message, fix: ways.joined(separator: ", or "))
    }

    /// The config at `path`, or `./evalbench.json`; a missing default file is an error that says
    /// how to write one.
    package static func loadConfig(_ path: String?, kinds: BackendKindRegistry = .builtIn) throws(LoadError) -> Config {
        let file = path ?? "evalbench.json"
        guard FileManager.default.fileExists(atPath: file) else {
            throw LoadError([Diagnostic(file: file, message: "no backend config found",
                                        fix: "pass --config FILE, or create evalbench.json with a \"backends\" list (see README)")])
        }
        return try ConfigLoader.load(path: file, kinds: kinds)
    }

    /// Runs a loaded run to the end (or until the task is cancelled) and writes every report.
    /// `onDirectoryReady` is given the run's directory (`--out`, the resumed one or the one made
    /// under reports/) before anything is written into it.
    package static func execute(_ loaded: LoadedRun, _ request: RunRequest, transport: any HTTPStreaming,
                               onEvent: @escaping @Sendable (RunEvent) -> Void = { _ in },
                               onDirectoryReady: @escaping @Sendable (URL) -> Void = { _ in },
                               onBackendsReady: @escaping @Sendable ([any Backend]) -> Void = { _ in }) async throws -> RunOutcome {
        let started = Date()
        let directory = RunDirectory(try outputDirectory(for: loaded, request, started: started))
        onDirectoryReady(directory.url)
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let store = try directory.startResults(keeping: loaded.resumed?.results ?? ResultTable())

        let concurrency = request.concurrency ?? loaded.config.defaults.concurrency
        let context = BackendContext(environment: request.environment, transport: transport,
                                     logDirectory: directory.url, defaultConcurrency: concurrency,
                                     backendConfigs: loaded.config.backends)
        let slots = try makeSlots(loaded, context: context)
        // As the selection names them (each once: `load` drops a repeated name).
        let ordered = (loaded.backendNames + loaded.switchBackendNames).compactMap { name in
            slots.first { $0.name == name }?.backend
        }
        onBackendsReady(ordered)

        var metadata = startMetadata(loaded, request, started: started,
                                     gitCommit: await RunMetadata.gitCommit(in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)))
        try metadata.write(to: directory.metadata)
        // An empty shard sends nothing, so it starts no backend (no managed local model).
        let availability = loaded.plan.caseRuns.isEmpty ? [:] : await prepare(ordered)
        var runner = Runner(slots: slots, store: store, concurrency: concurrency,
                            timeoutSeconds: loaded.config.defaults.timeoutSeconds,
                            retryPolicy: RetryPolicy(maxRetries: loaded.config.defaults.retries),
                            cache: request.cacheDirectory.map { ResponseCache(directory: $0) },
                            failFastAfter: loaded.config.defaults.failFastLimit, onEvent: onEvent)
        runner.maxResponseBytes = loaded.config.defaults.maxResponseBytes ?? ResponseSizeLimit.defaultBytes
        runner.gradingTimeLimitSeconds = loaded.config.defaults.gradingTimeoutSeconds ?? GradingTimeLimit.defaultSeconds
        await runner.run(loaded.plan, availability: availability, finished: loaded.resumed?.finished ?? FinishedCaseRuns())
        for backend in ordered { await backend.shutdown() }

        let results = store.table()
        if Task.isCancelled {
            // Every result is of a planned case run: a resume keeps no other.
            metadata.interruption = RunMetadata.Interruption(unfinishedRequests: max(0, loaded.plan.requestCount - results.count),
                                                             plannedRequests: loaded.plan.requestCount)
        }
        if let failure = store.failure {
            try? store.close()
            throw failure
        }
        try store.close()
        metadata.endedAt = Date()
        metadata.backends = ordered.map { backendInfo($0, availability: availability[$0.name] ?? .available, plan: loaded.plan) }
        let comparison = compare(results, with: loaded, request)
        let gate = gate(loaded, request, comparison: comparison)
        var verdict = verdict(results, gate: gate, loaded, availability: availability, ordered: ordered, comparison: comparison,
                              baseline: request.baselineDirectory)
        if let note = loaded.resumed?.verdictNote { verdict.notes.append(note) }
        // The gates judge a whole plan: a partial run neither passes nor fails them.
        if let interruption = metadata.interruption { verdict = interruption.verdict(notes: verdict.notes) }
        // Decided before the reports, so that summary.md and report.html open with it and
        // run.json keeps it for `evalbench report`.
        metadata.verdict = RecordedVerdict(verdict, checks: gate.checks(
            suites: loaded.suites.map(\.name), suiteGates: suiteGates(loaded), baseline: request.baselineDirectory,
            emptyShard: loaded.shard?.caseRuns == 0 && !request.gate.allowsEmptyRun))
        try metadata.write(to: directory.metadata)
        try writeReports(results, metadata: metadata, baseline: loaded.baselineResults, to: directory.url)
        try finishReports(in: directory, comparison: comparison, baseline: request.baselineDirectory, environment: request.environment)
        return RunOutcome(outputDirectory: directory.url, results: results, verdict: verdict, comparison: comparison,
                          interruption: metadata.interruption)
    }

    /// One slot per backend the run starts (the selected ones, then those turns switch to or
    /// graders call), in that order, each with its settings from the config.
    static func makeSlots(_ loaded: LoadedRun, context: BackendContext) throws -> [BackendSlot] {
        var slots: [BackendSlot] = []
        for name in loaded.backendNames + loaded.switchBackendNames where !slots.contains(where: { $0.name == name }) {
            guard let config = loaded.config.backend(named: name) else { continue }
            let backend = try config.makeBackend(context: context)
            slots.append(BackendSlot(name: name, backend: backend,
                                     pricing: config.chargedPricing, timeoutSeconds: config.timeoutSeconds,
                                     contextSize: config.contextSize,
                                     prewarm: backend is any Prewarming ? config.prewarm : nil,
                                     cacheIdentity: ResponseCacheIdentity.of(config),
                                     cacheable: type(of: config.options).answersAreCacheable))
        }
        return slots
    }

    /// `run.json` as the run starts: the tool, the arguments, the suites with their digests (the
    /// file's, each case's and each variant's), the config, the commit (`gitCommit`, looked up
    /// by the caller) and the host.
    static func startMetadata(_ loaded: LoadedRun, _ request: RunRequest, started: Date, gitCommit: String?) -> RunMetadata {
        var metadata = RunMetadata(
            toolVersion: EvalBenchVersion.current, arguments: request.arguments,
            suites: loaded.suites.map { suite in
                RunMetadata.SuiteFile(path: suite.file, suite: suite.name,
                                      sha256: suiteDigest(suite),
                                      target: suite.target,
                                      cases: suite.cases.reduce(into: [:]) { $0[$1.id] = ResumeCheck.digest($1) },
                                      gates: suite.gates, variants: ResumeCheck.variantDigests(of: suite))
            },
            config: loaded.config, gitCommit: gitCommit,
            host: .current(), startedAt: started, endedAt: nil, backends: [])
        metadata.target = request.target
        metadata.suitesSHA256 = InputDigest.suites(metadata.suites)
        metadata.configSHA256 = InputDigest.config(loaded.config)
        metadata.shard = loaded.shard
        metadata.baseline = request.baselineDirectory.map(RunMetadata.absolutePath)
        return metadata
    }

    /// The SHA-256 of the suite's file, or of the suite's JSON encoding for one built in Swift.
    static func suiteDigest(_ suite: Suite) -> String {
        if let data = try? Data(contentsOf: URL(fileURLWithPath: suite.file)) { return SHA256.hex(data) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(suite)).map(SHA256.hex) ?? ""
    }

    /// Each backend's answer to `prepare()`, asked of all of them at once.
    static func prepare(_ backends: [any Backend]) async -> [String: Availability] {
        var availability: [String: Availability] = [:]
        await withTaskGroup(of: (String, Availability).self) { group in
            for backend in backends {
                group.addTask { (backend.name, await backend.prepare()) }
            }
            for await (name, answer) in group { availability[name] = answer }
        }
        return availability
    }

    /// What run.json says of `backend`: its kind, model, availability, reasoning mapping and,
    /// when a case of `plan` asks for structured output on it, how it sends the schema.
    static func backendInfo(_ backend: any Backend, availability: Availability, plan: RunPlan) -> RunMetadata.BackendInfo {
        let state: String
        switch availability {
        case .available: state = "available"
        case let .unavailable(reason): state = "unavailable: \(reason)"
        case let .unavailableHere(reason): state = "unavailable here (case runs skipped): \(reason)"
        }
        let usesOutput = plan.caseRuns.contains { $0.backend == backend.name && $0.evalCase.output != nil }
        return RunMetadata.BackendInfo(name: backend.name, kind: backend.kind, model: backend.model,
                                       availability: state, reasoning: reasoningTable(backend),
                                       structuredOutput: usesOutput ? backend.structuredOutputSupport : nil)
    }

    /// With `--baseline`, compares `results` with the baseline's.
    static func compare(_ results: ResultTable, with loaded: LoadedRun, _ request: RunRequest) -> Comparison? {
        compare(results, with: loaded.baselineResults, named: request.baselineDirectory, thresholds: request.comparisonThresholds)
    }

    /// With a baseline (its results, and its directory as given), compares `results` with it;
    /// nil without one. `run --baseline` and `merge --baseline` both come here. Written by
    /// `finishReports`, after the run's own reports, so that a failure to write compare.md
    /// loses none of them.
    package static func compare(_ results: ResultTable, with baseline: ResultTable?, named baselineDirectory: String?,
                                thresholds: ComparisonThresholds) -> Comparison? {
        guard let baseline, baselineDirectory != nil else { return nil }
        return Comparison(baseline: baseline, current: results, thresholds: thresholds)
    }

    /// After the run's reports: compare.md and compare.csv when there was a comparison, then,
    /// with `GITHUB_STEP_SUMMARY` set, summary.md and compare.md appended to the step summary.
    package static func finishReports(in directory: RunDirectory, comparison: Comparison?, baseline: String?,
                                      environment: [String: String]) throws {
        if let comparison, let baseline {
            try comparison.write(to: directory.url, baselineName: baseline, currentName: directory.url.path)
        } else {
            // An earlier run in this directory (replaced, or resumed without --baseline) may have
            // left its comparison: it compared other results, and would read as this run's.
            for name in [RunDirectory.FileName.compareMarkdown, RunDirectory.FileName.compareCSV] {
                try? FileManager.default.removeItem(at: directory.file(name))
            }
        }
        try appendStepSummary(from: directory.url, environment: environment)
        if comparison != nil {
            try appendStepSummary(from: directory.url, file: RunDirectory.FileName.compareMarkdown, environment: environment)
        }
    }

    /// Each suite's `gates` by suite name, every suite of the run.
    static func suiteGates(_ loaded: LoadedRun) -> [String: SuiteGates] {
        loaded.suites.reduce(into: [:]) { $0[$1.name] = $1.gates }
    }

    /// The command line's gate as the run applies it: with a baseline the comparison is the
    /// gate (a case that failed there too does not fail the build), and an empty shard passes.
    static func gate(_ loaded: LoadedRun, _ request: RunRequest, comparison: Comparison?) -> Gate {
        var gate = request.gate
        if comparison != nil { gate.everyCaseMustPassByDefault = false }
        // A shard with no cases is a valid part: `merge` gates the whole run.
        if loaded.shard?.caseRuns == 0 { gate.allowsEmptyRun = true }
        return gate
    }

    /// `gate`'s verdict on `results`, failed too by a regression against the baseline.
    static func verdict(_ results: ResultTable, gate: Gate, _ loaded: LoadedRun, availability: [String: Availability],
                        ordered: [any Backend], comparison: Comparison?, baseline: String?) -> Gate.Verdict {
        var unavailable: [String] = []
        var unavailableHere: [String: String] = [:]
        for backend in ordered {
            switch availability[backend.name] ?? .available {
            case .available: break
            case .unavailable: unavailable.append(backend.name)
            case let .unavailableHere(reason): unavailableHere[backend.name] = reason
            }
        }
        let emptyShard = loaded.shard.flatMap { $0.caseRuns == 0 ? $0.shard : nil }
        var verdict = gate.evaluate(results, unavailableBackends: unavailable, unavailableHere: unavailableHere,
                                    suiteGates: suiteGates(loaded))
        verdict.failOnRegression(comparison, baseline: baseline)
        if let emptyShard {
            verdict.notes.append("shard \(emptyShard) holds no cases: nothing ran and no backend was started; `evalbench merge` takes this part as it is")
        }
        return verdict
    }

    /// With `GITHUB_STEP_SUMMARY` set to a file, appends `file` (summary.md, or compare.md) of
    /// `directory` to it, so that a GitHub Actions job page shows the report.
    package static func appendStepSummary(from directory: URL, file: String = RunDirectory.FileName.summaryMarkdown,
                                         environment: [String: String]) throws {
        guard let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty else { return }
        let report = directory.appendingPathComponent(file)
        let markdown = try String(decoding: Data(contentsOf: report), as: UTF8.self)
        do {
            if !FileManager.default.fileExists(atPath: path) {
                try Data().write(to: URL(fileURLWithPath: path))
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            let written = Int(try handle.seekToEnd())
            // The step's summary is the whole file: what is there already counts against the limit.
            let summary = StepSummary.fit(markdown, budget: StepSummary.limit - written - 1, source: "in \(report.path)")
            guard !summary.isEmpty else { return }
            try handle.write(contentsOf: Data((summary + "\n").utf8))
        } catch {
            throw ReportWriteFailure(path: path, reason: "GITHUB_STEP_SUMMARY: \(error.localizedDescription)")
        }
    }

    /// Writes results.csv, summary.csv and summary.md from results and the run's metadata;
    /// `baseline`, the `--baseline` run's results, for report.html's case grid.
    /// `verdictNote`, said under the verdict (`evalbench report`: the verdict is the one recorded).
    package static func writeReports(_ results: some Collection<RequestResult>, metadata: RunMetadata,
                                     baseline: ResultTable? = nil, verdictNote: String? = nil, to directory: URL) throws {
        var notes: [String: String] = [:]
        var levelsRun: [String: Set<ReasoningLevel>] = [:]
        // What stopped a backend early, and which of its case runs it left unsent (case runs, not turns).
        var stopped: [String: (reason: String, keys: Set<String>)] = [:]
        for result in results {
            levelsRun[result.backend, default: []].insert(result.reasoning)
            if result.status == .skipped, let reason = result.skipReason, FailFast.stopped(reason) {
                stopped[result.backend, default: (reason, [])].keys.insert(result.key)
            }
        }
        for backend in metadata.backends {
            var parts: [String] = ["kind \(backend.kind)"]
            if backend.availability != "available" { parts.append(backend.availability) }
            let levels = ReasoningLevel.allCases.filter { levelsRun[backend.name]?.contains($0) ?? false }
                .compactMap { level in backend.reasoning[level.rawValue].map { "\(level.rawValue) → \($0)" } }
            if !levels.isEmpty { parts.append("reasoning: " + levels.joined(separator: "; ")) }
            if let structured = backend.structuredOutput { parts.append("structured output: \(structured)") }
            if let stop = stopped[backend.name] { parts.append("\(stop.keys.count) case runs skipped by \(stop.reason)") }
            notes[backend.name] = parts.joined(separator: "; ")
        }
        // A run that never ended (quit at once, a crash, kill -9) ends, for its reports, with
        // its last recorded request, and says it is unfinished as an interrupted run does.
        var input = ReportInput(results: results, suiteNames: metadata.suites.map(\.suite),
                                startedAt: metadata.startedAt, endedAt: metadata.endedAt ?? lastEnd(of: results, after: metadata.startedAt),
                                backendNotes: notes,
                                reasoningMappings: metadata.backends.reduce(into: [:]) { $0[$1.name] = $1.reasoning })
        input.interruption = metadata.interruption?.headline ?? (metadata.endedAt == nil ? RunMetadata.unfinishedHeadline(recorded: results.count) : nil)
        input.shard = metadata.mergedFrom == nil ? metadata.shard.map { "\($0.index)/\($0.count)" } : nil
        input.partialMerge = metadata.partialMergeHeadline
        input.baselineResults = baseline
        input.verdict = metadata.verdict
        input.verdictNote = metadata.verdict == nil ? nil : verdictNote
        input.recommendation = RecommendationSettings(
            target: metadata.target,
            suiteTargets: metadata.suites.reduce(into: [:]) { table, suite in table[suite.suite] = suite.target },
            placements: metadata.config.backends.reduce(into: [:]) { $0[$1.name] = $1.placement },
            onDeviceWindow: metadata.config.backends.first { $0.placement == .onDevice }?.contextSize
                ?? RecommendationSettings.defaultOnDeviceWindow)
        try ReportWriter.write(input, to: directory)
    }

    /// When the last of `results` ended (its start and latency), `start` when none says.
    static func lastEnd(of results: some Collection<RequestResult>, after start: Date) -> Date {
        var last = start
        for result in results {
            guard let timing = result.timing else { continue }
            let end = timing.startedAt.addingTimeInterval((timing.latencyMs ?? 0) / 1000)
            if end > last { last = end }
        }
        return last
    }

    static func reasoningTable(_ backend: any Backend) -> [String: String] {
        var table: [String: String] = [:]
        for level in ReasoningLevel.allCases {
            switch backend.reasoningSupport(level) {
            case let .supported(how): table[level.rawValue] = how
            case let .unsupported(why): table[level.rawValue] = "skipped (\(why))"
            }
        }
        return table
    }

    /// `--out`, else the resumed directory, else a new `reports/<suites>-<time>[-shard-K-of-N]`,
    /// made here and this run's alone: runs started in the same second (the shards of a run
    /// tried on one machine) get `-2`, `-3`, … rather than writing into one directory.
    static func outputDirectory(for loaded: LoadedRun, _ request: RunRequest, started: Date,
                                under reports: URL = URL(fileURLWithPath: "reports")) throws -> URL {
        if let path = request.outputDirectory { return URL(fileURLWithPath: path) }
        if let resume = request.resumeDirectory { return URL(fileURLWithPath: resume) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let shard = loaded.shard.map { "-shard-\($0.index)-of-\($0.count)" } ?? ""
        let name = loaded.suites.map(\.name).joined(separator: "+") + "-" + formatter.string(from: started) + shard
        try FileManager.default.createDirectory(at: reports, withIntermediateDirectories: true)
        for attempt in 1...1_000 {
            let candidate = reports.appendingPathComponent(attempt == 1 ? name : "\(name)-\(attempt)")
            // mkdir(2) fails with EEXIST when another run made it first: the claim is atomic.
            if mkdir(candidate.path, 0o777) == 0 { return candidate }
            guard errno == EEXIST else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        throw Diagnostic(file: reports.path, message: "1,000 runs started this second already have a directory named \(name)",
                         fix: "pass --out DIR")
    }
}

/// The version evalbench reports in run.json and `--version`.
package enum EvalBenchVersion {
    package static let current = "0.1.0"
}
