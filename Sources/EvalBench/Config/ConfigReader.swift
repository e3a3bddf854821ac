import Foundation

/// The reading of one config's members: the backends (each by asking its kind which keys it
/// takes), the defaults, and the checks that need every backend.
struct ConfigReader {
    let log: DiagnosticLog
    let values: ConfigValueReader
    let kinds: BackendKindRegistry

    /// The keys of every kind, each once, in the order the kinds list them.
    var allBackendKeys: [String] {
        var seen: Set<String> = []
        return kinds.kinds.flatMap { $0.keys.map(\.name) }.filter { seen.insert($0).inserted }
    }

    func read(_ top: ObjectReader, into config: inout Config) {
        top.rejectUnknownKeys(allowed: ["$schema", "backends", "defaults"])
        _ = top.string("$schema")
        var nameLocations: [String: SourceLocation] = [:]
        var readers: [ObjectReader] = []
        if let node = top["backends"] {
            if let elements = node.arrayValue, !elements.isEmpty {
                for (index, element) in elements.enumerated() {
                    let path = top.path.key("backends").index(index)
                    LiteralSecret.report(in: element, path: path, log: log)
                    guard let reader = ObjectReader(element, path: path, log: log, what: "a backend") else { continue }
                    if let backend = readBackend(reader, names: &nameLocations) {
                        config.backends.append(backend)
                        readers.append(reader)
                    }
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
        for (backend, reader) in zip(config.backends, readers) {
            for problem in backend.options.problems(of: backend, among: config.backends) {
                report(problem, in: reader)
            }
        }
    }

    /// A kind's problem, at its key's value (or the backend's brace when the key is absent).
    private func report(_ problem: ConfigProblem, in reader: ObjectReader) {
        let node = reader[problem.key]
        log.error(problem.message, at: node?.location ?? reader.node.location,
                  path: node == nil ? reader.path : reader.path.key(problem.key), fix: problem.fix)
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
        let kindNames = kinds.names
        let kindName = reader.string("kind", requiredFix: "add \"kind\": one of \(kindNames.joined(separator: ", "))")
        guard let kindName, let kind = kinds.kind(named: kindName) else {
            if let kindName, let node = reader["kind"] {
                let hint = suggestion(for: kindName, among: kindNames).map { "; did you mean '\($0)'?" } ?? ""
                log.error("unknown backend kind '\(kindName)'\(hint)", at: node.location, path: reader.path.key("kind"),
                          fix: "kinds: \(kindNames.joined(separator: ", "))")
            }
            reader.rejectUnknownKeys(allowed: ["name", "kind"] + allBackendKeys, ignoring: secrets)
            return nil
        }
        reader.rejectUnknownKeys(allowed: ["name", "kind"] + kind.keys.map(\.name), usedElsewhere: Set(allBackendKeys),
                                 owner: "kind '\(kindName)'", ignoring: secrets)
        var read = ConfigValues()
        for key in kind.keys {
            if key.isRequired, reader[key.name] == nil {
                reader.reportMissing(key.name, fix: "kind '\(kindName)' needs \"\(key.name)\"")
            }
            guard let value = values.read(key, from: reader, kind: kind) else { continue }
            if let problem = key.check?(value) {
                report(problem, in: reader)
                continue
            }
            read.values[key.name] = value
        }
        guard let name, var backend = BackendConfig(name: name, kind: kind, values: read) else { return nil }
        for member in reader.members { backend.keyLocations[member.key] = member.value.location }
        return backend
    }

    private func readDefaults(_ reader: ObjectReader, known: [String],
                              nameLocations: [String: SourceLocation]) -> RunDefaults {
        reader.rejectUnknownKeys(allowed: ["concurrency", "timeoutSeconds", "retries", "backends", "reasoning", "failFastAfter",
                                           "maxResponseBytes", "gradingTimeoutSeconds"])
        var defaults = RunDefaults()
        if let value = reader.integer("concurrency", atLeast: 1, atMost: RunLimits.maxConcurrency) { defaults.concurrency = value }
        let least = RunLimits.minTimeoutSeconds
        if let value = reader.number("timeoutSeconds", must: "a number of at least \(least)", atMost: RunLimits.maxTimeoutSeconds,
                                     where: { $0 >= least }) {
            defaults.timeoutSeconds = value
        }
        if let value = reader.integer("retries", atLeast: 0, atMost: RunLimits.maxRetries) { defaults.retries = value }
        if let value = reader.integer("failFastAfter", atLeast: 0, atMost: 1_000_000) { defaults.failFastAfter = value }
        defaults.maxResponseBytes = reader.integer("maxResponseBytes", atLeast: 1024, atMost: RunLimits.maxResponseBytes)
        defaults.gradingTimeoutSeconds = reader.number("gradingTimeoutSeconds", must: "a number of at least \(least)",
                                                       atMost: RunLimits.maxTimeoutSeconds, where: { $0 >= least })
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
}
