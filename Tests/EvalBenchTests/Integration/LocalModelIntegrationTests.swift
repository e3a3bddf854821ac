import Foundation
import Testing
@testable import EvalBench

/// Runs the shipped quickstart on the real local model: llama.cpp's llama-server serving
/// Gemma 3 270M, started and stopped by evalbench. `scripts/test` installs both.
@Suite("Quickstart on the real local model", .enabled(if: integrationEnabled, "set EVALBENCH_INTEGRATION=1 (scripts/test does) after scripts/setup-local-model"), .serialized)
struct LocalModelIntegrationTests {
    @Test("real latency, TTFT and token counts, a cache hit on later turns, and every report file")
    func quickstart() async throws {
        let root = PackagePaths.root
        let out = PackagePaths.temporaryDirectory("quickstart")
        defer { try? FileManager.default.removeItem(at: out) }

        let request = RunRequest(suitePaths: [root.appendingPathComponent("evals/quickstart.json").path],
                                 configPath: root.appendingPathComponent("evalbench.json").path,
                                 outputDirectory: out.path, gate: Gate(minPassRate: 0.8))
        let loaded = try EvalRun.load(request)
        let outcome = try await EvalRun.execute(loaded, request, transport: URLSessionStreamTransport())
        let results = outcome.results

        #expect(results.count == loaded.plan.requestCount)
        #expect(results.allSatisfy { $0.status != .error }, "errors: \(results.compactMap(\.errorMessage))")
        for result in results {
            let timing = try #require(result.timing)
            let latency = try #require(timing.latencyMs)
            let ttft = try #require(timing.ttftMs)
            #expect(ttft > 0 && ttft <= latency)
            #expect((result.usage.inputTokens ?? 0) > 20, "\(result.key) turn \(result.turn): the prompt has a long prefix")
            #expect((result.usage.outputTokens ?? 0) >= 1)
            #expect(result.usage.source == .reported)
            #expect(result.model != nil)
        }
        let laterTurns = results.filter { $0.turns > 1 && $0.turn > 1 }
        #expect(laterTurns.count == 4)
        for turn in laterTurns {
            let ratio = try #require(turn.usage.cacheHitRatio)
            #expect(ratio > 0.5, "\(turn.key) turn \(turn.turn): cache-hit ratio \(ratio)")
        }
        let france = try #require(results.first { $0.caseID == "capital-france" })
        #expect(france.output?.contains("Paris") == true)

        let aggregate = RunAggregate(results)
        let passRate = try #require(aggregate.groups.first?.passRate)
        #expect(passRate >= 0.8, "Gemma 3 270M passes most quickstart cases; got \(passRate)")
        #expect(outcome.verdict.exitStatus == .success)

        for file in ["results.jsonl", "results.csv", "summary.csv", "summary.md", "run.json"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(file).path), "\(file) missing")
        }
        let csv = try String(contentsOf: out.appendingPathComponent("results.csv"), encoding: .utf8)
        #expect(csv.hasPrefix("suite,case,turn,variant,backend,model,reasoning,repeat,status,error_kind,latency_ms,ttft_ms,ttfa_ms,tpot_ms,output_tps,input_tokens,cached_input_tokens,output_tokens,reasoning_tokens,cache_hit_ratio,cost_usd,failed_assertions"))
        let stored = try ResultStore.read(out.appendingPathComponent("results.jsonl"))
        #expect(stored.count == results.count)
        let metadata = try RunMetadata.read(from: out.appendingPathComponent("run.json"))
        #expect(metadata.backends.first?.availability == "available")
    }

    @Test("a missing model file makes the backend unavailable with the install command")
    func missingModel() async throws {
        let config = BackendConfig(name: "local", options: LlamaServerKind(modelPath: "/nonexistent/model.gguf"))
        let backend = try config.makeBackend(context: BackendContext(
            environment: ProcessInfo.processInfo.environment, transport: URLSessionStreamTransport(),
            logDirectory: PackagePaths.temporaryDirectory("missing"), defaultConcurrency: 1))
        guard case let .unavailable(reason) = await backend.prepare() else {
            Issue.record("a missing model must be unavailable")
            return
        }
        #expect(reason.contains("scripts/setup-local-model"))
        #expect(reason.contains("/nonexistent/model.gguf"))
    }

    @Test("Ctrl-C during a run on the local model stops the llama-server that evalbench started")
    func interruptStopsServer() throws {
        let (process, log, results) = try startQuickstartAndWaitForAResult()
        #expect(!processes(writingTo: log).isEmpty, "llama-server was running with its output in the run's log")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(processes(writingTo: log).isEmpty, "llama-server is stopped after Ctrl-C")
        #expect(try ResultStore.read(results).count >= 1)
    }

    @Test("kill -9 of evalbench during a run on the local model: the watchdog stops its llama-server within seconds")
    func killNineStopsServer() throws {
        let (process, log, results) = try startQuickstartAndWaitForAResult()
        let servers = processes(writingTo: log)
        #expect(!servers.isEmpty, "llama-server was running with its output in the run's log")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        // The watchdog polls every 0.5 s, then gives SIGTERM 2 s before SIGKILL.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !processes(writingTo: log).isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        let left = processes(writingTo: log)
        #expect(left.isEmpty, "llama-server outlived a killed evalbench: \(left)")
        for pid in left { kill(pid, SIGKILL) }
        #expect(try ResultStore.read(results).count >= 1, "finished results are kept")
    }

    private func startQuickstartAndWaitForAResult() throws -> (Process, URL, URL) {
        let out = PackagePaths.temporaryDirectory("interrupt-local")
        let process = evalbenchProcess(["run", "evals/quickstart.json", "--out", out.path, "--no-progress"])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let results = out.appendingPathComponent("results.jsonl")
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, ((try? String(contentsOf: results, encoding: .utf8)) ?? "").isEmpty {
            Thread.sleep(forTimeInterval: 0.05)
        }
        return (process, out.appendingPathComponent("llama-server-local.log"), results)
    }

    /// The processes that hold `file` open (llama-server writes its log there).
    private func processes(writingTo file: URL) -> [Int32] {
        let manager = FileManager.default
        let target = file.resolvingSymlinksInPath().path
        var found: [Int32] = []
        for entry in (try? manager.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), pid != getpid() else { continue }
            let descriptors = "/proc/\(entry)/fd"
            for fd in (try? manager.contentsOfDirectory(atPath: descriptors)) ?? [] {
                if (try? manager.destinationOfSymbolicLink(atPath: "\(descriptors)/\(fd)")) == target {
                    found.append(pid)
                    break
                }
            }
        }
        return found
    }
}
