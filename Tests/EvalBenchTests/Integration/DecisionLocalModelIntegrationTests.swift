import EvalBenchTestSupport
import Foundation
import Testing
@testable import EvalBench

/// The answers a fake cloud model gives to the quickstart's questions: right on all but one.
private let fakeCloudAnswers: [(question: String, answer: String)] = [
    ("capital of France", "Paris"), ("capital of Japan", "Tokyo"), ("capital of Spain", "Madrid"),
    ("capital of England", "London"), ("capital of Egypt", "Cairo"), ("capital of China", "Beijing"),
    ("capital of Canada", "Toronto"), ("capital of Greece", "Athens"), ("largest planet", "Jupiter"),
    ("color is grass", "Green"), ("opposite of hot", "Cold"), ("frozen water", "Ice"),
    ("capital of Portugal", "Lisbon"), ("legs does a spider", "Eight"), ("Red Planet", "Mars"),
    ("do we live on", "Earth"),
]

/// A fake cloud backend, named as one: an OpenAI-compatible server in this process that
/// answers from `fakeCloudAnswers` after a fixed 80 ms to the first token and 140 ms in all,
/// and reports usage as a provider would: prompt tokens, the conversation's earlier part as
/// cached, two output tokens.
private func fakeCloud() -> FakeOpenAIServer {
    FakeOpenAIServer { request in
        let question = request.messages.last?.content ?? ""
        let answer = fakeCloudAnswers.first { question.contains($0.question) }?.answer ?? "unknown"
        let characters = request.messages.map(\.content.count).reduce(0, +)
        let prompt = TokenEstimate.tokens(in: String(repeating: "x", count: characters)) + 4 * request.messages.count
        let cached = request.messages.count > 2 ? prompt - TokenEstimate.tokens(in: question) - 8 : 0
        return FakeOpenAIServer.Script(
            model: "fake-cloud-1", steps: [.content(answer, afterMs: 80), .content("", afterMs: 60)],
            usage: .init(promptTokens: prompt, completionTokens: 2, totalTokens: prompt + 2, cachedTokens: cached))
    }
}

/// The quickstart on the real local model beside a priced fake cloud backend: the run a
/// developer makes to choose between them. Set EVALBENCH_DEMO_OUT to keep its reports there
/// (scripts/screenshot does, for docs/report.png).
@Suite("On-device versus cloud: cost, charts, recommendation", .enabled(if: integrationEnabled, "set EVALBENCH_INTEGRATION=1 (scripts/test does) after scripts/setup-local-model"), .serialized)
struct DecisionLocalModelIntegrationTests {
    static let pricing = Pricing(inputPerMTok: 2.5, cachedInputPerMTok: 0.25, outputPerMTok: 10)

