import EvalBench
import Foundation

/// Mutates valid suites, configs and dataset files (byte flips, cuts, copies, and hostile
/// tokens: 1e308, 2^63, deep nesting, NUL, invalid UTF-8, catastrophic regexes, huge strings)
/// and loads each one. A loader that traps kills the process; one that refuses a mutant must
/// say where (file:line:column). The same seed gives the same mutants, so a failure reproduces.
/// For tests and scripts/fuzz only.
package struct LoaderFuzzer {
    /// What a run of mutants found.
    package struct Counts: Sendable {
        package var mutants = 0
        package var loaded = 0
        package var refused = 0
        /// Diagnostics with neither a line and column nor a JSON path, with the mutant's index.
        package var withoutLocation: [(mutant: Int, message: String)] = []
        /// Diagnostics with a JSON path but no line and column (checks made after parsing).
        package var pathOnly = 0
        /// The slowest mutant, in seconds, and its index.
        package var slowest: (seconds: Double, mutant: Int) = (0, -1)
        /// Mutants that took longer than `hangSeconds`.
        package var hangs: [Int] = []
    }

    /// What a mutant is loaded as.
    package enum Kind: CaseIterable, Sendable {
        case suite, config, jsonLines, csv
    }

    private var random: SeededRandom
    package let hangSeconds: Double

    package init(seed: UInt64, hangSeconds: Double = 10) {
        random = SeededRandom(seed: seed)
        self.hangSeconds = hangSeconds
    }

    /// Loads `count` mutants, cycling through the kinds.
    package mutating func run(_ count: Int) -> Counts {
        var counts = Counts()
        for index in 0..<count {
            let kind = Kind.allCases[index % Kind.allCases.count]
            let mutant = mutate(Data(Self.seeds[kind]!.utf8))
            let started = DispatchTime.now().uptimeNanoseconds
            let diagnostics = Self.load(mutant, as: kind)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            counts.mutants += 1
            if diagnostics.isEmpty { counts.loaded += 1 } else { counts.refused += 1 }
            for diagnostic in diagnostics where diagnostic.location == nil {
                if diagnostic.path == nil { counts.withoutLocation.append((index, diagnostic.description)) } else { counts.pathOnly += 1 }
            }
            if seconds > counts.slowest.seconds { counts.slowest = (seconds, index) }
            if seconds > hangSeconds { counts.hangs.append(index) }
        }
        return counts
    }

    /// The diagnostics loading `data` as `kind` reports; empty when it loads.
    package static func load(_ data: Data, as kind: Kind) -> [Diagnostic] {
        do {
            switch kind {
            case .suite: _ = try SuiteLoader.load(data: data, file: "fuzz.json")
            case .config: _ = try ConfigLoader.load(data: data, file: "evalbench.json", baseDirectory: "/tmp")
            case .jsonLines: return DatasetReader.rows(data, file: "rows.jsonl").problems
            case .csv: return DatasetReader.rows(data, file: "rows.csv").problems
            }
            return []
        } catch {
            return error.diagnostics
        }
    }

    /// One to three mutations of `data`.
    package mutating func mutate(_ data: Data) -> Data {
        var bytes = [UInt8](data)
        for _ in 0...random.below(3) {
            guard !bytes.isEmpty else { break }
            let at = random.below(bytes.count)
            switch random.below(6) {
            case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
            case 1: bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.below(16)))
            case 2:
                let piece = bytes[at..<min(bytes.count, at + 1 + random.below(64))]
                bytes.insert(contentsOf: piece, at: random.below(bytes.count))
            case 3: bytes.insert(contentsOf: Self.hostileTokens[random.below(Self.hostileTokens.count)], at: at)
            case 4: replaceNumber(in: &bytes, near: at)
            default: bytes.insert(contentsOf: Array(Self.hostileStrings[random.below(Self.hostileStrings.count)].utf8), at: at)
            }
        }
        return Data(bytes)
    }

    /// Replaces the number at or after `index` with a hostile one.
    private mutating func replaceNumber(in bytes: inout [UInt8], near index: Int) {
        guard let start = bytes[index...].firstIndex(where: { (0x30...0x39).contains($0) }) else { return }
        var end = start
        while end < bytes.count, (0x30...0x39).contains(bytes[end]) || bytes[end] == 0x2E { end += 1 }
        let numbers = ["1e308", "-1", "0", "9223372036854775808", "-9223372036854775808", "1e-400", "1e300", "4294967296", "-0.0"]
        bytes.replaceSubrange(start..<end, with: Array(numbers[random.below(numbers.count)].utf8))
    }

    private static let hostileTokens: [[UInt8]] = [
        [0xFF], [0xC3], [0x00], [0xEF, 0xBB, 0xBF], Array("\\u0000".utf8), Array("\\ud800".utf8),
        Array(String(repeating: "[", count: 2_000).utf8), Array(String(repeating: "{\"a\":", count: 500).utf8),
        Array("null".utf8), Array("[]".utf8), Array("{}".utf8), Array("\"".utf8), Array(",".utf8), Array("\n".utf8),
    ]

    private static let hostileStrings = [
        "\"(.*a){25}\"", "\"(a+)+$\"", "\"{{\"", "\"{{missing}}\"", "\"" + String(repeating: "x", count: 100_000) + "\"",
        "\"sk-live-0123456789abcdefABCDEF\"", "\"https://u:p@h/?key=AIzaSy0123456789\"", "\"\\n\\t\\r\"", "\"<script>\"",
    ]

    /// Valid inputs of each kind, touching most of what the loaders read.
    package static let seeds: [Kind: String] = [
        .suite: #"""
        {"format": "evalbench.suite/1", "suite": "fuzz", "repeat": 2, "reasoning": ["none", "deep"],
         "instructions": "Answer briefly.", "options": {"temperature": 0.2, "maxOutputTokens": 64, "stop": ["\n"]},
         "slo": {"ttftMs": 500, "latencyMs": 2000}, "gates": {"minPassRate": 0.8, "maxErrorRate": 0.1}, "target": 0.9,
         "variants": [{"name": "terse", "instructions": "Be terse."}],
         "cases": [
          {"id": "capital", "tags": ["geo"], "prompt": "Capital of {{country}}?", "vars": {"country": "France"},
           "threshold": 0.5,
           "expect": [{"type": "contains", "value": "Paris", "weight": 2}, {"type": "regex", "pattern": "^[A-Z][a-z]+", "not": false},
                      {"type": "lengthBetween", "min": 1, "max": 100}, {"type": "maxLatencyMs", "value": 3000},
                      {"type": "keywords", "values": ["Paris", "France"], "minRatio": 0.5}]},
          {"id": "json", "prompt": "JSON please", "output": {"name": "o", "schema": {"type": "object", "properties": {"a": {"type": "string", "pattern": "^a"}}}},
           "expect": [{"type": "json"}, {"type": "jsonSchema", "schema": {"type": "object", "required": ["a"]}},
                      {"type": "jsonPointer", "pointer": "/a", "equals": "a"}, {"type": "jsonPath", "path": "$.a", "matches": "^a"}]},
          {"id": "chat", "turns": [{"prompt": "one", "expect": [{"type": "containsAny", "values": ["x", "y"]}]},
                                   {"prompt": "two", "history": {"keepLast": 1}, "reasoning": "light"}]}
         ]}
        """#,
        .config: #"""
        {"backends": [
          {"name": "local", "kind": "\#(LlamaServerKind.name)", "model": "m", "modelPath": "/tmp/m.gguf", "contextSize": 4096},
          {"name": "cloud", "kind": "\#(OpenAIKind.name)", "model": "gpt", "baseURL": "https://api.example.com/v1", "apiKeyEnv": "KEY",
           "headers": {"X-Title": "evalbench"}, "timeoutSeconds": 60, "concurrency": 8,
           "pricing": {"inputPerMTok": 1.25, "cachedInputPerMTok": 0.125, "outputPerMTok": 10},
           "reasoning": {"deep": {"effort": "high"}}},
          {"name": "claude", "kind": "\#(AnthropicKind.name)", "model": "claude", "apiKeyEnv": "AKEY", "pricing": {"inputPerMTok": 3, "outputPerMTok": 15}},
          {"name": "gem", "kind": "\#(GeminiKind.name)", "model": "gemini-2.5-flash", "apiKeyEnv": "GKEY"}],
         "defaults": {"concurrency": 4, "timeoutSeconds": 120, "retries": 3, "backends": ["local"], "reasoning": ["none"],
                      "maxResponseBytes": 1048576}}
        """#,
        .jsonLines: #"""
        {"id": "q1", "question": "What is 2+2?", "answer": "4"}
        {"id": "q2", "question": "Capital of Peru?", "answer": "Lima", "extra": [1, 2, {"x": null}]}
        {"id": "q3", "question": "Ünïcödé ✓", "answer": "yes"}
        """#,
        .csv: "id,question,answer\nq1,\"What is 2+2?\",4\nq2,\"Say \"\"hi\"\", please\",hi\nq3,\"multi\nline\",ok\n",
    ]
}

/// The fuzzer's generator: the library's SplitMix64, whose sequence depends only on its seed.
package typealias SeededRandom = SplitMix64

extension SplitMix64 {
    /// A number from 0 to `bound` − 1.
    package mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }
}
