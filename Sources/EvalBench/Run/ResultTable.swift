import Foundation

/// A run's results kept for the reports in a fixed row of about 96 bytes each, instead of
/// the 800 of a `RequestResult`'s fields, and the rows in a temporary file a block at a time
/// (`FileBackedArray`): a million results then fit in the report's memory budget. Strings a
/// case's results repeat (suite, case, prompt, tags, verdicts) are held once,
/// the key is rebuilt from the fields it is made of, and each result reads back (`subscript`)
/// exactly as appended. A result with a field the row has no room for (tool calls, details,
/// a prefix comparison, a count beyond the row's range, …) is kept whole, so nothing is lost.
package struct ResultTable: RandomAccessCollection, Sendable {
    /// The rows, a block at a time in a temporary file (see `FileBackedArray`).
    private var rows: FileBackedArray<Row>
    private var texts = ChunkedArray<String>()
    private var textIDs: [String: UInt32] = [:]
    /// Answers longer than `answerInMemoryBytes` and verdict quotes longer than `spillBytes`
    /// are in a temporary file rather than in memory (a model's answers are seldom repeated, and
    /// 300-byte answers were most of a million-result report's memory). Where an answer lies is
    /// in its row; where each verdict quote lies is here. The file only grows, so copies of the
    /// table share it.
    private var spilled = ChunkedArray<SpillSpan>()
    private var spillFile: SpillFile?
    /// Answers in the spill file (each row with one says where).
    private var spilledAnswers = 0
    private var spillUnavailable = false
    /// For tests: the most bytes the spill file takes (see `init(rowsPerBlock:spillFileBytes:)`).
    private var spillFileLimit: Int64?
    /// What each verdict of a result says of that result alone (its `actual`, `message`,
    /// `pointer` and `note`), four text references a verdict from a row's `details` on (one,
    /// its `actual`, when none of a row's verdicts has the other three); the
    /// rest of its verdicts is a set shared with the results that ended alike. An answer's
    /// excerpt in `actual` made every result's verdicts a set of its own, 400-odd bytes each.
    private var verdictDetails = ChunkedArray<UInt32>()
    private var tagSets = ChunkedArray<[String]>()
    private var tagSetIDs: [[String]: UInt32] = [:]
    private var verdictSets = ChunkedArray<[AssertionResult]>()
    private var verdictSetIDs: [[AssertionResult]: UInt32] = [:]
    /// The id of the shared verdict set used last (0 before any).
    private var lastVerdictSet: UInt32 = 0
    private var wholes = ChunkedArray<RequestResult>()
    /// What a case's results on one backend share (suite, case, variant, backend, model, prompt,
    /// instructions, tags), held once under one id.
    private var identities = ChunkedArray<Identity>()
    private var identityIDs: [Identity: UInt32] = [:]
    /// How a result ended (status, error, finish reason, verdicts, attempts), held once under one id.
    private var outcomes = ChunkedArray<Outcome>()
    private var outcomeIDs: [Outcome: UInt32] = [:]
    /// Fields most results lack, in columns that take memory only once a result has one.
    private var costs = OptionalColumn<Double>()
    private var scores = OptionalColumn<Double>()
    /// A case's score, on its last turn's result (every result of a single-turn case).
    private var caseScores = OptionalColumn<Double>()
    /// The text id of a key that is not the one its fields make.
    private var keys = OptionalColumn<UInt32>()
    /// The index in `wholes` of a result kept whole.
    private var wholeIndices = OptionalColumn<UInt32>()

    /// The memory a result kept in a row takes there, its strings aside.
    package static var bytesPerRow: Int { MemoryLayout<Row>.stride }

    /// Scores held in the score columns (a 0 or 1 is held in its row's flags instead).
    var scoresInColumns: Int { scores.count + caseScores.count }
    /// Text references held for the verdicts' own parts.
    var verdictReferences: Int { verdictDetails.count }
    /// Texts held in memory and in the spill file.
    var textsHeld: (inMemory: Int, spilled: Int) { (texts.count, spilled.count + spilledAnswers) }

    /// An empty table. `rowsPerBlock` is how many rows go to its temporary file at a time
    /// (tests make it small, so that a few results exercise the file).
    package init(rowsPerBlock: Int = 4_096) {
        rows = FileBackedArray(elementsPerBlock: rowsPerBlock)
    }

    /// For tests: an empty table whose spill file takes at most `spillFileBytes`, its writes
    /// past that failing as on a full disk.
    init(rowsPerBlock: Int = 4_096, spillFileBytes: Int64) {
        self.init(rowsPerBlock: rowsPerBlock)
        spillFileLimit = spillFileBytes
    }

    /// The rows' blocks held in the temporary file, and in memory.
    package var rowBlocks: (inFile: Int, inMemory: Int) { rows.blocksHeld }

    /// A table of `results`, in the order given.
    package init<Results: Sequence<RequestResult>>(_ results: Results, rowsPerBlock: Int = 4_096) {
        self.init(rowsPerBlock: rowsPerBlock)
        for result in results { append(result) }
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { rows.count }

    /// The result at `position`, equal to the one appended there.
    package subscript(position: Int) -> RequestResult {
        result(rows[position], at: position)
    }

    /// The result kept whole at `position`, if it is one.
    private func whole(_ row: Row, at position: Int) -> RequestResult? {
        row.has(.whole) ? wholes[Int(wholeIndices[position])] : nil
    }

    /// The plan index of the result at `position`, without reading the rest of it.
    package func planIndex(at position: Int) -> Int? {
        let row = rows[position]
        if let whole = whole(row, at: position) { return whole.planIndex }
        return row.has(.planIndex) ? Int(row.planIndex) : nil
    }

    /// The turn of the result at `position`, without reading the rest of it.
    package func turn(at position: Int) -> Int {
        let row = rows[position]
        return whole(row, at: position)?.turn ?? Int(row.turn)
    }

    /// How many turns the case run of the result at `position` has, without reading the rest of it.
    package func turns(at position: Int) -> Int {
        let row = rows[position]
        return whole(row, at: position)?.turns ?? Int(row.turns)
    }

    /// The tags of the result at `position`, without reading the rest of it.
    package func tags(at position: Int) -> [String] {
        let row = rows[position]
        if let whole = whole(row, at: position) { return whole.tags }
        let tags = identities[Int(row.identity)].tags
        return tags == 0 ? [] : tagSets[Int(tags - 1)]
    }

    /// The status of the result at `position`, and its latency when this run timed it
    /// (`RequestResult.hasOwnTiming`: a row holds no replayed or fallback result), without
    /// reading the rest of it.
    package func statusAndOwnLatency(at position: Int) -> (status: RequestResult.Status, ownLatencyMs: Double?) {
        let row = rows[position]
        if let whole = whole(row, at: position) {
            return (whole.status, whole.hasOwnTiming ? whole.timing?.latencyMs : nil)
        }
        let status = Self.statuses[Int(outcomes[Int(row.outcome)].status)]
        return (status, row.has(.timing) ? row.value(row.endMs, flag: .end) : nil)
    }

    /// The error kind of the result at `position` (nil unless it is an error), without reading the rest of it.
    package func errorKind(at position: Int) -> ErrorKind? {
        let row = rows[position]
        if let whole = whole(row, at: position) { return whole.errorKind }
        let kind = outcomes[Int(row.outcome)].errorKind
        return kind == 0 ? nil : ErrorKind.allCases[Int(kind - 1)]
    }

    /// The suite of the result at `position`, without reading the rest of it.
    package func suite(at position: Int) -> String {
        let row = rows[position]
        if let whole = whole(row, at: position) { return whole.suite }
        return text(identities[Int(row.identity)].suite) ?? ""
    }

    /// The case id of the result at `position`, without reading the rest of it.
    package func caseID(at position: Int) -> String {
        let row = rows[position]
        if let whole = whole(row, at: position) { return whole.caseID }
        return text(identities[Int(row.identity)].caseID) ?? ""
    }

    /// The key of the result at `position`, without reading the rest of it.
    package func key(at position: Int) -> String {
        let row = rows[position]
        if let whole = whole(row, at: position) { return whole.key }
        return key(row, at: position, identity: identities[Int(row.identity)])
    }

    /// The key of the result a row holds (not one kept whole): its own, or the one its fields make.
    private func key(_ row: Row, at position: Int, identity: Identity) -> String {
        if row.has(.key), let key = text(keys[position]) { return key }
        return Self.derivedKey(suite: text(identity.suite) ?? "", caseID: text(identity.caseID) ?? "",
                               variant: text(identity.variant) ?? "", backend: text(identity.backend) ?? "",
                               reasoning: ReasoningLevel.allCases[Int(row.reasoning)], repeatIndex: Int(row.repeatIndex))
    }

    /// The usage of the result at `position`, without reading the rest of it.
    package func usage(at position: Int) -> Usage {
        let row = rows[position]
        return whole(row, at: position)?.usage ?? row.usage.usage
    }

    /// The verdicts of the result at `position`, without reading the rest of it.
    package func assertions(at position: Int) -> [AssertionResult] {
        let row = rows[position]
        if let whole = whole(row, at: position) { return whole.assertions }
        // The answer is read only if a verdict quotes it.
        return verdicts(row, outcome: outcomes[Int(row.outcome)], output: { output(row) })
    }

    /// The verdicts of the result at `position` that carry a judge's call, without reading what
    /// the others say of it (verdicts with a call are never split from their details).
    package func judgedAssertions(at position: Int) -> [AssertionResult] {
        let row = rows[position]
        if let whole = whole(row, at: position) { return whole.assertions.filter { $0.judge != nil } }
        let outcome = outcomes[Int(row.outcome)]
        guard !row.has(.verdictDetails), outcome.assertions != 0 else { return [] }
        return verdictSets[Int(outcome.assertions - 1)].filter { $0.judge != nil }
    }

    /// What results.csv shows of the result at `position`, read from its row without building
    /// the result (its answer, prompt, key and what its verdicts say of it are not read).
    package func figures(at position: Int) -> RequestFigures {
        let row = rows[position]
        if let whole = whole(row, at: position) { return RequestFigures(whole) }
        let identity = identities[Int(row.identity)], outcome = outcomes[Int(row.outcome)]
        let timing = timing(row)
        // What a verdict says of one result is split from it: its name and whether it passed are not.
        let failed = outcome.assertions == 0 ? [] : verdictSets[Int(outcome.assertions - 1)].lazy.filter { !$0.passed }.map(\.name)
        return RequestFigures(
            suite: text(identity.suite) ?? "", caseID: text(identity.caseID) ?? "", turn: Int(row.turn),
            variant: text(identity.variant) ?? "", backend: text(identity.backend) ?? "", model: text(identity.model),
            reasoning: ReasoningLevel.allCases[Int(row.reasoning)], repeatIndex: Int(row.repeatIndex),
            status: Self.statuses[Int(outcome.status)],
            errorKind: outcome.errorKind == 0 ? nil : ErrorKind.allCases[Int(outcome.errorKind - 1)],
            timing: timing, usage: row.usage.usage, costUSD: row.has(.cost) ? costs[position] : nil,
            failedAssertionNames: Array(failed), toolCallCount: nil, toolRoundCount: nil)
    }

    /// The results kept whole, in table order: the only ones that can carry a field a row has
    /// no room for (`cached`, `details`, `switched`, `prefix`, tool calls, …).
    package var keptWhole: ChunkedArray<RequestResult> { wholes }

    /// Adds `result` after the others.
    package mutating func append(_ result: RequestResult) {
        let position = rows.count
        if let (row, columns) = compactRow(result.fields, at: position) {
            // The fields most results lack are kept in their columns, at this position.
            if let cost = columns.cost { costs.set(cost, at: position) }
            if let score = columns.score { scores.set(score, at: position) }
            if let caseScore = columns.caseScore { caseScores.set(caseScore, at: position) }
            if let key = columns.key { keys.set(key, at: position) }
            rows.append(row)
        } else {
            var row = Row()
            row.flags.insert(.whole)
            wholeIndices.set(UInt32(wholes.count), at: position)
            wholes.append(result)
            rows.append(row)
        }
    }

    /// The row for `fields` and what goes in the columns, or nil when one of them does not fit a row.
    private mutating func compactRow(_ fields: RequestResultFields, at position: Int)
        -> (Row, (cost: Double?, score: Double?, caseScore: Double?, key: UInt32?))? {
        guard Self.fitsRow(fields), wholes.count < Int(UInt32.max) - 1, position < Int(Int32.max) - 1,
              let turn = UInt16(exactly: fields.turn), let turns = UInt16(exactly: fields.turns),
              let repeatIndex = UInt16(exactly: fields.repeatIndex), let attempts = UInt16(exactly: fields.attempts),
              let usage = CompactUsage(fields.usage)
        else { return nil }
        var row = Row()
        if let planIndex = fields.planIndex {
            guard let value = Int32(exactly: planIndex), value >= 0 else { return nil }
            row.planIndex = value
            row.flags.insert(.planIndex)
        }
        row.turn = turn
        row.turns = turns
        row.repeatIndex = repeatIndex
        row.usage = usage
        row.reasoning = ReasoningLevel.allCases.firstIndex(of: fields.reasoning).map(UInt8.init) ?? 0
        row.identity = identityID(Identity(
            suite: textID(fields.suite, shared: true), caseID: textID(fields.caseID, shared: true),
            variant: textID(fields.variant, shared: true), backend: textID(fields.backend, shared: true),
            model: textID(fields.model, shared: true), prompt: textID(fields.prompt, shared: true),
            instructions: textID(fields.instructions, shared: true), tags: tagSetID(fields.tags)))
        let assertions: (id: UInt32, shared: Bool)
        if let (template, details) = Self.splitVerdicts(fields.assertions) {
            guard verdictDetails.count < Int(UInt32.max) - details.count, let refs = detailRefs(details, output: fields.output)
            else { return nil }
            assertions = verdictSetID(template)
            row.details = UInt32(verdictDetails.count)
            row.flags.insert(.verdictDetails)
            let actualsOnly = Self.actualsOnly(refs)
            if actualsOnly, let mask = Self.excerptMask(refs) {
                // The usual case: each verdict quotes the answer as the grader does, or nothing.
                row.details = mask
                row.flags.insert(.excerptMask)
            } else if actualsOnly {
                row.flags.insert(.actualsOnly)
                for ref in stride(from: 0, to: refs.count, by: 4) { verdictDetails.append(refs[ref]) }
            } else {
                for ref in refs { verdictDetails.append(ref) }
            }
        } else {
            assertions = verdictSetID(fields.assertions)
        }
        row.outcome = outcomeID(Outcome(
            status: Self.statuses.firstIndex(of: fields.status).map(UInt8.init) ?? 0,
            errorKind: fields.errorKind.flatMap { ErrorKind.allCases.firstIndex(of: $0) }.map { UInt8($0 + 1) } ?? 0,
            attempts: attempts, errorMessage: textID(fields.errorMessage, shared: true),
            finishReason: textID(fields.finishReason, shared: true), assertions: assertions.id),
            shared: assertions.shared)
        // Short answers ("Paris", "yes") repeat, and are held in the string itself; longer ones
        // are seldom repeated and go to the spill file.
        if let output = fields.output, output.utf8.count > Self.answerInMemoryBytes, let span = spillSpan(output) {
            // Where it lies is in the row, in the file, not in memory: 16 bytes an answer.
            row.outputOffset = span.offset
            row.output = UInt32(span.length)
            row.flags.insert(.spilledOutput)
            spilledAnswers += 1
        } else {
            row.output = textID(fields.output, shared: (fields.output?.utf8.count ?? 0) <= Self.answerInMemoryBytes)
        }
        // The key is its case run's fields joined by "/" unless a turn switched backend or level.
        var key: UInt32?
        if !Self.isDerivedKey(fields) {
            row.flags.insert(.key)
            key = textID(fields.key, shared: true)
        }
        if let timing = fields.timing {
            row.flags.insert(.timing)
            row.startedAt = timing.startedAt.timeIntervalSinceReferenceDate
            row.firstTokenMs = row.store(timing.firstTokenMs, flag: .firstToken)
            row.firstAnswerTokenMs = row.store(timing.firstAnswerTokenMs, flag: .firstAnswer)
            row.endMs = row.store(timing.endMs, flag: .end)
        }
        if fields.costUSD != nil { row.flags.insert(.cost) }
        // A score of 0 or 1 (every score of a case with one check) is held in the row's flags.
        let score = row.storeScore(fields.score, has: .score, zero: .scoreZero, one: .scoreOne)
        let caseScore = row.storeScore(fields.caseScore, has: .caseScore, zero: .caseScoreZero, one: .caseScoreOne)
        return (row, (fields.costUSD, score, caseScore, key))
    }

    /// Whether every field a row has no room for is empty.
    private static func fitsRow(_ fields: RequestResultFields) -> Bool {
        fields.details == nil && fields.prefix == nil && fields.cached == nil && fields.switched == nil
            && fields.historyNote == nil && fields.threshold == nil && fields.slo == nil
            && fields.replayed == nil && fields.replayedFrom == nil && fields.unknownFigures == nil
            && fields.toolCalls == nil && fields.rounds == nil && fields.toolDefinitionTokens == nil
            && fields.toolDefinitionTokensCounted == nil && fields.toolDefinitionTokensMethod == nil
            && fields.reasoningText == nil && fields.skipReason == nil && fields.usage.suspect == nil
    }

    private static let statuses: [RequestResult.Status] = [.pass, .fail, .error, .skipped]

    /// `suite/case/variant/backend/reasoning/repeat`, as the planner makes a case run's key
    /// (appended piece by piece: `joined` was a sixth of a million-result report).
    private static func derivedKey(suite: String, caseID: String, variant: String, backend: String,
                                   reasoning: ReasoningLevel, repeatIndex: Int) -> String {
        let repeatText = String(repeatIndex)
        var key = ""
        key.reserveCapacity(suite.utf8.count + caseID.utf8.count + variant.utf8.count + backend.utf8.count
            + reasoning.rawValue.utf8.count + repeatText.utf8.count + 5)
        key.append(suite)
        key.append("/")
        key.append(caseID)
        key.append("/")
        key.append(variant)
        key.append("/")
        key.append(backend)
        key.append("/")
        key.append(reasoning.rawValue)
        key.append("/")
        key.append(repeatText)
        return key
    }

    /// Whether `fields.key` is `derivedKey(fields)`, compared piece by piece without making it.
    private static func isDerivedKey(_ fields: RequestResultFields) -> Bool {
        var key = fields.key
        return key.withUTF8 { bytes in
            var offset = 0
            func take(_ part: String, then separator: Bool) -> Bool {
                var part = part
                return part.withUTF8 { piece in
                    guard offset + piece.count + (separator ? 1 : 0) <= bytes.count else { return false }
                    if !piece.isEmpty, memcmp(bytes.baseAddress! + offset, piece.baseAddress!, piece.count) != 0 { return false }
                    offset += piece.count
                    guard separator else { return true }
                    guard bytes[offset] == UInt8(ascii: "/") else { return false }
                    offset += 1
                    return true
                }
            }
            return take(fields.suite, then: true) && take(fields.caseID, then: true) && take(fields.variant, then: true)
                && take(fields.backend, then: true) && take(fields.reasoning.rawValue, then: true)
                && take(String(fields.repeatIndex), then: false) && offset == bytes.count
        }
    }

    /// The result a row holds, each field made once and moved into the result.
    private func result(_ row: Row, at position: Int) -> RequestResult {
        if let whole = whole(row, at: position) { return whole }
        let identity = identities[Int(row.identity)], outcome = outcomes[Int(row.outcome)]
        let suite = text(identity.suite) ?? "", caseID = text(identity.caseID) ?? ""
        let variant = text(identity.variant) ?? "", backend = text(identity.backend) ?? ""
        let reasoning = ReasoningLevel.allCases[Int(row.reasoning)]
        let repeatIndex = Int(row.repeatIndex)
        let key = self.key(row, at: position, identity: identity)
        let output = output(row)
        let timing = timing(row)
        var fields = RequestResultFields(
            key: key, suite: suite, caseID: caseID, turn: Int(row.turn), turns: Int(row.turns), variant: variant,
            backend: backend, model: text(identity.model), reasoning: reasoning, repeatIndex: repeatIndex,
            tags: identity.tags == 0 ? [] : tagSets[Int(identity.tags - 1)], status: Self.statuses[Int(outcome.status)],
            errorKind: outcome.errorKind == 0 ? nil : ErrorKind.allCases[Int(outcome.errorKind - 1)],
            errorMessage: text(outcome.errorMessage), instructions: text(identity.instructions), prompt: text(identity.prompt) ?? "",
            output: output, finishReason: text(outcome.finishReason), timing: timing, usage: row.usage.usage,
            attempts: Int(outcome.attempts), assertions: verdicts(row, outcome: outcome, output: { output }),
            costUSD: row.has(.cost) ? costs[position] : nil)
        fields.score = row.score(has: .score, zero: .scoreZero, one: .scoreOne) { scores[position] }
        fields.caseScore = row.score(has: .caseScore, zero: .caseScoreZero, one: .caseScoreOne) { caseScores[position] }
        fields.planIndex = row.has(.planIndex) ? Int(row.planIndex) : nil
        return RequestResult(fields: fields)
    }

    /// The timing a row holds, nil when the result had none.
    private func timing(_ row: Row) -> RequestTiming? {
        guard row.has(.timing) else { return nil }
        return RequestTiming(startedAt: Date(timeIntervalSinceReferenceDate: row.startedAt),
                             firstTokenMs: row.value(row.firstTokenMs, flag: .firstToken),
                             firstAnswerTokenMs: row.value(row.firstAnswerTokenMs, flag: .firstAnswer),
                             endMs: row.value(row.endMs, flag: .end))
    }

    private func text(_ id: UInt32) -> String? {
        id == 0 ? nil : texts[Int(id - 1)]
    }

    /// The answer of the result in `row`.
    private func output(_ row: Row) -> String? {
        guard row.has(.spilledOutput) else { return text(row.output) }
        return spillFile?.read(SpillSpan(offset: row.outputOffset, length: Int32(truncatingIfNeeded: row.output)))
    }

    /// Verdict quotes longer than this many UTF-8 bytes are kept in the spill file.
    static let spillBytes = 64

    /// Answers longer than this many UTF-8 bytes are kept in the spill file: up to 15, a
    /// string holds its bytes itself (16 bytes in all); one longer takes about 64 bytes of
    /// storage and its 16-byte reference, against 16 bytes of span for a spilled one. A model's
    /// answers of 16 to 64 bytes ("The capital of France is Paris.") are seldom repeated, and
    /// were kept in memory until December 2026: 40 to 100 bytes each.
    static let answerInMemoryBytes = 15

    /// Writes `text` to the spill file and returns its index; nil (keep it in memory) when no
    /// file can be made or written, or the index would not fit.
    private mutating func spill(_ text: String) -> UInt32? {
        guard spilled.count < Int(UInt32.max), let span = spillSpan(text) else { return nil }
        spilled.append(span)
        return UInt32(spilled.count - 1)
    }

    /// Writes `text` to the spill file and returns where it lies; nil (keep it in memory) when
    /// no file can be made or written.
    private mutating func spillSpan(_ text: String) -> SpillSpan? {
        guard !spillUnavailable else { return nil }
        if spillFile == nil { spillFile = SpillFile(writableBytes: spillFileLimit) }
        guard let file = spillFile, let span = file.append(text) else {
            spillUnavailable = true
            return nil
        }
        return span
    }

    private func spilledText(_ index: UInt32) -> String? {
        guard let spillFile else { return nil }
        return spillFile.read(spilled[Int(index)])
    }

    /// Verdicts without what they say of one result (`actual`, `message`, `pointer`, `note`),
    /// and those parts, four a verdict; nil when they say nothing of their own, or a judge's
    /// call is among them (kept as they are).
    private static func splitVerdicts(_ verdicts: [AssertionResult]) -> ([AssertionResult], [String?])? {
        guard !verdicts.isEmpty, verdicts.allSatisfy({ $0.judge == nil }),
              verdicts.contains(where: { $0.actual != nil || $0.message != nil || $0.pointer != nil || $0.note != nil })
        else { return nil }
        var template = verdicts
        var details: [String?] = []
        details.reserveCapacity(verdicts.count * 4)
        for index in template.indices {
            details += [template[index].actual, template[index].message, template[index].pointer, template[index].note]
            template[index].actual = nil
            template[index].message = nil
            template[index].pointer = nil
            template[index].note = nil
        }
        return (template, details)
    }

    /// A spilled text's reference has the top bit set.
    private static let spilledRef: UInt32 = 1 << 31
    /// The reference of an `actual` that is the grader's excerpt of the result's own answer
    /// (`Grader.quote(output, limit: Grader.excerptLimit)`, what text checks quote): made
    /// again from the answer when read, rather than held a second time. No spilled text has it.
    private static let excerptRef: UInt32 = .max

    /// A reference to each of `details` (0 for none), four a verdict: an `actual` that quotes
    /// `output` as the grader does by `excerptRef`, other short texts shared with equal ones,
    /// long ones in the spill file; nil when one does not fit a reference.
    private mutating func detailRefs(_ details: [String?], output: String?) -> [UInt32]? {
        var refs: [UInt32] = []
        refs.reserveCapacity(details.count)
        // Made once, and only when a verdict has an `actual` to compare it with.
        let quotesSome = stride(from: 0, to: details.count, by: 4).contains { details[$0] != nil }
        let excerpt = quotesSome ? output.map { Grader.quote($0, limit: Grader.excerptLimit) } : nil
        for (position, detail) in details.enumerated() {
            guard let detail else {
                refs.append(0)
                continue
            }
            if position % 4 == 0, let excerpt, sameBytes(excerpt, detail) {
                refs.append(Self.excerptRef)
                continue
            }
            let length = detail.utf8.count
            if length > Self.spillBytes, let index = spill(detail), index < Self.spilledRef - 1 {
                refs.append(Self.spilledRef | index)
            } else {
                let id = textID(detail, shared: length <= 32)
                guard id < Self.spilledRef else { return nil }
                refs.append(id)
            }
        }
        return refs
    }

    /// For `refs` that are `actual` references alone (`actualsOnly`): when each is the answer's
    /// excerpt or none, and there are at most 32 verdicts, bit i set for verdict i's excerpt.
    private static func excerptMask(_ refs: [UInt32]) -> UInt32? {
        guard refs.count <= 32 * 4 else { return nil }
        var mask: UInt32 = 0
        for verdict in 0..<(refs.count / 4) {
            switch refs[verdict * 4] {
            case 0: continue
            case excerptRef: mask |= 1 << UInt32(verdict)
            default: return nil
            }
        }
        return mask
    }

    /// Whether `refs` (four a verdict) are `actual` references alone, the other three none.
    private static func actualsOnly(_ refs: [UInt32]) -> Bool {
        stride(from: 0, to: refs.count, by: 4).allSatisfy { refs[$0 + 1] == 0 && refs[$0 + 2] == 0 && refs[$0 + 3] == 0 }
    }

    /// The text `ref` refers to; `output` gives the answer an `excerptRef` is made from (only
    /// an `actual` has one).
    private func detailText(_ ref: UInt32, output: () -> String?) -> String? {
        if ref == Self.excerptRef { return output().map { Grader.quote($0, limit: Grader.excerptLimit) } }
        return ref & Self.spilledRef != 0 ? spilledText(ref & ~Self.spilledRef) : text(ref)
    }

    /// The verdicts of the result in `row`, whose answer `output` gives, with what they say of
    /// it alone put back.
    private func verdicts(_ row: Row, outcome: Outcome, output: () -> String?) -> [AssertionResult] {
        guard outcome.assertions != 0 else { return [] }
        var verdicts = verdictSets[Int(outcome.assertions - 1)]
        guard row.has(.verdictDetails) else { return verdicts }
        if row.has(.excerptMask) {
            guard row.details != 0 else { return verdicts }
            let excerpt = detailText(Self.excerptRef, output: output)
            for index in verdicts.indices where row.details & (1 << UInt32(index)) != 0 { verdicts[index].actual = excerpt }
            return verdicts
        }
        var at = Int(row.details)
        if row.has(.actualsOnly) {
            for index in verdicts.indices {
                verdicts[index].actual = detailText(verdictDetails[at], output: output)
                at += 1
            }
            return verdicts
        }
        for index in verdicts.indices {
            verdicts[index].actual = detailText(verdictDetails[at], output: output)
            verdicts[index].message = detailText(verdictDetails[at + 1], output: output)
            verdicts[index].pointer = detailText(verdictDetails[at + 2], output: output)
            verdicts[index].note = detailText(verdictDetails[at + 3], output: output)
            at += 4
        }
        return verdicts
    }

    /// The id of `text` (0 for nil). A `shared` text equal to one held already, byte for byte
    /// (Swift's `==` would also match another spelling of the same characters), is that one.
    private mutating func textID(_ text: String?, shared: Bool) -> UInt32 {
        guard let text else { return 0 }
        // One lookup, and one insert only for a text not seen: a new case's id and prompt were
        // hashed three times each, on the recording thread.
        let known = shared ? textIDs[text] : nil
        if let known, sameBytes(texts[Int(known - 1)], text) { return known }
        texts.append(text)
        let id = UInt32(texts.count)
        // Another spelling of the same characters keeps the slot it took first.
        if shared, known == nil { textIDs[text] = id }
        return id
    }

    /// The index of `identity` among those held (ids of equal texts are equal, so equal ids are
    /// the same bytes).
    private mutating func identityID(_ identity: Identity) -> UInt32 {
        let (id, isNew) = identityIDs.number(of: identity)
        if isNew { identities.append(identity) }
        return id
    }

    /// The index of `outcome` among those held; one that is not `shared` (its verdicts are a
    /// judge's) gets an id of its own.
    private mutating func outcomeID(_ outcome: Outcome, shared: Bool) -> UInt32 {
        if shared, let id = outcomeIDs[outcome] { return id }
        let id = UInt32(outcomes.count)
        outcomes.append(outcome)
        if shared { outcomeIDs[outcome] = id }
        return id
    }

    private mutating func tagSetID(_ tags: [String]) -> UInt32 {
        guard !tags.isEmpty else { return 0 }
        if let id = tagSetIDs[tags], tagSets[Int(id - 1)].elementsEqual(tags, by: sameBytes) {
            return id
        }
        tagSets.append(tags)
        let id = UInt32(tagSets.count)
        if tagSetIDs[tags] == nil { tagSetIDs[tags] = id }
        return id
    }

    /// The id of `verdicts` (0 for none), and whether it is shared with equal ones.
    private mutating func verdictSetID(_ verdicts: [AssertionResult]) -> (id: UInt32, shared: Bool) {
        guard !verdicts.isEmpty else { return (0, true) }
        // A judge's call is seldom repeated exactly: such verdicts are held as they are.
        let shareable = verdicts.allSatisfy { $0.judge == nil }
        // Results in a row often end alike: the last set is compared before any is hashed.
        if shareable, lastVerdictSet > 0, verdictSets[Int(lastVerdictSet - 1)].elementsEqual(verdicts, by: Self.identical) {
            return (lastVerdictSet, true)
        }
        if shareable, let id = verdictSetIDs[verdicts],
           verdictSets[Int(id - 1)].elementsEqual(verdicts, by: Self.identical) {
            lastVerdictSet = id
            return (id, true)
        }
        verdictSets.append(verdicts)
        let id = UInt32(verdictSets.count)
        if shareable, verdictSetIDs[verdicts] == nil { verdictSetIDs[verdicts] = id }
        if shareable { lastVerdictSet = id }
        return (id, shareable)
    }

    /// Equal byte for byte and bit for bit (`==` takes -0 for 0, and either spelling of "é").
    private static func identical(_ lhs: AssertionResult, _ rhs: AssertionResult) -> Bool {
        func same(_ left: String?, _ right: String?) -> Bool {
            switch (left, right) {
            case (nil, nil): true
            case let (left?, right?): sameBytes(left, right)
            default: false
            }
        }
        return same(lhs.type, rhs.type) && same(lhs.name, rhs.name) && lhs.passed == rhs.passed
            && same(lhs.message, rhs.message) && same(lhs.metric, rhs.metric)
            && lhs.weight.bitPattern == rhs.weight.bitPattern && lhs.inverted == rhs.inverted
            && same(lhs.expected, rhs.expected) && same(lhs.actual, rhs.actual) && same(lhs.pointer, rhs.pointer)
            && same(lhs.note, rhs.note) && lhs.judge == nil && rhs.judge == nil && same(lhs.error, rhs.error)
    }
}

/// Whether two strings are the same bytes (Swift's `==` also matches another spelling of the
/// same characters): compared as memory where both are contiguous, as they are when read.
private func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
    guard lhs.utf8.count == rhs.utf8.count else { return false }
    let compared = lhs.utf8.withContiguousStorageIfAvailable { left in
        rhs.utf8.withContiguousStorageIfAvailable { right in
            left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
        }
    }
    return (compared ?? nil) ?? lhs.utf8.elementsEqual(rhs.utf8)
}

