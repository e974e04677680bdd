import JQCKit

/// Draws a form with its answers as text, for the shell's `form` command (seed 001 §12; rules 58–60,
/// 62, 77).
///
/// Three styles:
/// - ``Style/grid``: the web's 12-column grid — each field a box placed by `row`/`col`/`colSpan`/
///   `rowSpan`, titled `#id Label` (`*` when required), with its answer inside. Grid rows that no
///   field covers take no space; sections and labels take one line. Below ``minimumGridWidth``
///   columns the grid is unusable, so the stacked layout is drawn instead (rule 77).
/// - ``Style/stacked``: one field per line in `(row, col)` order (rule 62), `#id Label: answer`,
///   with sections as heavy rules and multi-line answers indented below their label.
/// - ``Style/readOnly``: a completed inspection — only answered fields, the labels right before them
///   and the sections that hold them (the 5-pass rule 59), grouped by `row` with every row one
///   line high whatever its `rowSpan` (rules 58, 60); stacked below ``minimumGridWidth``.
///
/// Widths count `Character`s; no line is wider than `width` (at least ``minimumWidth``). Foreign text (labels,
/// options, answers, ids) is made terminal-safe before it is measured (STYLE.md item 18), and one answer shows
/// at most 20 lines (`AnswerDisplay.maximumLines`), so rendering is linear in what is shown.
public enum FormRenderer {
    /// How to draw the form.
    public enum Style: String, Sendable, Hashable, CaseIterable {
        /// The 12-column grid (falls back to ``stacked`` when narrow).
        case grid
        /// One field per line.
        case stacked
        /// Answered fields only, for a completed inspection.
        case readOnly = "read_only"
    }

    /// The narrowest terminal, in columns, that draws the grid; narrower draws stacked (rule 77:
    /// the iPad's 600 pt floor keeps a column ≥ 40 pt; here a column keeps ≥ 8 characters).
    public static let minimumGridWidth = 100
    /// The narrowest width drawn; smaller widths are raised to this.
    public static let minimumWidth = 20

    /// The form as text.
    /// - Parameters:
    ///   - schema: the template's schema.
    ///   - answers: field-id string → JSON value.
    ///   - width: the terminal's width in columns.
    ///   - style: the layout; see ``Style``.
    /// - Returns: the lines joined with `\n`, with a final newline (empty text for an empty schema
    ///   in the read-only style when nothing is answered).
    public static func render(schema: FormSchema, answers: [String: JSONValue], width: Int, style: Style) -> String {
        let width = max(minimumWidth, width)
        let lines: [String]
        switch style {
        case .grid:
            lines =
                width >= minimumGridWidth
                ? grid(schema, answers, width: width)
                : stacked(
                    schema.fieldsInReadingOrder, answers, width: width,
                    showIDs: true)
        case .stacked:
            lines = stacked(schema.fieldsInReadingOrder, answers, width: width, showIDs: true)
        case .readOnly:
            let rows = readOnlyRows(schema: schema, answers: answers)
            lines =
                width >= minimumGridWidth
                ? readOnlyGrid(rows, answers, width: width)
                : stacked(rows.flatMap { $0 }, answers, width: width, showIDs: false, compact: true)
        }
        let trimmed = lines.map { line in
            var line = line
            while line.last == " " { line.removeLast() }
            return line
        }
        return trimmed.isEmpty ? "" : trimmed.joined(separator: "\n") + "\n"
    }

    // MARK: Read-only filtering (rule 59)

    /// Pass 1 of rule 59: the ids of answered fields — a rating of 1…5, or any other input field
    /// with a non-blank value (not absent, `null`, blank text, `[]` or `{}`).
    public static func answeredFieldIDs(schema: FormSchema, answers: [String: JSONValue]) -> Set<String> {
        Set(
            schema.fields.filter { field in
                switch field.type {
                case .rating: InspectionScorer.ratingValue(answers[field.id]) != nil
                case _ where field.type.isDisplayOnly: false
                default: !AnswerDisplay.isBlank(answers[field.id])
                }
            }.map(\.id))
    }

    /// The read-only view's rows (seed 001 rule 59, five passes over the fields in `(row, col)` order):
    /// 1. answered fields; 2. labels immediately before an answered field; 3. sections with an
    /// answered field after them (before the next section); 4. group by original `row`; 5. keep only
    /// the visible fields of each row and drop rows left empty.
    /// - Returns: the visible fields, one array per row, rows in order and fields by `col`.
    public static func readOnlyRows(schema: FormSchema, answers: [String: JSONValue]) -> [[FormField]] {
        let ordered = schema.fieldsInReadingOrder
        let answered = answeredFieldIDs(schema: schema, answers: answers)  // pass 1
        var visible = answered
        for (index, field) in ordered.enumerated() where field.type == .label {  // pass 2
            if index + 1 < ordered.count, answered.contains(ordered[index + 1].id) { visible.insert(field.id) }
        }
        for (index, field) in ordered.enumerated() where field.type == .section {  // pass 3
            let following = ordered[(index + 1)...].prefix { $0.type != .section }
            if following.contains(where: { answered.contains($0.id) }) { visible.insert(field.id) }
        }
        var groups: [(row: Int, fields: [FormField])] = []  // pass 4
        for field in ordered {
            if groups.last?.row == field.row {
                groups[groups.count - 1].fields.append(field)
            } else {
                groups.append((field.row, [field]))
            }
        }
        return groups.map { $0.fields.filter { visible.contains($0.id) } }.filter { !$0.isEmpty }  // pass 5
    }

