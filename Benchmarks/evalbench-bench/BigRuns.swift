// The memory budgets of issue 20, each measured in a child process of this benchmark so
// its peak resident memory (VmHWM) is its own: `report` of 1,000,000 synthetic results read
// from results.jsonl, and a 100,000-request run against an instant stub with its reports.
import EvalBench
import EvalBenchTestSupport
import Foundation

/// Writes `count` synthetic results to `url` as results.jsonl, a batch at a time: 10,000
/// cases × 5 backends × 4 levels × 5 repeats for a million, with fails, errors and unknown usage.
/// `answerBytes`, when given, makes every answer that long and its own (a model's answers).
/// `firstRepeatOnly` writes only the first of each case's 5 repeats: the same cases and
/// groups with a fifth of the requests, for the memory a request adds.
func writeSyntheticResults(count: Int, to url: URL, answerBytes: Int? = nil, firstRepeatOnly: Bool = false) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    let template = RequestResult(key: "", suite: "bench", caseID: "", turn: 1, turns: 1, variant: "default", backend: "b0", model: "m",
                                 reasoning: .none, repeatIndex: 1, tags: [], status: .pass, instructions: nil, prompt: "What is the capital of France?",
                                 output: "Paris", timing: RequestTiming(startedAt: Date(), firstTokenMs: 40, firstAnswerTokenMs: 40, endMs: 90),
                                 usage: Usage(inputTokens: 120, cachedInputTokens: 100, outputTokens: 4, source: .reported), attempts: 1,
                                 assertions: [AssertionResult(type: "contains", name: "contains \"Paris\"", passed: true)])
    let levels = ReasoningLevel.allCases
    var batch = Data()
    for index in 0..<count where !firstRepeatOnly || index / 20 % 5 == 0 {
        var result = template
        let caseIndex = index / 100
        result.caseID = "case-\(caseIndex)"
        result.backend = "b\(index % 5)"
        result.reasoning = levels[index / 5 % 4]
        result.repeatIndex = index / 20 % 5 + 1
        result.planIndex = index
        result.key = "bench/\(result.caseID)/default/\(result.backend)/\(result.reasoning.rawValue)/\(result.repeatIndex)"
        result.tags = ["feature-\(caseIndex % 4)", caseIndex % 3 == 0 ? "long" : "short"]
        // Whole microseconds, as a run records them, and most of them distinct, as measured ones are.
        let ttftMicros = 20_000 + index &* 7_919 % 97_000
        result.timing?.firstTokenMs = Double(ttftMicros) / 1000
        result.timing?.firstAnswerTokenMs = Double(ttftMicros) / 1000
        result.timing?.endMs = Double(ttftMicros + 30_000 + index &* 104_729 % 200_000) / 1000
        if index % 7 == 0 {
            result.status = .fail
            result.assertions[0].passed = false
            result.output = "Lyon, answer \(index)"
        }
        if index % 101 == 0 {
            result.status = .error
            result.errorKind = .timeout
            result.errorMessage = "timed out after 60 s"
            result.timing = nil
            // As a run records an error: no answer, so nothing graded.
            result.output = nil
            result.assertions = []
        }
        if index % 11 == 0 { result.usage.outputTokens = nil; result.usage.source = .estimated }
        if let answerBytes, result.status != .error {
            let answer = "Paris is the capital of France. " + String(index)
            result.output = String(repeating: answer + " ", count: answerBytes / (answer.utf8.count + 1) + 1).prefix(answerBytes) + ""
        }
        // The verdict quotes the answer as the grader's text checks do (cut at 200 characters).
        if let output = result.output {
            result.assertions[0].expected = "the answer to contain \"Paris\""
            result.assertions[0].actual = Grader.quote(output, limit: Grader.excerptLimit)
        }
        // As a run records a single-turn case: its score, and the case's score on its last turn.
        if result.status != .error {
            result.score = result.status == .pass ? 1 : 0
            result.caseScore = result.score
        }
        batch.append(try encoder.encode(result))
        batch.append(0x0A)
        if batch.count >= 1 << 22 { try handle.write(contentsOf: batch); batch.removeAll(keepingCapacity: true) }
    }
    try handle.write(contentsOf: batch)
}

/// In the child: reads DIR/results.jsonl and writes every report there, then prints the
/// wall seconds and the peak resident MB on one line.
func reportChild(_ directory: URL) throws {
    let clock = Stopwatch()
    let results = try RunDirectory(directory).readResultTable()
    try ReportWriter.write(ReportInput(results: results, suiteNames: ["bench"], startedAt: Date(), endedAt: Date()), to: directory)
    printChildFigures(since: clock)
}

/// In the child: runs `count` single-turn cases against an instant stub at c=64 and writes
/// their reports, then prints the wall seconds and the peak resident MB on one line.
func runChild(count: Int) async throws {
    // The fake keeps no log of the requests: its memory is not the run's.
    let instant = FakeOpenAIServer(recordsRequests: false) { _ in FakeOpenAIServer.Script(steps: [.content("ok")], usage: .init(promptTokens: 5, completionTokens: 1)) }
    try instant.start()
    let clock = Stopwatch()
    let (_, results) = try await runCases(instant, count: count, concurrency: 64)
    let directory = temporaryDirectory()
    try ReportWriter.write(ReportInput(results: results, suiteNames: ["bench"], startedAt: Date(), endedAt: Date()), to: directory)
    printChildFigures(since: clock)
    try? FileManager.default.removeItem(at: directory)
    instant.stop()
}

