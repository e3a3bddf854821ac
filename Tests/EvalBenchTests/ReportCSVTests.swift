import Foundation
import Testing
@testable import EvalBench

@Test("results.csv starts with exactly the header of DESIGN.md, then the tool columns, then usage_suspect")
func resultsCSVHeader() {
    let firstLine = ResultsCSV.render([]).components(separatedBy: "\r\n")[0]
    #expect(firstLine == "suite,case,turn,variant,backend,model,reasoning,repeat,status,error_kind,latency_ms,ttft_ms,ttfa_ms,tpot_ms,output_tps,input_tokens,cached_input_tokens,output_tokens,reasoning_tokens,cache_hit_ratio,cost_usd,failed_assertions"
             + ",tool_calls,tool_rounds,usage_suspect")
}

@Test("summary.csv starts with exactly the header of DESIGN.md, then the percentile, goodput, tool and model-count columns")
func summaryCSVHeader() {
    let firstLine = SummaryCSV.render([]).components(separatedBy: "\r\n")[0]
    #expect(firstLine == "backend,model,reasoning,variant,cases,passed,failed,errors,skipped,pass_rate,pass_rate_low,pass_rate_high,latency_p50_ms,latency_p95_ms,ttft_p50_ms,ttft_p95_ms,input_tokens,cached_input_tokens,output_tokens,reasoning_tokens,cache_hit_ratio,cost_usd"
             + ",latency_p90_ms,latency_p99_ms,ttft_p90_ms,ttft_p99_ms,goodput,requests_sent,requests_reporting_input,requests_reporting_cached,requests_reporting_output,requests_reporting_reasoning,requests_with_cost,token_source,tool_calls,tool_rounds,distinct_models,model_requests")
}

@Test("A results.csv row formats times, ratios, cost and failed assertions, and leaves unreported cells empty")
func resultsCSVRow() {
    var failing = fixtureResult(caseID: "capital-france", status: .fail, latencyMs: 250, ttftMs: 50,
                                usage: Usage(inputTokens: 300, cachedInputTokens: 100, outputTokens: 11),
                                failedAssertion: "says Paris", costUSD: 0.0000125)
    failing.assertions.append(AssertionResult(type: "regex", name: "=one word", passed: false))
    failing.assertions.append(AssertionResult(type: "regex", name: "quiet", passed: true))
    let unreported = fixtureResult(caseID: "x", turn: 2, turns: 2, model: nil, repeatIndex: 3, status: .error,
                                   errorKind: .contextOverflow)
    let lines = ResultsCSV.render([failing, unreported]).components(separatedBy: "\r\n")
    #expect(lines[1] == "geo,capital-france,1,default,local,gemma-3-270m,none,1,fail,,250.00,50.00,50.00,20.00,44.00,300,100,11,,0.3333,0.000013,says Paris; =one word,,,")
    #expect(lines[2] == "geo,x,2,default,local,,none,3,error,context_overflow,,,,,,,,,,,,,,,", "a turn without tools has empty tool cells")
    #expect(lines[3] == "")
    #expect(lines.count == 4)
}

@Test("A results.csv row of usage that cannot be true shows none of its figures, only why, in usage_suspect")
func resultsCSVSuspectRow() {
    let negative = fixtureResult(caseID: "negative", status: .pass, latencyMs: 250, ttftMs: 50,
                                 usage: Usage(inputTokens: -5, cachedInputTokens: 0, outputTokens: 11, source: .reported).checked())
    let absurd = fixtureResult(caseID: "absurd", status: .pass, latencyMs: 250, ttftMs: 50,
                               usage: Usage(inputTokens: Int.max, outputTokens: 3, source: .reported))
    let cachedAbove = fixtureResult(caseID: "cached", status: .fail, latencyMs: 250, ttftMs: 50,
                                    usage: Usage(inputTokens: 100, cachedInputTokens: 500, outputTokens: 11, reasoningTokens: 2),
                                    failedAssertion: "says Paris", costUSD: 0.002)
    let lines = ResultsCSV.render([negative, absurd, cachedAbove]).components(separatedBy: "\r\n")
    func figures(_ caseID: String, _ status: String) -> String { "geo,\(caseID),1,default,local,gemma-3-270m,none,1,\(status),,250.00,50.00,50.00" }
    #expect(lines[1] == figures("negative", "pass") + String(repeating: ",", count: 12) + "input_tokens -5 is negative",
            "no token cell, no rate made from them: \(lines[1])")
    #expect(lines[2] == figures("absurd", "pass") + String(repeating: ",", count: 12)
                + "\"input_tokens 9223372036854775807 is above 1000000000, more than any model takes\"",
            "an absurd count the backend did not flag is checked here too: \(lines[2])")
    #expect(lines[3] == figures("cached", "fail") + ",,,,,,,,0.002,says Paris,,,"
                + "cached and cache-write input tokens (500) exceed input_tokens 100",
            "not 100 input with 500 cached; a cost that rests on no token count (a per-request price) stays: \(lines[3])")
}

