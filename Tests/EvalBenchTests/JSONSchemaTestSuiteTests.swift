import Foundation
import Testing
@testable import EvalBench

/// One file of the official JSON Schema Test Suite: groups of a schema and instances, each
/// instance with the validity the specification gives it.
private struct SuiteFile {
    struct Group {
        var description: String
        var schema: JSONValue
        var tests: [(description: String, data: JSONValue, valid: Bool)]
    }

    var name: String
    var groups: [Group]

    init(url: URL) throws {
        name = url.lastPathComponent
        let document = try JSONDocument(data: Data(contentsOf: url), file: name)
        groups = try (document.root.arrayValue ?? []).map { group in
            let tests = try (group["tests"]?.arrayValue ?? []).map { test in
                guard let description = test["description"]?.stringValue, let data = test["data"],
                      let valid = test["valid"]?.boolValue else { throw SuiteFileError(file: url.lastPathComponent) }
                return (description, JSONValue(data), valid)
            }
            guard let description = group["description"]?.stringValue, let schema = group["schema"] else {
                throw SuiteFileError(file: url.lastPathComponent)
            }
            return Group(description: description, schema: JSONValue(schema), tests: tests)
        }
    }
}

private struct SuiteFileError: Error {
    var file: String
}

/// What running some suite files gave: the counts, and each disagreement and refusal by name.
private struct SuiteOutcome {
    var passed = 0
    var excluded = 0
    var disagreements: [String] = []
    var refusals: [String] = []
    var total: Int { passed + excluded + disagreements.count + refusals.count }
    var refusedCount: Int { refusals.count }

    var summary: String {
        "\(total) tests: \(passed) passed, \(disagreements.count) disagreed, \(refusals.count) refused, \(excluded) excluded"
    }
}

/// The test-suite cases evalbench knowingly answers differently, each with its reason.
/// Keyed by "file: group description: test description".
private let knownExclusions: [String: String] = Dictionary(uniqueKeysWithValues: [
    "email", "regex", "ipv4", "ipv6", "hostname", "date", "date-time", "time", "json-pointer",
    "relative-json-pointer", "uri", "uri-reference", "uuid", "duration", "iri", "iri-reference", "uri-template",
    "idn-email", "idn-hostname",
].map { format in
    ("format.json: \(format) format: invalid \(format) string is only an annotation by default",
     "evalbench asserts 'format' (the format-assertion vocabulary), so that a malformed date fails the assertion; draft 2020-12 only annotates by default")
})

private func suiteFolder(_ relative: String) throws -> URL {
    let root = try #require(Bundle.module.url(forResource: "JSONSchemaTestSuite", withExtension: nil))
    return root.appendingPathComponent(relative)
}

private func run(folder: URL, draft: JSONSchema.Draft) throws -> SuiteOutcome {
    let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        .filter { $0.pathExtension == "json" }
        .sorted { $0.lastPathComponent < $1.lastPathComponent }
    var outcome = SuiteOutcome()
    for url in files {
        let file = try SuiteFile(url: url)
        for group in file.groups {
            let schema: JSONSchema
            do {
                schema = try JSONSchema(validating: group.schema, draft: draft)
            } catch {
                let reason = error.problems.first?.description ?? "refused"
                outcome.refusals += group.tests.map { "\(file.name): \(group.description): \($0.description) — \(reason)" }
                continue
            }
            for test in group.tests {
                let name = "\(file.name): \(group.description): \(test.description)"
                let violations = schema.validate(test.data)
                if violations.isEmpty == test.valid {
                    outcome.passed += 1
                } else if knownExclusions[name] != nil {
                    outcome.excluded += 1
                } else {
                    outcome.disagreements.append(name + (test.valid ? " — rejected: \(violations.first!)" : " — accepted"))
                }
            }
        }
    }
    return outcome
}

@Suite("JSON Schema Test Suite")
struct JSONSchemaTestSuiteTests {
    @Test("Every core test of the official suite agrees, and at most 10% of them are refused at load",
          arguments: [("draft2020-12", JSONSchema.Draft.draft2020_12), ("draft7", .draft7)])
    func core(_ folder: String, _ draft: JSONSchema.Draft) throws {
        let outcome = try run(folder: suiteFolder("tests/\(folder)"), draft: draft)
        print("JSON Schema Test Suite \(folder): \(outcome.summary)")
        for refusal in outcome.refusals { print("  refused: \(refusal)") }
        #expect(outcome.total > 900)
        #expect(outcome.disagreements.isEmpty, "\(outcome.disagreements.count) disagree:\n\(outcome.disagreements.joined(separator: "\n"))")
        #expect(Double(outcome.refusedCount) <= 0.1 * Double(outcome.total), "\(outcome.refusedCount) of \(outcome.total) refused")
    }
}
