import Foundation

/// Why an inspection action was refused, with a stable code and a sentence a person can act on.
public struct InspectionsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable code (`inspections.<code>`).
    public enum Code: String, Sendable, Hashable {
        /// No local inspection has that id.
        case notFound = "not_found"
        /// The template is unknown or inactive.
        case unknownTemplate = "unknown_template"
        /// The facility is unknown or inactive.
        case unknownFacility = "unknown_facility"
        /// The area is unknown or not part of the facility.
        case unknownArea = "unknown_area"
        /// The action needs a draft (answer, save, submit, delete).
        case notADraft = "not_a_draft"
        /// Required fields have no answer (submit refused).
        case requiredMissing = "required_missing"
        /// The answer was refused by the form.
        case invalidAnswer = "invalid_answer"
        /// The inspection is not in a state for this action (retry of an item that is not failed).
        case invalidState = "invalid_state"
        /// A photo was refused (not a JPEG, damaged, too large) or could not be stored.
        case photo
        /// The local store failed.
        case storage
    }

    /// What kind of refusal.
    public let code: Code
    /// The sentence.
    public let message: String
    /// For ``Code/requiredMissing``: the missing fields' labels in schema order.
    public let missingLabels: [String]

    /// A refusal with a sentence.
    public init(_ code: Code, _ message: String, missingLabels: [String] = []) {
        self.code = code
        self.message = message
        self.missingLabels = missingLabels
    }

    /// The stable code as text (`inspections.not_found`).
    public var codeText: String { "inspections.\(code.rawValue)" }

    public var description: String { message }
}
