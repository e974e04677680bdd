import Foundation
import JQCKit
import JQCStorage

/// The answer path at the floor (issue 17, "Local writes at the floor"): what `InspectionService.answer`
/// and `save` read and write, one field at a time, inside the caller's transaction. A draft's answers are
/// rows of `inspection_answers` (migration `inspections/4-answers`), one per field, holding each value's
/// JSON text as ``JSONValue`` wrote it (integers stay integers, `4.0` stays a double, tables and arrays
/// intact): one answer upserts one small row with its `answered_at` — one page written, whatever the form's
/// size — and the row reader takes the draft's `updated_at` as the later of the row's and its answers'. The
/// row's columns and the other answers are neither read into Swift nor rewritten.
///
/// Each answer row sits at an integer **slot**, the table's rowid (migration `inspections/8-answer-slots`): its
/// draft's `answers_key` × ``slotsPerKey`` + the field's place — the field id itself when it is a plain decimal
/// below ``fixedPlaces`` (every field of the contract's templates: ``fixedPlace(_:)``), else a place from
/// ``fixedPlaces`` up: in the order of the ids' text when a whole set is written, the next free one when a single
/// answer brings a new id (``slot(_:key:fieldID:allocating:)``). An answer to a field with a fixed place is then one search of
/// integer keys and a write over its row in place (issue 17: a quarter fewer instructions than the search of
/// `(answers_key, field_id)` records, then a delete and an insert, that a `WITHOUT ROWID` key cost), and one
/// draft's rows are one range of slots.
extension InspectionStore {
    /// Slots per answers key: a draft's rows are the slots `key × slotsPerKey ..< (key + 1) × slotsPerKey`.
    static let slotsPerKey: Int64 = 65_536
    /// Places kept for field ids that are plain decimals (`0` … `32767`); the other ids take the places above.
    static let fixedPlaces: Int64 = 32_768

    /// The place of a field id that has a fixed one — a plain decimal below ``fixedPlaces`` (`"5"` → 5) — or
    /// `nil` (`"05"`, `"-1"`, `"x"`, `"40000"`, `""`), whose place is found by its row (``slot(_:key:fieldID:allocating:)``).
    static func fixedPlace(_ fieldID: String) -> Int64? {
        let digits = fieldID.utf8
        guard !digits.isEmpty, digits.count <= 5,
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            digits.count == 1 || digits.first != UInt8(ascii: "0"), let place = Int64(fieldID), place < fixedPlaces
        else { return nil }
        return place
    }

    /// The slots of one draft's rows, first and last (inclusive).
    static func slotRange(key: Int64) -> (first: Int64, last: Int64) {
        (key * slotsPerKey, key * slotsPerKey + slotsPerKey - 1)
    }

    /// The slot of `fieldID`'s answer row among the rows of `key`: its fixed place, or the slot its row holds;
    /// when an id without a fixed place has no row, a free place (when `allocating`): the one after the highest
    /// taken, or — once that runs past the range, after many clears — the lowest free one.
    /// - Returns: the slot, or `nil` for an id without a fixed place and no row, when not `allocating`.
    /// - Throws: `DatabaseError` (`misuse` when the draft holds 32,768 answers whose ids have no fixed place).
    static func slot(_ db: Database, key: Int64, fieldID: String, allocating: Bool) throws -> Int64? {
        let (first, last) = slotRange(key: key)
        if let place = fixedPlace(fieldID) { return first + place }
        if let found: Int64 = try db.scalar(
            "SELECT slot FROM inspection_answers WHERE slot BETWEEN ? AND ? AND field_id = ?",
            [first + fixedPlaces, last, fieldID])
        {
            return found
        }
        guard allocating else { return nil }
        let highest: Int64? = try db.scalar(
            "SELECT max(slot) FROM inspection_answers WHERE slot BETWEEN ? AND ?", [first + fixedPlaces, last])
        let next = (highest ?? first + fixedPlaces - 1) + 1
        if next <= last { return next }
        var free = first + fixedPlaces
        for taken: Int64 in try db.fetchAll(
            "SELECT slot FROM inspection_answers WHERE slot BETWEEN ? AND ? ORDER BY slot", [free, last]
        ).compactMap({ $0["slot"] }) {
            if taken != free { break }
            free += 1
        }
        guard free <= last else {
            throw DatabaseError(
                kind: .misuse,
                detail:
                    "A draft holds \(fixedPlaces) answers whose field ids are not plain numbers; \(fieldID) has no room."
            )
        }
        return free
    }

