import Foundation
import JQCKit

/// One field of a template's form schema, with its grid placement normalised (seed 001 §12).
///
/// Placement is on the web's 12-column grid: `col` 1…12, `colSpan` 1…(13 − `col`), `row` ≥ 1,
/// `rowSpan` ≥ 1. ``FormSchema`` fills in and clamps these and reports what it changed.
public struct FormField: Sendable, Hashable, Identifiable {
    /// The field id as a string key of `form_data` (integer 5 → `"5"`; seed 001 rule 9).
    public let id: String
    /// The field's type; unknown types are kept as display-only.
    public let type: FormFieldType
    /// The label as authored (`""` when the schema has none); see ``displayLabel``.
    public let label: String
    /// The grid row, 1-based.
    public let row: Int
    /// The grid column, 1…12.
    public let col: Int
    /// Columns covered, 1…(13 − ``col``).
    public let colSpan: Int
    /// Rows covered, ≥ 1.
    public let rowSpan: Int
    /// Whether an answer is needed before submit (never true for display-only types).
    public let required: Bool
    /// The choices of a `radio`, `select`, `checkbox_group` or `pass_fail`, in schema order.
    public let options: [String]
    /// A table's column headers (`col_headers`), in order.
    public let columnHeaders: [String]
    /// A table's row count (`table_rows`), ≥ 1.
    public let tableRows: Int
    /// Hint text for an empty text-like field, when the schema has one.
    public let placeholder: String?
    /// The field object exactly as the schema holds it.
    public let raw: JSONValue

    /// Makes a field directly (tests and tools); ``FormSchema`` is the usual way in.
    public init(
        id: String, type: FormFieldType, label: String = "", row: Int = 1, col: Int = 1, colSpan: Int = 12,
        rowSpan: Int = 1, required: Bool = false, options: [String] = [], columnHeaders: [String] = [],
        tableRows: Int = 1, placeholder: String? = nil, raw: JSONValue = .null
    ) {
        self.id = id
        self.type = type
        self.label = label
        self.row = max(1, row)
        self.col = min(max(1, col), FormSchema.columns)
        self.colSpan = min(max(1, colSpan), FormSchema.columns + 1 - self.col)
        self.rowSpan = max(1, rowSpan)
        self.required = required && !type.isDisplayOnly
        self.options = options
        self.columnHeaders = columnHeaders
        self.tableRows = max(1, tableRows)
        self.placeholder = placeholder
        self.raw = raw
    }

    /// The label to show: the authored label, or `Field <id>` when it is blank.
    public var displayLabel: String {
        let trimmed = label.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? "Field \(id)" : trimmed
    }

    /// The field named for a person: `"Floors clean and dry" (id 2)`. Used in error messages.
    public var reference: String { "\"\(displayLabel)\" (id \(id))" }

    /// The last grid row the field covers.
    public var lastRow: Int { row + rowSpan - 1 }
}

extension FormField {
    /// The field as JSON for `--json` output (SHELL.md `form`): `{id, type, label, row, col, colSpan,
    /// rowSpan, required, options}`, plus `col_headers` and `table_rows` for tables and `placeholder`
    /// when there is one. Placement is the normalised one.
    public var summaryJSON: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "type": .string(type.rawValue), "label": .string(displayLabel),
            "row": .int(Int64(row)), "col": .int(Int64(col)), "colSpan": .int(Int64(colSpan)),
            "rowSpan": .int(Int64(rowSpan)), "required": .bool(required),
            "options": .array(options.map(JSONValue.string)),
        ]
        if type == .table {
            object["col_headers"] = .array(columnHeaders.map(JSONValue.string))
            object["table_rows"] = .int(Int64(tableRows))
        }
        if let placeholder { object["placeholder"] = .string(placeholder) }
        return .object(object)
    }
}
