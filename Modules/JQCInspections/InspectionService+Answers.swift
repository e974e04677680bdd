import Foundation
import JQCForms
import JQCKit
import JQCStorage

/// Answer and save (SHELL.md `answer`, `save`, `photo FIELD_ID --clear`) at the floor (issue 17): each reads
/// only the row's status and pinned schema hash (the schema itself comes from ``InspectionService/schemaCache``,
/// read from the row on a miss), checks the one value on the pinned schema, and writes that one answer as its
/// row of `inspection_answers` (``InspectionStore/setAnswer(_:localID:fieldID:value:at:)``), in one
/// transaction. The cost does not grow with the store or the form.
///
/// A draft answered before in this process takes one statement instead (issue 17): its pinned schema hash is
/// remembered (``InspectionService/openDraftHints``), the value is checked on that cached schema, and
/// ``InspectionStore/setAnswer(_:localID:pinnedTo:fieldID:value:at:)`` writes it only while the row is still an
/// open draft pinned to that hash — the check and the write in one statement, so one commit without a
/// `BEGIN`/`COMMIT` pair or a read before it. Anything else (no hint, a stale one, a table cell, a clear, a
/// value the form refuses) takes the full path, which gives the same answer or the same error as before.
extension InspectionService {
    /// Sets one answer on a draft from a typed value, on the PINNED schema (issue 16's typed entry point):
    /// written to the store at once. Clearing an image or signature field also discards its photo (issue 18).
    /// - Parameters:
    ///   - localID: the draft's local id.
    ///   - fieldID: the field's id as a string (`"5"`).
    ///   - value: the answer (see JQCForms `AnswerValue` for what each field type takes and stores).
    /// - Returns: the stored value, or `nil` when the answer was cleared.
    /// - Throws: ``InspectionsError`` — `notFound`, `notADraft`, `invalidAnswer` (unknown field, display-only
    ///   field, a value of the wrong kind or out of range, text into an image or signature field: the form's
    ///   sentence), `storage`. Nothing is written on any error.
    @discardableResult
    public func answer(localID: String, fieldID: String, value: AnswerValue) throws -> JSONValue? {
        try answer(localID: localID, fieldID: fieldID) { _ in value }
    }

    /// Sets one answer from the shell's words (SHELL.md `answer FIELD_ID VALUE…`): a convenience that maps
    /// the words onto an `AnswerValue` by the field's type (JQCForms `AnswerInput`) and answers with it.
    /// - Parameters:
    ///   - localID: the draft's local id.
    ///   - fieldID: the field's id as a string.
    ///   - arguments: the value's words (already split like a shell); none, or `""`, clears.
    /// - Returns: the stored value, or `nil` when the answer was cleared.
    /// - Throws: as ``answer(localID:fieldID:value:)``.
    @discardableResult
    public func answer(localID: String, fieldID: String, arguments: [String]) throws -> JSONValue? {
        try answer(localID: localID, fieldID: fieldID) { field in
            try AnswerInput.value(for: field, arguments: arguments)
        }
    }

    /// Removes the answer of an image or signature field and discards its photo (pending or not) and its
    /// file, in one transaction (SHELL.md `photo FIELD_ID --clear`; issue 18).
    /// - Parameters:
    ///   - localID: the draft's local id.
    ///   - rawFieldID: the field id as given (`9`, `"9"`).
    /// - Throws: ``InspectionsError`` — `notFound`, `notADraft`, `invalidAnswer` (unknown field, or not an
    ///   image or signature field), `storage`.
    public func clearPhoto(localID: String, fieldID rawFieldID: String) throws {
        let fieldID = FieldID.normalize(.string(rawFieldID)) ?? rawFieldID
        _ = try answer(localID: localID, fieldID: fieldID) { field in
            guard field.type.isPhoto else {
                throw FormsError(
                    .invalidAnswer,
                    "Field \(field.reference) is a \(field.type.rawValue) field, not an image or signature field; "
                        + "clear it with 'answer \(field.id) \"\"'.")
            }
            return .clear
        }
    }

    /// Saves a draft's answers explicitly (the Save Draft button; autosave calls it too).
    /// - Parameters:
    ///   - localID: the draft's local id.
    ///   - formData: the answers to store, or `nil` to re-save what is stored (touches `updated_at` only:
    ///     nothing is read or rewritten).
    /// - Throws: ``InspectionsError`` (`notFound`, `notADraft`, `storage`).
    public func save(localID: String, formData: [String: JSONValue]? = nil) throws {
        try wrap {
            if formData == nil {
                // One statement, its own commit, through the open-drafts index (issue 17); nothing touched: the
                // transaction below touches a draft of any other shape, or reads why there is none.
                let touched = try store.queue.writeWithoutTransaction { db in
                    try store.touchOpenDraft(db, localID: localID, at: clock.now)
                }
                if touched { return }
            }
            try store.queue.write { db in
                if let formData {
                    _ = try self.draftTarget(db, localID)
                    try store.updateAnswers(db, localID: localID, formData: formData, at: clock.now)
                } else if try !store.touchDraft(db, localID: localID, at: clock.now) {
                    _ = try self.draft(db, localID)  // throws notFound or notADraft
                }
            }
        }
    }