/// In the child: plans `cases` single-turn cases × 5 backends × 4 levels × 5 repeats (a
/// million case runs for 10,000 cases) and prints the seconds it took and the MB the process
/// grew by (its peak resident memory after, less its resident memory before) on one line.
func planChild(cases count: Int) {
    let cases = (0..<count).map { EvalCase(id: "case-\($0)", tags: ["feature-\($0 % 4)"],
                                           turns: [Turn(prompt: "What is \($0) + 1?", expect: [Assertion(.contains("ok", ignoreCase: false))])]) }
    let suite = Suite(name: "bench", file: "bench.json", cases: cases, repeatCount: 5, reasoning: ReasoningLevel.allCases)
    let before = processStatusMB("VmRSS") ?? 0
    let clock = Stopwatch()
    let plan = Planner.plan([suite], PlanSelection(backends: (0..<5).map { "b\($0)" }))
    let seconds = clock.ms() / 1000
    precondition(plan.caseRuns.count == count * 100)
    print(String(format: "%.3f %.1f", seconds, (residentHighWaterMB() ?? 0) - before))
}

/// Runs this benchmark again with `arguments` and reads the child's "seconds MB" line.
func measureChild(_ arguments: [String]) throws -> (seconds: Double, megabytes: Double)? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let fields = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    guard process.terminationStatus == 0, fields.count >= 2 else { return nil }
    return (fields[fields.count - 2], fields[fields.count - 1])
}

/// The child run `rounds` times: the median wall seconds with the lowest and highest (a shared
/// 2-core machine varies by a fifth from one run to the next), and the highest peak RSS. Nil
/// when any round failed.
func measureChildren(_ arguments: [String], rounds: Int) throws -> (median: Double, low: Double, high: Double, megabytes: Double)? {
    var figures: [(seconds: Double, megabytes: Double)] = []
    for _ in 0..<max(1, rounds) {
        guard let round = try measureChild(arguments) else { return nil }
        figures.append(round)
    }
    let seconds = figures.map(\.seconds).sorted()
    return (seconds[seconds.count / 2], seconds[0], seconds[seconds.count - 1], figures.map(\.megabytes).max() ?? 0)
}

/// Prints a child's two figures beside their budgets, or that it failed.
func printChild(_ name: String, _ figures: (seconds: Double, megabytes: Double)?, timeBudget: String, memoryBudget: String) {
    guard let figures else { return line(name, "child failed", timeBudget) }
    line("\(name): wall", format(figures.seconds, "s"), timeBudget)
    line("\(name): peak RSS", String(format: "%.0f MB", figures.megabytes), memoryBudget)
}

/// Writes the synthetic results of `writeSyntheticResults` (`count` of them) as the `shards`
/// parts of a sharded run, `DIR/part-K` each, split by case as `run --shard K/N` splits them,
/// with a run.json recording its shard: what `merge-child` merges.
func writeSyntheticShards(count: Int, shards: Int, to directory: URL) throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let whole = directory.appendingPathComponent("whole.jsonl")
    try writeSyntheticResults(count: count, to: whole)
    defer { try? FileManager.default.removeItem(at: whole) }
    // Synthetic result i is of case i / 100 (see writeSyntheticResults).
    let cases = (0..<(count + 99) / 100).map { "bench/case-\($0)" }
    var handles: [FileHandle] = []
    var requests = [Int](repeating: 0, count: shards)
    for index in 1...shards {
        let part = directory.appendingPathComponent("part-\(index)")
        try FileManager.default.createDirectory(at: part, withIntermediateDirectories: true)
        let results = part.appendingPathComponent(RunDirectory.FileName.results)
        _ = FileManager.default.createFile(atPath: results.path, contents: nil)
        handles.append(try FileHandle(forWritingTo: results))
    }
    // Read 4 MiB at a time, each line to its case's shard.
    let reader = try FileHandle(forReadingFrom: whole)
    defer { try? reader.close() }
    var batches = [Data](repeating: Data(), count: shards)
    var line = 0, pending = Data()
    while let chunk = try reader.read(upToCount: 1 << 22), !chunk.isEmpty {
        pending.append(chunk)
        var start = pending.startIndex
        for position in pending.indices where pending[position] == 0x0A {
            let shard = Shard.of(suite: "bench", caseID: "case-\(line / 100)", count: shards) - 1
            batches[shard].append(pending[start...position])
            requests[shard] += 1
            line += 1
            start = position + 1
        }
        pending = Data(pending[start...])
        for shard in 0..<shards where batches[shard].count >= 1 << 22 {
            try handles[shard].write(contentsOf: batches[shard])
            batches[shard].removeAll(keepingCapacity: true)
        }
    }
    for index in 0..<shards {
        try handles[index].write(contentsOf: batches[index])
        try handles[index].close()
        var metadata = RunMetadata(toolVersion: "bench", arguments: [], suites: [.init(path: "bench.json", suite: "bench", sha256: "0")],
                                   config: Config(file: nil, backends: []), gitCommit: nil, host: .current(),
                                   startedAt: Date(), endedAt: Date(), backends: [])
        // Made as run.json holds it (its fields have no public initializer).
        let record: [String: Any] = ["index": index + 1, "count": shards, "partitionKey": Shard.partitionKey, "planSHA256": "bench",
                                     "cases": cases, "caseRuns": requests[index], "requests": requests[index],
                                     "caseRunsOfEachCase": ["bench": syntheticCaseRuns]]
        metadata.shard = try JSONDecoder().decode(ShardRecord.self, from: JSONSerialization.data(withJSONObject: record))
        try metadata.write(to: directory.appendingPathComponent("part-\(index + 1)").appendingPathComponent(RunDirectory.FileName.metadata))
    }
}

