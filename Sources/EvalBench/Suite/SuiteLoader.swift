import Foundation

/// Loads and validates an eval suite file (`"format": "evalbench.suite/1"`), applying suite
/// defaults and `{{name}}` templates, and reports every problem in the file at once.
package enum SuiteLoader {
    /// The value the `format` key must have.
    package static let format = "evalbench.suite/1"

    /// Reads and loads the suite at `path`; diagnostics name `path` as given.
    package static func load(path: String) throws(LoadError) -> Suite {
        try load(data: readFile(path, what: "suite"), file: path)
    }

    /// Loads a suite from its bytes; `file` names it in diagnostics and gives the default suite name.
    package static func load(data: Data, file: String) throws(LoadError) -> Suite {
        let (suite, log) = try read(data: data, file: file)
        try log.throwIfAny()
        return suite
    }

    /// The suite at `path` as far as it could be read, and a `LoadError` with every problem
    /// found (nil when there is none), so that the run's cross-checks against the config
    /// (judge backends, turn switches) still report on a suite that has other errors. The
    /// suite is nil when the file is not JSON or cannot be read.
    package static func loadReportingAll(path: String) -> (suite: Suite?, problems: LoadError?) {
        do {
            let (suite, log) = try read(data: readFile(path, what: "suite"), file: path)
            do {
                try log.throwIfAny()
                return (suite, nil)
            } catch {
                return (suite, error)
            }
        } catch {
            return (nil, error)
        }
    }

    private static func read(data: Data, file: String) throws(LoadError) -> (Suite, DiagnosticLog) {
        let root: JSONNode
        do {
            root = try JSONDocument(data: data, file: file).root
        } catch {
            throw LoadError([error])
        }
        let log = DiagnosticLog(file: file)
        var suite = Suite(name: URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent,
                          file: file, cases: [])
        if let reader = ObjectReader(root, path: .root, log: log, what: "a suite") {
            SuiteReader(log: log).read(reader, into: &suite)
        }
        return (suite, log)
    }

    /// The file's bytes, or a `LoadError` that says why they could not be read.
    static func readFile(_ path: String, what: String) throws(LoadError) -> Data {
        if let tooLarge = RunLimits.fileTooLarge(path, what: what, limit: RunLimits.maxSuiteFileBytes) {
            throw LoadError([Diagnostic(file: path, message: tooLarge,
                                        fix: what == "suite" ? "check that it is a suite; put many cases in a dataset file (\"dataset\")"
                                                             : "check that it is a \(what) file")])
        }
        if let data = FileManager.default.contents(atPath: path) { return data }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let message = !exists ? "no such \(what) file" : isDirectory.boolValue ? "this is a directory, not a \(what) file"
                                                                             : "the \(what) file cannot be read"
        let directoryFix = "name a \(what) file" + (what == "suite" ? " (for every suite in a directory: dir/*.json)" : "")
        let fix = !exists ? "check the path" : isDirectory.boolValue ? directoryFix
                                                                     : "check the file's permissions (and that it is a regular file)"
        throw LoadError([Diagnostic(file: path, message: message, fix: fix)])
    }
}

/// The reading of one suite's members, sharing the log and the suite-level defaults.
private struct SuiteReader {
    let log: DiagnosticLog

    static let suiteKeys = ["$schema", "format", "suite", "description", "instructions", "options", "vars",
                            "repeat", "reasoning", "slo", "target", "gates", "variants", "cases", "dataset", "tools"]
    static let caseKeys = ["id", "description", "prompt", "turns", "instructions", "options", "vars", "tags",
                           "output", "expect", "threshold", "tools"]
    static let turnKeys = ["prompt", "instructions", "options", "reasoning", "backend", "history", "expect", "tools"]

    /// What a case inherits from the suite.
    struct Defaults {
        var instructions: (text: String, node: JSONNode)?
        var options = GenerationOptions()
        var vars: [String: String] = [:]
        var tools: [CannedTool] = []
        /// The variables a dataset row gave (its columns), for the fix of a prompt they render empty.
        var rowColumns: Set<String> = []
    }