    /// The field `fieldID` on a draft's pinned schema, or `nil` when the form has no such field; for echoing an
    /// answer (`2 Floors clean and dry = 4 ★`). Reads only the row's status and schema hash: the schema comes
    /// from the cache, as on the answer path.
    /// - Throws: ``InspectionsError`` `notFound`, `notADraft`, `storage`.
    public func pinnedField(localID: String, fieldID: String) throws -> FormField? {
        try wrap { try store.queue.read { db in try pinnedSchema(db, localID).field(id: fieldID) } }
    }

    /// The pinned schema of a draft, from the cache (read and parsed from the row on a miss).
    /// - Throws: ``InspectionsError`` `notFound`, `notADraft`; `DatabaseError`.
    func pinnedSchema(_ db: Database, _ localID: String) throws -> FormSchema {
        try pinnedSchema(db, localID, target: try draftTarget(db, localID))
    }

    /// The pinned schema of the draft whose row `target` was read, from the cache (read and parsed on a miss).
    /// - Throws: `DatabaseError`.
    private func pinnedSchema(_ db: Database, _ localID: String, target: InspectionStore.AnswerTarget) throws
        -> FormSchema
    {
        try schemaCache.schema(hash: target.schemaHash) { try store.schemaSnapshot(db, localID: localID) }
    }

    /// The row's status and schema hash, when it is a draft: one short read for a draft whose answers are rows
    /// (``InspectionStore/openDraft(_:localID:)``), the whole target otherwise.
    /// - Throws: ``InspectionsError`` `notFound`, `notADraft`; `DatabaseError`.
    private func draftTarget(_ db: Database, _ localID: String) throws -> InspectionStore.AnswerTarget {
        if let target = try store.openDraft(db, localID: localID) { return target }
        guard let target = try store.answerTarget(db, localID: localID), target.status == .draft else {
            _ = try draft(db, localID)  // throws the sentence for a missing or submitted inspection
            throw InspectionsError(.notFound, "There is no draft \(localID) on this device; see 'drafts'.")
        }
        return target
    }

    /// The answer path: the field on the pinned schema, the typed value `makeValue` gives for it, its change
    /// (a table cell reads the field's stored rows), one patch of `form_data`, and — when an image or
    /// signature field is cleared — the clearing hooks in the same transaction (files after the commit).
    private func answer(
        localID: String, fieldID: String, _ makeValue: (FormField) throws -> AnswerValue
    ) throws -> JSONValue? {
        if let stored = try answerByHint(localID: localID, fieldID: fieldID, makeValue) { return stored }
        var clearedPhotoField = false
        let stored: JSONValue? = try wrap {
            try store.queue.write { db in
                let target = try draftTarget(db, localID)
                let schema = try pinnedSchema(db, localID, target: target)
                let field: FormField
                let change: AnswerChange
                do {
                    field = try schema.answerField(id: fieldID)
                    let value = try makeValue(field)
                    let current = field.type == .table ? try store.answer(db, localID: localID, fieldID: fieldID) : nil
                    change = try value.change(for: field, current: current)
                } catch let error as FormsError {
                    throw InspectionsError(.invalidAnswer, error.message)
                }
                let newValue: JSONValue?
                switch change {
                case .set(let value): newValue = value
                case .clear: newValue = nil
                }
                try store.setAnswer(
                    db, localID: localID, fieldID: fieldID, value: newValue, target: target, at: clock.now)
                if newValue != nil, target.status == .draft {
                    rememberOpenDraft(localID, schemaHash: target.schemaHash)
                }
                if newValue == nil, field.type.isPhoto {
                    for hook in clearingHooks {
                        try hook.photoFieldClearing(localID: localID, fieldID: fieldID, db: db)
                    }
                    clearedPhotoField = true
                }
                return newValue
            }
        }
        if clearedPhotoField {
            for hook in clearingHooks { hook.photoFieldCleared(localID: localID, fieldID: fieldID) }
        }
        return stored
    }

    /// The one-statement answer (see the type's notes): the value set on a draft whose pinned schema hash is
    /// remembered and cached, written by one statement that checks the row is still that open draft.
    /// - Returns: the stored value, or `nil` when this path does not apply or wrote nothing (the caller then takes
    ///   the full path: a value the form refuses is refused there, with the sentence the full path gives).
    /// - Throws: ``InspectionsError`` `storage`.
    private func answerByHint(
        localID: String, fieldID: String, _ makeValue: (FormField) throws -> AnswerValue
    ) throws -> JSONValue? {
        guard InspectionStore.fixedPlace(fieldID) != nil, let hash = openDraftHints.withLock({ $0[localID] }),
            let schema = schemaCache.lookUp(hash),
            let field = try? schema.answerField(id: fieldID), field.type != .table,
            let value = try? makeValue(field), case .set(let stored)? = try? value.change(for: field, current: nil)
        else { return nil }
        let written = try wrap {
            try store.queue.writeWithoutTransaction { db in
                try store.setAnswer(
                    db, localID: localID, pinnedTo: hash, fieldID: fieldID, value: stored, at: clock.now)
            }
        }
        guard written else {
            openDraftHints.withLock { $0[localID] = nil }
            return nil
        }
        oneStatementAnswers.add(1, ordering: .relaxed)
        return stored
    }

    /// Remembers an open draft's pinned schema hash for ``answerByHint(localID:fieldID:_:)``.
    private func rememberOpenDraft(_ localID: String, schemaHash: String) {
        guard !schemaHash.isEmpty else { return }
        openDraftHints.withLock { hints in
            if hints[localID] == schemaHash { return }
            if hints.count >= Self.openDraftHintLimit { hints.removeAll(keepingCapacity: true) }
            hints[localID] = schemaHash
        }
    }
}
