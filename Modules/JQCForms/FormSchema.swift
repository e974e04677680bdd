import Foundation
import JQCKit

/// A template's form schema, read without ever trapping (seed 001 §12, rule 9; SCORING.md).
///
/// The schema is a JSON array of field objects. Reading it:
/// - ids are normalised with `FieldID.normalize` (integer 5 → `"5"`); a field without a usable id is
///   ignored;
/// - duplicate ids: the first field of a known type wins; a field of an unknown type only keeps its
///   id when no field of a known type has it (SCORING.md: unknown types are ignored for scoring);
/// - unknown types are kept as display-only;
/// - missing or odd `row` / `col` / `colSpan` / `rowSpan` are defaulted and clamped to the 12-column
///   grid (a missing `row` goes below every placed field, a missing `col` is 1);
/// - a missing `colSpan` reaches the right edge and a missing `rowSpan` is 1: the web's defaults, so
///   they are not noted; everything else ignored or changed is reported in ``notes``. Nothing is fatal.
///
/// The raw JSON is kept unchanged in ``raw`` and fingerprinted in ``hash``.
public struct FormSchema: Sendable, Hashable {
    /// The grid's column count (seed 001 §12, `totalColumns`).
    public static let columns = 12

    /// Something the reader ignored or adjusted, for diagnostics. Never fatal.
    public struct Note: Sendable, Hashable, CustomStringConvertible {
        /// The field's position in the schema array (0-based), or `nil` for the schema as a whole.
        public let index: Int?
        /// The field's id when it has a usable one.
        public let fieldID: String?
        /// What was ignored or changed, as a sentence.
        public let message: String

        /// Makes a note.
        public init(index: Int?, fieldID: String?, message: String) {
            self.index = index
            self.fieldID = fieldID
            self.message = message
        }

        /// The message prefixed with where it applies (`field 3 (id 7): …`).
        public var description: String {
            switch (index, fieldID) {
            case let (index?, id?): "field \(index + 1) (id \(id)): \(message)"
            case let (index?, nil): "field \(index + 1): \(message)"
            default: message
            }
        }
    }

    /// The usable fields, in schema order.
    public let fields: [FormField]
    /// What was ignored or adjusted while reading, in schema order.
    public let notes: [Note]
    /// The schema JSON exactly as given.
    public let raw: JSONValue
    /// A stable fingerprint of ``raw`` for schema pinning: FNV-1a 64 (``FNV1a64``) over
    /// `raw.jsonData(sortedKeys: true)`, as 16 lowercase hex digits. Key order does not change it.
    public let hash: String

    private let indexByID: [String: Int]

    /// An empty schema (no fields), for a template that has none.
    public static let empty = FormSchema(json: .array([]))