/// One result's fields in fixed form: numbers narrowed to the range they were checked to fit,
/// strings as ids into the table, absent values marked in `flags`. The fields most results lack
/// (cost, score, a key of its own, the index of a result kept whole) are in the table's columns,
/// but for a score of 0 or 1, which `flags` holds.
private struct Row {
    var startedAt = 0.0
    var firstTokenMs = 0.0
    var firstAnswerTokenMs = 0.0
    var endMs = 0.0
    var usage = CompactUsage()
    var planIndex: Int32 = 0
    /// The index of its `Identity` in the table.
    var identity: UInt32 = 0
    /// The index of its `Outcome` in the table.
    var outcome: UInt32 = 0
    /// A text id, or with `spilledOutput` the answer's length in bytes in the spill file.
    var output: UInt32 = 0
    /// With `spilledOutput`, where the answer starts in the spill file.
    var outputOffset: Int64 = 0
    var turn: UInt16 = 0
    var turns: UInt16 = 0
    var repeatIndex: UInt16 = 0
    var reasoning: UInt8 = 0
    var flags: Flags = []
    var details: UInt32 = 0

    struct Flags: OptionSet {
        // 32 bits in the row's padding: the row is no larger than with 16.
        var rawValue: UInt32
        static let planIndex = Flags(rawValue: 1 << 0)
        static let timing = Flags(rawValue: 1 << 1)
        static let firstToken = Flags(rawValue: 1 << 2)
        static let firstAnswer = Flags(rawValue: 1 << 3)
        static let end = Flags(rawValue: 1 << 4)
        static let cost = Flags(rawValue: 1 << 5)
        static let score = Flags(rawValue: 1 << 6)
        static let key = Flags(rawValue: 1 << 7)
        static let whole = Flags(rawValue: 1 << 8)
        static let caseScore = Flags(rawValue: 1 << 9)
        /// `output` is the length of the answer at `outputOffset` in the spill file, not a text id.
        static let spilledOutput = Flags(rawValue: 1 << 10)
        /// `details` is where the row's verdicts' own parts start in `verdictDetails`.
        static let verdictDetails = Flags(rawValue: 1 << 11)
        /// The score is 0 or 1, not in the scores column.
        static let scoreZero = Flags(rawValue: 1 << 12)
        static let scoreOne = Flags(rawValue: 1 << 13)
        static let caseScoreZero = Flags(rawValue: 1 << 14)
        static let caseScoreOne = Flags(rawValue: 1 << 15)
        /// The verdicts' own parts are their `actual` alone, one reference a verdict in
        /// `verdictDetails` rather than four (a verdict seldom has a message, pointer or note).
        static let actualsOnly = Flags(rawValue: 1 << 16)
        /// `details` is a mask, not a position in `verdictDetails`: verdict i's `actual` is the
        /// answer's excerpt when bit i is set, else none, and it has no other part of its own
        /// (no reference held: most results' verdicts say no more of them than that).
        static let excerptMask = Flags(rawValue: 1 << 17)
    }

