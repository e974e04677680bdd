import Foundation
import JQCKit
import JQCStorage

/// The read surfaces of reference data (the shell's `contracts`, `facilities`, `areas`, `templates`):
/// they read the local store only and report their phase the way seed 004's `LoadPhase` does, with the
/// last refresh failure when cached content is shown after a failed refresh ("showing cached facilities —
/// last refresh failed: …").
public struct ReferenceDataService: Sendable {
    /// The store.
    public let store: ReferenceStore

    /// A service over `store`.
    public init(store: ReferenceStore) {
        self.store = store
    }

    /// The active contracts (derived from the active facilities).
    /// - Throws: ``FacilitiesError`` `storage` when the local store fails.
    public func contracts() throws -> Loaded<[Contract]> {
        try guarded { try loaded(try store.contracts(), .facilities) }
    }

    /// The active facilities, each id once (rule 45 at the display layer too), optionally of one contract.
    /// - Throws: ``FacilitiesError`` `storage` when the local store fails.
    public func facilities(contractID: Int? = nil) throws -> Loaded<[Facility]> {
        try guarded {
            var seen = Set<Int>()
            let unique = try store.facilities(activeOnly: true, contractID: contractID).filter {
                seen.insert($0.id).inserted
            }
            return try loaded(unique, .facilities)
        }
    }

    /// The areas of one facility (rule 57).
    /// - Throws: ``FacilitiesError`` `storage` when the local store fails.
    public func areas(facilityID: Int) throws -> Loaded<[Area]> {
        try guarded { try loaded(try store.areas(facilityID: facilityID), .areas) }
    }

    /// The active templates (rule 55).
    /// - Throws: ``FacilitiesError`` `storage` when the local store fails.
    public func templates() throws -> Loaded<[InspectionTemplate]> {
        try guarded { try loaded(try store.templates(activeOnly: true), .templates) }
    }

    /// Deletes facilities, areas and templates only (rule 19; SHELL.md `clear-cache`).
    /// - Throws: ``FacilitiesError`` `storage` when the local store fails.
    public func clearCache() throws {
        try guarded { try store.clearCache() }
    }

    private func guarded<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw FacilitiesError(.storage, error.description, cause: error)
        }
    }

    private func loaded<T: Sendable>(_ values: [T], _ collection: ReferenceCollection) throws -> Loaded<[T]> {
        let refresh = try store.refreshState(collection)
        let phase = LoadPhase.of(
            hasContent: !values.isEmpty, isLoading: false, hasLoaded: refresh.lastAttemptAt != nil,
            failed: refresh.lastError != nil)
        return Loaded(value: values, phase: phase, staleReason: phase == .content ? refresh.lastError : nil)
    }
}