/// The case runs every synthetic case has, in the order of its results (`writeSyntheticResults`:
/// result i is of backend i mod 5, level i / 5 mod 4, repeat i / 20 mod 5 + 1), as run.json names them.
let syntheticCaseRuns = (0..<100).map { run in
    "default/b\(run % 5)/\(ReasoningLevel.allCases[run / 5 % 4].rawValue)/\(run / 20 % 5 + 1)"
}

/// In a child: the line `measureChild` reads, the wall seconds since `clock` and the peak resident MB.
func printChildFigures(since clock: Stopwatch) {
    print(String(format: "%.3f %.0f", clock.ms() / 1000, residentHighWaterMB() ?? -1))
}

/// In the child: `evalbench merge` of the parts in DIR (`writeSyntheticShards`) into DIR/merged,
/// then prints the wall seconds and the peak resident MB on one line.
func mergeChild(_ directory: URL) throws {
    let clock = Stopwatch()
    let parts = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("part-") }.sorted()
    var request = MergeRequest(partDirectories: parts.map { directory.appendingPathComponent($0).path },
                               outputDirectory: directory.appendingPathComponent("merged").path)
    request.gate = Gate(minPassRate: 0)
    request.environment = [:]
    let outcome = try RunMerge.execute(request)
    guard outcome.results.count > 0, outcome.missing.isEmpty else {
        FileHandle.standardError.write(Data("merge-child: \(outcome.results.count) results, missing: \(outcome.missing)\n".utf8))
        exit(1)
    }
    printChildFigures(since: clock)
}

/// In the child: `evalbench compare` of the runs in BASE and CURRENT (compare.md and
/// compare.csv written into CURRENT), then prints the wall seconds and the peak resident MB.
func compareChild(baseline: URL, current: URL) throws {
    let clock = Stopwatch()
    let comparison = Comparison(baseline: try Comparison.readResults(inRun: baseline.path, role: "baseline"),
                                current: try Comparison.readResults(inRun: current.path, role: "current"))
    try comparison.write(to: current, baselineName: baseline.path, currentName: current.path)
    printChildFigures(since: clock)
}

/// In the child: what `run --resume DIR` does before it sends anything (the finished case runs
/// of DIR's results found, checked against run.json's digests and looked up in the plan they
/// are of, as `EvalRun.load` does, and written as the new run's results.jsonl, in a directory
/// of its own, as `EvalRun.execute` does), then prints the wall seconds and the peak resident MB.
func resumeChild(_ directory: URL) throws {
    let clock = Stopwatch()
    let out = RunDirectory(temporaryDirectory())
    defer { try? FileManager.default.removeItem(at: out.url) }
    // The plan of `writeSyntheticResults`'s million: 10,000 cases × 5 backends × 4 levels × 5 repeats.
    let suite = Suite(name: "bench", cases: (0..<10_000).map { EvalCase(id: "case-\($0)", prompt: "What is the capital of France?", expect: []) })
    let backends = (0..<5).map { "b\($0)" }
    let plan = Planner.plan([suite], PlanSelection(backends: backends, reasoning: ReasoningLevel.allCases, repeatCount: 5))
    let recorded = RunMetadata.SuiteFile(path: "", suite: suite.name, sha256: "",
                                         cases: suite.cases.reduce(into: [:]) { $0[$1.id] = ResumeCheck.digest($1) },
                                         variants: ResumeCheck.variantDigests(of: suite))
    let metadata = RunMetadata(toolVersion: "bench", arguments: [], suites: [recorded], config: Config(backends: []), gitCommit: nil,
                               host: .current(), startedAt: Date(), endedAt: nil, backends: [])
    let resumed = try ResumedRun.read(RunDirectory(directory), plan: plan.caseRuns,
                                      check: ResumeCheck(metadata, suites: [suite], config: Config(backends: []), backends: backends))
    let kept = try out.writeResults(streaming: resumed.results)
    guard kept.count > 0, resumed.unplanned.count == 0, resumed.staleCaseRuns == 0 else { exit(1) }
    printChildFigures(since: clock)
}
