import Foundation

/// `report.html`: the run on one self-contained page, with no network at all (inline style,
/// inline SVG charts). It is XHTML-compatible markup, so it parses as XML too.
package enum HTMLReport {
    /// The page for `input`: its title and run time, the headline table with summary.csv's
    /// columns and figures (fractions as percentages), `extraSections` in order, the case grid
    /// of `grid` with its filters, then `charts` inlined.
    package static func render(_ input: ReportInput, aggregate: RunAggregate, charts: ChartSet,
                              extraSections: [HTMLSection] = [], grid: CaseGrid? = nil) -> String {
        let suites = input.suiteNames.isEmpty ? "no suites" : input.suiteNames.joined(separator: ", ")
        let title = "evalbench: " + suites
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <title>\(escape(title))</title>
            <style>\(style)\(ViewerAssets.style)</style>
            </head>
            <body>
            <main>
            <h1>\(escape(title))</h1>

            """
        if let interruption = input.interruption {
            html += "<p class=\"interrupted\"><strong>" + escape(interruption) + "</strong></p>\n"
        }
        if let partialMerge = input.partialMerge {
            html += "<p class=\"interrupted partial-merge\"><strong>" + escape(partialMerge) + "</strong></p>\n"
        }
        html += "<p class=\"run-time\">" + escape(runTime(input, aggregate: aggregate)) + "</p>\n"
        if let verdict = input.verdict { html += Self.verdict(verdict, note: input.verdictNote) }
        html += headline(aggregate)
        for section in extraSections { html += render(section) }
        if let grid { html += CaseGridHTML.render(grid) }
        html += chartsSection(charts)
        html += "<footer><p>Written by evalbench. Every figure in the table is also in summary.csv; "
            + "n/a means the backend did not report it. The metric definitions are in summary.md.</p></footer>\n"
        html += "</main>\n"
        if grid != nil { html += "<script>\n" + ViewerAssets.script + "\n</script>\n" }
        return html + "</body>\n</html>\n"
    }

    private static func runTime(_ input: ReportInput, aggregate: RunAggregate) -> String {
        let dates = ISO8601DateFormatter()
        return (input.shard.map { "Shard \($0) of a sharded run: these figures cover its cases only; evalbench merge gives the whole run's. " } ?? "")
            + "Run from \(dates.string(from: input.startedAt)) to \(dates.string(from: input.endedAt)) "
            + "(\(SummaryMarkdown.duration(input.endedAt.timeIntervalSince(input.startedAt)))): "
            + "\(input.results.count) requests, \(aggregate.caseRuns.count) case runs, "
            + "\(aggregate.groups.count) backend × reasoning × variant."
    }

    /// summary.csv's columns, with an empty cell shown as n/a and every model of a group that had several.
    private static func headline(_ aggregate: RunAggregate) -> String {
        var html = "<section id=\"results\">\n<h2>Results</h2>\n"
        guard !aggregate.groups.isEmpty else { return html + "<p>No results in this run.</p>\n</section>\n" }
        html += "<div class=\"table-wrap\">\n<table class=\"headline\">\n<thead><tr>"
        for column in SummaryCSV.columns {
            html += "<th scope=\"col\" data-column=\"\(escape(column))\">"
                + escape(column.replacingOccurrences(of: "_", with: " ")) + "</th>"
        }
        html += "</tr></thead>\n<tbody>\n"
        for summary in aggregate.groups {
            html += "<tr>"
            for (index, cell) in SummaryCSV.cells(summary).prefix(SummaryCSV.columns.count).enumerated() {
                let numeric = index >= 4
                if SummaryCSV.columns[index] == "model", let text = summary.modelText, text != cell.plainText {
                    // Several models answered: each with its requests; the cell keeps summary.csv's most frequent.
                    html += "<td data-value=\"\(escape(cell.plainText ?? ""))\">" + escape(text) + "</td>"
                } else if percentColumns.contains(SummaryCSV.columns[index]), let text = cell.plainText, let ratio = Double(text) {
                    html += "<td class=\"number\" data-value=\"\(escape(text))\">" + escape(ReportFormat.percent(ratio)) + "</td>"
                } else if let text = cell.plainText {
                    html += numeric ? "<td class=\"number\">" + escape(text) + "</td>" : "<td>" + escape(text) + "</td>"
                } else {
                    html += "<td class=\"na\">n/a</td>"
                }
            }
            html += "</tr>\n"
        }
        return html + "</tbody>\n</table>\n</div>\n</section>\n"
    }

    /// summary.csv's fractions, shown as percentages (the cell keeps the CSV's value in `data-value`).
    private static let percentColumns: Set<String> = ["pass_rate", "pass_rate_low", "pass_rate_high", "cache_hit_ratio"]

    /// The verdict the run ended with, above the figures, as summary.md gives it.
    private static func verdict(_ verdict: RecordedVerdict, note: String?) -> String {
        var html = "<section id=\"verdict\" class=\"verdict verdict-\(escape(verdict.status.lowercased()))\">\n<h2>Verdict</h2>\n"
        html += "<p><strong class=\"verdict-word\">" + escape(verdict.status) + "</strong>: exit \(verdict.exitCode)"
            + escape(verdict.meaning.map { " (\($0))" } ?? "") + "</p>\n"
        if let note { html += "<p>" + escape(note) + "</p>\n" }
        let limit = RecordedVerdict.listLimit
        for (title, items) in [("Why:", verdict.reasons), ("Gates checked:", verdict.checks), ("Notes:", verdict.notes)] where !items.isEmpty {
            html += "<p>" + escape(title) + "</p>\n<ul>\n" + items.prefix(limit).map { "<li>" + escape($0) + "</li>\n" }.joined()
            if items.count > limit { html += "<li>… and \(items.count - limit) more in run.json</li>\n" }
            html += "</ul>\n"
        }
        return html + "</section>\n"
    }

    private static func render(_ section: HTMLSection) -> String {
        var html = "<section class=\"extra\">\n<h2>" + escape(section.title) + "</h2>\n"
        for paragraph in section.paragraphs { html += "<p>" + escape(paragraph) + "</p>\n" }
        if let table = section.table {
            html += "<div class=\"table-wrap\">\n<table>\n<thead><tr>"
            for heading in table.header { html += "<th scope=\"col\">" + escape(heading) + "</th>" }
            html += "</tr></thead>\n<tbody>\n"
            for row in table.rows {
                html += "<tr>" + row.map { "<td>" + escape($0) + "</td>" }.joined() + "</tr>\n"
            }
            html += "</tbody>\n</table>\n</div>\n"
        }
        if !section.items.isEmpty {
            html += "<ul>\n" + section.items.map { "<li>" + escape($0) + "</li>\n" }.joined() + "</ul>\n"
        }
        return html + "</section>\n"
    }

    private static func chartsSection(_ charts: ChartSet) -> String {
        var html = "<section id=\"charts\">\n<h2>Charts</h2>\n"
        for chart in charts.charts {
            let id = chart.fileName.replacingOccurrences(of: ".svg", with: "")
            html += "<figure id=\"\(escape(id))\">\n" + chart.svg
            html += "<figcaption><strong>" + escape(chart.title) + "</strong>: " + escape(chart.caption)
                + (chart.hasData ? "" : " No data to draw in this run.") + "</figcaption>\n</figure>\n"
        }
        for omitted in charts.omitted {
            html += "<p class=\"omitted\"><strong>" + escape(omitted.title) + "</strong>: " + escape(omitted.reason) + "</p>\n"
        }
        return html + "</section>\n"
    }

    private static func escape(_ text: String) -> String {
        JUnitXML.escape(text)
    }

    private static let style = """

        body { margin: 0; background: #f6f7f9; color: #1d1d1f;
          font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
          font-size: 15px; line-height: 1.5; }
        main { max-width: 1440px; margin: 0 auto; padding: 24px; }
        h1 { font-size: 26px; margin: 0 0 4px; }
        h2 { font-size: 19px; margin: 32px 0 12px; border-bottom: 1px solid #d9dce1; padding-bottom: 4px; }
        .run-time { color: #555; margin-top: 0; }
        .table-wrap { overflow-x: auto; background: #fff; border: 1px solid #d9dce1; border-radius: 6px; }
        table { border-collapse: collapse; font-size: 13px; width: 100%; }
        th, td { padding: 6px 10px; border-bottom: 1px solid #eceef1; text-align: left; white-space: nowrap; }
        th { background: #f0f2f5; font-weight: 600; }
        td.number { text-align: right; font-variant-numeric: tabular-nums; }
        td.na { color: #888; text-align: right; }
        tbody tr:hover { background: #f8fafc; }
        figure { margin: 0 0 24px; background: #fff; border: 1px solid #d9dce1; border-radius: 6px; padding: 12px; }
        figure svg { display: block; max-width: 100%; height: auto; margin: 0 auto; }
        figcaption { color: #444; font-size: 14px; margin-top: 8px; }
        .omitted { color: #555; }
        .verdict-word { font-size: 17px; }
        .verdict-pass .verdict-word { color: #1a7f37; }
        .verdict-fail .verdict-word { color: #cf222e; }
        .verdict-error .verdict-word, .verdict-interrupted .verdict-word { color: #9a6700; }
        footer { color: #666; font-size: 13px; margin-top: 32px; }

        """
}
