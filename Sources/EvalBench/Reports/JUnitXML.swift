import Foundation

/// `junit.xml` for CI test reporters: a `<testsuite>` per suite and a `<testcase>` per
/// case × backend × reasoning × variant, its repeats folded in. A testcase fails when any
/// repeat failed, errors when any errored, and is skipped when every repeat was.
package enum JUnitXML {
    /// The whole document for the case runs of `aggregate`, suites in first-seen order. An
    /// `interruption` or a `partialMerge` is one more testcase, in error, so CI never reads the
    /// run as complete.
    package static func render(_ aggregate: RunAggregate, interruption: String? = nil, partialMerge: String? = nil) -> String {
        var document = ""
        emit(aggregate, interruption: interruption, partialMerge: partialMerge) { document += $0 }
        return document
    }

    /// Writes the same text as `render` to `file` (replacing it atomically) a mebibyte at a
    /// time, so a run of a million case runs never holds the document whole.
    package static func write(_ aggregate: RunAggregate, interruption: String? = nil, partialMerge: String? = nil,
                              to file: URL) throws {
        let sink = try ReportFileSink(file)
        var pending = ""
        try emit(aggregate, interruption: interruption, partialMerge: partialMerge) { text in
            pending += text
            if pending.utf8.count >= 1 << 20 {
                try sink.write(pending)
                pending = ""
            }
        }
        try sink.write(pending)
        try sink.finish()
    }

    /// The document in pieces, in order. The counts every `<testsuite>` opens with are summed
    /// first, from each testcase's outcome and time; its XML is made when it is written. The
    /// testcases hold indices into the aggregate's case runs, not copies of them.
    private static func emit(_ aggregate: RunAggregate, interruption: String?, partialMerge: String?,
                             _ output: (String) throws -> Void) rethrows {
        let plan = Layout(aggregate)
        var totals = Counts()
        var suiteCounts = Array(repeating: Counts(), count: plan.suites.count)
        // Each testcase's outcome and time are counted again when it is written, rather than
        // kept from here: 16 bytes a testcase, held beside the recommendations' tallies.
        for (suite, testcases) in plan.testcasesOfSuite.enumerated() {
            for index in testcases {
                suiteCounts[suite].add(TestCase(plan.caseRuns(of: index), of: aggregate))
            }
            totals.merge(suiteCounts[suite])
        }
        let incomplete = [("run complete", "interrupted", interruption), ("merge complete", "partial_merge", partialMerge)]
            .compactMap { name, type, message in message.map { (name: name, type: type, message: $0) } }
        totals.tests += incomplete.count
        totals.errors += incomplete.count
        try output("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"evalbench\" \(totals.attributes)>\n")
        if !incomplete.isEmpty {
            try output("  <testsuite name=\"evalbench\" tests=\"\(incomplete.count)\" failures=\"0\" errors=\"\(incomplete.count)\" skipped=\"0\" time=\"0\">\n"
                + incomplete.map { "    <testcase classname=\"evalbench\" name=\"\($0.name)\" time=\"0\">\n"
                    + "      <error type=\"\($0.type)\" message=\"\(escape($0.message))\"/>\n    </testcase>\n" }.joined()
                + "  </testsuite>\n")
        }
        for (suite, testcases) in plan.testcasesOfSuite.enumerated() {
            try output("  <testsuite name=\"\(escape(plan.suites[suite]))\" \(suiteCounts[suite].attributes)>\n")
            for index in testcases {
                try output(TestCase(plan.caseRuns(of: index), of: aggregate).xml)
            }
            try output("  </testsuite>\n")
        }
        try output("</testsuites>\n")
    }

    /// The suites in first-seen order, and each suite's testcases, each the indices of its case
    /// runs (its repeats) in the aggregate. A testcase is one of the aggregate's case repeats (a
    /// case on a backend × reasoning × variant), so its case runs are found by number, without a
    /// dictionary of case names; they are held as one flat list of 32-bit indices.
    private struct Layout {
        var suites: [String] = []
        var testcasesOfSuite: [[Int]] = []
        /// Testcase `i`'s case runs are `members[starts[i]..<starts[i + 1]]`, in aggregate order.
        private var starts: [Int32]
        private var members: [Int32]

        init(_ aggregate: RunAggregate) {
            let testcaseCount = aggregate.repeats.count
            var counts = [Int32](repeating: 0, count: testcaseCount + 1)
            for testcase in aggregate.repeatOfCaseRun { counts[Int(testcase) + 1] &+= 1 }
            for index in 0..<testcaseCount { counts[index + 1] &+= counts[index] }
            starts = counts
            var next = counts
            members = [Int32](repeating: 0, count: aggregate.repeatOfCaseRun.count)
            for (caseRun, testcase) in aggregate.repeatOfCaseRun.enumerated() {
                members[Int(next[Int(testcase)])] = Int32(truncatingIfNeeded: caseRun)
                next[Int(testcase)] &+= 1
            }
            var suiteIndex: [String: Int] = [:]
            for testcase in 0..<testcaseCount {
                let suite = aggregate.repeats[testcase].suite
                let index = suiteIndex[suite] ?? {
                    suites.append(suite)
                    testcasesOfSuite.append([])
                    suiteIndex[suite] = suites.count - 1
                    return suites.count - 1
                }()
                testcasesOfSuite[index].append(testcase)
            }
        }

        var testcaseCount: Int { starts.count - 1 }

        /// The indices in the aggregate of testcase `index`'s case runs.
        func caseRuns(of index: Int) -> ArraySlice<Int32> {
            members[Int(starts[index])..<Int(starts[index + 1])]
        }
    }

    /// Text safe in XML content and in double-quoted attributes: the five markup characters as
    /// entities, tab/newline/carriage return as character references, and the characters
    /// `isReplaced` names (those XML 1.0 forbids, DEL, C1 and bidirectional controls) as U+FFFD.
    package static func escape(_ text: String) -> String {
        // Most names and messages are printable ASCII without markup: nothing to replace.
        if text.utf8.allSatisfy(isKeptAsIs) { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\t": escaped += "&#9;"
            case "\n": escaped += "&#10;"
            case "\r": escaped += "&#13;"
            default:
                escaped.unicodeScalars.append(isReplaced(scalar) ? "\u{FFFD}" : scalar)
            }
        }
        return escaped
    }

    /// `text` as a reader of its `escape`d form gets it back: the characters XML 1.0 forbids
    /// replaced by U+FFFD, tab, newline and carriage return kept.
    package static func readBack(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isReplaced) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isReplaced($0) ? "\u{FFFD}" : $0 }))
    }

    /// The characters XML 1.0 forbids (C0 controls but tab, newline and carriage return, which
    /// `escape` writes as character references; U+FFFE and U+FFFF), and those a reader's screen would act on: DEL, C1
    /// controls and the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
    /// U+2066–U+2069), which could show a test's name or message in another order than it is.
    private static func isReplaced(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r") || value == 0xFFFE || value == 0xFFFF
            || TerminalText.actsOnScreen(value)
    }

    /// An ASCII byte `escape` writes unchanged: printable and not one of the five markup characters.
    private static func isKeptAsIs(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"): false
        default: byte >= 0x20 && byte < 0x7F
        }
    }

    private struct Counts {
        var tests = 0, failures = 0, errors = 0, skipped = 0
        var seconds = 0.0

        mutating func add(_ testcase: TestCase) {
            tests += 1
            seconds += testcase.seconds
            switch testcase.outcome {
            case .failure: failures += 1
            case .error: errors += 1
            case .skipped: skipped += 1
            case .passed: break
            }
        }

        mutating func merge(_ other: Counts) {
            tests += other.tests
            failures += other.failures
            errors += other.errors
            skipped += other.skipped
            seconds += other.seconds
        }

        var attributes: String {
            "tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(JUnitXML.time(seconds))\""
        }
    }

    /// One testcase: its outcome and time, from which the counts are summed, and its XML,
    /// made only when it is written (the counts pass does not build it).
    private struct TestCase {
        enum Outcome { case passed, failure, error, skipped }

        private let indices: ArraySlice<Int32>
        private let aggregate: RunAggregate
        let statuses: [RequestResult.Status]
        var outcome: Outcome
        var seconds: Double

        /// The testcase of the case runs at `indices` of `aggregate`, its outcome and time
        /// counted from their requests' statuses and latencies, read without building them.
        init(_ indices: ArraySlice<Int32>, of aggregate: RunAggregate) {
            self.indices = indices
            self.aggregate = aggregate
            statuses = indices.map { aggregate.statuses[Int($0)] }
            // Replayed timings are the earlier run's, so they do not count as this run's time.
            var seconds = 0.0
            var errored = false
            for index in indices {
                aggregate.caseRuns.forEachStatusAndOwnLatency(of: Int(index)) { status, latency in
                    if let latency { seconds += latency }
                    if status == .error { errored = true }
                }
            }
            self.seconds = seconds / 1000
            if errored {
                outcome = .error
            } else if statuses.contains(.fail) {
                outcome = .failure
            } else if !statuses.contains(where: { $0 != .skipped }) {
                outcome = .skipped
            } else {
                outcome = .passed
            }
        }

        /// Its case runs, built from the aggregate: only a testcase that did not pass says
        /// more than its name, time and outcome.
        private var runs: [CaseRun] { indices.map { aggregate.caseRuns[Int($0)] } }

        var xml: String {
            // The case and group every one of its case runs shares.
            let first = aggregate.caseRepeats(ofCaseRun: Int(indices[indices.startIndex]))
            let ran = statuses.filter { $0 != .skipped }
            let passed = ran.filter { $0 == .pass }.count
            let tally = indices.count > 1 ? " (\(passed)/\(ran.count) repeats passed)" : ""
            let name = "\(first.caseID) [\(first.group.backend), \(first.group.reasoning.rawValue), \(first.group.variant)]"
            let attributes = "name=\"\(escape(name))\" classname=\"\(escape("\(first.suite).\(first.caseID)"))\" time=\"\(JUnitXML.time(seconds))\""
            let inner = body(tally: tally)
            return inner.isEmpty ? "    <testcase \(attributes)/>\n" : "    <testcase \(attributes)>\n" + inner + "    </testcase>\n"
        }

        /// The `<error>`, `<failure>` or `<skipped>` element; empty when it passed.
        private func body(tally: String) -> String {
            switch outcome {
            case .passed:
                return ""
            case .error:
                let errored = runs.flatMap(\.requests).filter { $0.status == .error }
                let firstError = errored[0]
                let kind = firstError.errorKind?.rawValue ?? "error"
                let lines = errored.map { "repeat \($0.repeatIndex), turn \($0.turn): \($0.errorKind?.rawValue ?? "error"): \($0.errorMessage ?? "no message")" }
                return "      <error message=\"\(escape((firstError.errorMessage ?? kind) + tally))\" type=\"\(escape(kind))\">"
                    + escape(lines.joined(separator: "\n")) + "</error>\n"
            case .failure:
                let failed = zip(runs, statuses).filter { $0.1 == .fail }.map(\.0)
                var lines: [String] = []
                for run in failed {
                    for request in run.requests {
                        for assertion in request.failedAssertions {
                            lines.append("repeat \(run.repeatIndex), turn \(request.turn): \(assertion.name): \(assertion.message ?? "failed")")
                        }
                    }
                    if let threshold = run.requests.first?.threshold, let score = run.score {
                        lines.append("repeat \(run.repeatIndex): weighted score \(score) is below the threshold \(threshold)")
                    } else if run.requests.allSatisfy({ $0.failedAssertions.isEmpty }) {
                        lines.append("repeat \(run.repeatIndex): a turn is missing from the results")
                    }
                }
                let type = failed.flatMap(\.requests).flatMap(\.failedAssertions).first?.type ?? "assertion"
                return "      <failure message=\"\(escape((lines.first ?? "failed") + tally))\" type=\"\(escape(type))\">"
                    + escape(lines.joined(separator: "\n")) + "</failure>\n"
            case .skipped:
                let reason = runs.flatMap(\.requests).compactMap(\.skipReason).first ?? "skipped"
                return "      <skipped message=\"\(escape(reason))\"/>\n"
            }
        }
    }

    static func time(_ seconds: Double) -> String {
        DecimalText.fixed(seconds, places: 3) ?? "0.000"
    }
}
