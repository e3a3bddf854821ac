import EvalBench
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exit codes of DESIGN.md: 0 success, 1 a gate failed, 2 usage/suite/config error, 3 infrastructure.
enum ExitCode {
    static let success: Int32 = 0
    static let gateFailed: Int32 = 1
    static let usage: Int32 = 2
    static let infrastructure: Int32 = 3
    /// Interrupted by Ctrl-C (128 + SIGINT), after writing every finished result and the reports.
    static let interrupted: Int32 = 130
}

let usageText = """
usage: evalbench <command> [options]

  run SUITE... [--config FILE] [--backend NAME]... [--reasoning LEVELS] [--repeat N]
               [--concurrency N] [--out DIR] [--resume DIR] [--case ID]... [--tag TAG]...
               [--min-pass-rate X] [--max-error-rate X] [--variant NAME]... [--cache | --no-cache]
               [--target X] [--watch] [--no-progress] [--baseline DIR [--max-pass-rate-drop X]
               [--max-latency-increase X] [--alpha A]]
  validate SUITE... [--config FILE]   load and check, send nothing
  plan SUITE... [--config FILE] [...] the expanded matrix and the context-fit pre-flight, send nothing
  backends [--config FILE] [--no-start] configured backends, availability, reasoning mapping
  report DIR [--target X]             rewrite a run's reports from its results.jsonl
  cache clear                         remove evalbench's stored responses (--cache)
  compare BASELINE_DIR CURRENT_DIR [--out DIR] [--max-pass-rate-drop X] [--max-latency-increase X]
          [--alpha A]                 flips, pass-rate and latency changes with their significance;
                                      writes compare.md and compare.csv (default: into CURRENT_DIR)

Exit codes: 0 success and every gate held; 1 a gate failed (compare: a significant
regression); 2 usage, suite or config error; 3 infrastructure (a backend unavailable); 130 interrupted (finished results kept).
"""

/// Loopback `http://` over plain sockets, the rest through URLSession;
/// `EVALBENCH_HTTP_CLIENT=urlsession` sends everything through URLSession.
func makeTransport() -> any HTTPStreaming {
    DefaultStreamTransport(socketsForLoopback: ProcessInfo.processInfo.environment["EVALBENCH_HTTP_CLIENT"] != "urlsession")
}

func fail(_ message: String, code: Int32 = ExitCode.usage) -> Never {
    FileHandle.standardError.write(Data("evalbench: \(message)\n".utf8))
    exit(code)
}

func printLoadError(_ error: Error) -> Never {
    switch error {
    case let error as LoadError:
        FileHandle.standardError.write(Data((error.description + "\n").utf8))
        let count = error.diagnostics.count
        fail("\(count) problem\(count == 1 ? "" : "s") found; nothing was sent")
    case let diagnostic as Diagnostic:
        FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8))
        fail("1 problem found; nothing was sent")
    default:
        fail("\(error)")
    }
}

func runRequest(_ arguments: Arguments) throws -> RunRequest {
    guard !arguments.positional.isEmpty else { throw Arguments.UsageError(description: "\(arguments.command) needs at least one SUITE file") }
    var request = RunRequest(
        suitePaths: arguments.positional, configPath: arguments.value("--config"),
        backends: arguments.list("--backend"), reasoning: try arguments.reasoningLevels(),
        repeatCount: try arguments.int("--repeat", minimum: 1), concurrency: try arguments.int("--concurrency", minimum: 1),
        outputDirectory: arguments.value("--out"), resumeDirectory: arguments.value("--resume"),
        caseIDs: arguments.list("--case"), tags: arguments.list("--tag"),
        gate: Gate(minPassRate: try arguments.fraction("--min-pass-rate"),
                   maxErrorRate: try arguments.fraction("--max-error-rate")),
        arguments: Array(CommandLine.arguments.dropFirst()))
    request.variants = arguments.list("--variant")
    request.target = try arguments.target()
    request.baselineDirectory = arguments.value("--baseline")
    request.comparisonThresholds = try arguments.comparisonThresholds()
    if request.baselineDirectory == nil,
       let orphan = ["--max-pass-rate-drop", "--max-latency-increase", "--alpha"].first(where: { arguments.value($0) != nil }) {
        throw Arguments.UsageError(description: "\(orphan) applies to the comparison with --baseline DIR; give --baseline too")
    }
    if arguments.flags.contains("--cache") && arguments.flags.contains("--no-cache") {
        throw Arguments.UsageError(description: "--cache and --no-cache contradict each other; give one")
    }
    if arguments.flags.contains("--cache") {
        request.cacheDirectory = ResponseCache.defaultDirectory(environment: ProcessInfo.processInfo.environment)
    }
    return request
}

