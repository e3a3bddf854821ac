import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

@Suite("evalbench's response cache: keys")
struct ResponseCacheKeyTests {
    @Test("a changed prompt, option, level, schema or repeat misses; the same request on an identical backend hits")
    func keys() {
        let request = ModelRequest(instructions: "I", messages: [ChatMessage(role: .user, content: "q")],
                                   options: GenerationOptions(temperature: 0, maxOutputTokens: 8))
        let backend = ResponseCacheIdentity.of(BackendConfig(name: "a", model: "m", options: OpenAIKind(baseURL: "http://x/v1")))
        let renamed = ResponseCacheIdentity.of(BackendConfig(name: "b", model: "m", concurrency: 8, pricing: Pricing(inputPerMTok: 1),
                                                             options: OpenAIKind(baseURL: "http://x/v1")))
        let base = ResponseCache.key(backend: backend, request: request, repeatIndex: 1)
        #expect(ResponseCache.key(backend: renamed, request: request, repeatIndex: 1) == base, "names, prices and limits do not change answers")
        var changed = request
        changed.messages[0].content = "q?"
        #expect(ResponseCache.key(backend: backend, request: changed, repeatIndex: 1) != base)
        changed = request
        changed.options.temperature = 0.7
        #expect(ResponseCache.key(backend: backend, request: changed, repeatIndex: 1) != base)
        changed = request
        changed.reasoning = .deep
        #expect(ResponseCache.key(backend: backend, request: changed, repeatIndex: 1) != base)
        changed = request
        changed.output = StructuredOutput(schema: .object(["type": .string("object")]))
        #expect(ResponseCache.key(backend: backend, request: changed, repeatIndex: 1) != base)
        #expect(ResponseCache.key(backend: backend, request: request, repeatIndex: 2) != base, "repeats stay independent samples")
        let otherModel = ResponseCacheIdentity.of(BackendConfig(name: "a", model: "m2", options: OpenAIKind(baseURL: "http://x/v1")))
        #expect(ResponseCache.key(backend: otherModel, request: request, repeatIndex: 1) != base)
    }
}

extension LoopbackNetworkTests {
    @Test("re-running an unchanged suite with --cache sends nothing, grades the same, flags every result cached and leaves them out of latency percentiles; errors are not cached")
    func cachedRerun() async throws {
        let server = FakeOpenAIServer { request in
            let question = request.messages.last?.content ?? ""
            if question.contains("fail") { return FakeOpenAIServer.Script(fault: .openAIError(status: 400, message: "bad", type: "invalid_request_error", code: nil)) }
            return FakeOpenAIServer.Script(steps: [.content(question.contains("France") ? "Paris" : "Rome", afterMs: 5)],
                                           usage: .init(promptTokens: 10, completionTokens: 1))
        }
        try server.start()
        defer { server.stop() }
        let directory = PackagePaths.temporaryDirectory("response-cache")
        defer { try? FileManager.default.removeItem(at: directory) }
        let suitePath = directory.appendingPathComponent("s.json").path
        func writeSuite(_ second: String) throws {
            try Data("""
            { "format": "evalbench.suite/1", "suite": "c", "repeat": 2,
              "cases": [ { "id": "france", "prompt": "France?", "expect": [ { "type": "contains", "value": "Paris" } ] },
                         { "id": "second", "prompt": "\(second)", "expect": [ { "type": "contains", "value": "Paris" } ] },
                         { "id": "broken", "prompt": "please fail" } ] }
            """.utf8).write(to: URL(fileURLWithPath: suitePath))
        }
        try writeSuite("Italy?")
        let configPath = directory.appendingPathComponent("evalbench.json").path
        try Data(#"{"backends": [{"name": "fake", "kind": "openai", "model": "m", "baseURL": "\#(server.baseURL.absoluteString)/v1"}], "defaults": {"retries": 0}}"#.utf8)
            .write(to: URL(fileURLWithPath: configPath))
        func run(_ name: String) async throws -> RunOutcome {
            var request = RunRequest(suitePaths: [suitePath], configPath: configPath,
                                     outputDirectory: directory.appendingPathComponent(name).path)
            request.cacheDirectory = directory.appendingPathComponent("cache")
            return try await EvalRun.execute(try EvalRun.load(request), request, transport: URLSessionStreamTransport())
        }
        let first = try await run("first")
        #expect(server.requests.count == 6, "3 cases × 2 repeats, each repeat its own request")
        #expect(first.results.allSatisfy { $0.cached == nil })
        let second = try await run("second")
        #expect(server.requests.count == 8, "only the two errored requests went out again")
        let ok = second.results.filter { $0.caseID != "broken" }
        #expect(ok.allSatisfy { $0.cached == true })
        let before: [String] = first.results.filter { $0.caseID != "broken" }.map { "\($0.key) \($0.status.rawValue)" }.sorted()
        let after: [String] = ok.map { "\($0.key) \($0.status.rawValue)" }.sorted()
        #expect(after == before, "the same verdicts")
        let broken: [RequestResult] = second.results.filter { $0.caseID == "broken" }
        #expect(broken.allSatisfy { result in result.status == .error && result.cached == nil })
        let group = try #require(RunAggregate(second.results).groups.first)
        #expect(group.latencyP50Ms == nil && group.ttftP50Ms == nil, "cached answers are not timed again")

        try writeSuite("France, again?")
        _ = try await run("third")
        #expect(server.requests.count == 12, "the changed prompt (×2 repeats) and the errors miss")
    }
}

@Suite("Response cache storage")
struct ResponseCacheStorageTests {
    static func answer(_ text: String) -> ModelResponse {
        ModelResponse(text: text, timing: RequestTiming(startedAt: Date(timeIntervalSince1970: 0), firstTokenMs: 100, firstAnswerTokenMs: 100, endMs: 200),
                      usage: Usage(inputTokens: 1, outputTokens: 1))
    }