    func has(_ flag: Flags) -> Bool { flags.contains(flag) }

    /// Marks `value` as present in `has`; 0 and 1 (the same bits: not -0) are held in `zero` or
    /// `one`, and anything else is returned for the table's column.
    mutating func storeScore(_ value: Double?, has: Flags, zero: Flags, one: Flags) -> Double? {
        guard let value else { return nil }
        flags.insert(has)
        if value.bitPattern == Double(0).bitPattern {
            flags.insert(zero)
            return nil
        }
        if value.bitPattern == Double(1).bitPattern {
            flags.insert(one)
            return nil
        }
        return value
    }

    /// The score `storeScore` kept: from the flags, or from `column`.
    func score(has: Flags, zero: Flags, one: Flags, column: () -> Double) -> Double? {
        guard self.has(has) else { return nil }
        return self.has(zero) ? 0 : self.has(one) ? 1 : column()
    }

    /// `value`, or 0 when there is none; marks which in `flags`.
    mutating func store(_ value: Double?, flag: Flags) -> Double {
        guard let value else { return 0 }
        flags.insert(flag)
        return value
    }

    /// `stored`, or nil when `flag` says there was none.
    func value(_ stored: Double, flag: Flags) -> Double? {
        has(flag) ? stored : nil
    }
}