/// Cancels the run on the first Ctrl-C (finished results and reports are kept) and stops
/// managed servers and exits on the second.
final class Interrupts: @unchecked Sendable {
    // @unchecked: `task`, `backends` and `count` are only touched on `queue`.
    private let queue = DispatchQueue(label: "evalbench.signals")
    private var sources: [DispatchSourceSignal] = []
    private var task: Task<Void, Never>?
    private var backends: [any Backend] = []
    private var count = 0
    private(set) var interrupted = false

    func install() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [weak self] in self?.fire() }
            source.resume()
            sources.append(source)
        }
    }

    func watch(_ task: Task<Void, Never>) { queue.sync { self.task = task } }
    func watch(_ backends: [any Backend]) { queue.sync { self.backends = backends } }
    var wasInterrupted: Bool { queue.sync { interrupted } }

    private func fire() {
        count += 1
        interrupted = true
        if count == 1 {
            FileHandle.standardError.write(Data("\nevalbench: interrupted; stopping, keeping finished results (Ctrl-C again to quit at once)\n".utf8))
            task?.cancel()
        } else {
            for case let server as LlamaServerBackend in backends { server.terminateNow() }
            exit(ExitCode.interrupted)
        }
    }
}

func commandRun(_ arguments: Arguments) async -> Int32 {
    if arguments.flags.contains("--watch") { return await commandWatch(arguments) }
    let request: RunRequest
    let loaded: LoadedRun
    do {
        request = try runRequest(arguments)
    } catch {
        fail("\(error)\n\n\(usageText)")
    }
    do {
        loaded = try EvalRun.load(request)
    } catch {
        printLoadError(error)
    }
    let progress = Progress(total: loaded.plan.requestCount, enabled: !arguments.flags.contains("--no-progress"))
    let interrupts = Interrupts()
    interrupts.install()
    let transport = makeTransport()
    let box = OutcomeBox()
    let task = Task {
        do {
            let outcome = try await EvalRun.execute(loaded, request, transport: transport,
                                                    onEvent: { event in
                                                        if case let .recorded(result) = event { progress.record(result) }
                                                    },
                                                    onBackendsReady: { interrupts.watch($0) })
            box.set(.success(outcome))
        } catch {
            box.set(.failure(error))
        }
    }
    interrupts.watch(task)
    await task.value
    progress.finish()
    switch box.get() {
    case let .success(outcome):
        print("evalbench: \(outcome.results.count) results written to \(outcome.outputDirectory.path)")
        print("evalbench: report: \(outcome.outputDirectory.appendingPathComponent("summary.md").path)")
        if let comparison = outcome.comparison {
            print("evalbench: compared with \(request.baselineDirectory ?? "the baseline"): \(comparison.verdict)")
            print("evalbench: comparison: \(outcome.outputDirectory.appendingPathComponent("compare.md").path)")
        }
        for note in outcome.verdict.notes { print("evalbench: note: \(note)") }
        for reason in outcome.verdict.reasons { print("evalbench: \(reason)") }
        if interrupts.wasInterrupted { return ExitCode.interrupted }
        return outcome.verdict.exitCode
    case let .failure(error):
        fail("the run stopped: \(error)", code: ExitCode.infrastructure)
    case nil:
        return ExitCode.interrupted
    }
}