    /// What the answer path needs of a row: its status, the pinned schema's hash and where its answers are.
    public struct AnswerTarget: Sendable, Hashable {
        /// The inspection's status (only a draft takes answers).
        public let status: InspectionStatus
        /// The pinned schema's hash (`schema_hash`; JQCForms `FormSchema.hash`), the schema cache's key.
        public let schemaHash: String
        /// Whether its answers are rows of `inspection_answers` (its `form_data` is ''): every draft since
        /// migration `inspections/4-answers`.
        public let answersInRows: Bool
        /// The key of its answer rows (`inspections.answers_key`, migration `inspections/7-answer-keys`) when
        /// it was read with the rest; `nil` when not read, or when the inspection has none yet (one is given on
        /// its first answer row).
        public let answersKey: Int64?

        /// A target from its parts.
        init(status: InspectionStatus, schemaHash: String, answersInRows: Bool, answersKey: Int64? = nil) {
            self.status = status
            self.schemaHash = schemaHash
            self.answersInRows = answersInRows
            self.answersKey = answersKey
        }

        /// A target from ``InspectionStore/answerTarget(_:localID:)``'s one text: `0`/`1` (`form_data = ''`),
        /// the status, `:`, the hash (split at the LAST `:`: a hash is hex digits or empty). An unknown status
        /// reads as a draft, as the row reader has it.
        init(packed: String) {
            let bytes = packed.utf8
            answersInRows = bytes.first == UInt8(ascii: "1")
            let start = bytes.isEmpty ? bytes.startIndex : bytes.index(after: bytes.startIndex)
            let colon = bytes.lastIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            let statusText = start <= colon ? packed[start..<colon] : ""
            status = statusText == "draft" ? .draft : InspectionStatus(rawValue: String(statusText)) ?? .draft
            schemaHash = colon < bytes.endIndex ? String(packed[bytes.index(after: colon)...]) : ""
            answersKey = nil
        }
    }

    /// The status, pinned schema hash and answer storage of one inspection, or `nil` when it is not on this
    /// device: one primary-key read of ONE text value, `in_rows` (`0`/`1`), the status, `:`, the hash
    /// (issue 17: a single scalar, so no row of column names is built on every answer).
    /// - Throws: `DatabaseError`.
    public func answerTarget(_ db: Database, localID: String) throws -> AnswerTarget? {
        let packed: String? = try db.scalar(
            "SELECT (form_data = '') || status || ':' || schema_hash FROM inspections WHERE local_id = ?", [localID])
        return packed.map(AnswerTarget.init(packed:))
    }

    /// The target of a DRAFT whose answers are rows and have their key, or `nil` for anything else (no such
    /// inspection, not a draft, answers still in `form_data`, no key yet): the answer path's one read in the
    /// common case, two short values and no row built (issue 17); ``answerTarget(_:localID:)`` tells the rest
    /// apart. Read from the partial covering index of open drafts (migrations
    /// `inspections/5-open-drafts-index` and `7-answer-keys`): a page or two, where the primary key's index and
    /// then the table row cost two searches of 100,000-row b-trees (callgrind, 1,000 answers: 48.0k → 43.8k
    /// instructions each on a 1,000-inspection store). `INDEXED BY` pins that plan, as SQLite means it for a
    /// time-sensitive query: the planner would take the unique primary key instead.
    /// - Returns: a draft target with ``AnswerTarget/answersKey`` set.
    /// - Throws: `DatabaseError`.
    public func openDraft(_ db: Database, localID: String) throws -> AnswerTarget? {
        guard let values = try db.firstRowValues(Self.openDraftSQL, [localID]), values.count == 2,
            case .integer(let key) = values[0]
        else { return nil }
        return AnswerTarget(
            status: .draft, schemaHash: String.fromDatabaseValue(values[1]) ?? "", answersInRows: true,
            answersKey: key)
    }

    /// ``openDraft(_:localID:)``'s query (one placeholder, the local id): a search of the
    /// `inspections_open_drafts` covering index only (pinned by `InspectionQueryPlanTests`).
    static let openDraftSQL = """
        SELECT answers_key, schema_hash FROM inspections INDEXED BY inspections_open_drafts
        WHERE local_id = ? AND status = 'draft' AND form_data = ''
        """

