import EvalBench
import EvalBenchCommandLine
import Foundation

/// `evalbench validate`: loads and checks everything, sends nothing.
func commandValidate(_ parsed: ParsedCommand) -> ExitStatus {
    do {
        var request = parsed.runRequest()
        request.checkSecrets = parsed.has(Options.checkSecrets)
        for line in Preflight.validation(try EvalRun.load(request)) { print(line) }
        return .success
    } catch {
        failLoading(error)
    }
}

/// `evalbench plan`: the expanded matrix, the reasoning mapping and the context-fit pre-flight.
func commandPlan(_ parsed: ParsedCommand) async -> ExitStatus {
    let loaded: LoadedRun
    do {
        var request = parsed.runRequest()
        request.checkSecrets = false
        loaded = try EvalRun.load(request)
    } catch {
        failLoading(error)
    }
    if let shard = loaded.shard {
        print("shard \(shard.shard): \(shard.caseRuns) case runs, \(shard.requests) requests (the other shards' cases are left out)")
    }
    for line in await Preflight.plan(loaded, environment: ProcessInfo.processInfo.environment, transport: makeTransport()) {
        print(line)
    }
    return .success
}

/// `evalbench backends`: each configured backend, its availability and reasoning mapping.
func commandBackends(_ parsed: ParsedCommand) async -> ExitStatus {
    let config: Config
    do {
        config = try EvalRun.loadConfig(parsed.value(Options.config))
    } catch {
        failLoading(error)
    }
    return await Preflight.checkBackends(config, environment: ProcessInfo.processInfo.environment, transport: makeTransport(),
                                         start: !parsed.has(Options.noStart), say: { print($0) })
}

/// `evalbench init`: a starter config, the examples of every kind and a starter suite.
func commandInit(_ parsed: ParsedCommand) -> ExitStatus {
    let directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    do {
        for path in try StarterFiles.write(to: directory) { print("evalbench: wrote \(path)") }
    } catch {
        failLoading(error)
    }
    print("evalbench: next: scripts/setup-local-model (once), then: evalbench run evals/starter.json")
    return .success
}