/// `run --watch`: runs, then re-runs whenever a suite, its dataset or the config changes.
/// The response cache is on (unless --no-cache), so only changed requests reach a model; each
/// iteration rewrites the report and prints what flipped since the previous one.
func commandWatch(_ arguments: Arguments) async -> Int32 {
    // Each line goes out at once, also into a pipe (print buffers until exit there).
    func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    var request: RunRequest
    do {
        request = try runRequest(arguments)
    } catch {
        fail("\(error)\n\n\(usageText)")
    }
    if !arguments.flags.contains("--no-cache"), request.cacheDirectory == nil {
        request.cacheDirectory = ResponseCache.defaultDirectory(environment: ProcessInfo.processInfo.environment)
    }
    if request.outputDirectory == nil {
        let name = request.suitePaths.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }.joined(separator: "+")
        request.outputDirectory = "reports/\(name)-watch"
    }
    let interrupts = Interrupts()
    interrupts.install()
    var previous: [RequestResult]?
    var watcher = FileWatcher(paths: [])
    var iteration = 0
    while !interrupts.wasInterrupted {
        iteration += 1
        var watched = request.suitePaths + [request.configPath ?? "evalbench.json"]
        do {
            let loaded = try EvalRun.load(request)
            watched += loaded.suites.compactMap(\.datasetFile)
            let box = OutcomeBox()
            let task = Task {
                do {
                    box.set(.success(try await EvalRun.execute(loaded, request, transport: makeTransport(),
                                                               onBackendsReady: { interrupts.watch($0) })))
                } catch {
                    box.set(.failure(error))
                }
            }
            interrupts.watch(task)
            await task.value
            if case let .success(outcome) = box.get() {
                say("evalbench: watch iteration \(iteration): \(outcome.results.count) results; report \(outcome.outputDirectory.appendingPathComponent("summary.md").path)")
                if let previous {
                    for line in WatchDiff.lines(previous: previous, current: outcome.results) { say("  \(line)") }
                }
                previous = outcome.results
            } else if case let .failure(error) = box.get() {
                say("evalbench: watch iteration \(iteration) stopped: \(error)")
            }
        } catch let error as LoadError {
            for diagnostic in error.diagnostics { say(diagnostic.description) }
            say("evalbench: fix the problems above; watching for changes")
        } catch {
            say("evalbench: \(error)")
        }
        watcher = FileWatcher(paths: Array(Set(watched)).sorted())
        say("evalbench: watching \(watcher.paths.joined(separator: ", ")) (Ctrl-C stops)")
        var changed: [String] = []
        while changed.isEmpty, !interrupts.wasInterrupted {
            try? await Task.sleep(nanoseconds: 500_000_000)
            changed = watcher.changes()
        }
        if !changed.isEmpty { say("evalbench: changed: \(changed.joined(separator: ", "))") }
    }
    return ExitCode.interrupted
}

final class OutcomeBox: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Result<RunOutcome, Error>?
    func set(_ result: Result<RunOutcome, Error>) { lock.withLock { value = result } }
    func get() -> Result<RunOutcome, Error>? { lock.withLock { value } }
}

func commandValidate(_ arguments: Arguments) -> Int32 {
    do {
        let request = try runRequest(arguments)
        let loaded = try EvalRun.load(request)
        for suite in loaded.suites {
            let turns = suite.cases.reduce(0) { $0 + $1.turns.count }
            print("\(suite.file): ok: suite '\(suite.name)', \(suite.cases.count) cases, \(turns) turns")
        }
        print("config: ok: backends \(loaded.backendNames.joined(separator: ", "))")
        return ExitCode.success
    } catch let error as Arguments.UsageError {
        fail("\(error)")
    } catch {
        printLoadError(error)
    }
}

func commandPlan(_ arguments: Arguments) async -> Int32 {
    do {
        let loaded = try EvalRun.load(try runRequest(arguments))
        print("key\tturns")
        for caseRun in loaded.plan.caseRuns { print("\(caseRun.key)\t\(caseRun.evalCase.turns.count)") }
        print("\(loaded.plan.caseRuns.count) case runs, \(loaded.plan.requestCount) requests")
        printReasoningPlan(loaded)
        await printContextFit(loaded)
        return ExitCode.success
    } catch let error as Arguments.UsageError {
        fail("\(error)")
    } catch {
        printLoadError(error)
    }
}

/// How each planned backend will send each planned level, or why that level will be skipped.
func printReasoningPlan(_ loaded: LoadedRun) {
    let context = BackendContext(environment: ProcessInfo.processInfo.environment, transport: makeTransport(),
                                 logDirectory: FileManager.default.temporaryDirectory,
                                 defaultConcurrency: loaded.config.defaults.concurrency,
                                 backendConfigs: loaded.config.backends)
    for name in loaded.backendNames {
        let levels = Set(loaded.plan.caseRuns.filter { $0.backend == name }.map(\.reasoning))
        guard let config = loaded.config.backend(named: name),
              let backend = try? config.makeBackend(context: context) else { continue }
        for level in ReasoningLevel.allCases where levels.contains(level) {
            switch backend.reasoningSupport(level) {
            case let .supported(how): print("reasoning \(name)/\(level.rawValue): \(how)")
            case let .unsupported(why): print("reasoning \(name)/\(level.rawValue): skipped: \(why)")
            }
        }
    }
}

