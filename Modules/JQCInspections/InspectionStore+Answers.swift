import Foundation
import JQCKit
import JQCStorage

/// The answer path at the floor (issue 17, "Local writes at the floor"): what `InspectionService.answer`
/// and `save` read and write, one field at a time, inside the caller's transaction. The row's other
/// columns and the other answers are neither read into Swift nor rebuilt there: one answer is patched into
/// `form_data` by SQLite's `json_set` / `json_remove`, which keep every other value's JSON text as stored
/// (integers stay integers, `4.0` stays a double, tables and arrays intact).
extension InspectionStore {
    /// What the answer path needs of a row: its status and the pinned schema's hash.
    public struct AnswerTarget: Sendable, Hashable {
        /// The inspection's status (only a draft takes answers).
        public let status: InspectionStatus
        /// The pinned schema's hash (`schema_hash`; JQCForms `FormSchema.hash`), the schema cache's key.
        public let schemaHash: String
    }

    /// The status and pinned schema hash of one inspection, or `nil` when it is not on this device.
    /// - Throws: `DatabaseError`.
    public func answerTarget(_ db: Database, localID: String) throws -> AnswerTarget? {
        try db.fetchOne("SELECT status, schema_hash FROM inspections WHERE local_id = ?", [localID]).map {
            AnswerTarget(
                status: InspectionStatus(rawValue: $0["status"] ?? "") ?? .draft, schemaHash: $0["schema_hash"] ?? "")
        }
    }

    /// The pinned schema JSON of one inspection (its row's `schema_snapshot`, or the shared copy in
    /// `inspection_schemas`; `[]` when unreadable), read on a schema cache miss only.
    /// - Throws: `DatabaseError`.
    public func schemaSnapshot(_ db: Database, localID: String) throws -> JSONValue {
        let row = try db.fetchOne(
            "SELECT schema_snapshot, pinned_snapshot FROM (SELECT \(Self.selection) WHERE inspections.local_id = ?)",
            [localID])
        let inline: String = row?["schema_snapshot"] ?? "[]"
        let text = inline.isEmpty ? (row?["pinned_snapshot"] ?? "[]") : inline
        return (try? JSONValue.parse(text)) ?? .array([])
    }

    /// One stored answer, or `nil` when the field has none (a table cell is written over the stored rows).
    /// - Throws: `DatabaseError`.
    public func answer(_ db: Database, localID: String, fieldID: String) throws -> JSONValue? {
        guard let path = Self.path(fieldID) else { return try formData(db, localID: localID)[fieldID] }
        let text: String?
        do {
            text = try db.scalar(
                "SELECT json_quote(json_extract(form_data, ?)) FROM inspections WHERE local_id = ?", [path, localID])
        } catch {
            return try formData(db, localID: localID)[fieldID]  // not JSON: read as the row reader does
        }
        guard let text, let value = try? JSONValue.parse(text), value != .null else { return nil }
        return value
    }

    /// Writes one answer (`nil` removes it) and touches `updated_at`: `json_set` / `json_remove` on the stored
    /// `form_data` (the row is patched when its text starts with `{`, a check that costs nothing, and SQLite
    /// refuses a malformed one). A `form_data` that is not a JSON object (never written by this app) is
    /// replaced by an object holding the other answers as the row reader sees them, plus this one.
    /// - Throws: `DatabaseError`.
    public func setAnswer(_ db: Database, localID: String, fieldID: String, value: JSONValue?, at now: Date) throws {
        if let path = Self.path(fieldID) {
            do {
                if let value {
                    try db.execute(
                        """
                        UPDATE inspections SET form_data = json_set(form_data, ?, json(?)), updated_at = ?
                        WHERE local_id = ? AND substr(form_data, 1, 1) = '{'
                        """, [path, value.jsonString(), now, localID])
                } else {
                    try db.execute(
                        """
                        UPDATE inspections SET form_data = json_remove(form_data, ?), updated_at = ?
                        WHERE local_id = ? AND substr(form_data, 1, 1) = '{'
                        """, [path, now, localID])
                }
                if db.changesCount == 1 { return }
            } catch let error as DatabaseError where error.isMalformedJSON {
                // fall through: the stored text is not JSON
            }
        }
        var answers = try formData(db, localID: localID)
        answers[fieldID] = value
        try updateAnswers(db, localID: localID, formData: answers, at: now)
    }

    /// Touches a draft's `updated_at` (an explicit save of what is stored).
    /// - Returns: whether a draft with `localID` was touched.
    /// - Throws: `DatabaseError`.
    public func touchDraft(_ db: Database, localID: String, at now: Date) throws -> Bool {
        try db.execute(
            "UPDATE inspections SET updated_at = ? WHERE local_id = ? AND status = 'draft'", [now, localID])
        return db.changesCount == 1
    }

    /// The JSON path of a field's answer (`$."5"`), or `nil` for an id SQLite's path syntax cannot quote
    /// (one holding `"`), which takes the whole-object write.
    static func path(_ fieldID: String) -> String? {
        fieldID.contains("\"") || fieldID.contains("\\") ? nil : "$.\"\(fieldID)\""
    }

    /// Every answer, as the row reader sees them (`{}` for text that is not a JSON object).
    private func formData(_ db: Database, localID: String) throws -> [String: JSONValue] {
        let text: String = try db.scalar("SELECT form_data FROM inspections WHERE local_id = ?", [localID]) ?? "{}"
        return (try? JSONValue.parse(text))?.objectValue ?? [:]
    }
}

extension DatabaseError {
    /// SQLite's refusal of text that is not JSON (`malformed JSON`), raised by its JSON functions.
    fileprivate var isMalformedJSON: Bool { kind == .other && detail.lowercased().contains("malformed json") }
}
