import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

/// A one-backend run against `server`, writing results.jsonl to `store` (a new file unless given).
private func run(_ server: FakeOpenAIServer, cases: [EvalCase], pricing: Pricing? = nil,
                 store given: ResultStore? = nil) async throws -> (results: [RequestResult], store: ResultStore) {
    let out = PackagePaths.temporaryDirectory("hostile")
    defer { try? FileManager.default.removeItem(at: out) }
    let backend = OpenAIBackend(name: "fake", model: "fake-model", baseURL: server.baseURL.appendingPathComponent("v1"),
                                apiKey: "sk-hostile-secret", concurrency: 1, transport: URLSessionStreamTransport())
    let store = try given ?? ResultStore(url: out.appendingPathComponent("results.jsonl"))
    let runner = Runner(backends: ["fake": backend], store: store, concurrency: 1, timeoutSeconds: 10,
                        retryPolicy: RetryPolicy(maxRetries: 0), pricing: pricing.map { ["fake": $0] } ?? [:])
    let suite = Suite(name: "s", file: "s.json", cases: cases)
    await runner.run(Planner.plan([suite], PlanSelection(backends: ["fake"])), availability: ["fake": .available])
    if given == nil {
        try store.close()
        #expect(try ResultStore.read(out.appendingPathComponent("results.jsonl")).count == store.all().count,
                "every result kept in memory is on disk too")
    }
    return (store.all().sorted { $0.caseID < $1.caseID }, store)
}

private func cases(_ count: Int, expect: [Assertion] = []) -> [EvalCase] {
    (0..<count).map { EvalCase(id: "c\($0)", turns: [Turn(prompt: "q\($0)", expect: expect)]) }
}

@Suite("Hostile servers and absurd figures: nothing traps, nothing impossible is summed", .serialized)
struct HostileFigureTests {
    @Test("two replies with prompt_tokens 2^63−1 are recorded as suspect, left out of the sums, and every report writes")
    func maximalTokenCounts() async throws {
        let server = FakeOpenAIServer { _ in
            FakeOpenAIServer.Script(steps: [.content("ok")], usage: .init(promptTokens: Int.max, completionTokens: Int.max))
        }
        try server.start()
        defer { server.stop() }
        let (results, _) = try await run(server, cases: cases(2), pricing: Pricing(inputPerMTok: 1, outputPerMTok: 2))
        #expect(results.count == 2)
        #expect(results.allSatisfy { $0.usage.inputTokens == Int.max }, "recorded as reported")
        #expect(results.allSatisfy { $0.usage.suspect?.contains("input_tokens 9223372036854775807") == true })
        #expect(results.allSatisfy { $0.costUSD == nil && $0.unknownFigures?.first?.contains("implausible") == true })
        let aggregate = RunAggregate(results)
        let group = try #require(aggregate.groups.first)
        #expect(group.usage.inputTokens == nil, "a suspect figure is not summed")
        #expect(group.usage.suspectRequests == 2)
        let directory = PackagePaths.temporaryDirectory("hostile-report")
        defer { try? FileManager.default.removeItem(at: directory) }
        try ReportWriter.write(ReportInput(results: results, suiteNames: ["s"], startedAt: Date(), endedAt: Date()), to: directory)
        let summary = try String(contentsOf: directory.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("2 of 2 requests reported impossible or unreadable usage"), "the aggregates say what they left out")
    }

    @Test("pricing with negative or overflowing tokens gives an unknown cost, never a trap")
    func negativeTokensPriced() {
        let pricing = Pricing(inputPerMTok: 3, cachedInputPerMTok: 0.3, outputPerMTok: 15)
        #expect(pricing.costUSD(for: Usage(inputTokens: 5, cachedInputTokens: Int.min, outputTokens: 1)) == nil)
        #expect(pricing.costUSD(for: Usage(inputTokens: -5, outputTokens: 1)) == nil)
        #expect(pricing.costUSD(for: Usage(inputTokens: Int.max, cachedInputTokens: -1, outputTokens: Int.max)) == nil)
        #expect(pricing.pricedCost(for: Usage(inputTokens: 10, outputTokens: -7)).unknownBecause?.contains("output_tokens -7 is negative") == true)
        #expect(pricing.costUSD(for: Usage(inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 0)) == 3, "plausible figures are still priced")
    }

