/// A plain-text table with a header row and columns padded to their widest cell, for commands'
/// human output (`--json` gives machines the same data).
struct TextTable {
    let headers: [String]
    private(set) var rows: [[String]] = []

    init(headers: [String]) {
        self.headers = headers
    }

    mutating func append(_ cells: [String]) {
        precondition(cells.count == headers.count, "a row needs one cell per column")
        rows.append(cells)
    }

    /// The lines, two spaces between columns, no trailing spaces.
    var lines: [String] {
        let widths = headers.indices.map { column in
            ([headers] + rows).map { $0[column].count }.max() ?? 0
        }
        return ([headers] + rows).map { cells in
            cells.enumerated().map { column, cell in
                column == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            .joined(separator: "  ").trimmingTrailingSpaces()
        }
    }
}
