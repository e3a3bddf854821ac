/// report.html's inline style and script for the case grid and the headline table: nothing
/// is loaded from elsewhere. Without the script every case is still shown; it adds the filters.
enum ViewerAssets {
    static let style = """

        .table-wrap table.headline th:first-child, .table-wrap table.headline td:first-child {
          position: sticky; left: 0; z-index: 1; background: #fff; box-shadow: 1px 0 0 #d9dce1; }
        .table-wrap table.headline thead th:first-child { background: #f0f2f5; }
        .grid-note { color: #444; margin: 4px 0 10px; }
        .grid-note.sampled { color: #8a4b00; }
        .filters { display: flex; flex-wrap: wrap; gap: 10px 18px; align-items: center; margin: 0 0 10px;
          padding: 10px 12px; background: #fff; border: 1px solid #d9dce1; border-radius: 6px; font-size: 14px; }
        .filters input, .filters select { font: inherit; padding: 3px 6px; border: 1px solid #c4c8cf; border-radius: 4px; }
        .filters input[type=search] { width: 240px; }
        #filter-count { color: #555; margin-left: auto; }
        .grid-wrap { overflow: auto; max-height: 85vh; background: #fff; border: 1px solid #d9dce1; border-radius: 6px; }
        table.grid { border-collapse: separate; border-spacing: 0; width: max-content; min-width: 100%; font-size: 13px; }
        table.grid th, table.grid td { white-space: normal; vertical-align: top; border-bottom: 1px solid #e3e6ea;
          border-right: 1px solid #eceef1; padding: 8px 10px; text-align: left; }
        table.grid thead th { position: sticky; top: 0; z-index: 2; background: #f0f2f5; min-width: 300px; max-width: 420px; }
        table.grid .case-col { position: sticky; left: 0; z-index: 1; background: #fafbfc; width: 220px; min-width: 220px;
          max-width: 220px; box-shadow: 1px 0 0 #d9dce1; }
        table.grid thead th.case-col { z-index: 3; background: #f0f2f5; }
        .case-id { font-weight: 600; word-break: break-all; display: block; }
        .tags { display: block; margin: 2px 0; }
        .tag { display: inline-block; background: #e8edf5; color: #334; border-radius: 3px; padding: 0 5px; margin: 0 4px 2px 0;
          font-size: 11px; }
        .prompt { color: #555; font-size: 12px; white-space: pre-wrap; max-height: 8em; overflow: auto; margin-top: 4px; }
        td.cell { min-width: 300px; max-width: 420px; border-left: 4px solid transparent; }
        td.cell.pass { border-left-color: #2e9d57; }
        td.cell.fail { border-left-color: #d93025; background: #fff6f5; }
        td.cell.error { border-left-color: #e37400; background: #fff8ef; }
        td.cell.skipped, td.cell.empty { border-left-color: #b0b5bd; color: #666; }
        .badge { display: inline-block; font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .03em;
          border-radius: 3px; padding: 1px 6px; color: #fff; background: #6b7280; }
        .badge.pass { background: #2e9d57; } .badge.fail { background: #d93025; } .badge.error { background: #e37400; }
        .flip { display: inline-block; font-size: 11px; font-weight: 700; color: #fff; background: #7b3fc4; border-radius: 3px;
          padding: 1px 6px; }
        .verdict { margin-bottom: 6px; }
        .turn + .turn { margin-top: 8px; padding-top: 8px; border-top: 1px dashed #d9dce1; }
        .turn-head { font-weight: 600; font-size: 12px; color: #333; }
        .answer { white-space: pre-wrap; word-break: break-word; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
          font-size: 12px; background: #f5f6f8; border-radius: 4px; padding: 6px 8px; max-height: 16em; overflow: auto; margin: 4px 0; }
        .omitted { color: #777; font-size: 11px; }
        .error-text { color: #a04000; font-size: 12px; white-space: pre-wrap; word-break: break-word; }
        ul.failures, ul.tool-calls { margin: 4px 0; padding-left: 18px; font-size: 12px; }
        ul.failures li { color: #b3261e; }
        ul.tool-calls code { font-size: 11.5px; word-break: break-all; }
        .figures { display: flex; flex-wrap: wrap; gap: 2px 10px; color: #555; font-size: 11.5px; font-variant-numeric: tabular-nums; }
        details.baseline { margin-top: 6px; font-size: 12px; color: #444; }
        details.baseline summary { cursor: pointer; }

        """

    /// Filters by search text, status, tag and column; counts the cases shown.
    static let script = """
        //<![CDATA[
        (function () {
          var grid = document.getElementById('case-grid');
          if (!grid) return;
          var rows = Array.prototype.slice.call(grid.tBodies[0].rows);
          var text = document.getElementById('filter-text'), status = document.getElementById('filter-status');
          var tag = document.getElementById('filter-tag'), column = document.getElementById('filter-column');
          var count = document.getElementById('filter-count');
          function cells(row, col) {
            return Array.prototype.filter.call(row.cells, function (cell) {
              return cell.dataset.col !== undefined && (col === '' || cell.dataset.col === col);
            });
          }
          function matches(row, q, s, t, c) {
            if (s === 'flipped') {
              if (row.dataset.flipped !== 'true') return false;
            } else if (s !== '') {
              if (!cells(row, c).some(function (cell) { return cell.dataset.status === s; })) return false;
            }
            if (t !== '' && JSON.parse(row.dataset.tags).indexOf(t) < 0) return false;
            return q === '' || row.textContent.toLowerCase().indexOf(q) >= 0;
          }
          function apply() {
            var q = text.value.trim().toLowerCase(), s = status.value, t = tag.value, c = column.value, shown = 0;
            rows.forEach(function (row) {
              var ok = matches(row, q, s, t, c);
              row.hidden = !ok;
              if (ok) shown += 1;
            });
            Array.prototype.forEach.call(grid.querySelectorAll('[data-col]'), function (el) {
              el.hidden = c !== '' && el.dataset.col !== c;
            });
            count.textContent = shown + ' of ' + rows.length + ' cases shown';
          }
          [text, status, tag, column].forEach(function (el) {
            el.addEventListener('input', apply);
            el.addEventListener('change', apply);
          });
        })();
        //]]>
        """
}