    @Test("the Anthropic and Gemini normalisers leave sums of 2^63−1 unknown instead of trapping, and flag them")
    func normalisersSaturate() {
        let anthropic = AnthropicUsageNormaliser.usage(AnthropicUsage(inputTokens: Int.max, outputTokens: 1,
                                                                      cacheCreationInputTokens: Int.max, cacheReadInputTokens: Int.max))
        #expect(anthropic.inputTokens == nil)
        #expect(anthropic.checked().suspect?.hasPrefix("input_tokens 9223372036854775807 is above") == true)
        let gemini = GeminiUsageNormaliser.usage(GeminiUsage(promptTokenCount: Int.max, candidatesTokenCount: Int.max,
                                                             thoughtsTokenCount: Int.max, toolUsePromptTokenCount: Int.max))
        #expect(gemini.inputTokens == nil && gemini.outputTokens == nil && gemini.reasoningTokens == Int.max)
        #expect(gemini.checked().suspect?.hasPrefix("promptTokenCount 9223372036854775807 is above") == true)
        let negative = GeminiUsageNormaliser.usage(GeminiUsage(promptTokenCount: Int.min, toolUsePromptTokenCount: Int.min))
        #expect(negative.inputTokens == nil)
        #expect(negative.implausibility?.contains("negative") == true)
        var totals = UsageTotals()
        totals.add(anthropic)
        totals.add(gemini)
        totals.add(Usage(inputTokens: 10, cachedInputTokens: 4, outputTokens: 2, source: .reported))
        #expect(totals.suspectRequests == 2)
        #expect(totals.inputTokens == nil && totals.reported(.input) == 1 && totals.reportedTotal(.input) == 10,
                "impossible figures count as not reported, so the sum over all three is unknown")
    }

    @Test("negative usage and cached above prompt are kept as reported, flagged, and give no cost or 1000% hit ratio")
    func impossibleFigures() {
        let negative = Usage(inputTokens: -5, outputTokens: 3, source: .reported).checked()
        #expect(negative.suspect == "input_tokens -5 is negative")
        let cachedAbove = Usage(inputTokens: 10, cachedInputTokens: 100, outputTokens: 3, source: .reported).checked()
        #expect(cachedAbove.suspect?.contains("exceed input_tokens 10") == true)
        #expect(cachedAbove.cacheHitRatio == nil, "not a 1000% cache hit")
        #expect(Pricing(inputPerMTok: 1, outputPerMTok: 1).costUSD(for: negative) == nil, "not −0.000007 USD")
        let reasoningAbove = Usage(inputTokens: 10, outputTokens: 3, reasoningTokens: 4).checked()
        #expect(reasoningAbove.suspect?.contains("reasoning_tokens 4 exceed output_tokens 3") == true)
        #expect(Usage(inputTokens: 10, cachedInputTokens: 10, outputTokens: 0, reasoningTokens: 0).checked().suspect == nil)
        var totals = UsageTotals()
        totals.add(cachedAbove)
        totals.add(Usage(inputTokens: 100, cachedInputTokens: 50, outputTokens: 1))
        #expect(totals.cacheHitRatio == 0.5)
    }
}

@Suite("A run that cannot record is a failed run", .serialized)
struct UnrecordableRunTests {
    @Test("outputPerMTok 1e308 makes the cost null with a reason, and the result is still recorded")
    func infiniteCost() async throws {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")], usage: .init(promptTokens: 5, completionTokens: 1_000)) }
        try server.start()
        defer { server.stop() }
        let (results, store) = try await run(server, cases: cases(2), pricing: Pricing(outputPerMTok: 1e308))
        #expect(results.count == 2)
        #expect(results.allSatisfy { $0.costUSD == nil })
        #expect(results.allSatisfy { $0.unknownFigures?.first?.contains("not a finite number") == true })
        #expect(store.failure == nil)
    }

    @Test("two assertion weights of 1e308 leave the score null instead of NaN, and the result is recorded")
    func infiniteWeights() async throws {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        let expect = [Assertion(.contains("ok", ignoreCase: false), weight: 1e308), Assertion(.contains("no", ignoreCase: false), weight: 1e308)]
        let (results, _) = try await run(server, cases: cases(1, expect: expect))
        let result = try #require(results.first)
        #expect(result.score == nil)
        #expect(result.status == .fail)
        let encoded = try ResultStore.makeEncoder().encode(result.withFiniteFigures())
        #expect(!encoded.isEmpty)
    }

