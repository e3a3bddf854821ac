import Foundation

/// Loads and validates the backend config (`evalbench.json`), reporting every problem at once,
/// and checks that the backends a run selects can be used in the current environment.
public enum ConfigLoader {
    /// The backend kinds and the keys each accepts besides `name` and `kind`.
    public static let keysByKind: KeyValuePairs<String, [String]> = [
        "openai": ["model", "baseURL", "apiKeyEnv", "headers", "concurrency", "timeoutSeconds", "contextSize",
                   "sendReasoningNone", "maxTokensField", "reasoning", "extraBody", "structuredOutput", "prewarm", "pricing"],
        "llama-server": ["model", "modelPath", "contextSize", "chatTemplateFile", "serverPath", "arguments",
                         "concurrency", "timeoutSeconds", "sendReasoningNone", "reasoning", "extraBody", "structuredOutput", "prewarm", "pricing"],
        "anthropic": ["model", "baseURL", "apiKeyEnv", "headers", "concurrency", "timeoutSeconds", "contextSize",
                      "promptCache", "reasoning", "extraBody", "structuredOutput", "pricing"],
        "gemini": ["model", "baseURL", "apiKeyEnv", "headers", "concurrency", "timeoutSeconds", "contextSize",
                   "reasoning", "extraBody", "structuredOutput", "pricing"],
        "apple-system": ["model", "concurrency", "timeoutSeconds", "contextSize", "prewarm", "reasoning"],
        "apple-pcc": ["model", "concurrency", "timeoutSeconds", "contextSize", "prewarm", "reasoning", "fallback"],
        "replay": ["from", "model", "concurrency"],
    ]

    /// The keys a kind cannot do without.
    static let requiredByKind: [String: String] = [
        "openai": "baseURL", "llama-server": "modelPath", "anthropic": "model", "gemini": "model",
        "replay": "from",
    ]

    /// Every backend kind, in the order the documentation lists them.
    public static var kinds: [String] { keysByKind.map(\.key) }

