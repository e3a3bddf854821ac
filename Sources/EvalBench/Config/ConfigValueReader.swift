import Foundation

/// Reads one config value by its `ConfigValueType`, reporting a value of the wrong type where
/// it is, with a fix.
struct ConfigValueReader {
    let log: DiagnosticLog
    /// Where relative file paths start from: the config file's directory.
    let baseDirectory: String

    func read(_ key: ConfigKey, from reader: ObjectReader, kind: any BackendKind.Type) -> ConfigValue? {
        let name = key.name
        switch key.type {
        case .string: return reader.string(name).map(ConfigValue.string)
        case .bool: return reader.bool(name).map(ConfigValue.bool)
        case .strings: return reader.strings(name).map(ConfigValue.strings)
        case .positiveInteger:
            return reader.integer(name, atLeast: 1, atMost: RunLimits.largestInteger(for: name)).map(ConfigValue.integer)
        case .positiveNumber:
            if let least = RunLimits.smallestNumber(for: name) {
                return reader.number(name, must: "a number of at least \(least)", atMost: RunLimits.largestNumber(for: name),
                                     where: { $0 >= least }).map(ConfigValue.number)
            }
            return reader.number(name, must: "a number greater than 0", atMost: RunLimits.largestNumber(for: name),
                                 where: { $0 > 0 }).map(ConfigValue.number)
        case .url: return url(name, reader).map(ConfigValue.string)
        case .environmentVariable: return environmentName(name, reader).map(ConfigValue.string)
        case .filePath: return filePath(name, reader).map(ConfigValue.string)
        case .choice(let allowed): return choice(name, reader, among: allowed).map(ConfigValue.string)
        case .headers: return headers(name, reader).map(ConfigValue.headers)
        case .environmentHeaders: return environmentHeaders(name, reader).map(ConfigValue.headers)
        case .requestBody: return requestBody(name, reader).map(ConfigValue.object)
        case .pricing: return pricing(name, reader).map(ConfigValue.pricing)
        case .reasoning:
            return reasoningOverrides(name, reader, kindName: kind.name, rules: kind.reasoningRules).map(ConfigValue.reasoning)
        }
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
        if let port = url.port, !(1...65_535).contains(port) {
            log.error("'\(key)' has the port \(port), and a port is 1 to 65535", at: node.location, path: reader.path.key(key),
                      fix: "write the server's port, like \"http://127.0.0.1:8080/v1\"")
            return nil
        }
        if let problem = Self.credentialProblem(in: url) {
            log.error("'\(key)' \(problem), which would copy a secret into run.json and the reports",
                      at: node.location, path: reader.path.key(key),
                      fix: "remove it from the URL; " + LiteralSecret.fix)
            return nil
        }
        return text
    }

    /// What in `url` is a credential (never repeating it): a `user:password@`, or a query
    /// parameter such as `?key=` named like a secret or holding a value that looks like one.
    static func credentialProblem(in url: URL) -> String? {
        if url.user != nil || url.password != nil { return "carries a user name or password (user:password@)" }
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        if let item = items.first(where: { LiteralSecret.isSecretName($0.name) || LiteralSecret.looksLikeSecret($0.value ?? "") }) {
            return "carries the query parameter '\(item.name)', which holds a secret"
        }
        return nil
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

    private func headers(_ key: String, _ reader: ObjectReader) -> [String: String]? {
        guard let node = reader[key],
              let headers = ObjectReader(node, path: reader.path.key(key), log: log, what: "'\(key)'") else { return nil }
        var result: [String: String] = [:]
        var seen: [String: String] = [:]
        for member in headers.members where !LiteralSecret.isSecretName(member.key) {
            guard let value = headers.string(member.key), headerNameIsValid(member, headers),
                  headerNameIsNew(member, headers, seen: &seen) else { continue }
            if let problem = LiteralSecret.headerValueProblem(member.key, value) {
                log.error(problem.message, at: member.value.location, path: headers.path.key(member.key), fix: problem.fix)
                continue
            }
            result[member.key] = value
        }
        return result
    }

    /// Whether a header's name is an HTTP token (letters, digits and ``!#$%&'*+-.^_`|~``);
    /// logs the error when it is not.
    private func headerNameIsValid(_ member: JSONNode.Member, _ headers: ObjectReader) -> Bool {
        let allowed = Set("!#$%&'*+-.^_`|~".unicodeScalars)
        let valid = !member.key.isEmpty && member.key.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (allowed.contains(scalar) || CharacterSet.alphanumerics.contains(scalar))
        }
        if !valid {
            log.error("'\(member.key)' is not a header name: a name is letters, digits and !#$%&'*+-.^_`|~, with no spaces",
                      at: member.keyLocation, path: headers.path.key(member.key), fix: "write it like \"X-Request-Source\"")
        }
        return valid
    }