    /// Reads a schema from JSON. Never fails: anything unusable is skipped and noted.
    /// - Parameter json: the template's `form_schema`: an array of field objects (a string holding
    ///   such an array is also read, as some backends store the schema as text; anything else gives
    ///   an empty schema with a note).
    public init(json: JSONValue) {
        raw = json
        hash = FNV1a64.hex(json.jsonData(sortedKeys: true))
        var reader = Reader()
        switch json {
        case .array(let entries):
            reader.read(entries)
        case .string(let text):
            if case .array(let entries)? = try? JSONValue.parse(text) {
                reader.notes.append(Note(index: nil, fieldID: nil, message: "The schema was JSON text; it was read."))
                reader.read(entries)
            } else {
                reader.notes.append(
                    Note(
                        index: nil, fieldID: nil,
                        message: "The schema is text that is not a JSON array; it has no fields."))
            }
        case .null:
            break
        default:
            reader.notes.append(
                Note(
                    index: nil, fieldID: nil,
                    message: "The schema is not a JSON array of fields; it has no fields."))
        }
        fields = reader.fields
        notes = reader.notes
        indexByID = Dictionary(reader.fields.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Reads a schema from JSON text.
    /// - Parameter data: UTF-8 JSON text of the schema array.
    /// - Throws: ``FormsError`` with code `.malformedSchema` when the text is not JSON.
    public init(data: Data) throws {
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch {
            throw FormsError(
                .malformedSchema,
                "The form schema is not valid JSON; fetch the template again or fix its JSON.",
                cause: error)
        }
        self.init(json: json)
    }

    /// Whether the schema has no usable fields (rule 79: never prefill without a schema).
    public var isEmpty: Bool { fields.isEmpty }

    /// The field with id `id`, or `nil` when the form has none.
    public func field(id: String) -> FormField? {
        indexByID[id].map { fields[$0] }
    }

    /// The fields sorted by `(row, col)`, schema order breaking ties (seed 001 rule 62).
    public var fieldsInReadingOrder: [FormField] {
        fields.enumerated().sorted { lhs, rhs in
            (lhs.element.row, lhs.element.col, lhs.offset) < (rhs.element.row, rhs.element.col, rhs.offset)
        }.map(\.element)
    }

    /// The fields that count towards the score, in schema order.
    public var scoreableFields: [FormField] { fields.filter { $0.type.isScoreable } }

    /// Two schemas are equal when their raw JSON is equal (everything else is derived from it).
    public static func == (lhs: FormSchema, rhs: FormSchema) -> Bool { lhs.raw == rhs.raw }
    /// Hashes the raw JSON, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(raw) }
}

// MARK: - Reading

extension FormSchema {
    /// The field-by-field reader behind ``init(json:)``.
    private struct Reader {
        var fields: [FormField] = []
        var notes: [Note] = []

        mutating func read(_ entries: [JSONValue]) {
            // Pass 1: which entry claims each id (the first of a known type).
            var knownClaims: [String: Int] = [:]
            var unknownClaims: [String: Int] = [:]
            for (index, entry) in entries.enumerated() {
                guard let id = FieldID.normalize(entry["id"]) else { continue }
                if Self.type(of: entry).isKnown {
                    if knownClaims[id] == nil { knownClaims[id] = index }
                } else if unknownClaims[id] == nil {
                    unknownClaims[id] = index
                }
            }
            // Pass 2: keep the claimants, note the rest; rows are resolved after every placed row is known.
            var kept: [(index: Int, id: String, entry: [String: JSONValue])] = []
            for (index, entry) in entries.enumerated() {
                guard let object = entry.objectValue else {
                    notes.append(Note(index: index, fieldID: nil, message: "It is not a JSON object; it was ignored."))
                    continue
                }
                guard let id = FieldID.normalize(entry["id"]) else {
                    let shown = entry["id"].map { $0.jsonString() } ?? "missing"
                    notes.append(
                        Note(
                            index: index, fieldID: nil,
                            message: "Its id (\(shown)) is not an integer or non-empty text; ignored."))
                    continue
                }
                let type = Self.type(of: entry)
                let claimant = knownClaims[id] ?? (type.isKnown ? nil : unknownClaims[id])
                guard claimant == index else {
                    notes.append(
                        Note(
                            index: index, fieldID: id,
                            message: "Another field with this id wins (the first of a known type); ignored."))
                    continue
                }
                kept.append((index, id, object))
            }
            let placedRows = kept.compactMap { Self.integer($0.entry["row"]) }.filter { $0 >= 1 }
            var nextRow = placedRows.max().map { min($0, Self.maximumRow) + 1 } ?? 1
            for item in kept {
                fields.append(field(item.index, item.id, item.entry, nextRow: &nextRow))
            }
            // Notes in schema order (the ignored entries were noted before the kept ones were read).
            notes = notes.enumerated()
                .sorted { ($0.element.index ?? -1, $0.offset) < ($1.element.index ?? -1, $1.offset) }
                .map(\.element)
        }

        private mutating func field(
            _ index: Int, _ id: String, _ object: [String: JSONValue],
            nextRow: inout Int
        ) -> FormField {
            func note(_ message: String) { notes.append(Note(index: index, fieldID: id, message: message)) }
            let type = Self.type(of: .object(object))
            if case .unknown(let raw) = type {
                note(
                    raw.isEmpty
                        ? "It has no type; it is shown as display-only."
                        : "Its type \"\(raw)\" is unknown; it is shown as display-only.")
            }
            // Row: a missing one goes below every placed field.
            var row: Int
            if let value = Self.integer(object["row"]), value >= 1 {
                row = value
            } else {
                row = nextRow
                nextRow += 1
                note(
                    object["row"] == nil
                        ? "It has no row; it was placed on row \(row)."
                        : "Its row is not a whole number from 1; it was placed on row \(row).")
            }
            if row > Self.maximumRow {
                note("Its row \(row) is past \(Self.maximumRow); it was clamped.")
                row = Self.maximumRow
            }
            var col = 1
            switch Self.integer(object["col"]) {
            case let value? where (1...FormSchema.columns).contains(value): col = value
            case let value?:
                col = min(max(1, value), FormSchema.columns)
                note("Its col \(value) is outside 1…\(FormSchema.columns); it was clamped to \(col).")
            case nil:
                note(
                    object["col"] == nil
                        ? "It has no col; it was placed in column 1."
                        : "Its col is not a whole number; it was placed in column 1.")
            }
            let room = FormSchema.columns + 1 - col
            var colSpan = room
            switch Self.integer(object["colSpan"] ?? object["col_span"]) {
            case let value? where (1...room).contains(value): colSpan = value
            case let value?:
                colSpan = min(max(1, value), room)
                note("Its colSpan \(value) does not fit from column \(col); it was clamped to \(colSpan).")
            case nil:
                if object["colSpan"] != nil || object["col_span"] != nil {
                    note("Its colSpan is not a whole number; it spans to the right edge.")
                }
            }
            var rowSpan = 1
            switch Self.integer(object["rowSpan"] ?? object["row_span"]) {
            case let value? where (1...Self.maximumRowSpan).contains(value): rowSpan = value
            case let value?:
                rowSpan = min(max(1, value), Self.maximumRowSpan)
                note("Its rowSpan \(value) is outside 1…\(Self.maximumRowSpan); it was clamped to \(rowSpan).")
            case nil:
                if object["rowSpan"] != nil || object["row_span"] != nil {
                    note("Its rowSpan is not a whole number; it covers one row.")
                }
            }
            let tableRows =
                Self.integer(object["table_rows"] ?? object["tableRows"]).map {
                    min(max(1, $0), Self.maximumTableRows)
                } ?? Self.defaultTableRows
            return FormField(
                id: id, type: type, label: Self.text(object["label"]) ?? "", row: row, col: col, colSpan: colSpan,
                rowSpan: rowSpan, required: Self.flag(object["required"]), options: Self.texts(object["options"]),
                columnHeaders: Self.texts(object["col_headers"] ?? object["colHeaders"]), tableRows: tableRows,
                placeholder: Self.text(object["placeholder"]).flatMap { $0.isEmpty ? nil : $0 }, raw: .object(object))
        }

        static let maximumRow = 10_000
        static let maximumRowSpan = 50
        static let maximumTableRows = 200
        static let defaultTableRows = 3

        static func type(of entry: JSONValue) -> FormFieldType {
            guard let raw = entry["type"]?.stringValue else { return .unknown("") }
            return FormFieldType(rawValue: raw)
        }

        /// A whole number: a JSON integer, a double with an integral value, or digits as text.
        static func integer(_ value: JSONValue?) -> Int? {
            switch value {
            case .int(let number)?:
                return Int(clamping: number)
            case .double(let number)? where number.isFinite && number.rounded() == number && abs(number) < 1e15:
                return Int(number)
            case .string(let text)?:
                return Int(text.trimmingCharacters(in: .whitespaces))
            default:
                return nil
            }
        }

        static func text(_ value: JSONValue?) -> String? {
            switch value {
            case .string(let text)?: text
            case .int(let number)?: String(number)
            case .double(let number)?: JSONValue.double(number).jsonString()
            case .bool(let flag)?: flag ? "true" : "false"
            default: nil
            }
        }

        static func texts(_ value: JSONValue?) -> [String] {
            guard let items = value?.arrayValue else { return [] }
            return items.compactMap { item in
                if let object = item.objectValue {  // {"label": …, "value": …} options
                    return text(object["label"]) ?? text(object["value"])
                }
                return text(item)
            }
        }

        static func flag(_ value: JSONValue?) -> Bool {
            switch value {
            case .bool(let flag)?: flag
            case .string(let text)?: ["true", "1", "yes"].contains(text.lowercased())
            case .int(let number)?: number != 0
            default: false
            }
        }
    }
}