/// The fields a case's results on one backend share, as ids of the table's texts and tag sets.
private struct Identity: Hashable {
    var suite: UInt32
    var caseID: UInt32
    var variant: UInt32
    var backend: UInt32
    var model: UInt32
    var prompt: UInt32
    var instructions: UInt32
    var tags: UInt32
}

/// How a result ended, as ids of the table's texts and verdict sets.
private struct Outcome: Hashable {
    var status: UInt8
    var errorKind: UInt8
    var attempts: UInt16
    var errorMessage: UInt32
    var finishReason: UInt32
    var assertions: UInt32
}

/// A column of a value most rows lack: empty until a row has one, then one value a row (the
/// rows before it filled with `Value()`), so a field no result has takes no memory.
private struct OptionalColumn<Value: Sendable & ExpressibleByIntegerLiteral>: Sendable {
    private var values = ChunkedArray<Value>()

    /// Sets the value at `position`, the table's last row (earlier rows read `0`).
    mutating func set(_ value: Value, at position: Int) {
        while values.count < position { values.append(0) }
        values.append(value)
    }

    /// Values held: up to the last row set.
    var count: Int { values.count }

    /// The value at `position`; `0` for a row after the last one set.
    subscript(position: Int) -> Value {
        position < values.count ? values[position] : 0
    }
}

