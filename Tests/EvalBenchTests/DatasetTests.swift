import Foundation
import Testing
@testable import EvalBench

private func suiteWithDataset(_ files: [String: String], suite: String) throws -> (URL, String) {
    let directory = PackagePaths.temporaryDirectory("dataset")
    for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
    let path = directory.appendingPathComponent("suite.json").path
    try Data(suite.utf8).write(to: URL(fileURLWithPath: path))
    return (directory, path)
}

private func problems(_ path: String) -> [Diagnostic] {
    do {
        _ = try SuiteLoader.load(path: path)
        return []
    } catch {
        return error.diagnostics
    }
}

@Suite("Datasets: cases from JSONL and CSV rows")
struct DatasetTests {
    @Test("each JSONL row becomes a case with its columns as variables, beside the suite's own cases")
    func jsonLines() throws {
        let (directory, path) = try suiteWithDataset(["capitals.jsonl": """
            {"id": "fr", "country": "France", "capital": "Paris"}

            {"id": "jp", "country": "Japan", "capital": "Tokyo", "population": 14}
            """], suite: """
            { "format": "evalbench.suite/1", "suite": "geo", "vars": { "style": "one word" },
              "cases": [ { "id": "hand-written", "prompt": "Hi" } ],
              "dataset": { "path": "capitals.jsonl",
                "case": { "id": "capital-{{id}}", "prompt": "Capital of {{country}}, in {{style}}?",
                          "expect": [ { "type": "contains", "value": "{{capital}}" } ] } } }
            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let suite = try SuiteLoader.load(path: path)
        #expect(suite.cases.map(\.id) == ["hand-written", "capital-fr", "capital-jp"])
        #expect(suite.cases[1].turns.first?.prompt == "Capital of France, in one word?")
        #expect(suite.cases[2].turns.first?.expect.first?.check == .contains("Tokyo", ignoreCase: false))
    }

    @Test("CSV rows with quoted commas, doubled quotes and line breaks; ids from the id column or the row number")
    func csv() throws {
        let (directory, path) = try suiteWithDataset(["rows.csv": "question,answer\r\n\"Say \"\"hi\"\", twice\",hi\r\n\"Two\nlines\",ok\r\n"], suite: """
            { "format": "evalbench.suite/1", "suite": "s",
              "dataset": { "path": "rows.csv", "case": { "prompt": "{{question}}", "expect": [ { "type": "equals", "value": "{{answer}}" } ] } } }
            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let suite = try SuiteLoader.load(path: path)
        #expect(suite.cases.map(\.id) == ["row-1", "row-2"])
        #expect(suite.cases.map { $0.turns[0].prompt } == ["Say \"hi\", twice", "Two\nlines"])
    }

    @Test("dataset problems name the file and row: bad JSON, a short CSV row, an unknown variable, a duplicate id, a missing file")
    func problemsPointAtRows() throws {
        let (directory, path) = try suiteWithDataset([
            "bad.jsonl": "{\"id\": \"a\", \"q\": \"x\"}\nnot json\n[1, 2]\n{\"id\": \"a\", \"q\": \"y\"}\n",
            "short.csv": "id,q\nb,ok\nc\n",
        ], suite: """
            { "format": "evalbench.suite/1", "suite": "s",
              "dataset": { "path": "bad.jsonl", "case": { "id": "{{id}}", "prompt": "{{q}} {{missing}}" } } }
            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let found = problems(path)
        let bad = directory.appendingPathComponent("bad.jsonl").path
        #expect(found.contains { $0.file == bad && $0.location?.line == 2 && $0.message.hasPrefix("row is not valid JSON: ") })
        #expect(found.contains { $0.file == bad && $0.location?.line == 3 && $0.message == "row is an array, not a JSON object" })
        #expect(found.contains { $0.message.contains("missing") && $0.message.hasSuffix("(dataset row 1, bad.jsonl:1)") }, "\(found.map(\.message))")
        #expect(found.contains { $0.message.hasPrefix("duplicate case id 'a'") && $0.message.hasSuffix("(dataset row 2, bad.jsonl:4)") })

        try Data(#"{"format": "evalbench.suite/1", "suite": "s", "dataset": {"path": "short.csv", "case": {"id": "{{id}}", "prompt": "{{q}}"}}}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        let short = problems(path)
        #expect(short.map(\.message) == ["row has 1 fields, the header has 2"])
        #expect(short.first?.location?.line == 3)

        try Data(#"{"format": "evalbench.suite/1", "suite": "s", "dataset": {"path": "nope.jsonl", "case": {"prompt": "x"}}}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        #expect(problems(path).first?.message == "the dataset file nope.jsonl cannot be read")
    }
}