    func read(_ top: ObjectReader, into suite: inout Suite) {
        top.rejectUnknownKeys(allowed: Self.suiteKeys)
        _ = top.string("$schema")
        if let format = top.string("format", requiredFix: "add \"format\": \"\(SuiteLoader.format)\""),
           format != SuiteLoader.format, let node = top["format"] {
            log.error("unsupported format '\(format)'", at: node.location, path: top.path.key("format"),
                      fix: "this version of evalbench reads \"\(SuiteLoader.format)\"")
        }
        if let name = top.resultKeyName("suite", what: "suite name") { suite.name = name }
        suite.description = top.string("description")
        suite.repeatCount = top.integer("repeat", atLeast: 1, atMost: RunLimits.maxRepeat)
        suite.reasoning = top.reasoningLevels("reasoning")
        if let node = top["slo"] { suite.slo = readServiceLevel(node, path: top.path.key("slo")) }
        if let node = top["gates"] { suite.gates = readGates(node, path: top.path.key("gates")) }
        suite.target = top.number("target", must: "a pass rate greater than 0 and at most 1, such as 0.8",
                                  where: { $0 > 0 && $0 <= 1 })

        var defaults = Defaults()
        if let text = top.string("instructions"), let node = top["instructions"] {
            defaults.instructions = (text, node)
            // Said here once, whether or not a case inherits them; each case renders them with its vars.
            if text.isBlank { reportBlank(text, at: node, path: top.path.key("instructions"), as: .instructions) }
        }
        if let node = top["options"] { defaults.options = readOptions(node, path: top.path.key("options")) }
        if let node = top["vars"] { defaults.vars = readVars(node, path: top.path.key("vars")) }
        if let node = top["tools"] { defaults.tools = ToolSetReader(log: log).read(node, path: top.path.key("tools")) }
        if let node = top["variants"] { suite.variants = readVariants(node, path: top.path.key("variants"), vars: defaults.vars) }

        var firstUse: [String: SourceLocation] = [:]
        defer {
            if let node = top["dataset"] {
                readDataset(node, path: top.path.key("dataset"), file: suite.file, defaults: defaults,
                            into: &suite, firstUse: &firstUse)
            }
        }
        guard let casesNode = top["cases"] else {
            if top["dataset"] == nil {
                top.reportMissing("cases", fix: "add \"cases\": [ { \"id\": \"first\", \"prompt\": \"...\" } ], or a \"dataset\"")
            }
            return
        }
        guard let elements = casesNode.arrayValue, !elements.isEmpty else {
            top.reportInvalid("cases", casesNode, must: "a non-empty array of cases")
            return
        }
        for (index, element) in elements.enumerated() {
            let path = top.path.key("cases").index(index)
            guard let reader = ObjectReader(element, path: path, log: log, what: "a case") else { continue }
            if let id = reader.resultKeyName("id", what: "case id",
                                             requiredFix: "give the case a unique \"id\" such as \"case-\(index + 1)\""),
               let idNode = reader["id"] {
                if let first = firstUse[id] {
                    log.error("duplicate case id '\(id)'; it is first used at line \(first.line)",
                              at: idNode.location, path: path.key("id"), fix: "give each case a unique id")
                } else {
                    firstUse[id] = idNode.location
                }
            }
            if let evalCase = readCase(reader, defaults: defaults) { suite.cases.append(evalCase) }
        }
    }