    static func key(_ n: Int) -> String { SHA256.hex(Data("key \(n)".utf8)) }

    @Test("a stored answer comes back; the least recently used go first once the budget is passed, down to 90% of it")
    func evictsLeastRecentlyUsed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let probe = ResponseCache(directory: directory)
        await probe.store(Self.answer("x"), key: Self.key(0))
        let entrySize = CacheIndex.scan(directory).totalBytes
        #expect(entrySize > 0)
        _ = await probe.clear()

        let cache = ResponseCache(directory: directory, maximumBytes: entrySize * 10)
        for n in 0..<10 { await cache.store(Self.answer("x"), key: Self.key(n)) }
        #expect(await cache.lookup(Self.key(0))?.text == "x", "touching key 0 makes it the most recently used")
        await cache.store(Self.answer("x"), key: Self.key(10))
        let left = Set(CacheIndex.scan(directory).keys)
        #expect(left.count == 9, "11 entries over a budget of 10 evict down to 9")
        #expect(left.contains(Self.key(0)) && left.contains(Self.key(10)))
        #expect(!left.contains(Self.key(1)) && !left.contains(Self.key(2)), "the two least recently used went")
    }

    @Test("a cache that cannot store says so once, with the directory and the reason, and the run goes on uncached")
    func unwritable() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let file = work.appendingPathComponent("afile")
        try Data("x".utf8).write(to: file)
        let warnings = Warnings()
        let cache = ResponseCache(directory: file.appendingPathComponent("responses"), warn: { warnings.add($0) })
        for n in 0..<3 { await cache.store(Self.answer("x"), key: Self.key(n)) }
        #expect(warnings.all.count == 1, "\(warnings.all)")
        #expect(warnings.all.first?.hasPrefix("warning: the response cache cannot store answers in \(file.path)/responses (Not a directory)") == true,
                "\(warnings.all)")
        #expect(await cache.lookup(Self.key(0)) == nil)
        let fine = ResponseCache(directory: work.appendingPathComponent("ok"), warn: { warnings.add($0) })
        await fine.store(Self.answer("x"), key: Self.key(0))
        #expect(warnings.all.count == 1, "a cache that stores says nothing")
    }

    @Test("a new cache over an existing directory indexes what an earlier process stored")
    func indexesEarlierEntries() async {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        await ResponseCache(directory: directory).store(Self.answer("earlier"), key: Self.key(1))
        let later = ResponseCache(directory: directory)
        #expect(await later.lookup(Self.key(1))?.text == "earlier")
        #expect(await later.clear() == 1)
    }

    @Test("cache clear removes only the files evalbench wrote")
    func clearKeepsForeignFiles() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ResponseCache(directory: directory)
        await cache.store(Self.answer("a"), key: Self.key(1))
        await cache.store(Self.answer("b"), key: Self.key(2))
        let foreign = [directory.appendingPathComponent("notes.json"),
                       directory.appendingPathComponent(String(Self.key(1).prefix(2))).appendingPathComponent("mine.json"),
                       directory.appendingPathComponent("ab").appendingPathComponent(String(repeating: "c", count: 64) + ".json")]
        for url in foreign {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: url)
        }
        #expect(await cache.clear() == 2)
        for url in foreign { #expect(FileManager.default.fileExists(atPath: url.path), "\(url.lastPathComponent) is not evalbench's") }
        #expect(await cache.lookup(Self.key(1)) == nil)
    }
}

private final class Warnings: @unchecked Sendable {
    // @unchecked: `lines` is only touched under `lock`.
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
