import Foundation

/// Writes a run's `results.csv`, `summary.csv`, `metrics.csv`, `recommendation.csv`, `summary.md`, `junit.xml`, the
/// `chart-*.svg` charts and `report.html` (DESIGN.md, "Files a run writes"); `results.jsonl`
/// and `run.json` are written by the run itself.
package enum ReportWriter {
    /// Aggregates `input` once and writes the report files into `directory`, creating it if
    /// needed and replacing earlier versions atomically. What the run before freed is given
    /// back to the system first (`releaseFreedMemory`).
    package static func write(_ input: ReportInput, to directory: URL) throws {
        releaseFreedMemory()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ReportWriteFailure(path: directory.path, reason: error.localizedDescription)
        }
        let run = RunDirectory(directory)
        let aggregate = RunAggregate(input.results, bootstrapIntervals: true)
        try write(SummaryCSV.render(aggregate.groups), to: run.file(RunDirectory.FileName.summaryCSV))
        try write(MetricsCSV.render(aggregate.groups), to: run.file(RunDirectory.FileName.metricsCSV))
        // The large files are independent renderings of the same values, so they are written
        // on every core at once, in two lines of work of about the same length: what summary.md
        // and report.html need (the recommendations and charts), then those two; and beside it
        // junit.xml, results.csv and cases.csv. (Two stages of two, each waiting for its longer
        // half, left a core idle for a tenth of a million-result report.) Each file is moved
        // into place whole, and the first failure (in this order) is thrown once all have finished.
        let written = try inParallel([
            {
                var recommendations = Recommendation.compute(input.results, aggregate: aggregate, settings: input.recommendation)
                // An interrupted run or a partial merge recommends nothing (see RecommendationMarkdown.withheld).
                if input.recommendationWithheld != nil {
                    for index in recommendations.indices { recommendations[index].recommendedIndex = nil }
                }
                let charts = ChartSet(aggregate)
                try write(RecommendationCSV.render(recommendations), to: run.file(RunDirectory.FileName.recommendationCSV))
                try write(SummaryMarkdown.render(input, aggregate: aggregate, recommendations: recommendations, charts: charts),
                          to: run.file(RunDirectory.FileName.summaryMarkdown))
                let recommendation = RecommendationHTML.section(recommendations, withheld: input.recommendationWithheld)
                try write(HTMLReport.render(input, aggregate: aggregate, charts: charts, extraSections: [recommendation].compactMap { $0 },
                                            grid: CaseGridCollector.grid(aggregate, baseline: input.baselineResults)),
                          to: run.file(RunDirectory.FileName.html))
                return .charts(charts)
            },
            {
                // junit.xml first: its layout of the case runs is gone before the recommendations,
                // beside it, hold their tallies at their largest.
                try JUnitXML.write(aggregate, interruption: input.interruption, partialMerge: input.partialMerge, to: run.file(RunDirectory.FileName.junit))
                // Streamed row by row, in the same order as before (case runs in aggregate order,
                // then their requests), without building the whole file or a flat copy of the requests.
                try ResultsCSV.write(figures: aggregate.caseRuns.requestFigures, to: run.file(RunDirectory.FileName.resultsCSV))
                try write(CasesCSV.render(aggregate), to: run.file(RunDirectory.FileName.casesCSV))
                return .written
            },
        ])
        guard case let .charts(finalCharts) = written[0] else { return }
        for chart in finalCharts.charts { try write(chart.svg, to: run.file(chart.fileName)) }
        // A chart left out this time must not survive from an earlier report of the same directory.
        for omitted in finalCharts.omitted { try? FileManager.default.removeItem(at: run.file(omitted.fileName)) }
    }

    /// What a piece of `inParallel` work gives back: files written, and the charts to write.
    private enum Stage: Sendable {
        case written
        case charts(ChartSet)
    }

    /// Runs `work` on every core at once and, once all have finished, throws the first
    /// failure in the order given, or returns what each gave back.
    @discardableResult
    private static func inParallel(_ work: [@Sendable () throws -> Stage]) throws -> [Stage] {
        let outcomes = concurrentMap(work) { piece in Result { try piece() } }
        return try outcomes.map { try $0.get() }
    }

    private static func write(_ text: String, to file: URL) throws {
        do {
            try TemporaryFiles.writeAtomically(Data(TerminalText.forReport(text, file: file).utf8), to: file)
        } catch {
            throw ReportWriteFailure(path: file.path, reason: error.localizedDescription)
        }
    }
}

/// A report file that could not be written: which one, and what the file system said.
package struct ReportWriteFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file or directory that could not be written.
    package var path: String
    /// What the file system said.
    package var reason: String

    /// A failure to write `path`, for `reason`.
    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    package var description: String {
        "\(path): error: could not write the report: \(reason). Check that the directory is writable and the disk is not full."
    }
}