    /// `variants: [{"name", "instructions", "prompt" (a template around {{prompt}}), "options", "output"}]`.
    private func readVariants(_ node: JSONNode, path: JSONPath, vars: [String: String]) -> [PromptVariant] {
        guard let elements = node.arrayValue, !elements.isEmpty else {
            log.error("'variants' must be a non-empty array of variants, found \(node.kindDescription)", at: node.location, path: path,
                      fix: "write \"variants\": [ { \"name\": \"short\", \"instructions\": \"...\" } ]")
            return []
        }
        var variants: [PromptVariant] = []
        var firstUse: [String: SourceLocation] = [:]
        // {{prompt}} stands for each turn's prompt: known here, filled in when the variant applies.
        var templateVars = vars
        templateVars["prompt"] = ""
        for (index, element) in elements.enumerated() {
            guard let reader = ObjectReader(element, path: path.index(index), log: log, what: "a variant") else { continue }
            reader.rejectUnknownKeys(allowed: ["name", "description", "instructions", "prompt", "options", "output"])
            _ = reader.string("description")
            guard let name = reader.resultKeyName("name", what: "variant name", requiredFix: "add \"name\": e.g. \"short-instructions\""),
                  let nameNode = reader["name"] else { continue }
            if let first = firstUse[name] {
                log.error("duplicate variant name '\(name)'; it is first used at line \(first.line)", at: nameNode.location,
                          path: reader.path.key("name"), fix: "give each variant a unique name")
                continue
            }
            firstUse[name] = nameNode.location
            var variant = PromptVariant(name: name)
            if let text = reader.string("instructions"), let node = reader["instructions"] {
                variant.instructions = renderNonBlank(text, at: node, path: reader.path.key("instructions"), vars: vars,
                                                      rowColumns: [], as: .instructions)
            }
            if let text = reader.string("prompt"), let node = reader["prompt"] {
                // Rendered here only to report unknown names: the variant fills in the vars with
                // each turn's prompt in one pass, so that a value holding {{prompt}} stays text.
                _ = render(text, at: node, path: reader.path.key("prompt"), vars: templateVars)
                let names = Set(Template(text).names)
                if !names.contains("prompt") {
                    log.error("the variant's prompt template has no {{prompt}}", at: node.location, path: reader.path.key("prompt"),
                              fix: "write where each case's prompt goes, e.g. \"{{prompt}}\\nAnswer in one word.\"")
                }
                variant.promptTemplate = text
                variant.promptTemplateVars = vars.filter { names.contains($0.key) }
            }
            if let node = reader["options"] { variant.options = readOptions(node, path: reader.path.key("options")) }
            if let node = reader["output"] { variant.output = readOutput(node, path: reader.path.key("output")) }
            variants.append(variant)
        }
        return variants
    }

