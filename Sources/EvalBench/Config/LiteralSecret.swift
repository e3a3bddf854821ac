/// Finds secrets written into a config file. evalbench reads secrets only from the
/// environment, so a key named like one, or an auth header, is refused wherever it appears.
/// Messages name the key and never repeat its value.
enum LiteralSecret {
    /// Whether a key or header name suggests its value is a credential. `apiKeyEnv`, which
    /// names an environment variable, is not one.
    static func isSecretName(_ name: String) -> Bool {
        let normalized = String(name.lowercased().filter { $0 != "_" && $0 != "-" && $0 != " " })
        let exact: Set<String> = ["key", "bearer", "passwd", "credentials", "cookie"]
        let endings = ["apikey", "token", "secret", "password", "authorization", "accesskey", "privatekey"]
        return exact.contains(normalized) || endings.contains { normalized.hasSuffix($0) }
    }

    /// The fix every refusal shares.
    static let fix = "put it in an environment variable and set \"apiKeyEnv\" to that variable's name (for a header of your own, \"headersFromEnv\": {\"Header-Name\": \"VARIABLE\"})"

    /// Reports every secret-named key in `node` and the objects nested in it, every string that
    /// looks like a key whatever its name (a well-known key prefix or an auth scheme), and the
    /// value of every command-line option named like a secret (`--api-key KEY`, `--hf-token=T`).
    /// Header values are checked where headers are read (`headerValueProblem`), more strictly.
    /// `skippingHeaders` leaves a backend's `headers` to checks of their own (a config built in Swift).
    static func report(in node: JSONNode, path: JSONPath, log: DiagnosticLog, inHeaders: Bool = false, skippingHeaders: Bool = false) {
        switch node.content {
        case .object(let members):
            for member in members {
                let memberPath = path.key(member.key)
                // Its keys are header names and its values variable names, checked where it is read.
                if member.key == ConfigKey.headersFromEnv.name { continue }
                if skippingHeaders, member.key == "headers" { continue }
                // A key pasted in place of the variable's name is refused where it is read, saying so.
                if member.key == ConfigKey.apiKeyEnv.name { continue }
                if isSecretName(member.key) {
                    let what = path.description.hasSuffix(".headers") ? "the header '\(member.key)'" : "'\(member.key)'"
                    log.error("\(what) would put a secret in the config file, and evalbench reads secrets only from the environment",
                              at: member.keyLocation, path: memberPath, fix: "remove it; \(fix)")
                } else {
                    report(in: member.value, path: memberPath, log: log, inHeaders: path.description.hasSuffix(".headers"))
                }
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if index > 0, case .string(let previous) = elements[index - 1].content, let option = secretOption(previous),
                   !option.hasValue, case .string(let value) = element.content, !value.hasPrefix("-") {
                    reportOptionValue(option.name, at: element.location, path: path.index(index), log: log)
                } else if case .string(let text) = element.content, let option = secretOption(text), option.hasValue {
                    reportOptionValue(option.name, at: element.location, path: path.index(index), log: log)
                } else {
                    report(in: element, path: path.index(index), log: log)
                }
            }
        case .string(let value):
            if !inHeaders, looksLikeKey(value) {
                log.error("this value looks like a secret (a key's well-known prefix, or an auth scheme and a token), and evalbench reads secrets only from the environment",
                          at: node.location, path: path, fix: "remove it; \(fix)")
            }
        default:
            return
        }
    }

    /// A command-line option named like a secret (`--api-key`, `--hf-token`, `-api_key=…`):
    /// its name, and whether its value is in the same argument (after `=`).
    static func secretOption(_ argument: String) -> (name: String, hasValue: Bool)? {
        guard argument.hasPrefix("-") else { return nil }
        let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        guard name.count > 1, isSecretName(String(name.drop { $0 == "-" })) else { return nil }
        return (name, parts.count == 2)
    }

