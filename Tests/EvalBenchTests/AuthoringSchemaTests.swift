import Foundation
import Testing
@testable import EvalBench

private func load(_ relative: String) throws -> JSONValue {
    let url = PackagePaths.root.appendingPathComponent(relative)
    return JSONValue(try JSONDocument(data: Data(contentsOf: url), file: relative).root)
}

private func schema(_ relative: String) throws -> JSONSchema {
    try JSONSchema(validating: try load(relative))
}

@Suite("Authoring schemas in schemas/ for editors")
struct AuthoringSchemaTests {
    @Test("every shipped suite and the shipped config are valid against their schemas, which evalbench's own validator accepts")
    func shippedFilesValidate() throws {
        let suiteSchema = try schema("schemas/suite.schema.json")
        let files = try FileManager.default.contentsOfDirectory(atPath: PackagePaths.root.appendingPathComponent("evals").path)
        // `*.evalbench.json` in evals/ are configs (the sample run's); the rest are suites.
        let suites = files.filter { $0.hasSuffix(".json") && !$0.hasSuffix(".evalbench.json") }.sorted()
        let configs = ["evalbench.json"] + files.filter { $0.hasSuffix(".evalbench.json") }.sorted().map { "evals/" + $0 }
        #expect(suites.count >= 4)
        for file in suites {
            let violations = suiteSchema.validate(try load("evals/" + file))
            #expect(violations.isEmpty, "evals/\(file): \(violations)")
        }
        let configSchema = try schema("schemas/config.schema.json")
        #expect(configs.count >= 2)
        for config in configs {
            let violations = configSchema.validate(try load(config))
            #expect(violations.isEmpty, "\(config): \(violations)")
        }
    }

    @Test("the schemas catch what the loaders catch: an unknown key, a key of another kind, a bad level, an empty prompt, blank instructions")
    func schemasReject() throws {
        let suiteSchema = try schema("schemas/suite.schema.json")
        func suite(_ text: String) -> JSONValue { JSONValue(try! JSONDocument(data: Data(text.utf8), file: "s").root) }
        #expect(!suiteSchema.validate(suite(#"{"format": "evalbench.suite/1", "cases": [{"id": "a", "promt": "x"}]}"#)).isEmpty)
        #expect(!suiteSchema.validate(suite(#"{"format": "evalbench.suite/1", "reasoning": "hard", "cases": [{"id": "a", "prompt": "x"}]}"#)).isEmpty)
        #expect(!suiteSchema.validate(suite(#"{"format": "evalbench.suite/1", "cases": [{"id": "a", "prompt": " "}]}"#)).isEmpty, "an empty prompt")
        #expect(!suiteSchema.validate(suite(#"{"format": "evalbench.suite/1", "cases": [{"id": "a", "turns": [{"prompt": ""}]}]}"#)).isEmpty,
                "an empty turn prompt")
        // Instructions, wherever written, say something or are left out, as the loader reads them.
        for (instructions, valid) in [("Be brief.", true), (" ", false), ("", false)] {
            let places = [#"{"format": "evalbench.suite/1", "instructions": "\#(instructions)", "cases": [{"id": "a", "prompt": "x"}]}"#,
                          #"{"format": "evalbench.suite/1", "cases": [{"id": "a", "prompt": "x", "instructions": "\#(instructions)"}]}"#,
                          #"{"format": "evalbench.suite/1", "cases": [{"id": "a", "turns": [{"prompt": "x", "instructions": "\#(instructions)"}]}]}"#,
                          #"{"format": "evalbench.suite/1", "variants": [{"name": "v", "instructions": "\#(instructions)"}], "cases": [{"id": "a", "prompt": "x"}]}"#]
            for text in places { #expect(suiteSchema.validate(suite(text)).isEmpty == valid, "\(text)") }
        }
        // A variant's template needs {{prompt}}, written with spaces inside the braces or not, as the loader reads it.
        for (template, valid) in [("{{prompt}} (short)", true), ("{{ prompt }} (short)", true), ("{{topic}} (short)", false)] {
            let text = #"{"format": "evalbench.suite/1", "variants": [{"name": "v", "prompt": "\#(template)"}], "cases": [{"id": "a", "prompt": "x"}]}"#
            #expect(suiteSchema.validate(suite(text)).isEmpty == valid, "\(template)")
        }
        #expect(!suiteSchema.validate(suite(#"{"format": "evalbench.suite/1", "cases": [{"id": "a", "prompt": "x", "expect": [{"type": "contains"}]}]}"#)).isEmpty,
                "contains needs a value")
        #expect(suiteSchema.validate(suite(#"{"format": "evalbench.suite/1", "cases": [{"id": "a", "prompt": "x", "expect": [{"type": "judge", "backend": "b", "rubric": "r", "not": true}]}]}"#)).isEmpty)
        let configSchema = try schema("schemas/config.schema.json")
        #expect(!configSchema.validate(suite(#"{"backends": [{"name": "a", "kind": "openai", "baseURL": "http://x", "modelPath": "m"}]}"#)).isEmpty,
                "modelPath belongs to llama-server")
        #expect(configSchema.validate(suite(#"{"backends": [{"name": "a", "kind": "openai", "baseURL": "http://x"}]}"#)).isEmpty)
    }

    @Test("the config schema lists exactly the keys each backend kind accepts")
    func configSchemaMatchesLoader() throws {
        guard case let .object(root) = try load("schemas/config.schema.json"),
              case let .object(defs)? = root["$defs"], case let .object(backend)? = defs["backend"],
              case let .array(kinds)? = backend["oneOf"] else {
            Issue.record("schemas/config.schema.json has no $defs.backend.oneOf")
            return
        }
        var schemaKeys: [String: Set<String>] = [:]
        for case let .object(kind) in kinds {
            guard case let .object(properties)? = kind["properties"], case let .object(kindName)? = properties["kind"],
                  case let .string(name)? = kindName["const"] else { continue }
            schemaKeys[name] = Set(properties.keys).subtracting(["name", "kind"])
        }
        for kind in BackendKindRegistry.builtIn.kinds {
            let keys = Set(kind.keys.map(\.name))
            #expect(schemaKeys[kind.name] == keys, "kind \(kind.name): schema \(schemaKeys[kind.name]?.sorted() ?? []) vs loader \(keys.sorted())")
        }
        #expect(Set(schemaKeys.keys) == Set(BackendKindRegistry.builtIn.names))
    }
}