    /// A results.jsonl path in a new temporary directory (the caller removes the directory).
    private static func resultsFile(_ name: String) throws -> URL {
        let url = PackagePaths.temporaryDirectory(name).appendingPathComponent("results.jsonl")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        return url
    }

    /// A result whose cost is infinite and whose score is NaN.
    private static func nonFiniteResult() -> RequestResult {
        var result = RequestResult(key: "s/a/default/p/none/1", suite: "s", caseID: "a", turn: 1, turns: 1, variant: "default",
                                   backend: "p", model: "m", reasoning: .none, repeatIndex: 1, tags: [], status: .pass,
                                   instructions: nil, prompt: "q", output: "a", costUSD: .infinity)
        result.score = .nan
        return result
    }

    @Test("a non-finite figure that reaches the store is stored as null with a note, not lost")
    func nonFiniteFiguresStored() async throws {
        let url = try Self.resultsFile("finite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let result = Self.nonFiniteResult()
        let store = try ResultStore(url: url)
        try store.append(result)
        try store.close()
        let read = try ResultStore.read(url)
        #expect(read.first?.costUSD == nil && read.first?.score == nil)
        #expect(read.first?.unknownFigures?.count == 2)
    }

    @Test("a result encoded by its caller is written as the store would write it, and one that failed to encode is the store's failure")
    func encodedByCaller() async throws {
        let url = try Self.resultsFile("encoded")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let result = Self.nonFiniteResult()
        let store = try ResultStore(url: url)
        let encoded = ResultStore.encoded(result)
        try store.append(encoded)
        let line = try ResultStore.makeEncoder().encode(result.withFiniteFigures())
        #expect(try Data(contentsOf: url) == line + Data([0x0A]))
        struct Unencodable: Error {}
        var unencodable = result
        unencodable.key = "s/b/default/p/none/1"
        #expect(throws: ResultWriteFailure.self) {
            try store.append(ResultStore.Encoded(result: unencodable, line: .failure(Unencodable())))
        }
        #expect(store.failure?.key == "s/b/default/p/none/1")
        #expect(throws: ResultWriteFailure.self) { try store.append(result) }
        try store.close()
        #expect(try ResultStore.read(url) == [result.withFiniteFigures()])
    }

    @Test("results appended from many threads at once are all in the file, once each, and kept in the file's order")
    func concurrentAppends() async throws {
        let url = try Self.resultsFile("concurrent")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try ResultStore(url: url)
        let threads = 8, each = 400
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<each {
                let result = fixtureResult(caseID: "t\(thread)-\(index)", status: .pass, latencyMs: Double(index))
                // One thread in turn writes what the others queued; none may throw.
                do { try store.append(result) } catch { Issue.record("append threw \(error)") }
            }
        }
        try store.close()
        var repeated: [Diagnostic] = []
        let read = try ResultStore.read(url) { repeated.append($0) }
        #expect(repeated.isEmpty, "a line written twice would be skipped on reading, with a warning: \(repeated.prefix(2))")
        #expect(read.count == threads * each)
        #expect(Set(read.map(\.caseID)).count == threads * each, "no result is written twice or lost")
        #expect(read.map(\.caseID) == store.all().map(\.caseID), "the run's table is in the file's order")
        for thread in 0..<threads {
            let mine = read.filter { $0.caseID.hasPrefix("t\(thread)-") }.map(\.caseID)
            #expect(mine == (0..<each).map { "t\(thread)-\($0)" }, "each thread's results are in the order it appended them")
        }
    }

    @Test("a results.jsonl that cannot be written (a full disk) stops the run before the next request")
    func fullDiskStopsTheRun() async throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")]) }
        try server.start()
        defer { server.stop() }
        let store = try ResultStore(url: URL(fileURLWithPath: "/dev/full"))
        let (results, _) = try await run(server, cases: cases(20), store: store)
        let failure = try #require(store.failure)
        #expect(failure.path == "/dev/full")
        #expect(failure.cause.lowercased().contains("space"), "the cause is named: \(failure.cause)")
        #expect(failure.description.contains("could not write the result of s/c0/default/fake/none/1"))
        #expect(results.isEmpty)
        #expect(server.requests.count == 1, "no request is sent, and paid for, after the first result was lost")
    }

    @Test("a run whose gates saw no case exits 1 with 'no case ran', unless empty runs are allowed")
    func emptyRunFails() {
        let verdict = Gate().evaluate([], unavailableBackends: [])
        #expect(verdict.exitStatus == .gateFailed)
        #expect(verdict.reasons.first?.hasPrefix("no case ran") == true)
        #expect(Gate(minPassRate: 0).evaluate([], unavailableBackends: []).exitStatus == .gateFailed)
        #expect(Gate(allowsEmptyRun: true).evaluate([], unavailableBackends: []).exitStatus == .success)
        let skipped = RequestResult(key: "s/a/default/p/none/1", suite: "s", caseID: "a", turn: 1, turns: 1, variant: "default",
                                    backend: "p", model: "m", reasoning: .none, repeatIndex: 1, tags: [], status: .skipped,
                                    instructions: nil, prompt: "q")
        #expect(Gate().evaluate([skipped], unavailableBackends: []).reasons.first?.contains("all 1 case runs were skipped") == true)
    }
}