/// The context-fit pre-flight: per backend, its window and the cases whose largest turn does
/// not fit it. Managed servers are not started, so their inputs are estimated.
func printContextFit(_ loaded: LoadedRun) async {
    let context = BackendContext(environment: ProcessInfo.processInfo.environment, transport: makeTransport(),
                                 logDirectory: FileManager.default.temporaryDirectory,
                                 defaultConcurrency: loaded.config.defaults.concurrency,
                                 backendConfigs: loaded.config.backends)
    var backends: [(name: String, backend: any Backend, config: BackendConfig?)] = []
    for name in loaded.backendNames {
        guard let config = loaded.config.backend(named: name),
              let backend = try? config.makeBackend(context: context) else { continue }
        backends.append((name, backend, config))
    }
    for report in await ContextFit.check(loaded.plan, backends: backends) {
        guard let window = report.window else {
            print("context \(report.backend): window unknown; set contextSize to check that its cases fit")
            continue
        }
        let counting = report.source == .counted ? "inputs counted by the model's tokenizer"
            : "inputs estimated (about \(TokenEstimate.charactersPerToken) characters a token)"
        print("context \(report.backend): \(window.tokens) tokens (\(window.origin)); \(counting); earlier answers and this answer at maxOutputTokens each")
        for budget in report.budgets {
            func share(_ tokens: Int) -> String {
                String(format: "%.1f%%", Double(tokens) / Double(window.tokens) * 100)
            }
            var parts = ["instructions \(share(budget.instructions))"]
            if budget.schema > 0 { parts.append("schema \(share(budget.schema))") }
            parts += ["history \(share(budget.history))", "prompt \(share(budget.prompt))", "output \(share(budget.output))"]
            print("budget \(report.backend): \(budget.suite)/\(budget.caseID) turn \(budget.turn): \(parts.joined(separator: " · ")) = \(share(budget.total)) of \(window.tokens)")
        }
        for overflow in report.overflows {
            let outgrows = overflow.turn > 1 ? " (the conversation outgrows the window at turn \(overflow.turn))" : ""
            var line = "context \(report.backend): does not fit\(outgrows): \(overflow.suite)/\(overflow.caseID) turn \(overflow.turn) needs \(overflow.totalTokens) tokens (input \(overflow.inputTokens) + output \(overflow.outputHeadroom)) > \(window.tokens)"
            if let larger = window.larger {
                line += overflow.totalTokens > larger ? "; over \(larger) too" : "; fits \(larger)"
            }
            print(line)
        }
        print("context \(report.backend): \(report.overflows.count) of \(report.casesChecked) cases do not fit (\(report.source.rawValue))")
    }
}

func commandBackends(_ arguments: Arguments) async -> Int32 {
    let config: Config
    do {
        config = try EvalRun.loadConfig(arguments.value("--config"))
    } catch {
        printLoadError(error)
    }
    let environment = ProcessInfo.processInfo.environment
    let context = BackendContext(environment: environment, transport: makeTransport(),
                                 logDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-backends"),
                                 defaultConcurrency: config.defaults.concurrency, backendConfigs: config.backends)
    var unavailable = false
    for backendConfig in config.backends {
        let missing = ConfigLoader.checkSelection(config, backends: [backendConfig.name], environment: environment)
        print("\(backendConfig.name)  kind=\(backendConfig.kind)  model=\(backendConfig.model ?? "n/a")")
        if let problem = missing.first {
            print("  availability: unavailable: \(problem.message)")
            unavailable = true
            continue
        }
        do {
            let backend = try backendConfig.makeBackend(context: context)
            if arguments.flags.contains("--no-start") {
                print("  availability: not checked (--no-start)")
            } else {
                switch await backend.prepare() {
                case .available: print("  availability: available")
                case let .unavailable(reason):
                    print("  availability: unavailable: \(reason)")
                    unavailable = true
                case let .unavailableHere(reason):
                    // Not a failure: this platform cannot run the kind at all.
                    print("  availability: unavailable here (its case runs are skipped): \(reason)")
                }
                await backend.shutdown()
            }
            print("  concurrency: \(backend.concurrency)")
            for level in ReasoningLevel.allCases {
                switch backend.reasoningSupport(level) {
                case let .supported(how): print("  reasoning \(level.rawValue): \(how)")
                case let .unsupported(why): print("  reasoning \(level.rawValue): skipped: \(why)")
                }
            }
        } catch {
            print("  availability: unavailable: \(error)")
            unavailable = true
        }
    }
    return unavailable ? ExitCode.infrastructure : ExitCode.success
}

