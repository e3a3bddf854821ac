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

/// The optional `format` tests evalbench knowingly answers differently, with their reasons.
/// Keyed by "file: group description" (the whole group) or by a test's full name.
private let knownFormatExclusions: [String: String] = [
    "hostname.json: validation of A-label (punycode) host names":
        "evalbench checks a host name's RFC 1123 shape; it does not decode Punycode A-labels to apply IDNA2008's rules",
    "ecmascript-regex.json: ECMA 262 character classes and escapes: an empty character class is valid ECMA 262":
        "'regex' is checked by ICU (NSRegularExpression), the engine 'pattern' runs on, which refuses '[]'",
    "ecmascript-regex.json: ECMA 262 character classes and escapes: a negated empty character class is valid ECMA 262":
        "ICU refuses '[^]'",
    "ecmascript-regex.json: ECMA 262 lookbehind is valid, including variable width: a variable-width lookbehind (ES2018)":
        "ICU allows only bounded lookbehind",
    "ecmascript-regex.json: Python-specific regular expression syntax is not valid ECMA 262: inline comment group (?#...) is not ECMA 262":
        "ICU accepts comment groups",
    "ecmascript-regex.json: \\a is not an ECMA 262 control escape: when used as a pattern": "ICU reads \\a as the bell character",
    "ecmascript-regex.json: global inline flag groups are not valid ECMA 262: a single global inline flag (?i)": "ICU accepts inline flags",
    "ecmascript-regex.json: global inline flag groups are not valid ECMA 262: multiple global inline flags (?ims)": "ICU accepts inline flags",
]

private func suiteFiles(in folder: URL) throws -> [URL] {
    try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        .filter { $0.pathExtension == "json" }
        .sorted { $0.lastPathComponent < $1.lastPathComponent }
}

private func run(files: [URL], draft: JSONSchema.Draft, exclusions: [String: String] = knownExclusions) throws -> SuiteOutcome {
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
                let groupName = "\(file.name): \(group.description)"
                let name = "\(groupName): \(test.description)"
                let violations = schema.validate(test.data)
                if violations.isEmpty == test.valid {
                    outcome.passed += 1
                } else if exclusions[name] != nil || exclusions[groupName] != nil {
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
        let outcome = try run(files: suiteFiles(in: suiteFolder("tests/\(folder)")), draft: draft)
        print("JSON Schema Test Suite \(folder): \(outcome.summary)")
        for refusal in outcome.refusals { print("  refused in \(folder): \(refusal)") }
        #expect(outcome.total > 900)
        #expect(outcome.disagreements.isEmpty, "\(outcome.disagreements.count) disagree:\n\(outcome.disagreements.joined(separator: "\n"))")
        #expect(Double(outcome.refusedCount) <= 0.1 * Double(outcome.total), "\(outcome.refusedCount) of \(outcome.total) refused")
    }

    @Test("The optional format and ECMA-262 regex tests agree where evalbench checks them; the counts are printed per file",
          arguments: [("draft2020-12", JSONSchema.Draft.draft2020_12), ("draft7", .draft7)])
    func formats(_ folder: String, _ draft: JSONSchema.Draft) throws {
        var disagreements: [String] = []
        let regex = try suiteFolder("tests/\(folder)/optional/ecmascript-regex.json")
        for file in try suiteFiles(in: suiteFolder("tests/\(folder)/optional/format")) + [regex] {
            let outcome = try run(files: [file], draft: draft, exclusions: knownFormatExclusions)
            let path = file.deletingLastPathComponent().lastPathComponent == "format" ? "format/" : ""
            print("JSON Schema Test Suite \(folder) optional/\(path)\(file.lastPathComponent): \(outcome.summary)")
            disagreements += outcome.disagreements
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagree:\n\(disagreements.joined(separator: "\n"))")
    }
}
