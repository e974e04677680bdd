import Foundation
import JQCKit

/// Why an inspection action was refused, with a stable code, a sentence a person can act on and the
/// error underneath (STYLE.md items 6 and 14). The code is `inspections.<kind>` (`inspections.not_a_draft`).
public struct InspectionsError: CodedError, Hashable {
    /// The finer kind (`inspections.<raw value>`).
    public enum Kind: String, CodedErrorKind, Hashable {
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
        /// The codes' module part, `inspections`.
        public static var module: String { "inspections" }
    }

    /// What kind of refusal.
    public let kind: Kind
    /// The sentence.
    public let message: String
    /// For ``Kind/requiredMissing``: the missing fields' labels in schema order.
    public let missingLabels: [String]
    /// The error underneath (the form's refusal, the photo pipeline's, the store's), when there is one.
    public let cause: (any Error)?

    /// A refusal with a sentence and, when it wraps another error, that error.
    public init(_ kind: Kind, _ message: String, missingLabels: [String] = [], cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.missingLabels = missingLabels
        self.cause = cause
    }

    /// The stable code, `inspections.<kind>` (`inspections.not_found`).
    public var code: String { kind.code }

    /// Same kind, sentence, labels and cause (``/JQCKit/sameCause(_:_:)``).
    public static func == (first: InspectionsError, second: InspectionsError) -> Bool {
        first.kind == second.kind && first.message == second.message && first.missingLabels == second.missingLabels
            && sameCause(first.cause, second.cause)
    }

    /// Hashes the kind, the sentence and the labels.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(message)
        hasher.combine(missingLabels)
    }
}