@Suite("Torn results.jsonl lines anywhere")
struct TornResultsTests {
    private func line(_ caseID: String) throws -> String {
        let result = RequestResult(key: "s/\(caseID)/default/p/none/1", suite: "s", caseID: caseID, turn: 1, turns: 1, variant: "default",
                                   backend: "p", model: "m", reasoning: .none, repeatIndex: 1, tags: [], status: .pass,
                                   instructions: nil, prompt: "q", output: "a")
        return String(decoding: try ResultStore.makeEncoder().encode(result), as: UTF8.self)
    }

    @Test("a torn line mid-file is skipped with a warning naming its line; the good results around it are kept")
    func tornLineMidFile() throws {
        let directory = PackagePaths.temporaryDirectory("torn")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("results.jsonl")
        try Data("\(try line("a"))\n{\"key\":\"s/b/def\n\(try line("c"))\n".utf8).write(to: url)
        var warnings: [Diagnostic] = []
        let read = try ResultStore.read(url) { warnings.append($0) }
        #expect(read.map(\.caseID) == ["a", "c"])
        #expect(warnings.count == 1)
        #expect(warnings.first?.location?.line == 2)
        #expect(try RunDirectory(directory).finishedResults().map(\.caseID) == ["a", "c"], "--resume keeps the good results")
    }

    @Test("appending after a torn last line (space freed mid-run, or a resume) starts a line of its own")
    func appendAfterTornTail() async throws {
        let directory = PackagePaths.temporaryDirectory("torn-tail")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("results.jsonl")
        try Data("\(try line("a"))\n{\"key\":\"s/b/def".utf8).write(to: url)
        let store = try ResultStore(url: url)
        let result = try ResultStore.read(url) { _ in }
        #expect(result.map(\.caseID) == ["a"])
        var next = result[0]
        next.caseID = "c"
        next.key = next.key.replacingOccurrences(of: "/a/", with: "/c/")
        try store.append(next)
        try store.close()
        var warnings: [Diagnostic] = []
        #expect(try ResultStore.read(url) { warnings.append($0) }.map(\.caseID) == ["a", "c"])
        #expect(warnings.isEmpty, "the torn tail was cut off, not buried mid-file")
    }
}