/// `evalbench cache clear`: removes evalbench's stored responses.
func commandCache(_ arguments: Arguments) async -> Int32 {
    guard arguments.positional == ["clear"] else { fail("usage: evalbench cache clear") }
    let cache = ResponseCache(directory: ResponseCache.defaultDirectory(environment: ProcessInfo.processInfo.environment))
    let removed = await cache.clear()
    print("evalbench: removed \(removed) cached responses from \(cache.directory.path)")
    return ExitCode.success
}

/// `evalbench compare BASELINE_DIR CURRENT_DIR`: writes compare.md and compare.csv and exits 1
/// on a significant regression.
func commandCompare(_ arguments: Arguments) -> Int32 {
    guard arguments.positional.count == 2 else {
        fail("compare needs two run directories, BASELINE_DIR and CURRENT_DIR; got \(arguments.positional.count)\n\n\(usageText)")
    }
    let thresholds: ComparisonThresholds
    do {
        thresholds = try arguments.comparisonThresholds()
    } catch {
        fail("\(error)\n\n\(usageText)")
    }
    let baselinePath = arguments.positional[0], currentPath = arguments.positional[1]
    var problems: [Diagnostic] = []
    var runs: [[RequestResult]] = []
    for (path, role) in [(baselinePath, "baseline"), (currentPath, "current")] {
        do {
            runs.append(try Comparison.readResults(inRun: path, role: role))
        } catch let diagnostic as Diagnostic {
            problems.append(diagnostic)
        } catch {
            problems.append(Diagnostic(file: path, message: "\(error)"))
        }
    }
    guard problems.isEmpty else {
        FileHandle.standardError.write(Data((LoadError(problems).description + "\n").utf8))
        fail("\(problems.count) problem\(problems.count == 1 ? "" : "s") found; nothing was compared")
    }
    let comparison = Comparison(baseline: runs[0], current: runs[1], thresholds: thresholds)
    let output = URL(fileURLWithPath: arguments.value("--out") ?? currentPath)
    do {
        try comparison.write(to: output, baselineName: baselinePath, currentName: currentPath)
        try EvalRun.appendStepSummary(from: output, file: "compare.md", environment: ProcessInfo.processInfo.environment)
    } catch {
        fail("\(error)")
    }
    print("evalbench: \(comparison.verdict)")
    print("evalbench: comparison: \(output.appendingPathComponent("compare.md").path)")
    return comparison.exitCode
}

func commandReport(_ arguments: Arguments) -> Int32 {
    guard let path = arguments.positional.first else { fail("report needs a run directory") }
    let directory = URL(fileURLWithPath: path)
    do {
        let results = try RunDirectory(directory).readResults()
        var metadata = try RunDirectory(directory).readMetadata()
        if let target = try arguments.target() { metadata.target = target }
        try EvalRun.writeReports(results, metadata: metadata, to: directory)
        print("evalbench: reports rewritten from \(results.count) results in \(directory.path)")
        return ExitCode.success
    } catch {
        printLoadError(error)
    }
}

let argv = Array(CommandLine.arguments.dropFirst())
if argv.isEmpty || argv == ["--help"] || argv == ["-h"] || argv == ["help"] {
    print(usageText)
    exit(argv.isEmpty ? ExitCode.usage : ExitCode.success)
}
if argv == ["--version"] {
    print("evalbench \(EvalBenchVersion.current)")
    exit(ExitCode.success)
}
let parsed: Arguments
do {
    parsed = try Arguments.parse(argv)
} catch {
    fail("\(error)\n\n\(usageText)")
}
let code: Int32
switch parsed.command {
case "run": code = await commandRun(parsed)
case "validate": code = commandValidate(parsed)
case "plan": code = await commandPlan(parsed)
case "backends": code = await commandBackends(parsed)
case "report": code = commandReport(parsed)
case "cache": code = await commandCache(parsed)
case "compare": code = commandCompare(parsed)
default: fail("unknown command '\(parsed.command)'\n\n\(usageText)")
}
exit(code)
