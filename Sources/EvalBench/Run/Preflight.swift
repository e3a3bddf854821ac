import Foundation

/// What evalbench says about a run before sending anything: `validate` checks it, `plan`
/// expands it, `backends` looks at each configured backend.
package enum Preflight {
    /// `evalbench validate`: one line per suite that loaded, and the backends the config gives.
    package static func validation(_ loaded: LoadedRun) -> [String] {
        loaded.suites.map { suite in
            let turns = suite.cases.reduce(0) { $0 + $1.turns.count }
            return "\(suite.file): ok: suite '\(suite.name)', \(suite.cases.count) cases, \(turns) turns"
        } + ["config: ok: backends \(loaded.backendNames.joined(separator: ", "))"]
    }

    /// `evalbench plan`: each case run's key and turns, the counts, how each planned backend
    /// sends each planned reasoning level (or why it skips it), and the context-fit pre-flight.
    /// Managed servers are not started, so their inputs are estimated.
    package static func plan(_ loaded: LoadedRun, environment: [String: String], transport: any HTTPStreaming) async -> [String] {
        var lines = ["key\tturns"] + loaded.plan.caseRuns.map { "\($0.key)\t\($0.evalCase.turns.count)" }
        lines.append("\(loaded.plan.caseRuns.count) case runs, \(loaded.plan.requestCount) requests")
        let context = BackendContext(environment: environment, transport: transport,
                                     logDirectory: FileManager.default.temporaryDirectory,
                                     defaultConcurrency: loaded.config.defaults.concurrency,
                                     backendConfigs: loaded.config.backends)
        var backends: [(name: String, backend: any Backend, config: BackendConfig?)] = []
        for name in loaded.backendNames {
            guard let config = loaded.config.backend(named: name),
                  let backend = try? config.makeBackend(context: context) else { continue }
            backends.append((name, backend, config))
        }
        for (name, backend, _) in backends {
            let levels = Set(loaded.plan.caseRuns.filter { $0.backend == name }.map(\.reasoning))
            lines += ReasoningLevel.allCases.filter(levels.contains).map { "reasoning \(name)/\($0.rawValue): \(describe(backend.reasoningSupport($0)))" }
        }
        lines += await ToolCost.lines(loaded.plan, counters: backends.compactMap { entry in
            (entry.backend as? any ToolTokenCounting).map { (entry.name, $0) }
        })
        for report in await ContextFit.check(loaded.plan, backends: backends) { lines += report.lines }
        return lines
    }

    /// `evalbench backends`: each configured backend's kind, model, availability (found by
    /// preparing it, which starts a managed server, unless `start` is false), concurrency and
    /// reasoning mapping. Each line goes to `say` as soon as it is known; infrastructure when
    /// a backend is unavailable.
    package static func checkBackends(_ config: Config, environment: [String: String], transport: any HTTPStreaming,
                                     start: Bool, say: (String) -> Void) async -> ExitStatus {
        let context = BackendContext(environment: environment, transport: transport,
                                     logDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-backends"),
                                     defaultConcurrency: config.defaults.concurrency, backendConfigs: config.backends)
        var unavailable = false
        for backendConfig in config.backends {
            say("\(backendConfig.name)  kind=\(backendConfig.kind)  model=\(backendConfig.model ?? "n/a")")
            if let problem = ConfigLoader.checkSelection(config, backends: [backendConfig.name], environment: environment).first {
                say("  availability: unavailable: \(problem.message)")
                unavailable = true
                continue
            }
            do {
                let backend = try backendConfig.makeBackend(context: context)
                if await !check(backend, start: start, say: say) { unavailable = true }
                say("  concurrency: \(backend.concurrency)")
                for level in ReasoningLevel.allCases { say("  reasoning \(level.rawValue): \(describe(backend.reasoningSupport(level)))") }
            } catch {
                say("  availability: unavailable: \(error)")
                unavailable = true
            }
        }
        return unavailable ? .infrastructure : .success
    }

    /// Prepares and shuts down `backend` to say whether it is available; false when it is not.
    private static func check(_ backend: any Backend, start: Bool, say: (String) -> Void) async -> Bool {
        guard start else {
            say("  availability: not checked (--no-start)")
            return true
        }
        let available: Bool
        switch await backend.prepare() {
        case .available:
            if let probing = backend as? any ReachabilityProbing, let reason = await probing.unreachableReason() {
                say("  availability: unavailable: the server does not answer: \(reason)")
                available = false
            } else {
                say("  availability: available")
                available = true
            }
        case let .unavailable(reason):
            say("  availability: unavailable: \(reason)")
            available = false
        case let .unavailableHere(reason):
            // Not a failure: this platform cannot run the kind at all.
            say("  availability: unavailable here (its case runs are skipped): \(reason)")
            available = true
        }
        await backend.shutdown()
        return available
    }

    /// `reasoning_effort: "high"`, or `skipped: why`.
    static func describe(_ support: ReasoningSupport) -> String {
        switch support {
        case let .supported(how): how
        case let .unsupported(why): "skipped: \(why)"
        }
    }
}