@Suite("Unbounded answers, huge strings and HTML in answers", .serialized)
struct UnboundedInputTests {
    @Test("an answer beyond the response size cap is cut off and recorded as response_too_large")
    func responseTooLarge() async throws {
        let server = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content(String(repeating: "x", count: 300_000))]) }
        try server.start()
        defer { server.stop() }
        let backend = OpenAIBackend(name: "o", model: "m", baseURL: server.baseURL.appendingPathComponent("v1"), apiKey: nil,
                                    concurrency: 1, transport: URLSessionStreamTransport())
        let request = ModelRequest(instructions: nil, messages: [ChatMessage(role: .user, content: "hi")],
                                   options: GenerationOptions(), timeoutSeconds: 10)
        let result = await ResponseSizeLimit.$bytes.withValue(100_000) { await backend.startConversation().respond(to: request) }
        guard case let .failure(failure) = result else {
            Issue.record("an answer over the cap must fail")
            return
        }
        #expect(failure.kind == .responseTooLarge)
        #expect(failure.message.contains("100000 bytes"))
        let whole = await backend.startConversation().respond(to: request)
        #expect((try? whole.get())?.text.count == 300_000, "under the default 16 MiB cap the same answer is whole")
    }

    @Test("defaults.maxResponseBytes is read and bounded")
    func responseCapConfig() throws {
        let backends = #""backends": [{"name": "b", "kind": "openai", "baseURL": "http://127.0.0.1:9/v1"}]"#
        let config = try ConfigLoader.load(data: Data(#"{\#(backends), "defaults": {"maxResponseBytes": 2048}}"#.utf8),
                                           file: "evalbench.json", baseDirectory: "/")
        #expect(config.defaults.maxResponseBytes == 2048)
        let found = loadDiagnostics { () throws(LoadError) in
            _ = try ConfigLoader.load(data: Data(#"{\#(backends), "defaults": {"maxResponseBytes": 1e12}}"#.utf8),
                                      file: "evalbench.json", baseDirectory: "/")
        }
        #expect(found.first?.fix != nil && found.first?.location != nil)
        let empty = loadDiagnostics { () throws(LoadError) in
            _ = try ConfigLoader.load(data: Data(#"{"backends": []}"#.utf8), file: "evalbench.json", baseDirectory: "/")
        }
        #expect(empty.first?.message == "'backends' must be a non-empty array of backends, found an empty array",
                "not 'must be a non-empty array, found an array'")
    }

    @Test("a 5 MB assertion type is refused with a short message, not a 5 MB error line")
    func hugeAssertionType() throws {
        let huge = String(repeating: "x", count: 5_000_000)
        let suite = #"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "c", "prompt": "q", "expect": [{"type": "\#(huge)"}]}]}"#
        let found = loadDiagnostics { () throws(LoadError) in _ = try SuiteLoader.load(data: Data(suite.utf8), file: "s.json") }
        let diagnostic = try #require(found.first)
        #expect(diagnostic.message.hasPrefix("unknown assertion type 'xxxx"))
        #expect(diagnostic.description.utf8.count < 2_000, "\(diagnostic.description.utf8.count) bytes")
        #expect(diagnostic.message.contains("(5000000 bytes)"))
    }

    @Test("summary.md shows HTML from answers and error messages as text")
    func markdownEscapesHTML() {
        #expect(MarkdownTable.escape("<script>alert(1)</script> | x") == "&lt;script>alert(1)&lt;/script> \\| x")
        #expect(MarkdownTable.escape("p50 > 100 ms") == "p50 > 100 ms")
    }
}

@Suite("Files in the wrong encoding and rows that do not parse")
struct EncodingTests {
    @Test("a dataset row with invalid UTF-8 is refused at its line and column, as a suite would be")
    func invalidUTF8Row() {
        var data = Data("{\"q\": \"fine\"}\n{\"q\": \"ba".utf8)
        data.append(0xFF)
        data.append(contentsOf: Data("d\"}\n".utf8))
        let (rows, problems) = DatasetReader.rows(data, file: "rows.jsonl")
        #expect(rows.isEmpty)
        #expect(problems.first?.message == "a byte that is not UTF-8")
        #expect(problems.first?.location == SourceLocation(line: 2, column: 10))
    }

    @Test("a JSON Lines row that does not parse says why, at the column where it stops")
    func jsonLinesReason() {
        let (_, problems) = DatasetReader.rows(Data("{\"q\": \"a\"}\n{\"q\": tru}\n".utf8), file: "rows.jsonl")
        let problem = problems.first
        #expect(problem?.location?.line == 2)
        #expect((problem?.location?.column ?? 1) > 1)
        #expect(problem?.message.hasPrefix("row is not valid JSON: ") == true)
        #expect((problem?.message.count ?? 0) > "row is not valid JSON: ".count)
    }

    @Test("a suite saved as UTF-16 is named as UTF-16, not as \"found '�'\"")
    func utf16Suite() throws {
        var data = Data([0xFF, 0xFE])
        data.append(#"{"format": "evalbench.suite/1"}"#.data(using: .utf16LittleEndian)!)
        let found = loadDiagnostics { () throws(LoadError) in _ = try SuiteLoader.load(data: data, file: "s.json") }
        #expect(found.first?.message == "the file is UTF-16 or UTF-32, and evalbench reads UTF-8")
        #expect(found.first?.fix == "save the file as UTF-8")
        #expect(TextEncoding.problem(in: Array("plain ascii".utf8)) == nil)
    }
}

@Suite("JSON Schema patterns cannot stall grading")
struct SchemaPatternBoundTests {
    private func value(_ text: String) throws -> JSONValue {
        JSONValue(try JSONDocument(data: Data(text.utf8), file: "schema").root)
    }

    @Test("a schema pattern of catastrophic shape is refused when the schema compiles, at its pointer, with a fix")
    func catastrophicSchemaPattern() throws {
        let source = try value(#"{"type": "string", "pattern": "(.*a){25}"}"#)
        do {
            _ = try JSONSchema(validating: source)
            Issue.record("(.*a){25} must be refused")
        } catch {
            let problem = try #require(error.problems.first)
            #expect(problem.pointer.description == "/pattern")
            #expect(problem.message.contains("exponential time"))
            #expect(problem.fix != nil)
        }
        let fine = try JSONSchema(validating: try value(#"{"type": "string", "pattern": "^[a-z]+$"}"#))
        #expect(fine.validate(.string("abc")).isEmpty)
        #expect(!fine.validate(.string("ABC")).isEmpty)
    }
}

@Suite("The loaders under fuzzing")
struct LoaderFuzzTests {
    @Test("3,000 mutants of suites, configs and dataset files (seed 17) load or are refused with a location, and never trap")
    func fuzzedLoaders() async {
        for kind in LoaderFuzzer.Kind.allCases {
            let seed = Data((LoaderFuzzer.seeds[kind] ?? "").utf8)
            #expect(LoaderFuzzer.load(seed, as: kind).isEmpty, "the \(kind) seed is valid: \(LoaderFuzzer.load(seed, as: kind))")
        }
        // Seconds of work: on a thread of its own, not one of the test pool's (see `offThePool`).
        let counts = await offThePool {
            var fuzzer = LoaderFuzzer(seed: 17)
            return fuzzer.run(3_000)
        }
        #expect(counts.mutants == 3_000)
        #expect(counts.loaded > 0 && counts.refused > 0, "the mutants exercise both paths")
        #expect(counts.withoutLocation.isEmpty, "\(counts.withoutLocation.prefix(5))")
    }
}

@Suite("Control characters from a server stay out of the text reports")
struct ReportControlCharacterTests {
    @Test("escape sequences, NUL and bidirectional overrides in answers, model names and errors are escaped in .md and .csv files")
    func escapedInTextReports() throws {
        let hostile = "\u{1B}[31mRED\u{1B}[0m \u{1B}]0;title\u{07} \u{0}x \u{202E}evil\u{202C} \u{9B}2J"
        var failed = fixtureResult(caseID: "a", model: "m\u{1B}[2J", status: .fail, failedAssertion: "contains")
        failed.output = "got " + hostile
        let errored = fixtureResult(caseID: "b", model: "m\u{1B}[2J", status: .error, errorKind: .server, errorMessage: "boom " + hostile)
        let directory = PackagePaths.temporaryDirectory("control-characters")
        defer { try? FileManager.default.removeItem(at: directory) }
        try ReportWriter.write(ReportInput(results: [failed, errored], suiteNames: ["geo"], startedAt: Date(), endedAt: Date()), to: directory)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".md") || $0.hasSuffix(".csv") }
        #expect(files.contains("summary.md") && files.contains("results.csv"))
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            let raw = text.unicodeScalars.filter { scalar in
                (scalar.value < 0x20 && !"\n\r\t".unicodeScalars.contains(scalar)) || (0x7F...0x9F).contains(scalar.value)
                    || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
            }
            #expect(raw.isEmpty, "\(file) holds \(raw.map { String($0.value, radix: 16) })")
        }
        let summary = try String(contentsOf: directory.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("boom \\u{1B}[31mRED"), "escaped visibly, as the terminal shows it")
        #expect(TerminalText.safeDocument("line one\nline\ttwo\r\n") == "line one\nline\ttwo\r\n")
        // The reports' own `·`, `—`, `…` and `→` share lead bytes with C1 and bidirectional controls, and are kept.
        #expect(TerminalText.safeDocument("local · none — 3 … → ok") == "local · none — 3 … → ok")
        #expect(TerminalText.safeDocument("· \u{9B}2J — \u{202E}x \u{2066}") == "· \\u{9B}2J — \\u{202E}x \\u{2066}")
    }
}