    /// The pinned schema JSON of one inspection (its row's `schema_snapshot`, or the shared copy in
    /// `inspection_schemas`; `[]` when unreadable), read on a schema cache miss only.
    /// - Throws: `DatabaseError`.
    public func schemaSnapshot(_ db: Database, localID: String) throws -> JSONValue {
        let row = try db.fetchOne(
            """
            SELECT inspections.schema_snapshot, inspection_schemas.snapshot AS pinned_snapshot FROM inspections
            LEFT JOIN inspection_schemas ON inspections.schema_snapshot = ''
                AND inspection_schemas.schema_hash = inspections.schema_hash
            WHERE inspections.local_id = ?
            """, [localID])
        let inline: String = row?["schema_snapshot"] ?? "[]"
        let text = inline.isEmpty ? (row?["pinned_snapshot"] ?? "[]") : inline
        return (try? JSONValue.parse(text)) ?? .array([])
    }

    /// One stored answer, or `nil` when the field has none (a table cell is written over the stored rows).
    /// - Throws: `DatabaseError`.
    public func answer(_ db: Database, localID: String, fieldID: String) throws -> JSONValue? {
        let value: JSONValue?
        if try answersInTable(db, localID: localID) {
            let key: Int64? = try db.scalar("SELECT answers_key FROM inspections WHERE local_id = ?", [localID])
            let slot = try key.flatMap { try Self.slot(db, key: $0, fieldID: fieldID, allocating: false) }
            let text: String? =
                try slot.flatMap {
                    try db.scalar(
                        "SELECT value FROM inspection_answers WHERE slot = ? AND field_id = ?", [$0, fieldID])
                }
            value = text.flatMap { try? JSONValue.parse($0) }
        } else {
            value = try formData(db, localID: localID)[fieldID]
        }
        return value == .null ? nil : value
    }

    /// Writes one answer of a draft at `now` (`nil` removes it): one row of `inspection_answers` upserted
    /// with `answered_at = now` (the draft's `updated_at` as the row reader sees it), or deleted with the
    /// row's `updated_at` touched. A draft whose answers are still in `form_data` (a row written before
    /// `inspections/4-answers`, or text that is not a JSON object, never written by this app) has them moved
    /// into the table first, as the row reader sees them. Nothing is written when there is no such inspection.
    /// - Throws: `DatabaseError`.
    public func setAnswer(_ db: Database, localID: String, fieldID: String, value: JSONValue?, at now: Date) throws {
        guard let target = try answerTarget(db, localID: localID) else { return }
        try setAnswer(db, localID: localID, fieldID: fieldID, value: value, target: target, at: now)
    }

    /// ``setAnswer(_:localID:fieldID:value:at:)`` for a row already read: its answers moved into rows first
    /// when ``AnswerTarget/answersInRows`` is false, its ``AnswerTarget/answersKey`` read (or given) when not
    /// read with it.
    /// - Throws: `DatabaseError`.
    func setAnswer(
        _ db: Database, localID: String, fieldID: String, value: JSONValue?, target: AnswerTarget, at now: Date
    ) throws {
        if !target.answersInRows, try !Self.moveAnswersToTable(db, localID: localID, at: now) { return }
        guard let key = try target.answersKey ?? Self.answersKey(db, localID: localID) else { return }
        if let value {
            // REPLACE by the slot, the rowid, with no other unique key: SQLite writes over the row in place.
            guard let slot = try Self.slot(db, key: key, fieldID: fieldID, allocating: true) else { return }
            try db.execute(
                """
                INSERT OR REPLACE INTO inspection_answers (slot, answers_key, field_id, value, answered_at)
                VALUES (?, ?, ?, ?, ?)
                """, [slot, key, fieldID, value.jsonString(), now.databaseMilliseconds])
        } else {
            if let slot = try Self.slot(db, key: key, fieldID: fieldID, allocating: false) {
                try db.execute("DELETE FROM inspection_answers WHERE slot = ?", [slot])
            }
            try db.execute("UPDATE inspections SET updated_at = ? WHERE local_id = ?", [now, localID])
        }
    }