    // MARK: Grid

    private static func grid(_ schema: FormSchema, _ answers: [String: JSONValue], width: Int) -> [String] {
        let fields = schema.fields
        guard !fields.isEmpty else { return [] }
        let columnWidth = width / FormSchema.columns
        // Rows no field covers take no space; rows covered only by one-line display fields take one line.
        var rowHeight: [Int: Int] = [:]
        for field in fields {
            for row in field.row...field.lastRow {
                let height = isOneLine(field) ? 1 : 3
                rowHeight[row] = max(rowHeight[row] ?? 0, height)
            }
        }
        var top: [Int: Int] = [:]
        var y = 0
        for row in rowHeight.keys.sorted() {
            top[row] = y
            y += rowHeight[row]!
        }
        var canvas = TextCanvas(width: width, height: y)
        for field in fields {
            let x = (field.col - 1) * columnWidth
            let boxWidth = field.colSpan * columnWidth
            let fieldTop = top[field.row]!
            let height = (field.row...field.lastRow).reduce(0) { $0 + rowHeight[$1]! }
            if isOneLine(field) {
                canvas.write(displayOnlyLine(field, width: boxWidth - 1), x: x, y: fieldTop)
            } else {
                let title =
                    "#\(TextLayout.clean(field.id)) \(TextLayout.clean(field.displayLabel))\(field.required ? " *" : "")"
                let value =
                    field.type.isDisplayOnly
                    ? [displayOnlyLine(field, width: boxWidth - 4)]
                    : AnswerDisplay.lines(field, answers[field.id], width: boxWidth - 4)
                canvas.box(x: x, y: fieldTop, width: boxWidth, height: height, title: title, content: value)
            }
        }
        return canvas.text
    }

    /// Sections, labels and buttons are drawn as one line, not a box.
    private static func isOneLine(_ field: FormField) -> Bool {
        switch field.type {
        case .section, .label, .button, .unknown: true
        default: false
        }
    }

    private static func displayOnlyLine(_ field: FormField, width: Int) -> String {
        switch field.type {
        case .section: TextLayout.heading(TextLayout.clean(field.displayLabel), width)
        case .label: TextLayout.truncate(TextLayout.clean(field.displayLabel), width)
        case .button: TextLayout.truncate("[ \(TextLayout.clean(field.displayLabel)) ]", width)
        default:
            TextLayout.truncate(
                "\(TextLayout.clean(field.displayLabel)) (shown only: type \"\(TextLayout.clean(field.type.rawValue))\")",
                width)
        }
    }

    // MARK: Stacked

    private static func stacked(
        _ fields: [FormField], _ answers: [String: JSONValue], width: Int,
        showIDs: Bool, compact: Bool = false
    ) -> [String] {
        var lines: [String] = []
        for field in fields {
            if field.type == .section {
                if !lines.isEmpty { lines.append("") }
                lines.append(TextLayout.heading(TextLayout.clean(field.displayLabel), width))
                continue
            }
            if field.type.isDisplayOnly {
                lines += TextLayout.wrap(
                    displayOnlyLine(field, width: Int.max / 2), width, maximumLines: AnswerDisplay.maximumLines)
                continue
            }
            let name =
                (showIDs ? "#\(TextLayout.clean(field.id)) " : "") + TextLayout.clean(field.displayLabel)
                + (field.required && showIDs ? " *" : "")
            let compact = compact && field.type != .table
            let single = AnswerDisplay.lines(field, answers[field.id], width: width - name.count - 2, compact: compact)
            if single.count == 1 && name.count + 2 + single[0].count <= width && field.type != .table {
                var line = name + ": " + single[0]
                while line.last == " " { line.removeLast() }
                lines.append(line)
            } else {
                lines += TextLayout.wrap(name + ":", width)
                let body = AnswerDisplay.lines(field, answers[field.id], width: width - 4, compact: compact)
                lines += body.map { "    " + $0 }
            }
        }
        return lines
    }

    // MARK: Read-only grid

    private static func readOnlyGrid(_ rows: [[FormField]], _ answers: [String: JSONValue], width: Int) -> [String] {
        let columnWidth = width / FormSchema.columns
        var lines: [String] = []
        for row in rows {
            if row.allSatisfy(isOneLine) {
                var canvas = TextCanvas(width: width, height: 1)
                for field in row {
                    canvas.write(
                        displayOnlyLine(field, width: field.colSpan * columnWidth - 1),
                        x: (field.col - 1) * columnWidth, y: 0)
                }
                lines += canvas.text
                continue
            }
            var canvas = TextCanvas(width: width, height: 2)  // rule 60: one row high, whatever the rowSpan
            for field in row {
                let x = (field.col - 1) * columnWidth
                let cell = field.colSpan * columnWidth - 1
                if isOneLine(field) {
                    canvas.write(displayOnlyLine(field, width: cell), x: x, y: 0)
                } else {
                    canvas.write(TextLayout.truncate(TextLayout.clean(field.displayLabel), cell), x: x, y: 0)
                    let value = AnswerDisplay.lines(field, answers[field.id], width: cell, compact: true).first ?? ""
                    canvas.write(TextLayout.truncate(value, cell), x: x, y: 1)
                }
            }
            lines += canvas.text
        }
        return lines
    }
}