    /// `dataset: {"path": "cases.jsonl" | "cases.csv", "case": {…}}`: one case per row, the
    /// row's values as {{variables}} in the case template (over the suite's vars). The id is
    /// the template's `id` rendered with the row, else the row's `id` column, else `row-N`.
    private func readDataset(_ node: JSONNode, path: JSONPath, file: String, defaults: Defaults,
                             into suite: inout Suite, firstUse: inout [String: SourceLocation]) {
        guard let reader = ObjectReader(node, path: path, log: log, what: "'dataset'") else { return }
        reader.rejectUnknownKeys(allowed: ["path", "case"])
        guard let relative = reader.string("path", requiredFix: "add \"path\": a .jsonl or .csv file, relative to the suite") else { return }
        guard let template = reader["case"] else {
            reader.reportMissing("case", fix: "add \"case\": a case whose strings use the columns, e.g. {\"prompt\": \"{{question}}\", \"expect\": [{\"type\": \"contains\", \"value\": \"{{answer}}\"}]}")
            return
        }
        guard template.members != nil else {
            reader.reportInvalid("case", template, must: "a case object")
            return
        }
        let datasetPath = relative.hasPrefix("/") ? relative
            : URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent(relative).path
        if let tooLarge = RunLimits.fileTooLarge(datasetPath, what: "dataset", limit: RunLimits.maxDatasetFileBytes) {
            log.error(tooLarge, at: reader["path"]?.location, path: path.key("path"),
                      fix: "split the rows over several suites, each with its own dataset file")
            return
        }
        guard let data = FileManager.default.contents(atPath: datasetPath) else {
            log.error("the dataset file \(relative) cannot be read", at: reader["path"]?.location, path: path.key("path"),
                      fix: "the path is relative to the suite file (\(datasetPath))")
            return
        }
        suite.datasetFile = datasetPath
        let (rows, problems) = DatasetReader.rows(data, file: datasetPath)
        problems.forEach(log.append)
        if rows.isEmpty, problems.isEmpty {
            log.error("the dataset file \(relative) has no rows", at: reader["path"]?.location, path: path.key("path"),
                      fix: "add one case per line (JSONL) or per row under a header (CSV)")
        }
        let templateID = (template.members?.first { $0.key == "id" }?.value).flatMap(\.stringValue)
        var rowsWithProblems = 0
        for (index, row) in rows.enumerated() {
            var rowDefaults = defaults
            rowDefaults.vars.merge(row.values) { _, column in column }
            rowDefaults.rowColumns = Set(row.values.keys)
            let rowLog = DiagnosticLog(file: log.file)
            let rowReader = SuiteReader(log: rowLog)
            let caseReader = ObjectReader(template, path: path.key("case"), log: rowLog, what: "a case")!
            let id: String
            if let templateID {
                id = rowReader.render(templateID, at: template, path: path.key("case").key("id"), vars: rowDefaults.vars)
            } else {
                id = row.values["id"] ?? "row-\(index + 1)"
            }
            var evalCase = rowReader.readCase(caseReader, defaults: rowDefaults, requireID: false)
            if !ObjectReader.isResultKeyName(id) {
                rowLog.error("the case id '\(id)' may contain only ASCII letters, digits, '.', '_' and '-'", at: template.location,
                             path: path.key("case").key("id"), fix: "give the template an \"id\" such as \"q-{{id}}\", or clean the column")
                evalCase = nil
            } else if let first = firstUse[id] {
                rowLog.error("duplicate case id '\(id)'; it is first used at line \(first.line)", at: template.location,
                             path: path.key("case").key("id"), fix: "make the template's \"id\" unique per row, e.g. \"q-{{id}}\"")
                evalCase = nil
            } else {
                firstUse[id] = template.location
            }
            if !rowLog.diagnostics.isEmpty {
                rowsWithProblems += 1
                // One row's problems in full; the same template problems in every row would only repeat.
                guard rowsWithProblems <= 3 else { continue }
                for var diagnostic in rowLog.diagnostics {
                    diagnostic.message += " (dataset row \(index + 1), \(relative):\(row.line))"
                    log.append(diagnostic)
                }
                continue
            }
            if var evalCase {
                evalCase.id = id
                suite.cases.append(evalCase)
            }
        }
        if rowsWithProblems > 3, let location = reader["path"]?.location {
            log.error("\(rowsWithProblems - 3) more dataset rows have problems", at: location, path: path.key("path"),
                      fix: "fix the rows above first; the rest are likely the same")
        }
    }

    private func readCase(_ reader: ObjectReader, defaults: Defaults) -> EvalCase? {
        readCase(reader, defaults: defaults, requireID: true)
    }