    /// Whether no earlier header of the object has this name in another case (`X-Team` and
    /// `x-team` are one header, and both lines would be sent); logs the error when one has.
    private func headerNameIsNew(_ member: JSONNode.Member, _ headers: ObjectReader, seen: inout [String: String]) -> Bool {
        let name = member.key.lowercased()
        if let first = seen[name] {
            log.error(LiteralSecret.duplicateHeader(member.key, first: first),
                      at: member.keyLocation, path: headers.path.key(member.key), fix: "keep one of them")
            return false
        }
        seen[name] = member.key
        return true
    }

    /// CR, LF, NUL and the other control characters but a tab end or break a header line.
    static func isForbiddenInHeaderValue(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }

    /// Header name → environment variable name; a value that is not a variable name is refused
    /// like a literal key (it is probably the secret itself).
    private func environmentHeaders(_ key: String, _ reader: ObjectReader) -> [String: String]? {
        guard let node = reader[key],
              let headers = ObjectReader(node, path: reader.path.key(key), log: log, what: "'\(key)'") else { return nil }
        var result: [String: String] = [:]
        var seen: [String: String] = [:]
        for member in headers.members {
            guard let variable = headers.string(member.key), headerNameIsValid(member, headers),
                  headerNameIsNew(member, headers, seen: &seen) else { continue }
            guard LiteralSecret.isEnvironmentVariableName(variable) else {
                log.error("the value of '\(member.key)' must be the name of an environment variable, and it looks like a key",
                          at: member.value.location, path: headers.path.key(member.key), fix: LiteralSecret.fix)
                continue
            }
            result[member.key] = variable
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
    private func requestBody(_ key: String, _ reader: ObjectReader) -> [String: JSONValue]? {
        guard let node = reader[key] else { return nil }
        guard node.members != nil, case let .object(members) = JSONValue(node) else {
            reader.reportInvalid(key, node, must: "an object of request-body fields, e.g. {\"chat_template_kwargs\": {\"enable_thinking\": false}}")
            return nil
        }
        return members
    }

    /// `reasoning`: per level, how this backend sends it instead of the kind's default.
    private func reasoningOverrides(_ key: String, _ reader: ObjectReader, kindName: String,
                                    rules: ReasoningOverrideRules) -> [String: ReasoningOverride]? {
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
                                            thinkingBudget: level.integer("thinkingBudget", atLeast: 0, atMost: RunLimits.maxTokens),
                                            extraBody: requestBody("extraBody", level),
                                            unsupported: level.string("unsupported"))
            if mapping.unsupported != nil, mapping.effort != nil || mapping.thinkingBudget != nil || mapping.extraBody != nil {
                log.error("level '\(name)' is marked unsupported and also says how to send it", at: levelNode.location,
                          path: levels.path.key(name), fix: "keep either \"unsupported\" or the fields that send the level")
            }
            check(level, mapping, against: rules)
            result[name] = mapping
        }
        return result
    }

    /// The fields a kind refuses, and an effort outside the ones it accepts.
    private func check(_ level: ObjectReader, _ mapping: ReasoningOverride, against rules: ReasoningOverrideRules) {
        let given: [String: Bool] = ["effort": mapping.effort != nil, "thinkingBudget": mapping.thinkingBudget != nil,
                                     "extraBody": level["extraBody"] != nil]
        for field in ["thinkingBudget", "extraBody", "effort"] {
            guard let refusal = rules.refused[field], given[field] == true, let node = level[field] else { continue }
            log.error(refusal.message, at: node.location, path: level.path.key(field), fix: refusal.fix)
        }
        guard rules.refused["effort"] == nil, let efforts = rules.efforts,
              let node = level["effort"], let effort = node.stringValue, !efforts.values.contains(effort) else { return }
        let hint = suggestion(for: effort, among: efforts.values).map { "; did you mean '\($0)'?" } ?? ""
        log.error("'effort' must be \(efforts.what), \(Self.list(efforts.values)), found \"\(effort)\"\(hint)",
                  at: node.location, path: level.path.key("effort"), fix: nil)
    }

    /// `"a", "b" or "c"`.
    private static func list(_ values: [String]) -> String {
        let quoted = values.map { "\"\($0)\"" }
        guard quoted.count > 1 else { return quoted.joined() }
        return quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
    }

    private func pricing(_ key: String, _ reader: ObjectReader) -> Pricing? {
        guard let node = reader[key],
              let prices = ObjectReader(node, path: reader.path.key(key), log: log, what: "'\(key)'") else { return nil }
        let keys = ["inputPerMTok", "cachedInputPerMTok", "cacheWritePerMTok", "outputPerMTok", "perRequest"]
        prices.rejectUnknownKeys(allowed: keys, ignoring: Set(prices.members.map(\.key).filter(LiteralSecret.isSecretName)))
        func price(_ name: String) -> Double? {
            prices.number(name, must: "a price in US dollars of at least 0", atMost: RunLimits.maxPrice, where: { $0 >= 0 })
        }
        return Pricing(inputPerMTok: price("inputPerMTok"), cachedInputPerMTok: price("cachedInputPerMTok"),
                       cacheWritePerMTok: price("cacheWritePerMTok"), outputPerMTok: price("outputPerMTok"),
                       perRequest: price("perRequest"))
    }
}
