import Foundation

/// report.html's "Cases" section: the filters and the case grid of a `CaseGrid`. Every cell
/// carries its figures as results.csv writes them (`data-latency-ms` and so on), so that a
/// reader's script, or the browser tests, can check them against the CSV.
enum CaseGridHTML {
    static func render(_ grid: CaseGrid) -> String {
        var html = "<section id=\"cases\">\n<h2>Cases</h2>\n"
        guard !grid.rows.isEmpty else { return html + "<p>No case ran.</p>\n</section>\n" }
        html += "<p class=\"grid-note\">Every case's answer on every backend × reasoning × variant, failing"
            + (grid.hasBaseline ? " and flipped" : "") + " cases first. A cell shows the first repeat's turns; "
            + "with repeats its badge counts the passes.</p>\n"
        if let note = grid.sampleNote { html += "<p class=\"grid-note sampled\"><strong>" + escape(note) + "</strong></p>\n" }
        html += filters(grid)
        html += "<div class=\"grid-wrap\">\n<table class=\"grid\" id=\"case-grid\">\n<thead><tr><th scope=\"col\" class=\"case-col\">Case</th>"
        for (index, column) in grid.columns.enumerated() {
            html += "<th scope=\"col\" data-col=\"\(index)\">" + escape(column.label) + "</th>"
        }
        html += "</tr></thead>\n<tbody>\n"
        for row in grid.rows { html += self.row(row, columns: grid.columns.count) }
        return html + "</tbody>\n</table>\n</div>\n</section>\n"
    }

    private static func filters(_ grid: CaseGrid) -> String {
        var tags: [String] = []
        var seen: Set<String> = []
        for row in grid.rows { for tag in row.tags where seen.insert(tag).inserted { tags.append(tag) } }
        var html = "<form class=\"filters\" id=\"filters\" onsubmit=\"return false\">\n"
        html += "<label>Search <input type=\"search\" id=\"filter-text\" placeholder=\"case, prompt or answer\"/></label>\n"
        html += "<label>Status <select id=\"filter-status\"><option value=\"\">all</option><option value=\"fail\">failing</option>"
            + "<option value=\"error\">errors</option><option value=\"pass\">passing</option><option value=\"skipped\">skipped</option>"
            + (grid.hasBaseline ? "<option value=\"flipped\">flipped</option>" : "") + "</select></label>\n"
        html += "<label>Tag <select id=\"filter-tag\"><option value=\"\">all</option>"
            + tags.map { "<option value=\"\(escape($0))\">" + escape($0) + "</option>" }.joined() + "</select></label>\n"
        html += "<label>Backend <select id=\"filter-column\"><option value=\"\">all</option>"
        for (index, column) in grid.columns.enumerated() {
            html += "<option value=\"\(index)\">" + escape(column.label) + "</option>"
        }
        html += "</select></label>\n<output id=\"filter-count\">\(grid.rows.count) of \(grid.rows.count) cases shown</output>\n</form>\n"
        return html
    }

    /// A row's tags as a JSON array, which the tag filter matches a tag against exactly: a tag
    /// may hold spaces or any other separator. Each is as the filter's option reads it back.
    static func tagsJSON(_ tags: [String]) -> String {
        JSONWriter.string(tags.map(JUnitXML.readBack))
    }

    private static func row(_ row: CaseGrid.Row, columns: Int) -> String {
        let name = row.suite + "/" + row.caseID
        var html = "<tr class=\"case\" data-case=\"\(escape(name))\" data-status=\"\(row.status.rawValue)\""
            + " data-tags=\"\(escape(tagsJSON(row.tags)))\" data-flipped=\"\(row.flipped)\">"
        html += "<th scope=\"row\" class=\"case-col\"><span class=\"case-id\">" + escape(name) + "</span>"
        if !row.tags.isEmpty {
            html += "<span class=\"tags\">" + row.tags.map { "<span class=\"tag\">" + escape($0) + "</span>" }.joined() + "</span>"
        }
        if let prompt = row.cells.values.first?.turns.first?.prompt {
            html += "<div class=\"prompt\">" + escape(prompt) + "</div>"
        }
        html += "</th>"
        for column in 0..<columns {
            guard let cell = row.cells[column] else {
                html += "<td class=\"cell empty\" data-col=\"\(column)\">not run</td>"
                continue
            }
            html += self.cell(cell, column: column)
        }
        return html + "</tr>\n"
    }

