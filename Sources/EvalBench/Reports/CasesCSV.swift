/// `cases.csv`: summary.md's per-case matrix as data, one row per case and one column per
/// backend × reasoning × variant, each cell as the matrix writes it (`pass`, `fail: <assertion>`,
/// `k/N pass` with repeats, `—` when the case did not run there). summary.md shows the matrix
/// itself only up to `SummaryMarkdown.caseMatrixLimit` case runs.
package enum CasesCSV {
    package static func render(_ aggregate: RunAggregate) -> String {
        let matrix = CaseMatrix(aggregate)
        var csv = CSVWriter(header: ["case"] + aggregate.groups.map(\.group.label))
        for (label, row) in zip(matrix.rowLabels, matrix.cells) {
            csv.append([.text(label)] + row.map { .text($0.text) })
        }
        return csv.text
    }
}
