import Foundation
import JQCKit
import JQCStorage

/// What other features ask of an inspection while they sync (issue 17): an issue's readiness (rule 11: its
/// inspection on the server first) and a photo's owner state read an inspection's status, outbox state and
/// server id, and a photo's upload listener one answer. Each is one primary-key read of a few short columns,
/// not the whole row decoded with its pinned schema (~360,000 instructions per read of a template-3
/// inspection, several per pushed item in the mixed sync).
extension InspectionStore {
    /// An inspection's lifecycle and outbox state, without its answers or schema.
    public struct SyncState: Sendable, Hashable {
        /// The inspection's local id.
        public let localID: String
        /// Its status (`draft` until submitted).
        public let status: InspectionStatus
        /// Its outbox state (`sync_status`; `pending` for a draft).
        public let syncStatus: SyncStatus
        /// The server's id once the server has it, else `nil`.
        public let serverID: Int?
        /// The last sync failure as a sentence, or `nil`.
        public let syncError: String?
    }

    /// One inspection's ``SyncState``, or `nil` when it is not on this device; read as ``inspection(_:localID:)``
    /// reads the same columns (unknown texts as `draft` and `pending`).
    /// - Throws: `DatabaseError`.
    public func syncState(_ db: Database, localID: String) throws -> SyncState? {
        try db.fetchOne(
            "SELECT status, sync_status, server_id, sync_error FROM inspections WHERE local_id = ?", [localID]
        ).map { row in
            SyncState(
                localID: localID, status: InspectionStatus(rawValue: row["status"] ?? "") ?? .draft,
                syncStatus: SyncStatus(rawValue: row["sync_status"] ?? "") ?? .pending, serverID: row["server_id"],
                syncError: row["sync_error"])
        }
    }

    /// ``syncState(_:localID:)`` in its own read.
    /// - Throws: `DatabaseError`.
    public func syncState(localID: String) throws -> SyncState? {
        try queue.read { db in try syncState(db, localID: localID) }
    }

    /// Writes one answer of any inspection without reading the row (a photo's server path over its
    /// `local://` sentinel, seed 001 §17): a draft's as its row of `inspection_answers`
    /// (``setAnswer(_:localID:fieldID:value:at:)``), one whose answers are in `form_data` (submitted) by
    /// reading that object, setting the one value and writing it back as ``updateAnswers(_:localID:formData:at:)``
    /// does. Nothing is written when there is no such inspection.
    /// - Throws: `DatabaseError`.
    public func replaceAnswer(_ db: Database, localID: String, fieldID: String, with value: JSONValue, at now: Date)
        throws
    {
        guard let text: String = try db.scalar("SELECT form_data FROM inspections WHERE local_id = ?", [localID])
        else { return }
        if text.isEmpty {
            try setAnswer(db, localID: localID, fieldID: fieldID, value: value, at: now)
        } else {
            var answers = (try? JSONValue.parse(text))?.objectValue ?? [:]
            answers[fieldID] = value
            try updateAnswers(db, localID: localID, formData: answers, at: now)
        }
    }

    /// ``replaceAnswer(_:localID:fieldID:with:at:)`` only while the answer still holds `expected` (a photo's
    /// `local://` sentinel: an answer the inspector changed meanwhile is left alone), reading the row's answers
    /// once — for a submitted inspection one read and one parse of `form_data` for the check and the write
    /// (issue 17: a photo's settle read and parsed it twice).
    /// - Returns: whether the answer was replaced (`false` when there is no such inspection or answer).
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func replaceAnswer(
        _ db: Database, localID: String, fieldID: String, ifStill expected: JSONValue, with value: JSONValue,
        at now: Date
    ) throws -> Bool {
        guard let text: String = try db.scalar("SELECT form_data FROM inspections WHERE local_id = ?", [localID])
        else { return false }
        if text.isEmpty {
            guard try answer(db, localID: localID, fieldID: fieldID) == expected else { return false }
            try setAnswer(db, localID: localID, fieldID: fieldID, value: value, at: now)
            return true
        }
        var answers = (try? JSONValue.parse(text))?.objectValue ?? [:]
        guard answers[fieldID] == expected else { return false }
        answers[fieldID] = value
        try updateAnswers(db, localID: localID, formData: answers, at: now)
        return true
    }
}