    private func readCase(_ reader: ObjectReader, defaults: Defaults, requireID: Bool) -> EvalCase? {
        reader.rejectUnknownKeys(allowed: Self.caseKeys)
        let path = reader.path
        var vars = defaults.vars
        var rowColumns = defaults.rowColumns
        if let node = reader["vars"] {
            let own = readVars(node, path: path.key("vars"))
            vars.merge(own) { _, caseValue in caseValue }
            rowColumns.subtract(own.keys)
        }
        var options = defaults.options
        if let node = reader["options"] {
            options = readOptions(node, path: path.key("options")).merged(over: defaults.options)
        }
        var instructions: String?
        if let node = reader["instructions"] {
            instructions = reader.string("instructions").map {
                renderNonBlank($0, at: node, path: path.key("instructions"), vars: vars, rowColumns: rowColumns, as: .instructions)
            }
        } else if let inherited = defaults.instructions {
            // Blank as written, they were reported where the suite's members were read.
            instructions = inherited.text.isBlank ? inherited.text
                : renderNonBlank(inherited.text, at: inherited.node, path: .root.key("instructions"), vars: vars,
                                 rowColumns: rowColumns, as: .instructions)
        }
        let assertions = AssertionReader(scope: TemplateScope(log: log, vars: vars))
        var turns: [Turn] = []
        switch (reader["prompt"], reader["turns"]) {
        case (.some, .some(let turnsNode)):
            log.error("a case has either 'prompt' or 'turns', not both", at: turnsNode.location, path: path.key("turns"),
                      fix: "use 'prompt' for one message, or move it into 'turns' for a conversation")
        case (nil, nil):
            reader.reportMissing("prompt", fix: "add \"prompt\": \"...\" for one message, or \"turns\": [ ... ] for a conversation")
        case (.some(let node), nil):
            if let prompt = reader.string("prompt") {
                turns = [Turn(prompt: renderNonBlank(prompt, at: node, path: path.key("prompt"), vars: vars, rowColumns: rowColumns,
                                                     as: .prompt))]
            }
        case (nil, .some(let node)):
            turns = readTurns(node, path: path.key("turns"), vars: vars, rowColumns: rowColumns, assertions: assertions)
        }
        let caseExpect = reader["expect"].map { assertions.readList($0, path: path.key("expect")) } ?? []
        if !turns.isEmpty { turns[turns.count - 1].expect += caseExpect }
        let threshold = reader.number("threshold", must: "a number from 0 to 1", where: { (0...1).contains($0) })
        guard let id = reader["id"]?.stringValue ?? (requireID ? nil : ""), !turns.isEmpty else { return nil }
        let output = reader["output"].flatMap { readOutput($0, path: path.key("output")) }
        let tools = reader["tools"].map { ToolSetReader(log: log).read($0, path: path.key("tools")) } ?? defaults.tools
        checkToolChoice(options.toolChoice, tools: tools, turns: turns, at: reader)
        return EvalCase(id: id, tags: nonEmptyStrings("tags", reader, why: "an empty tag selects nothing with --tag") ?? [], instructions: instructions,
                        options: options, turns: turns, description: reader.string("description"), output: output,
                        threshold: threshold, tools: tools)
    }

    /// A `toolChoice` of `required` or a tool's name needs that tool in the case's tools (or a turn's).
    private func checkToolChoice(_ choice: ToolChoice?, tools: [CannedTool], turns: [Turn], at reader: ObjectReader) {
        let names = Set((tools + turns.flatMap { $0.switchTo?.tools ?? [] }).map(\.name))
        let problem: String? = switch choice {
        case let .tool(name)? where !names.contains(name):
            "toolChoice names the tool '\(name)', which this case does not declare"
        case .required? where names.isEmpty:
            "toolChoice 'required' needs a tool, and this case declares none"
        default: nil
        }
        guard let problem else { return }
        let known = names.sorted().joined(separator: ", ")
        log.error(problem, at: reader["options"]?.location ?? reader.node.location, path: reader.path.key("options").key("toolChoice"),
                  fix: known.isEmpty ? "add \"tools\" to the suite or the case" : "use auto, required, none or one of: \(known)")
    }

