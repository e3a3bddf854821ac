import Foundation

/// The checks a config built in Swift gets in place of the loader's (distinct backend names,
/// each kind's own rules beside the other backends), and the joining of the caller's own
/// backends (`Evaluation.backends`) to a config.
enum ConfigChecks {
    static func check(_ config: Config) throws(LoadError) {
        let file = config.file ?? "config (built in Swift)"
        var diagnostics: [Diagnostic] = []
        var seen: Set<String> = []
        diagnostics += limitProblems(config, file: file)
        for (index, backend) in config.backends.enumerated() {
            if backend.name.isEmpty {
                diagnostics.append(Diagnostic(file: file, path: "$.backends[\(index)].name", message: "backend \(index) has an empty name",
                                              fix: "give every backend a short, distinct name such as \"local\""))
            } else if !seen.insert(backend.name).inserted {
                diagnostics.append(Diagnostic(file: file, path: "$.backends[\(index)].name",
                                              message: "the backend name '\(backend.name)' is used twice",
                                              fix: "give every backend a distinct name"))
            }
            diagnostics += plainSightProblems(backend.options, path: "$.backends[\(index)]", file: file)
            diagnostics += literalKeyProblems(backend, index: index, file: file)
            for problem in backend.options.problems(of: backend, among: config.backends) {
                diagnostics.append(Diagnostic(file: file, path: "$.backends[\(index)].\(problem.key)",
                                              message: problem.message, fix: problem.fix))
            }
        }
        guard diagnostics.isEmpty else { throw LoadError(diagnostics) }
    }

    /// What a file's loader refuses in a backend's literal headers and base URL, refused in a
    /// config built in Swift too: a header named or shaped like a credential (the redactor
    /// leaves these values in answers, as written in plain sight), one named twice in
    /// different case, a value with a control character, and a URL carrying a credential.
    private static func plainSightProblems(_ options: any BackendKind, path: String, file: String) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        var seen: [String: String] = [:]
        let (headers, baseURL) = options.plainSight
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            let at = "\(path).headers.\(name)"
            if let first = seen[name.lowercased()] {
                problems.append(Diagnostic(file: file, path: at, message: LiteralSecret.duplicateHeader(name, first: first), fix: "keep one of them"))
            }
            seen[name.lowercased()] = name
            if LiteralSecret.isSecretName(name) {
                problems.append(Diagnostic(file: file, path: at, message: "the header '\(name)' would put a secret in the config, and evalbench reads secrets only from the environment",
                                           fix: "remove it; " + LiteralSecret.fix))
            } else if let problem = LiteralSecret.headerValueProblem(name, value) {
                problems.append(Diagnostic(file: file, path: at, message: problem.message, fix: problem.fix))
            }
        }
        if let baseURL, let url = URL(string: baseURL), let problem = ConfigValueReader.credentialProblem(in: url) {
            problems.append(Diagnostic(file: file, path: "\(path).baseURL", message: "'baseURL' \(problem), which would copy a secret into run.json and the reports",
                                       fix: "remove it from the URL; " + LiteralSecret.fix))
        }
        return problems
    }

    /// What the file's loader refuses elsewhere in a backend (`LiteralSecret.report`): a key
    /// under a secret's name, a string that is surely a key (in `extraBody`, say), or the value
    /// of a server argument such as `--api-key`, found in what the backend encodes to (as
    /// run.json would hold it). The headers and the base URL are `plainSightProblems`'.
    private static func literalKeyProblems(_ backend: BackendConfig, index: Int, file: String) -> [Diagnostic] {
        guard let data = try? JSONEncoder().encode(backend), let document = try? JSONDocument(data: data, file: file) else {
            return [Diagnostic(file: file, path: "$.backends[\(index)]",
                               message: "backend '\(backend.name)' could not be encoded as JSON, so it cannot be checked for a key written into it (or recorded in run.json)",
                               fix: "make its kind's options encodable (Codable) without throwing")]
        }
        let log = DiagnosticLog(file: file)
        LiteralSecret.report(in: document.root, path: JSONPath.root.key("backends").index(index), log: log, skippingHeaders: true)
        // Where in the encoded text is no place in the caller's code.
        return log.diagnostics.map { diagnostic in
            var diagnostic = diagnostic
            diagnostic.location = nil
            return diagnostic
        }
    }

    /// The limits of a config built in Swift, bounded as the loader bounds those of a file.
    private static func limitProblems(_ config: Config, file: String) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        func check(_ value: Double?, _ path: String, above maximum: Double, orAtMost minimum: Double = 0) {
            guard let value, !(value > minimum && value <= maximum) else { return }
            problems.append(Diagnostic(file: file, path: path, message: "\(path) is \(value), outside what evalbench accepts (above \(minimum), at most \(maximum))",
                                       fix: "use a value of at most \(maximum)"))
        }
        // A timeout below a millisecond (1e-300) would end every request before it was sent.
        func checkTimeout(_ value: Double?, _ path: String) {
            check(value, path, above: RunLimits.maxTimeoutSeconds)
            guard let value, value > 0, value < RunLimits.minTimeoutSeconds else { return }
            problems.append(Diagnostic(file: file, path: path, message: "\(path) is \(value), below the shortest timeout evalbench accepts, \(RunLimits.minTimeoutSeconds)",
                                       fix: "use a value of at least \(RunLimits.minTimeoutSeconds) (seconds)"))
        }
        checkTimeout(config.defaults.timeoutSeconds, "$.defaults.timeoutSeconds")
        checkTimeout(config.defaults.gradingTimeoutSeconds, "$.defaults.gradingTimeoutSeconds")
        check(Double(config.defaults.concurrency), "$.defaults.concurrency", above: Double(RunLimits.maxConcurrency))
        check(Double(config.defaults.retries), "$.defaults.retries", above: Double(RunLimits.maxRetries), orAtMost: -1)
        for (index, backend) in config.backends.enumerated() {
            checkTimeout(backend.timeoutSeconds, "$.backends[\(index)].timeoutSeconds")
            check(backend.concurrency.map(Double.init), "$.backends[\(index)].concurrency", above: Double(RunLimits.maxConcurrency))
        }
        return problems
    }

    /// Adds each of `backends` to `config` under its name; a name the config already has is an error.
    static func add(_ backends: [any Backend], to config: inout Config) throws(LoadError) {
        var diagnostics: [Diagnostic] = []
        for backend in backends {
            guard config.backend(named: backend.name) == nil else {
                diagnostics.append(Diagnostic(file: config.file ?? "config (built in Swift)",
                                              message: "the backend '\(backend.name)' passed in Evaluation.backends has the name of a configured backend",
                                              fix: "give the backend you pass a name of its own"))
                continue
            }
            config.backends.append(BackendConfig(name: backend.name, model: backend.model, concurrency: backend.concurrency,
                                                 options: ProvidedBackendKind(backend)))
        }
        guard diagnostics.isEmpty else { throw LoadError(diagnostics) }
    }
}