    /// Reads and loads the config at `path`; relative paths in it are resolved against its directory.
    public static func load(path: String) throws(LoadError) -> Config {
        let data = try SuiteLoader.readFile(path, what: "config")
        return try load(data: data, file: path,
                        baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    /// Loads a config from its bytes; `file` names it in diagnostics, and `baseDirectory` is
    /// where relative paths (`modelPath`, `chatTemplateFile`, `serverPath`) start from.
    public static func load(data: Data, file: String, baseDirectory: String) throws(LoadError) -> Config {
        let root: JSONNode
        do {
            root = try JSONDocument(data: data, file: file).root
        } catch {
            throw LoadError([error])
        }
        let log = DiagnosticLog(file: file)
        var config = Config(file: file, backends: [])
        if let reader = ObjectReader(root, path: .root, log: log, what: "a config") {
            ConfigReader(log: log, baseDirectory: baseDirectory).read(reader, into: &config)
        }
        try log.throwIfAny()
        return config
    }

    /// Problems with running the named backends here: a name that is not configured, or an
    /// `apiKeyEnv` variable that is unset or empty in `environment`. An empty `backends` selects
    /// `defaults.backends`, or every configured backend when that is unset.
    public static func checkSelection(_ config: Config, backends: [String],
                                      environment: [String: String]) -> [Diagnostic] {
        let file = config.file ?? "evalbench.json"
        let configured = config.backends.map(\.name)
        let selected = backends.isEmpty ? (config.defaults.backends ?? configured) : backends
        var diagnostics: [Diagnostic] = []
        for name in selected {
            guard let index = config.backends.firstIndex(where: { $0.name == name }) else {
                let hint = suggestion(for: name, among: configured).map { "; did you mean '\($0)'?" } ?? ""
                diagnostics.append(Diagnostic(file: file, message: "no backend named '\(name)'\(hint)",
                                              fix: "configured backends: \(configured.joined(separator: ", "))"))
                continue
            }
            guard let variable = config.backends[index].apiKeyEnv else { continue }
            let state = environment[variable] == nil ? "is not set" : (environment[variable]!.isEmpty ? "is empty" : nil)
            if let state {
                diagnostics.append(Diagnostic(
                    file: file, path: "$.backends[\(index)].apiKeyEnv",
                    message: "backend '\(name)' reads its API key from the environment variable \(variable), which \(state)",
                    fix: "export \(variable)=... before running, or select another backend with --backend"))
            }
        }
        return diagnostics
    }
}

/// The reading of one config's members.
private struct ConfigReader {
    let log: DiagnosticLog
    let baseDirectory: String

    /// The keys of every kind, each once, in the order the kinds list them.
    static let allBackendKeys: [String] = {
        var seen: Set<String> = []
        return ConfigLoader.keysByKind.flatMap(\.value).filter { seen.insert($0).inserted }
    }()

    func read(_ top: ObjectReader, into config: inout Config) {
        top.rejectUnknownKeys(allowed: ["$schema", "backends", "defaults"])
        _ = top.string("$schema")
        var nameLocations: [String: SourceLocation] = [:]
        if let node = top["backends"] {
            if let elements = node.arrayValue, !elements.isEmpty {
                for (index, element) in elements.enumerated() {
                    let path = top.path.key("backends").index(index)
                    LiteralSecret.report(in: element, path: path, log: log)
                    guard let reader = ObjectReader(element, path: path, log: log, what: "a backend") else { continue }
                    if let backend = readBackend(reader, names: &nameLocations) { config.backends.append(backend) }
                }
            } else {
                top.reportInvalid("backends", node, must: "a non-empty array of backends")
            }
        } else {
            top.reportMissing("backends", fix: "add \"backends\": [ { \"name\": \"local\", \"kind\": \"llama-server\", \"modelPath\": \"...\" } ]")
        }
        if let node = top["defaults"],
           let reader = ObjectReader(node, path: top.path.key("defaults"), log: log, what: "'defaults'") {
            config.defaults = readDefaults(reader, known: config.backends.map(\.name), nameLocations: nameLocations)
        }
        checkFallbacks(config.backends, elements: top["backends"]?.arrayValue ?? [], path: top.path.key("backends"))
    }

    /// A `fallback` must name another configured backend, of kind `apple-system`.
    private func checkFallbacks(_ backends: [BackendConfig], elements: [JSONNode], path: JSONPath) {
        let names = backends.map(\.name)
        for (index, element) in elements.enumerated() {
            guard let node = element["fallback"], let target = node.stringValue,
                  let ownerName = element["name"]?.stringValue, target != ownerName,
                  element["kind"]?.stringValue == "apple-pcc" else { continue }
            let owner = (name: ownerName, kind: "apple-pcc")
            let at = path.index(index).key("fallback")
            guard let fallback = backends.first(where: { $0.name == target }) else {
                let hint = suggestion(for: target, among: names.filter { $0 != owner.name }).map { "; did you mean '\($0)'?" } ?? ""
                log.error("no backend named '\(target)'\(hint)", at: node.location, path: at,
                          fix: "name an apple-system backend from this config, e.g. { \"name\": \"on-device\", \"kind\": \"apple-system\" }")
                continue
            }
            if fallback.kind != "apple-system" {
                log.error("backend '\(owner.name)' falls back to '\(target)', whose kind is \(fallback.kind); a PCC network failure is retried on the on-device model",
                          at: node.location, path: at, fix: "name an apple-system backend")
            }
        }
    }

    private func readBackend(_ reader: ObjectReader, names: inout [String: SourceLocation]) -> BackendConfig? {
        let secrets = Set(reader.members.map(\.key).filter(LiteralSecret.isSecretName))
        let name = reader.resultKeyName("name", what: "backend name", requiredFix: "add \"name\": a short name such as \"local\"")
        if let name, let location = reader["name"]?.location {
            if let first = names[name] {
                log.error("duplicate backend name '\(name)'; it is first used at line \(first.line)", at: location,
                          path: reader.path.key("name"), fix: "give each backend a unique name")
            } else {
                names[name] = location
            }
        }
        let kinds = ConfigLoader.kinds
        let kind = reader.string("kind", requiredFix: "add \"kind\": one of \(kinds.joined(separator: ", "))")
        let allowed: [String]
        if let kind, let keys = ConfigLoader.keysByKind.first(where: { $0.key == kind })?.value {
            allowed = keys
            reader.rejectUnknownKeys(allowed: ["name", "kind"] + keys, usedElsewhere: Set(Self.allBackendKeys),
                                     owner: "kind '\(kind)'", ignoring: secrets)
            if let required = ConfigLoader.requiredByKind[kind], reader[required] == nil {
                reader.reportMissing(required, fix: "kind '\(kind)' needs \"\(required)\"")
            }
        } else {
            if let kind, let node = reader["kind"] {
                let hint = suggestion(for: kind, among: kinds).map { "; did you mean '\($0)'?" } ?? ""
                log.error("unknown backend kind '\(kind)'\(hint)", at: node.location, path: reader.path.key("kind"),
                          fix: "kinds: \(kinds.joined(separator: ", "))")
            }
            allowed = Self.allBackendKeys
            reader.rejectUnknownKeys(allowed: ["name", "kind"] + allowed, ignoring: secrets)
        }
        func field<Value>(_ key: String, _ read: (String) -> Value?) -> Value? {
            allowed.contains(key) ? read(key) : nil
        }
        let backend = BackendConfig(
            name: name ?? "", kind: kind ?? "",
            model: field("model") { reader.string($0) },
            baseURL: field("baseURL") { url($0, reader) },
            apiKeyEnv: field("apiKeyEnv") { environmentName($0, reader) },
            modelPath: field("modelPath") { filePath($0, reader) },
            contextSize: field("contextSize") { reader.integer($0, atLeast: 1) },
            chatTemplateFile: field("chatTemplateFile") { filePath($0, reader) },
            serverPath: field("serverPath") { filePath($0, reader) },
            arguments: field("arguments") { reader.strings($0) },
            concurrency: field("concurrency") { reader.integer($0, atLeast: 1) },
            timeoutSeconds: field("timeoutSeconds") {
                reader.number($0, must: "a number greater than 0", where: { $0 > 0 })
            },
            headers: field("headers") { headers($0, reader) },
            sendReasoningNone: field("sendReasoningNone") { reader.bool($0) },
            pricing: field("pricing") { pricing($0, reader) },
            reasoning: field("reasoning") { reasoningOverrides($0, reader, kind: kind ?? "") },
            extraBody: field("extraBody") { extraBody($0, reader) },
            maxTokensField: field("maxTokensField") { choice($0, reader, among: ["max_tokens", "max_completion_tokens"]) },
            promptCache: field("promptCache") { choice($0, reader, among: ["auto", "off"]) },
            structuredOutput: field("structuredOutput") {
                choice($0, reader, among: ["native", "prompt"]).flatMap(StructuredOutputMode.init(rawValue:))
            },
            fallback: field("fallback") { fallbackName($0, reader, owner: name) },
            prewarm: field("prewarm") { reader.bool($0) },
            from: field("from") { replayDirectory($0, reader) })
        return name != nil && kind != nil ? backend : nil
    }

    private func readDefaults(_ reader: ObjectReader, known: [String],
                              nameLocations: [String: SourceLocation]) -> RunDefaults {
        reader.rejectUnknownKeys(allowed: ["concurrency", "timeoutSeconds", "retries", "backends", "reasoning"])
        var defaults = RunDefaults()
        if let value = reader.integer("concurrency", atLeast: 1) { defaults.concurrency = value }
        if let value = reader.number("timeoutSeconds", must: "a number greater than 0", where: { $0 > 0 }) {
            defaults.timeoutSeconds = value
        }
        if let value = reader.integer("retries", atLeast: 0) { defaults.retries = value }
        if let names = reader.strings("backends"), let elements = reader["backends"]?.arrayValue {
            for (index, name) in names.enumerated() where nameLocations[name] == nil {
                let hint = suggestion(for: name, among: known).map { "; did you mean '\($0)'?" } ?? ""
                log.error("no backend named '\(name)'\(hint)", at: elements[index].location,
                          path: reader.path.key("backends").index(index),
                          fix: "configured backends: \(known.joined(separator: ", "))")
            }
            defaults.backends = names
        }
        defaults.reasoning = reader.reasoningLevels("reasoning")
        return defaults
    }

    /// The name; whether it names an apple-system backend is checked once every backend is read.
    private func fallbackName(_ key: String, _ reader: ObjectReader, owner: String?) -> String? {
        guard let text = reader.string(key), let node = reader[key] else { return nil }
        if text == owner {
            log.error("backend '\(text)' cannot fall back to itself", at: node.location, path: reader.path.key(key),
                      fix: "name an apple-system backend")
        }
        return text
    }

    private func url(_ key: String, _ reader: ObjectReader) -> String? {
        guard let text = reader.string(key), let node = reader[key] else { return nil }
        // The URL is not repeated in the message: a query string can carry a key.
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              url.host?.isEmpty == false else {
            log.error("'\(key)' must be an http:// or https:// URL with a host", at: node.location, path: reader.path.key(key),
                      fix: "write it like \"http://127.0.0.1:8080/v1\"")
            return nil
        }
        return text
    }

    private func environmentName(_ key: String, _ reader: ObjectReader) -> String? {
        guard let text = reader.string(key), let node = reader[key] else { return nil }
        guard LiteralSecret.isEnvironmentVariableName(text) else {
            log.error("'\(key)' must be the name of an environment variable, and the value looks like a key",
                      at: node.location, path: reader.path.key(key), fix: LiteralSecret.fix)
            return nil
        }
        return text
    }

    /// An absolute path: `~` expanded, a relative path taken from the config file's directory.
    private func filePath(_ key: String, _ reader: ObjectReader) -> String? {
        guard let text = reader.string(key), let node = reader[key] else { return nil }
        guard !text.isEmpty else {
            log.error("'\(key)' is empty", at: node.location, path: reader.path.key(key), fix: "write the file's path")
            return nil
        }
        let expanded = NSString(string: text).expandingTildeInPath
        let absolute = expanded.hasPrefix("/") ? URL(fileURLWithPath: expanded)
                                              : URL(fileURLWithPath: baseDirectory).appendingPathComponent(expanded)
        return absolute.standardizedFileURL.path
    }

    /// A replay backend's earlier run: a directory holding results.jsonl.
    private func replayDirectory(_ key: String, _ reader: ObjectReader) -> String? {
        guard let path = filePath(key, reader), let node = reader[key] else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            log.error("'\(key)' names \(path), which is not a directory", at: node.location, path: reader.path.key(key),
                      fix: "name an earlier run's output directory (the --out of `evalbench run`), relative to the config's directory")
            return nil
        }
        guard FileManager.default.fileExists(atPath: RunDirectory(path: path).results.path) else {
            log.error("'\(key)' names \(path), which has no results.jsonl", at: node.location, path: reader.path.key(key),
                      fix: "name the directory an earlier `evalbench run` wrote its results.jsonl into")
            return nil
        }
        return path
    }

    private func headers(_ key: String, _ reader: ObjectReader) -> [String: String]? {
        guard let node = reader[key],
              let headers = ObjectReader(node, path: reader.path.key(key), log: log, what: "'\(key)'") else { return nil }
        var result: [String: String] = [:]
        for member in headers.members where !LiteralSecret.isSecretName(member.key) {
            if let value = headers.string(member.key) { result[member.key] = value }
        }
        return result
    }

    /// A string that must be one of `allowed`.
    private func choice(_ key: String, _ reader: ObjectReader, among allowed: [String]) -> String? {
        guard let text = reader.string(key), let node = reader[key] else { return nil }
        guard allowed.contains(text) else {
            let hint = suggestion(for: text, among: allowed).map { "; did you mean '\($0)'?" } ?? ""
            log.error("'\(key)' must be one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", ")), found \"\(text)\"\(hint)",
                      at: node.location, path: reader.path.key(key), fix: nil)
            return nil
        }
        return text
    }

    /// An object of request-body fields, passed through as written.
    private func extraBody(_ key: String, _ reader: ObjectReader) -> [String: JSONValue]? {
        guard let node = reader[key] else { return nil }
        guard node.members != nil, case let .object(members) = JSONValue(node) else {
            reader.reportInvalid(key, node, must: "an object of request-body fields, e.g. {\"chat_template_kwargs\": {\"enable_thinking\": false}}")
            return nil
        }
        return members
    }

    /// `reasoning`: per level, how this backend sends it instead of the kind's default.
    private func reasoningOverrides(_ key: String, _ reader: ObjectReader, kind: String) -> [String: ReasoningOverride]? {
        guard let node = reader[key],
              let levels = ObjectReader(node, path: reader.path.key(key), log: log, what: "'\(key)'") else { return nil }
        let names = ReasoningLevel.allCases.map(\.rawValue)
        levels.rejectUnknownKeys(allowed: names)
        var result: [String: ReasoningOverride] = [:]
        for name in names {
            guard let levelNode = levels[name],
                  let level = ObjectReader(levelNode, path: levels.path.key(name), log: log,
                                           what: "the mapping of level '\(name)'") else { continue }
            level.rejectUnknownKeys(allowed: ["effort", "thinkingBudget", "extraBody", "unsupported"])
            let mapping = ReasoningOverride(effort: level.string("effort"),
                                            thinkingBudget: level.integer("thinkingBudget", atLeast: 0),
                                            extraBody: extraBody("extraBody", level),
                                            unsupported: level.string("unsupported"))
            if mapping.unsupported != nil, mapping.effort != nil || mapping.thinkingBudget != nil || mapping.extraBody != nil {
                log.error("level '\(name)' is marked unsupported and also says how to send it", at: levelNode.location,
                          path: levels.path.key(name), fix: "keep either \"unsupported\" or the fields that send the level")
            }
            if kind.hasPrefix("apple-") {
                checkAppleMapping(level, kind: kind)
            } else if mapping.thinkingBudget != nil, ["openai", "llama-server"].contains(kind), let budget = level["thinkingBudget"] {
                log.error("OpenAI-compatible servers have no standard thinking-budget field", at: budget.location,
                          path: level.path.key("thinkingBudget"),
                          fix: "send the server's own field through \"extraBody\": llama.cpp {\"reasoning_budget_tokens\": 1024}, vLLM {\"thinking_token_budget\": 1024}")
            }
            result[name] = mapping
        }
        return result
    }

    /// Apple's levels are `ContextOptions` reasoning levels on PCC and nothing on the device:
    /// no budgets or request bodies, and an `effort` must name one of PCC's levels.
    private func checkAppleMapping(_ level: ObjectReader, kind: String) {
        for key in ["thinkingBudget", "extraBody"] {
            if let node = level[key] {
                log.error("kind '\(kind)' takes no \"\(key)\"", at: node.location, path: level.path.key(key),
                          fix: kind == "apple-pcc" ? "use \"effort\": \"light\", \"moderate\" or \"deep\" (a ContextOptions reasoning level), or \"unsupported\""
                                                   : "the on-device model has no reasoning levels; only \"unsupported\" applies")
            }
        }
        guard let node = level["effort"], let effort = node.stringValue else { return }
        if kind == "apple-system" {
            log.error("the on-device model has no reasoning levels to send", at: node.location, path: level.path.key("effort"),
                      fix: "remove \"effort\"; levels above none are skipped on apple-system")
        } else if !["light", "moderate", "deep"].contains(effort) {
            let hint = suggestion(for: effort, among: ["light", "moderate", "deep"]).map { "; did you mean '\($0)'?" } ?? ""
            log.error("'effort' must be a ContextOptions reasoning level, \"light\", \"moderate\" or \"deep\", found \"\(effort)\"\(hint)",
                      at: node.location, path: level.path.key("effort"), fix: nil)
        }
    }

    private func pricing(_ key: String, _ reader: ObjectReader) -> Pricing? {
        guard let node = reader[key],
              let prices = ObjectReader(node, path: reader.path.key(key), log: log, what: "'\(key)'") else { return nil }
        let keys = ["inputPerMTok", "cachedInputPerMTok", "cacheWritePerMTok", "outputPerMTok", "perRequest"]
        prices.rejectUnknownKeys(allowed: keys, ignoring: Set(prices.members.map(\.key).filter(LiteralSecret.isSecretName)))
        func price(_ name: String) -> Double? {
            prices.number(name, must: "a price in US dollars of at least 0", where: { $0 >= 0 })
        }
        return Pricing(inputPerMTok: price("inputPerMTok"), cachedInputPerMTok: price("cachedInputPerMTok"),
                       cacheWritePerMTok: price("cacheWritePerMTok"), outputPerMTok: price("outputPerMTok"),
                       perRequest: price("perRequest"))
    }
}