    /// `output: {"schema": {...}, "name": "..."}`.
    private func readOutput(_ node: JSONNode, path: JSONPath) -> StructuredOutput? {
        guard let reader = ObjectReader(node, path: path, log: log, what: "'output'") else { return nil }
        reader.rejectUnknownKeys(allowed: ["schema", "name"])
        let name = reader.string("name")
        if let name, !name.isEmpty, !name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) || name.count > 64,
           let nameNode = reader["name"] {
            log.error("the schema name '\(name)' may contain only letters, digits, '_' and '-' (at most 64)",
                      at: nameNode.location, path: path.key("name"), fix: "OpenAI-compatible servers require such a name; e.g. \"label\"")
        }
        guard let schemaNode = reader["schema"] else {
            reader.reportMissing("schema", fix: "add \"schema\": a JSON Schema object, e.g. {\"type\": \"object\", \"properties\": {\"label\": {\"type\": \"string\"}}}")
            return nil
        }
        guard schemaNode.members != nil else {
            reader.reportInvalid("schema", schemaNode, must: "a JSON Schema object")
            return nil
        }
        // The same checks as a jsonSchema assertion's: an invalid schema stops the run before a request.
        guard SchemaReader(log: log).read(schemaNode, path: path.key("schema")) != nil else { return nil }
        return StructuredOutput(schema: JSONValue(schemaNode), name: name ?? "answer", schemaText: schemaNode.compactJSON)
    }

    private func readTurns(_ node: JSONNode, path: JSONPath, vars: [String: String], rowColumns: Set<String>,
                           assertions: AssertionReader) -> [Turn] {
        guard let elements = node.arrayValue, !elements.isEmpty else {
            log.error("'turns' must be a non-empty array of turns, found \(node.kindDescription)",
                      at: node.location, path: path, fix: "write \"turns\": [ { \"prompt\": \"...\" } ]")
            return []
        }
        var turns: [Turn] = []
        for (index, element) in elements.enumerated() {
            guard let reader = ObjectReader(element, path: path.index(index), log: log, what: "a turn") else { continue }
            reader.rejectUnknownKeys(allowed: Self.turnKeys)
            let expect = reader["expect"].map { assertions.readList($0, path: reader.path.key("expect")) } ?? []
            guard let prompt = reader.string("prompt", requiredFix: "add \"prompt\": \"...\" to the turn"),
                  let promptNode = reader["prompt"] else { continue }
            turns.append(Turn(prompt: renderNonBlank(prompt, at: promptNode, path: reader.path.key("prompt"), vars: vars,
                                                     rowColumns: rowColumns, as: .prompt),
                              expect: expect, switchTo: readSwitch(reader, vars: vars, rowColumns: rowColumns),
                              history: reader["history"].flatMap { readHistory($0, path: reader.path.key("history")) }))
        }
        return turns
    }

    /// A turn's `instructions`, `options`, `reasoning` and `backend`, if it has any.
    private func readSwitch(_ reader: ObjectReader, vars: [String: String], rowColumns: Set<String>) -> TurnSwitch? {
        var change = TurnSwitch()
        if let node = reader["instructions"], let text = reader.string("instructions") {
            change.instructions = renderNonBlank(text, at: node, path: reader.path.key("instructions"), vars: vars,
                                                 rowColumns: rowColumns, as: .instructions)
        }
        if let node = reader["options"] { change.options = readOptions(node, path: reader.path.key("options")) }
        if reader["reasoning"] != nil {
            if reader["reasoning"]?.arrayValue != nil, let node = reader["reasoning"] {
                reader.reportInvalid("reasoning", node, must: "one level (a turn runs at one level)")
            } else {
                change.reasoning = reader.reasoningLevels("reasoning")?.first
            }
        }
        if let name = reader.string("backend") {
            change.backend = name
            change.backendLocation = reader["backend"]?.location
        }
        if let node = reader["tools"] { change.tools = ToolSetReader(log: log).read(node, path: reader.path.key("tools")) }
        return change == TurnSwitch() ? nil : change
    }

    private func readServiceLevel(_ node: JSONNode, path: JSONPath) -> ServiceLevel? {
        guard let reader = ObjectReader(node, path: path, log: log, what: "'slo'") else { return nil }
        reader.rejectUnknownKeys(allowed: ["ttftMs", "latencyMs"])
        let positive = "a number of milliseconds greater than 0"
        let level = ServiceLevel(ttftMs: reader.number("ttftMs", must: positive, where: { $0 > 0 }),
                                 latencyMs: reader.number("latencyMs", must: positive, where: { $0 > 0 }))
        if level == ServiceLevel(), reader["ttftMs"] == nil, reader["latencyMs"] == nil {
            log.error("'slo' declares no target", at: node.location, path: path,
                      fix: "add \"ttftMs\" and/or \"latencyMs\", or remove \"slo\"")
        }
        return level
    }

    private func readGates(_ node: JSONNode, path: JSONPath) -> SuiteGates? {
        guard let reader = ObjectReader(node, path: path, log: log, what: "'gates'") else { return nil }
        reader.rejectUnknownKeys(allowed: ["minPassRate", "maxErrorRate"])
        let fraction = "a fraction from 0 to 1"
        return SuiteGates(minPassRate: reader.number("minPassRate", must: fraction, where: { (0...1).contains($0) }),
                          maxErrorRate: reader.number("maxErrorRate", must: fraction, where: { (0...1).contains($0) }))
    }

    private func readHistory(_ node: JSONNode, path: JSONPath) -> HistoryTransform? {
        guard let reader = ObjectReader(node, path: path, log: log, what: "'history'") else { return nil }
        reader.rejectUnknownKeys(allowed: ["keepLast", "truncateToFit", "dropReasoning"])
        return HistoryTransform(keepLast: reader.integer("keepLast", atLeast: 0),
                                truncateToFit: reader.bool("truncateToFit") ?? false,
                                dropReasoning: reader.bool("dropReasoning") ?? false)
    }

    private func readOptions(_ node: JSONNode, path: JSONPath) -> GenerationOptions {
        guard let reader = ObjectReader(node, path: path, log: log, what: "'options'") else { return GenerationOptions() }
        reader.rejectUnknownKeys(allowed: ["temperature", "maxOutputTokens", "topP", "seed", "stop", "toolChoice", "maxToolRounds"])
        let toolChoice = reader.string("toolChoice").map(ToolChoice.init(text:))
        if case let .tool(name)? = toolChoice, !ToolSetReader.isToolName(name), let node = reader["toolChoice"] {
            log.error("'toolChoice' must be auto, required, none or a tool's name, found '\(name)'", at: node.location,
                      path: path.key("toolChoice"), fix: "a tool name has only letters, digits, '_' and '-'")
        }
        return GenerationOptions(
            temperature: reader.number("temperature", must: "a number from 0 to 2", where: { (0...2).contains($0) }),
            maxOutputTokens: reader.integer("maxOutputTokens", atLeast: 1, atMost: RunLimits.maxTokens),
            topP: reader.number("topP", must: "a number greater than 0 and at most 1", where: { $0 > 0 && $0 <= 1 }),
            seed: reader.integer("seed"),
            stop: nonEmptyStrings("stop", reader, orSingle: true, why: "an empty stop sequence stops nothing, or everything"),
            toolChoice: toolChoice,
            maxToolRounds: reader.integer("maxToolRounds", atLeast: 1))
    }

    /// The strings of `key`, refused (logged at the empty one) when one is empty: a typo, since
    /// `why`.
    private func nonEmptyStrings(_ key: String, _ reader: ObjectReader, orSingle: Bool = false, why: String) -> [String]? {
        guard let strings = reader.strings(key, orSingle: orSingle) else { return nil }
        guard let empty = strings.firstIndex(where: \.isEmpty) else { return strings }
        let element = reader[key]?.arrayValue.map { $0[empty] } ?? reader[key]
        log.error("'\(key)' holds an empty string: \(why)", at: element?.location,
                  path: reader[key]?.arrayValue == nil ? reader.path.key(key) : reader.path.key(key).index(empty),
                  fix: "remove it, or write what it should be")
        return nil
    }

    /// Variables as text: strings as they are, numbers as written, booleans as `true`/`false`.
    private func readVars(_ node: JSONNode, path: JSONPath) -> [String: String] {
        guard let reader = ObjectReader(node, path: path, log: log, what: "'vars'") else { return [:] }
        var vars: [String: String] = [:]
        for member in reader.members {
            guard Template.isValidName(member.key) else {
                log.error("'\(member.key)' cannot be used as a variable name", at: member.keyLocation, path: path.key(member.key),
                          fix: "start with a letter or '_' and use only letters, digits, '_', '-' and '.'")
                continue
            }
            switch member.value.content {
            case .string(let text): vars[member.key] = text
            case .number(_, let literal): vars[member.key] = literal
            case .bool(let flag): vars[member.key] = String(flag)
            default:
                reader.reportInvalid(member.key, member.value, must: "a string, number or boolean")
            }
        }
        return vars
    }

    private func render(_ text: String, at node: JSONNode, path: JSONPath, vars: [String: String]) -> String {
        TemplateScope(log: log, vars: vars).render(text, at: node, path: path)
    }

    /// A prompt or instructions, rendered; text that is empty or only whitespace is reported at
    /// `node`: Anthropic refuses such a message or system text (a wasted request), and it is
    /// nearly always a typo or a variable that rendered to nothing. `rowColumns` are the
    /// variables a dataset row gave, named in the fix as columns to fill.
    private func renderNonBlank(_ text: String, at node: JSONNode, path: JSONPath, vars: [String: String],
                                rowColumns: Set<String>, as kind: SentText) -> String {
        let rendered = render(text, at: node, path: path, vars: vars)
        guard rendered.isBlank else { return rendered }
        guard !text.isBlank else {
            reportBlank(text, at: node, path: path, as: kind)
            return rendered
        }
        // Only whitespace around the placeholders, so every variable it uses rendered empty.
        let names = Template(text).names
        let quoted = { (names: [String]) in names.map { "'\($0)'" }.joined(separator: ", ") }
        let columns = names.filter(rowColumns.contains), others = names.filter { !rowColumns.contains($0) }
        var fixes: [String] = []
        if !columns.isEmpty {
            fixes.append("fill the dataset row's \(columns.count == 1 ? "column" : "columns") \(quoted(columns)), or leave the row out")
        }
        if !others.isEmpty {
            fixes.append("give \(quoted(others)) a value in the case's or the suite's \"vars\"")
        }
        let what = names.allSatisfy { vars[$0]?.isEmpty ?? true } ? "empty" : "empty or only whitespace"
        log.error("\(kind.name) '\(Diagnostic.excerpt(text))' \(kind.isPlural ? "render" : "renders") empty: "
                  + "\(quoted(names)) \(names.count == 1 ? "is" : "are") \(what)",
                  at: node.location, path: path, fix: "check the variable that rendered empty: " + fixes.joined(separator: "; "))
        return rendered
    }

    /// `text`, empty or only whitespace as written, reported at `node` with how to fix it.
    private func reportBlank(_ text: String, at node: JSONNode, path: JSONPath, as kind: SentText) {
        log.error("\(kind.name) \(kind.isPlural ? "are" : "is") \(text.isEmpty ? "empty" : "only whitespace")",
                  at: node.location, path: path, fix: kind.fix)
    }
}