    @Test("summary.csv, recommendation.csv, the charts and report.html agree, with costs computed by hand")
    func localVersusCloud() async throws {
        let root = PackagePaths.root
        let demo = ProcessInfo.processInfo.environment["EVALBENCH_DEMO_OUT"]
        let work = PackagePaths.temporaryDirectory("decision")
        defer { try? FileManager.default.removeItem(at: work) }
        let out = demo.map { URL(fileURLWithPath: $0) } ?? work.appendingPathComponent("out")
        if demo != nil { try? FileManager.default.removeItem(at: out) }

        let cloud = fakeCloud()
        try cloud.start()
        defer { cloud.stop() }
        let config = work.appendingPathComponent("evalbench.json")
        try Data("""
        { "backends": [
            { "name": "local", "kind": "llama-server", "model": "gemma-3-270m",
              "modelPath": "~/.cache/evalbench/models/gemma-3-270m-q4_k_m.gguf", "contextSize": 4096,
              "chatTemplateFile": "\(root.appendingPathComponent("evals/qa-chat-template.jinja").path)", "concurrency": 2 },
            { "name": "cloud", "kind": "openai", "baseURL": "\(cloud.baseURL.absoluteString)/v1", "model": "fake-cloud-1",
              "concurrency": 4,
              "pricing": { "inputPerMTok": 2.5, "cachedInputPerMTok": 0.25, "outputPerMTok": 10 } } ],
          "defaults": { "concurrency": 4, "timeoutSeconds": 120, "retries": 1 } }
        """.utf8).write(to: config)

        var request = RunRequest(suitePaths: [root.appendingPathComponent("evals/quickstart.json").path],
                                 configPath: config.path, backends: ["local", "cloud"],
                                 outputDirectory: out.path, gate: Gate(minPassRate: 0))
        request.target = 0.7
        let loaded = try EvalRun.load(request)
        let outcome = try await EvalRun.execute(loaded, request, transport: URLSessionStreamTransport())
        let results = outcome.results
        #expect(results.count == loaded.plan.requestCount)
        #expect(results.allSatisfy { $0.status != .error }, "errors: \(results.compactMap(\.errorMessage))")

        // Costs by hand from each request's reported usage: local is free, cloud is priced.
        for result in results {
            if result.backend == "local" {
                #expect(result.costUSD == 0)
            } else {
                let input = try #require(result.usage.inputTokens), cached = try #require(result.usage.cachedInputTokens)
                let output = try #require(result.usage.outputTokens)
                let expected = (Double(input - cached) * 2.5 + Double(cached) * 0.25 + Double(output) * 10) / 1_000_000
                #expect(abs(try #require(result.costUSD) - expected) < 1e-15)
            }
        }

        let summary = try csvRecords(out.appendingPathComponent("summary.csv"))
        let recommendation = try csvRecords(out.appendingPathComponent("recommendation.csv"))
        #expect(Set(summary.map { $0["backend"] }) == ["local", "cloud"])
        #expect(summary.first { $0["backend"] == "local" }?["cost_usd"] == "0")
        let cloudTotal = results.filter { $0.backend == "cloud" }.compactMap(\.costUSD).reduce(0, +)
        #expect(summary.first { $0["backend"] == "cloud" }?["cost_usd"] == DecimalText.trimmed(cloudTotal, maxPlaces: 6))

        // A recommendation for all cases and for each of the quickstart's tags, each figure of the
        // all-cases rows equal to summary.csv's.
        let tags = [Recommendation.allCasesLabel, "geography", "science", "language", "templated", "hard", "multi-turn"]
        #expect(Set(recommendation.compactMap { $0["tag"] }) == Set(tags))
        for tag in tags {
            #expect(recommendation.filter { $0["tag"] == tag }.count == 2, "\(tag): one row per backend")
            #expect(recommendation.filter { $0["tag"] == tag && $0["recommended"] == "true" }.count <= 1)
        }
        for row in summary {
            let all = try #require(recommendation.first { $0["tag"] == Recommendation.allCasesLabel && $0["backend"] == row["backend"] })
            for column in ["passed", "pass_rate", "pass_rate_low", "pass_rate_high", "latency_p50_ms", "latency_p95_ms",
                           "ttft_p50_ms", "ttft_p95_ms", "cost_usd"] {
                #expect(all[column] == row[column], "\(column) of \(row["backend"] ?? "")")
            }
        }
        let markdown = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(markdown.contains("## Recommendation"))
        for tag in tags { #expect(markdown.contains("- **\(tag)** ("), "a sentence for \(tag)") }

        // The charts: one marker per backend on each scatter, its figures those of summary.csv.
        for (file, xColumn) in [(ChartSet.passRateVsLatency, "latency_p50_ms"), (ChartSet.passRateVsCost, "cost_usd")] {
            let chart = try ParsedXML(String(contentsOf: out.appendingPathComponent(file), encoding: .utf8))
            let markers = chart.all(class: "marker").filter { $0.attributes["data-pass-rate"] != nil }
            #expect(markers.count == 2, "\(file)")
            for row in summary {
                let marker = try #require(markers.first { $0.attributes["data-group"] == "\(row["backend"]!) · none · default" })
                #expect(marker.attributes["data-pass-rate"] == row["pass_rate"])
                #expect(marker.attributes["data-pass-rate-low"] == row["pass_rate_low"])
                #expect(marker.attributes["data-pass-rate-high"] == row["pass_rate_high"])
                let x = xColumn == "cost_usd" ? marker.attributes["data-cost-usd"] : marker.attributes["data-x"]
                #expect(x == row[xColumn], "\(file) \(xColumn) of \(row["backend"]!)")
            }
        }
        let cdf = try ParsedXML(String(contentsOf: out.appendingPathComponent(ChartSet.latencyCDF), encoding: .utf8))
        for row in summary {
            let line = try #require(cdf.all("path", class: "series").first { $0.attributes["data-group"] == "\(row["backend"]!) · none · default" })
            #expect(line.attributes["data-p50"] == row["latency_p50_ms"] && line.attributes["data-p95"] == row["latency_p95_ms"])
        }
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(ChartSet.cacheByTurn).path),
                "the quickstart's conversations give a cache-by-turn chart")

        // report.html: the headline table equals summary.csv cell for cell, the recommendation and
        // every chart are on the page, and nothing is fetched from elsewhere.
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        let page = try ParsedXML(html)
        let headline = try #require(page.elements.firstIndex { $0.name == "table" && $0.attributes["class"] == "headline" })
        // A fraction reads as a percentage and keeps summary.csv's value in data-value.
        let cells = page.descendants(of: headline).filter { $0.name == "td" }.map { $0.attributes["data-value"] ?? $0.text }
        let expected = summary.flatMap { row in SummaryCSV.columns.map { row[$0].flatMap { $0.isEmpty ? "n/a" : $0 } ?? "n/a" } }
        #expect(cells == expected)
        #expect(page.all("h2").map(\.text).contains("Recommendation"))
        #expect(page.all("svg").count == 5)
        #expect(!html.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "").contains("http"))
    }

    private func csvRecords(_ url: URL) throws -> [[String: String]] {
        let rows = try parseCSV(String(contentsOf: url, encoding: .utf8))
        return rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(rows[0], $0)) }
    }
}