@Test("A summary.csv row has the counts, the pass rate with its Wilson bounds, and empty cells for nulls")
func summaryCSVRow() {
    let results = [
        fixtureResult(caseID: "a", status: .pass, latencyMs: 100, ttftMs: 10, usage: Usage(inputTokens: 10)),
        fixtureResult(caseID: "b", status: .error, errorKind: .timeout),
    ]
    let lines = SummaryCSV.render(RunAggregate(results).groups).components(separatedBy: "\r\n")
    #expect(lines[1] == "local,gemma-3-270m,none,default,2,1,0,1,0,0.5000,0.0945,0.9055,100.00,100.00,10.00,10.00,,,,,,,100.00,100.00,10.00,10.00,,2,1,0,0,0,0,,,,1,1", "the timed-out request reported no input tokens, so their sum is unknown; 1 of 2 did")
}

@Test("summary.csv's token_source names the source of the figures that count, then how many impossible ones were left out")
func summaryCSVTokenSourceWithSuspectUsage() {
    func group(_ usages: [Usage]) -> [GroupSummary] {
        RunAggregate(usages.enumerated().map { fixtureResult(caseID: "c\($0.offset)", status: .pass, latencyMs: 10, usage: $0.element) }).groups
    }
    let fine = Usage(inputTokens: 10, outputTokens: 2, source: .reported)
    let impossible = Usage(inputTokens: -5, outputTokens: 2, source: .reported).checked()
    let oneLeftOut = group([fine, fine, impossible])
    #expect(oneLeftOut.first?.usage.sourceSummary == "reported (1 impossible or unreadable, left out)", "not 'mixed: 2 reported', one source")
    #expect(SummaryCSV.render(oneLeftOut).contains(#",3,2,0,2,0,0,"reported (1 impossible or unreadable, left out)",,,"#),
            "beside requests_sent 3 and requests_reporting_input 2: \(SummaryCSV.render(oneLeftOut))")
    #expect(group([fine, Usage(inputTokens: 8, source: .estimated), impossible, impossible]).first?.usage.sourceSummary
            == "mixed: 1 reported, 1 estimated (2 impossible or unreadable, left out)")
    #expect(group([impossible]).first?.usage.sourceSummary == "1 impossible or unreadable, left out")
    #expect(group([fine, fine, Usage()]).first?.usage.sourceSummary == "reported",
            "a request that reported nothing is counted by requests_reporting_*, not named as a source")
    #expect(group([fine, fine]).first?.usage.sourceSummary == "reported")
}

/// A router's group: one answer from its big model, four from its fallback, and an error,
/// which carries the configured name, not one a server reported.
func fallbackRouterResults() -> [RequestResult] {
    (1...5).map {
        fixtureResult(caseID: "c\($0)", backend: "router", model: $0 == 1 ? "big-model-v2" : "small-fallback-v1",
                      status: .pass, latencyMs: 100)
    } + [fixtureResult(caseID: "c6", backend: "router", model: "router", status: .error, errorKind: .timeout)]
}

@Test("summary.csv names a group's most frequent model, and how many models answered and how many answers it gave")
func summaryCSVModelOfAGroupWithSeveralModels() throws {
    let lines = SummaryCSV.render(RunAggregate(fallbackRouterResults()).groups).components(separatedBy: "\r\n")
    let header = lines[0].components(separatedBy: ","), cells = lines[1].components(separatedBy: ",")
    let row = Dictionary(uniqueKeysWithValues: zip(header, cells))
    #expect(row["model"] == "small-fallback-v1", "not the first model reported, big-model-v2")
    #expect(row["distinct_models"] == "2" && row["model_requests"] == "4")
    let agreeing = SummaryCSV.render(RunAggregate(Array(fallbackRouterResults().dropFirst())).groups)
    #expect(agreeing.components(separatedBy: "\r\n")[1].hasPrefix("router,small-fallback-v1,"))
    #expect(agreeing.components(separatedBy: "\r\n")[1].hasSuffix(",1,4"))
}

@Test("A group's model names are counted in a bounded tally: eight one by one, the rest as other models")
func modelTallyIsBounded() {
    var tally = ModelTally()
    for index in 0..<10 {
        for _ in 0..<(index == 9 ? 3 : 1) { tally.add("m\(index)") }
    }
    tally.add("m3")
    #expect(tally.names.count == ModelTally.capacity && tally.otherRequests == 4)
    #expect(tally.distinctNames == nil, "more than eight names: not counted")
    #expect(tally.ranked.first?.name == "m3" && tally.ranked.first?.requests == 2)
    #expect(tally.text == "m3 (2), m0 (1), m1 (1), m2 (1), m4 (1), m5 (1), m6 (1), m7 (1), other models (4)")
    var one = ModelTally()
    one.add("gemma")
    one.add("gemma")
    #expect(one.text == "gemma" && one.distinctNames == 1)
    #expect(ModelTally().text == nil && ModelTally().distinctNames == 0)
}