    private static func cell(_ cell: CaseGrid.Cell, column: Int) -> String {
        var html = "<td class=\"cell \(cell.status.rawValue)\" data-col=\"\(column)\" data-status=\"\(cell.status.rawValue)\""
            + " data-repeats=\"\(cell.repeats)\" data-passed-repeats=\"\(cell.passedRepeats)\">"
        let badge = cell.repeats > 1 ? "\(cell.passedRepeats)/\(cell.repeats) pass" : cell.status.rawValue
        html += "<div class=\"verdict\"><span class=\"badge \(cell.status.rawValue)\">" + badge + "</span>"
        if let baseline = cell.baseline, baseline.flipped {
            html += " <span class=\"flip\">flipped: was " + baseline.status.rawValue + "</span>"
        }
        html += "</div>"
        let multiTurn = cell.turns.count > 1
        for turn in cell.turns { html += self.turn(turn, multiTurn: multiTurn) }
        if let baseline = cell.baseline {
            html += "<details class=\"baseline\" data-baseline-status=\"\(baseline.status.rawValue)\"><summary>baseline: "
                + baseline.status.rawValue + "</summary><div class=\"answer\">" + escape(baseline.answer ?? "") + "</div></details>"
        }
        return html + "</td>"
    }

    private static func turn(_ turn: CaseGrid.Turn, multiTurn: Bool) -> String {
        var html = "<div class=\"turn\" data-turn=\"\(turn.turn)\" data-status=\"\(turn.status.rawValue)\"" + figureAttributes(turn) + ">"
        if multiTurn {
            html += "<div class=\"turn-head\">Turn \(turn.turn) · " + turn.status.rawValue + "</div>"
                + "<div class=\"prompt\">" + escape(turn.prompt) + "</div>"
        }
        if let answer = turn.answer {
            html += "<div class=\"answer\">" + escape(answer) + "</div>"
            if turn.omittedCharacters > 0 {
                html += "<div class=\"omitted\">… \(turn.omittedCharacters) more characters in results.jsonl</div>"
            }
        }
        if let error = turn.error { html += "<div class=\"error-text\">" + escape(error) + "</div>" }
        if !turn.toolCalls.isEmpty {
            html += "<ul class=\"tool-calls\">" + turn.toolCalls.map { "<li><code>" + escape($0) + "</code></li>" }.joined() + "</ul>"
        }
        if !turn.failures.isEmpty {
            html += "<ul class=\"failures\">" + turn.failures.map { "<li>" + escape($0) + "</li>" }.joined() + "</ul>"
        }
        return html + figures(turn) + "</div>"
    }

    /// The figures as results.csv writes them, empty when not reported or impossible, and
    /// `data-usage-suspect` saying why when the usage cannot all be true.
    private static func figureAttributes(_ turn: CaseGrid.Turn) -> String {
        let values: [(String, String?)] = [
            ("latency-ms", turn.latencyMs.flatMap { DecimalText.fixed($0, places: 2) }),
            ("ttft-ms", turn.ttftMs.flatMap { DecimalText.fixed($0, places: 2) }),
            ("input-tokens", turn.inputTokens.map(String.init)),
            ("cached-input-tokens", turn.cachedInputTokens.map(String.init)),
            ("output-tokens", turn.outputTokens.map(String.init)),
            ("cache-hit-ratio", turn.cacheHitRatio.flatMap { DecimalText.fixed($0, places: 4) }),
        ]
        let suspect = turn.usageSuspect.map { " data-usage-suspect=\"" + escape($0) + "\"" } ?? ""
        return values.map { " data-\($0.0)=\"\($0.1 ?? "")\"" }.joined() + suspect
    }

    private static func figures(_ turn: CaseGrid.Turn) -> String {
        func tokens(_ value: Int?) -> String { value.map(String.init) ?? "n/a" }
        let cached = turn.cachedInputTokens.map { " (\($0) cached)" } ?? ""
        // Impossible figures are not shown as numbers: the page says why, and results.jsonl has them.
        let usage = if let suspect = turn.usageSuspect {
            "<span class=\"usage-suspect\" title=\"input and output tokens\">tokens n/a: impossible usage ("
                + escape(suspect) + ")</span>"
        } else {
            "<span title=\"input and output tokens\">\(tokens(turn.inputTokens)) in\(cached) · \(tokens(turn.outputTokens)) out</span>"
        }
        return "<div class=\"figures\">"
            + "<span title=\"latency\">\(ReportFormat.millisecondsWithUnit(turn.latencyMs))</span>"
            + "<span title=\"time to first token\">TTFT \(ReportFormat.millisecondsWithUnit(turn.ttftMs))</span>"
            + usage + "<span title=\"cache hit\">cache \(ReportFormat.percent(turn.cacheHitRatio))</span></div>"
    }

    static func escape(_ text: String) -> String {
        JUnitXML.escape(text)
    }
}