/// A text a suite sends to the model that must say something, as its diagnostics name it.
private struct SentText {
    static let prompt = SentText(name: "the prompt", isPlural: false, fix: "write the message the model should answer")
    static let instructions = SentText(name: "the instructions", isPlural: true,
                                       fix: "write the instructions the model should follow, or remove \"instructions\"")
    let name: String
    let isPlural: Bool
    let fix: String
}

/// The variables in force for one case, and the log their misuse is reported to.
struct TemplateScope {
    let log: DiagnosticLog
    let vars: [String: String]

    /// `text` with its placeholders replaced; each unknown name is reported at `node` and
    /// left as written.
    func render(_ text: String, at node: JSONNode, path: JSONPath) -> String {
        do {
            return try Template(text).render(vars)
        } catch {
            let known = vars.keys.sorted()
            for name in error.names {
                let hint = suggestion(for: name, among: known).map { "; did you mean '\($0)'?" } ?? ""
                let fix = known.isEmpty
                    ? "no vars are defined; add \"vars\": { \"\(name)\": \"...\" } to the suite or the case"
                    : "vars available here: \(known.joined(separator: ", ")); define '\(name)' in the suite's or the case's \"vars\""
                log.error("unknown template variable '\(name)'\(hint)", at: node.location, path: path, fix: fix)
            }
            return text
        }
    }
}