    /// One answer of an open draft written by one statement that checks, as it writes, that `localID` is still a
    /// draft pinned to `schemaHash` with its answers in rows under a key (issue 17: the caller checked the value
    /// on that schema; a single statement is atomic, so no transaction around it is needed). The row upserted is
    /// the one ``setAnswer(_:localID:fieldID:value:at:)`` writes. Only for a field id with a fixed place
    /// (`fixedPlace(_:)`): its slot follows from the key the statement reads.
    /// - Returns: whether it was written; `false` when the row is no such open draft, or the id has no fixed place
    ///   (nothing written).
    /// - Throws: `DatabaseError`.
    public func setAnswer(
        _ db: Database, localID: String, pinnedTo schemaHash: String, fieldID: String, value: JSONValue, at now: Date
    ) throws -> Bool {
        guard let place = Self.fixedPlace(fieldID) else { return false }
        try db.execute(
            Self.pinnedAnswerSQL,
            [place, fieldID, value.jsonString(), now.databaseMilliseconds, localID, schemaHash])
        return db.changesCount > 0
    }

    /// ``setAnswer(_:localID:pinnedTo:fieldID:value:at:)``'s statement: the answer row from the open-drafts
    /// covering index's entry, when there is one, at the slot of its key and the field's fixed place
    /// (placeholders: the place, field id, value text, time, local id, hash).
    static let pinnedAnswerSQL = """
        INSERT OR REPLACE INTO inspection_answers (slot, answers_key, field_id, value, answered_at)
        SELECT answers_key * \(slotsPerKey) + ?, answers_key, ?, ?, ? FROM inspections INDEXED BY inspections_open_drafts
        WHERE local_id = ? AND status = 'draft' AND form_data = '' AND schema_hash = ? AND answers_key IS NOT NULL
        """

    /// The key of one inspection's answer rows (`inspections.answers_key`), given now when it has none: the
    /// next value of the `inspection_answer_keys` counter, which only goes up (a key is never reused, so rows
    /// left behind can never join another inspection).
    /// - Returns: the key, or `nil` when there is no such inspection.
    /// - Throws: `DatabaseError`.
    static func answersKey(_ db: Database, localID: String) throws -> Int64? {
        guard let row = try db.fetchOne("SELECT answers_key FROM inspections WHERE local_id = ?", [localID])
        else { return nil }
        if let key: Int64 = row["answers_key"] { return key }
        try db.execute("UPDATE inspection_answer_keys SET last = last + 1 WHERE id = 1")
        guard db.changesCount == 1, let key: Int64 = try db.scalar("SELECT last FROM inspection_answer_keys")
        else { throw DatabaseError(kind: .corrupt, detail: "inspection_answer_keys has no counter row") }
        try db.execute("UPDATE inspections SET answers_key = ? WHERE local_id = ?", [key, localID])
        return key
    }

    /// Deletes every answer row of one inspection (of a draft only, when `draftsOnly`), found by its key.
    /// - Throws: `DatabaseError`.
    static func deleteAnswerRows(_ db: Database, localID: String, draftsOnly: Bool = false) throws {
        let key: Int64? = try db.scalar(
            "SELECT answers_key FROM inspections WHERE local_id = ?\(draftsOnly ? " AND status = 'draft'" : "")",
            [localID])
        guard let key else { return }
        let (first, last) = slotRange(key: key)
        try db.execute("DELETE FROM inspection_answers WHERE slot BETWEEN ? AND ?", [first, last])
    }

    /// Touches a draft's `updated_at` (an explicit save of what is stored).
    /// - Returns: whether a draft with `localID` was touched.
    /// - Throws: `DatabaseError`.
    public func touchDraft(_ db: Database, localID: String, at now: Date) throws -> Bool {
        try db.execute(
            "UPDATE inspections SET updated_at = ? WHERE local_id = ? AND status = 'draft'", [now, localID])
        return db.changesCount == 1
    }

    /// ``touchDraft(_:localID:at:)`` for a draft whose answers are rows, found through the open-drafts index
    /// (`inspections_open_drafts`: a page or two, whatever the store's size) instead of the primary-key index of
    /// every inspection (issue 17: on a 100,000-inspection store that search read four cold levels and made the
    /// save the slowest local write).
    /// - Returns: whether such a draft was touched; `false` for any other row (a draft whose answers are still in
    ///   `form_data`, a submitted inspection, no row), which ``touchDraft(_:localID:at:)`` then settles.
    /// - Throws: `DatabaseError`.
    public func touchOpenDraft(_ db: Database, localID: String, at now: Date) throws -> Bool {
        try db.execute(Self.touchOpenDraftSQL, [now, localID])
        return db.changesCount == 1
    }