/// A `Usage` without `suspect` (a result with one is kept whole), each count in 32 bits with
/// `Int32.min` for a count not reported.
private struct CompactUsage {
    var input = Int32.min
    var cachedInput = Int32.min
    var cacheWriteInput = Int32.min
    var output = Int32.min
    var reasoning = Int32.min
    /// 0 for none, else the index of the source in `sources` plus 1.
    var source: UInt8 = 0

    private static let sources: [TokenSource] = [.reported, .counted, .estimated]

    init() {}

    /// Nil when a count does not fit.
    init?(_ usage: Usage) {
        /// The count in 32 bits (`Int32.min` for none); nil when it does not fit.
        func narrowed(_ count: Int?) -> Int32? {
            guard let count else { return Int32.min }
            guard let value = Int32(exactly: count), value != Int32.min else { return nil }
            return value
        }
        guard let input = narrowed(usage.inputTokens), let cachedInput = narrowed(usage.cachedInputTokens),
              let cacheWriteInput = narrowed(usage.cacheWriteInputTokens), let output = narrowed(usage.outputTokens),
              let reasoning = narrowed(usage.reasoningTokens)
        else { return nil }
        self.input = input
        self.cachedInput = cachedInput
        self.cacheWriteInput = cacheWriteInput
        self.output = output
        self.reasoning = reasoning
        source = usage.source.flatMap { Self.sources.firstIndex(of: $0) }.map { UInt8($0 + 1) } ?? 0
    }