    private static func reportOptionValue(_ name: String, at location: SourceLocation, path: JSONPath, log: DiagnosticLog) {
        let normalized = name.lowercased().filter { $0.isLetter }
        // The llama-server evalbench starts listens on 127.0.0.1 only, and evalbench sends it no key.
        let fix = normalized.hasSuffix("apikey")
            ? "remove '\(name)' and its value: the llama-server evalbench starts listens only on 127.0.0.1 and needs no key (a server of your own that needs one is an \"openai\" backend with \"apiKeyEnv\")"
            : "remove '\(name)' and its value, and set the environment variable the program reads for it before running evalbench (llama-server: HF_TOKEN for --hf-token)"
        log.error("the argument '\(name)' would put a secret in the config file (and on the process's command line, which other users of the machine can read), and evalbench reads secrets only from the environment",
                  at: location, path: path, fix: fix)
    }

    /// Whether a literal value, under any name, is surely a key: one token with a well-known
    /// key prefix (`sk-`, `AIza`, `ghp_`, …), or an auth scheme and one long token (`Bearer …`).
    /// Narrower than `looksLikeSecret`, whose long mixed-case tokens include file paths, so that
    /// it can be applied to every string of a config.
    static func looksLikeKey(_ value: String) -> Bool {
        let words = value.split(whereSeparator: \.isWhitespace)
        if words.count == 2, ["bearer", "basic", "token", "apikey"].contains(words[0].lowercased()), words[1].count >= 12 { return true }
        // A path (`hf_models/gemma.gguf`) is not a key: no well-known key holds '/'.
        guard words.count == 1, let word = words.first, word.count >= 12, !word.contains("/"), !word.hasSuffix(".gguf") else { return false }
        return keyPrefixes.contains(where: word.hasPrefix)
    }

    /// The prefixes of well-known API keys and tokens.
    static let keyPrefixes = ["sk-", "sk_", "rk_", "pk_live", "xoxb-", "xoxp-", "ghp_", "gho_", "github_pat_", "glpat-", "hf_",
                              "AIza", "AKIA", "eyJ"]

    /// What is wrong with a header a config writes literally, value `value`: it looks like a
    /// credential, or holds a control character that would end the header line; nil when
    /// neither. Never quotes the value. Shared by the file loader and `ConfigChecks`.
    static func headerValueProblem(_ name: String, _ value: String) -> (message: String, fix: String)? {
        if let bad = value.unicodeScalars.first(where: ConfigValueReader.isForbiddenInHeaderValue) {
            return ("the header '\(name)' has a value with the control character U+\(String(format: "%04X", bad.value)), which would end the header line and start another",
                    "remove line breaks and control characters from the value")
        }
        if looksLikeSecret(value) {
            return ("the header '\(name)' has a value that looks like a secret, and evalbench reads secrets only from the environment",
                    "remove it; \(fix)")
        }
        return nil
    }

    /// Why the header `name` cannot be given too when `first` was (one header whatever its case).
    static func duplicateHeader(_ name: String, first: String) -> String {
        "the header '\(name)' is also given as '\(first)': header names are the same whatever their case"
    }

    /// Whether a literal value looks like a credential whatever its name: an auth scheme
    /// (`Bearer …`, `Basic …`), a well-known key prefix (`sk-`, `AIza`, `ghp_`, a JWT's `eyJ`),
    /// or one long token mixing upper case, lower case and digits. Version strings, UUIDs and
    /// beta flags (`prompt-caching-2024-07-31`) do not.
    static func looksLikeSecret(_ value: String) -> Bool {
        let text = value.trimmingCharacters(in: .whitespaces)
        let lowered = text.lowercased()
        if ["bearer ", "basic ", "token ", "apikey "].contains(where: lowered.hasPrefix) { return true }
        if text.count >= 12, keyPrefixes.contains(where: text.hasPrefix) { return true }
        guard text.count >= 32, !text.contains(" ") else { return false }
        let scalars = text.unicodeScalars
        return scalars.contains { ("A"..."Z").contains($0) } && scalars.contains { ("a"..."z").contains($0) }
            && scalars.contains { ("0"..."9").contains($0) }
    }

    /// Whether `value` can be an environment variable name rather than a pasted key.
    static func isEnvironmentVariableName(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first, first.isASCII,
              first.properties.isAlphabetic || first == "_" else { return false }
        return value.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
        }
    }
}