    /// ``touchOpenDraft(_:localID:at:)``'s statement (placeholders: time, local id).
    static let touchOpenDraftSQL = """
        UPDATE inspections INDEXED BY inspections_open_drafts SET updated_at = ?
        WHERE local_id = ? AND status = 'draft' AND form_data = ''
        """

    /// Moves one inspection's answers from `form_data` into `inspection_answers` — every answer as the row
    /// reader sees it (`{}` for text that is not a JSON object), each value re-written by ``JSONValue`` —
    /// and sets its `form_data` to '' (and `updated_at` to `now`, when given). A row already moved is left
    /// alone. Used by ``setAnswer(_:localID:fieldID:value:at:)`` for a draft whose answers are still in
    /// `form_data` (text written there by other hands: migration `inspections/4-answers` moved every draft).
    /// - Returns: whether the inspection exists.
    /// - Throws: `DatabaseError`.
    static func moveAnswersToTable(_ db: Database, localID: String, at now: Date?) throws -> Bool {
        guard let row = try db.fetchOne("SELECT form_data, updated_at FROM inspections WHERE local_id = ?", [localID])
        else { return false }
        let text: String = row["form_data"] ?? ""
        guard !text.isEmpty else { return true }
        let answers = (try? JSONValue.parse(text))?.objectValue ?? [:]
        let rowTime: Date? = row["updated_at"]
        try replaceAnswerRows(db, localID: localID, with: answers, answeredAt: now ?? rowTime)
        if let now {
            try db.execute(
                "UPDATE inspections SET form_data = '', updated_at = ? WHERE local_id = ?", [now, localID])
        } else {
            try db.execute("UPDATE inspections SET form_data = '' WHERE local_id = ?", [localID])
        }
        return true
    }

    /// Replaces every `inspection_answers` row of one inspection with `answers`, each with `answered_at` =
    /// `answeredAt` (the row's `updated_at` in the same write, so the row reader's `updated_at` is unchanged).
    /// Every answer row is written at its full size (issue 17): a later answer of the field rewrites its cell
    /// at the same size, where a row without `answered_at` grew by a timestamp and split the packed leaf
    /// holding it (`make bench`: 3.4 % of the re-answers of 1,000-field drafts wrote 4–6 pages, not 1).
    /// - Throws: `DatabaseError`.
    static func replaceAnswerRows(
        _ db: Database, localID: String, with answers: [String: JSONValue], answeredAt: Date?
    ) throws {
        guard let key = try answersKey(db, localID: localID) else { return }
        let (first, last) = slotRange(key: key)
        try db.execute("DELETE FROM inspection_answers WHERE slot BETWEEN ? AND ?", [first, last])
        var nextOther = first + fixedPlaces  // the ids without a fixed place, in the order of their text
        for (fieldID, value) in answers.sorted(by: { $0.key < $1.key }) {
            let slot: Int64
            if let place = fixedPlace(fieldID) {
                slot = first + place
            } else {
                guard nextOther <= last else {
                    throw DatabaseError(
                        kind: .misuse,
                        detail: "a draft holds more than \(fixedPlaces) answers whose field ids are not plain numbers")
                }
                slot = nextOther
                nextOther += 1
            }
            try db.execute(
                "INSERT INTO inspection_answers (slot, answers_key, field_id, value, answered_at) VALUES (?, ?, ?, ?, ?)",
                [slot, key, fieldID, value.jsonString(), answeredAt?.databaseMilliseconds])
        }
    }

    /// Whether the inspection's answers are rows of `inspection_answers` (its `form_data` is '').
    private func answersInTable(_ db: Database, localID: String) throws -> Bool {
        let inTable: Bool? = try db.scalar("SELECT form_data = '' FROM inspections WHERE local_id = ?", [localID])
        return inTable == true
    }

    /// Every answer held in `form_data`, as the row reader sees them (`{}` for text that is not a JSON object).
    private func formData(_ db: Database, localID: String) throws -> [String: JSONValue] {
        let text: String = try db.scalar("SELECT form_data FROM inspections WHERE local_id = ?", [localID]) ?? "{}"
        return (try? JSONValue.parse(text))?.objectValue ?? [:]
    }
}
