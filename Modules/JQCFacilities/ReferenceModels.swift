import Foundation
import JQCKit

/// A cached facility (CONTRACT.md `/facilities`; seed 001 `LocalFacility`).
public struct Facility: Sendable, Hashable, Codable {
    /// The server's id (unique: rule 45).
    public var id: Int
    /// The facility's name.
    public var name: String
    /// The street address, when the server gave one.
    public var address: String?
    /// The contract (project) it belongs to.
    public var projectID: Int?
    /// The contract's name.
    public var projectName: String?
    /// `false` when the server deactivated it, or when it is kept only because unsynced local work
    /// references it (seed 001 §8.4): display only, never offered in a picker.
    public var isActive: Bool

    /// A facility.
    public init(
        id: Int, name: String, address: String? = nil, projectID: Int? = nil, projectName: String? = nil,
        isActive: Bool = true
    ) {
        self.id = id
        self.name = name
        self.address = address
        self.projectID = projectID
        self.projectName = projectName
        self.isActive = isActive
    }
}

/// A cached area of a facility (rule 57: always related to its facility).
public struct Area: Sendable, Hashable, Codable {
    /// The server's id.
    public var id: Int
    /// The facility it belongs to (a foreign key).
    public var facilityID: Int
    /// The area's name.
    public var name: String
    /// The area's kind (`restroom`, `lobby`, …), when given.
    public var areaType: String?

    /// An area.
    public init(id: Int, facilityID: Int, name: String, areaType: String? = nil) {
        self.id = id
        self.facilityID = facilityID
        self.name = name
        self.areaType = areaType
    }
}

/// A cached inspection template with its form schema kept as raw JSON text (never key-converted;
/// CONTRACT.md "Form schema JSON").
public struct InspectionTemplate: Sendable, Hashable {
    /// The server's id.
    public var id: Int
    /// The template's name.
    public var name: String
    /// Its description, when given.
    public var description: String?
    /// Whether it may be used to start an inspection (rules 55–56).
    public var isActive: Bool
    /// The form schema exactly as sent: a JSON array of field objects.
    public var formSchema: JSONValue
    /// The schema's fingerprint (JQCForms `FormSchema.hash`), for pinning (SPEC.md §4).
    public var schemaHash: String

    /// A template.
    public init(
        id: Int, name: String, description: String? = nil, isActive: Bool = true, formSchema: JSONValue,
        schemaHash: String
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.isActive = isActive
        self.formSchema = formSchema
        self.schemaHash = schemaHash
    }
}

/// A contract: a distinct `project_id`/`project_name` pair of the active facilities (CONTRACT.md).
public struct Contract: Sendable, Hashable, Codable {
    /// The project id.
    public var id: Int
    /// The project name (empty when the server gave none).
    public var name: String

    /// A contract.
    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}

/// The three reference collections, each with its own last-refresh record.
public enum ReferenceCollection: String, Sendable, CaseIterable {
    /// `/api/v1/facilities`.
    case facilities
    /// `/api/v1/areas`.
    case areas
    /// `/api/v1/templates`.
    case templates
}

/// What was last learned about refreshing a collection: whether a refresh was ever attempted, and the
/// last failure when the last attempt failed.
public struct RefreshState: Sendable, Hashable {
    /// When the last refresh was attempted, or `nil` when never.
    public var lastAttemptAt: Date?
    /// When the last refresh succeeded, or `nil` when never.
    public var lastSuccessAt: Date?
    /// The last attempt's failure as a sentence, or `nil` when it succeeded.
    public var lastError: String?

    /// A refresh record.
    public init(lastAttemptAt: Date? = nil, lastSuccessAt: Date? = nil, lastError: String? = nil) {
        self.lastAttemptAt = lastAttemptAt
        self.lastSuccessAt = lastSuccessAt
        self.lastError = lastError
    }
}

/// One pull's replies, deduplicated and ready to apply in one transaction.
public struct ReferenceReply: Sendable, Hashable {
    /// Facilities, each id once (rule 45: the first occurrence wins).
    public var facilities: [Facility]
    /// Areas.
    public var areas: [Area]
    /// Templates.
    public var templates: [InspectionTemplate]

    /// A reply; `facilities` is deduplicated by id here (seed 001 rule 45).
    public init(facilities: [Facility], areas: [Area], templates: [InspectionTemplate]) {
        var seen = Set<Int>()
        self.facilities = facilities.filter { seen.insert($0.id).inserted }
        self.areas = areas
        self.templates = templates
    }
}

/// What applying a pull changed.
public struct ReferenceApplyResult: Sendable, Hashable {
    /// Facilities deleted because the server no longer returns them.
    public var prunedFacilities: [Int]
    /// Facilities kept as inactive because unsynced local work references them (seed 001 §8.4).
    public var retainedInactive: [Int]
    /// Templates deleted because the server no longer returns them (rule 56).
    public var prunedTemplates: [Int]
    /// Areas skipped because their facility is not cached (rule 57: an area always has its facility).
    public var skippedAreas: [Int]
    /// Rows inserted, updated or deleted (issue 17: an unchanged reply writes none).
    public var rowsWritten = 0
}