    var usage: Usage {
        func widened(_ count: Int32) -> Int? { count == Int32.min ? nil : Int(count) }
        return Usage(inputTokens: widened(input), cachedInputTokens: widened(cachedInput),
                     cacheWriteInputTokens: widened(cacheWriteInput), outputTokens: widened(output),
                     reasoningTokens: widened(reasoning), source: source == 0 ? nil : Self.sources[Int(source - 1)])
    }
}

/// An array kept in chunks of 16,384 elements, so growing it never copies what it holds (an
/// array of a million rows would briefly need room for a million and a half when it grows).
package struct ChunkedArray<Element: Sendable>: RandomAccessCollection, Sendable {
    private static var chunkSize: Int { 1 << 14 }
    private var chunks: [[Element]] = []
    package private(set) var count = 0

    package var startIndex: Int { 0 }
    package var endIndex: Int { count }

    package subscript(index: Int) -> Element {
        chunks[index >> 14][index & (Self.chunkSize - 1)]
    }

    mutating func append(_ element: Element) {
        if count & (Self.chunkSize - 1) == 0 {
            var chunk: [Element] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }
}

/// Where one spilled text lies in the spill file.
private struct SpillSpan: Sendable {
    var offset: Int64
    var length: Int32
}

/// The texts a table keeps out of memory, in an `UnlinkedFile`: bytes once written never
/// change, so any table that holds a span can read it while others append.
private final class SpillFile: @unchecked Sendable {
    // @unchecked: the pending bytes and the windows are read and written under `lock`; the file is safe to share.
    private let file: UnlinkedFile
    private let lock = NSLock()

    /// A new file in the temporary directory; nil when none can be made. `writableBytes`, for
    /// tests, makes writes past that size fail, as on a full disk.
    init?(writableBytes: Int64? = nil) {
        guard let file = UnlinkedFile(prefix: "evalbench-results", writableBytes: writableBytes) else { return nil }
        self.file = file
        windowBuffers = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.windowBytes * Self.windowCount, alignment: 16)
    }

    deinit { windowBuffers.deallocate() }

    /// Texts appended and not yet written, from `pendingStart` (the end of what was written)
    /// on: written 64 KiB at a time (under `lock`), so that a million answers are not a million
    /// system calls on the one thread that reads results.jsonl into the table in order.
    private var pending: [UInt8] = []
    private var pendingStart: Int64 = 0
    private static let pendingBytes = 64 * 1024
    /// Bytes a write failed to put in the file, kept in memory (under `lock`): nothing more is
    /// appended once there are any, so later texts stay in the table's memory.
    private var unwritten: [(start: Int64, bytes: [UInt8])] = []

    /// Appends `text`'s bytes at the end; nil when nothing more can be written.
    func append(_ text: String) -> SpillSpan? {
        var text = text
        return text.withUTF8 { bytes -> SpillSpan? in
            guard let length = Int32(exactly: bytes.count) else { return nil }
            return lock.withLock {
                guard unwritten.isEmpty else { return nil }
                let start = pendingStart + Int64(pending.count)
                pending.append(contentsOf: bytes)
                if pending.count >= Self.pendingBytes { writePending() }
                return SpillSpan(offset: start, length: length)
            }
        }
    }

    /// Under `lock`: writes what is pending, or keeps it in memory when it cannot be written.
    private func writePending() {
        let written = pending.withUnsafeBytes { file.append($0) } == pendingStart
        if !written { unwritten.append((pendingStart, pending)) }
        pendingStart += Int64(pending.count)
        pending.removeAll(keepingCapacity: written)
    }

    /// The text at `span`, as its bytes were written. Reports read the results in table order,
    /// which is the file's, so texts are served from a few 64 KiB windows of the file read ahead
    /// (a read a text was most of a report of long answers) and read directly otherwise.
    func read(_ span: SpillSpan) -> String {
        String(unsafeUninitializedCapacity: Int(span.length)) { buffer in
            if lock.withLock({ copyFromMemory(span, into: buffer) || copyFromWindow(span, into: buffer) }) { return buffer.count }
            file.read(into: UnsafeMutableRawBufferPointer(buffer), at: span.offset)
            return buffer.count
        }
    }

    /// Under `lock`: copies `span` from the bytes not written yet, or those kept after a failed
    /// write; false when it is in the file (a text is appended whole to one or the other).
    private func copyFromMemory(_ span: SpillSpan, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        func copy(_ bytes: [UInt8], from start: Int64) -> Bool {
            guard span.offset >= start, span.offset + Int64(span.length) <= start + Int64(bytes.count) else { return false }
            let from = Int(span.offset - start)
            bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[from..<(from + Int(span.length))])) }
            return true
        }
        if copy(pending, from: pendingStart) { return true }
        return unwritten.contains { copy($0.bytes, from: $0.start) }
    }

    private static let windowBytes = 64 * 1024
    private static let windowCount = 4
    /// Windows of the file read ahead (under `lock`): where each starts and how many bytes it
    /// holds, in buffers made once; `windowOrder` lists them least recently used first.
    private var windowStarts = [Int64](repeating: 0, count: windowCount)
    private var windowLengths = [Int](repeating: 0, count: windowCount)
    private var windowOrder = Array(0..<windowCount)
    private let windowBuffers: UnsafeMutableRawBufferPointer

    /// Under `lock`: copies `span` out of a window, reading one in when none holds it; false
    /// when the span is longer than half a window or lies past what the file holds.
    private func copyFromWindow(_ span: SpillSpan, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        let length = Int(span.length)
        guard length <= Self.windowBytes / 2 else { return false }
        do {
            func holds(_ window: Int) -> Bool {
                span.offset >= windowStarts[window] && span.offset + Int64(length) <= windowStarts[window] + Int64(windowLengths[window])
            }
            var found = windowOrder.first(where: holds)
            if found == nil {
                let end = file.size
                guard span.offset + Int64(length) <= end else { return false }
                let window = windowOrder[0]
                let count = Int(min(Int64(Self.windowBytes), end - span.offset))
                file.read(into: UnsafeMutableRawBufferPointer(rebasing: windowBuffers[(window * Self.windowBytes)..<(window * Self.windowBytes + count)]),
                          at: span.offset)
                windowStarts[window] = span.offset
                windowLengths[window] = count
                found = window
            }
            guard let window = found else { return false }
            let from = window * Self.windowBytes + Int(span.offset - windowStarts[window])
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: windowBuffers[from..<(from + length)]))
            windowOrder.removeAll { $0 == window }
            windowOrder.append(window)
            return true
        }
    }
}
