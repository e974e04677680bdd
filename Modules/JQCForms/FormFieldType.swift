import JQCKit

/// A form field's `type`, with the web backend's raw values (seed 001 §12; SCORING.md).
///
/// Input types take answers; `section`, `label`, every `button_*` and any type this client does not
/// know are display-only: kept so the form draws as authored, never answered, never scored.
public enum FormFieldType: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    /// One line of free text.
    case text
    /// Several lines of free text.
    case textarea
    /// A number, stored as the text typed.
    case number
    /// A calendar day, stored as `yyyy-MM-dd`.
    case date
    /// An e-mail address.
    case email
    /// A single box, stored as `"true"` / `"false"`. Scoreable.
    case checkbox
    /// Several boxes over `options`, stored as an array of the checked options' text.
    case checkboxGroup
    /// One of `options`, stored as the option's text. Scoreable.
    case radio
    /// One of `options` from a menu, stored as the option's text.
    case select
    /// 1–5 stars, stored as a string digit; 0 or absent means unanswered. Scoreable.
    case rating
    /// Pass or fail (or the schema's own options), stored as text; empty means unanswered. Scoreable.
    case passFail
    /// A signature captured as an image: a photo path (`local://…` until uploaded).
    case signature
    /// A photo: a path (`local://…` until uploaded, then the server's `uploads/…` path).
    case image
    /// A grid of text cells: an array of `table_rows` objects keyed by `col_headers`.
    case table
    /// A section heading (display-only).
    case section
    /// A line of static text (display-only).
    case label
    /// A web form button such as `button_submit` (display-only); holds the whole raw type.
    case button(String)
    /// A type this client does not know (display-only); holds the raw type (`""` when missing).
    case unknown(String)

    /// The input and display types the web backend defines, in the order its editor lists them.
    public static let knownRawValues: [String] = [
        "text", "textarea", "number", "date", "email", "checkbox", "checkbox_group", "radio", "select",
        "rating", "pass_fail", "signature", "image", "table", "section", "label",
    ]

    /// Reads a raw type. Never fails: `button_…` becomes ``button(_:)``, anything else unknown
    /// becomes ``unknown(_:)``.
    /// - Parameter rawValue: the field's `type` member.
    public init(rawValue: String) {
        switch rawValue {
        case "text": self = .text
        case "textarea": self = .textarea
        case "number": self = .number
        case "date": self = .date
        case "email": self = .email
        case "checkbox": self = .checkbox
        case "checkbox_group": self = .checkboxGroup
        case "radio": self = .radio
        case "select": self = .select
        case "rating": self = .rating
        case "pass_fail": self = .passFail
        case "signature": self = .signature
        case "image": self = .image
        case "table": self = .table
        case "section": self = .section
        case "label": self = .label
        default: self = rawValue.hasPrefix("button_") ? .button(rawValue) : .unknown(rawValue)
        }
    }

    /// The raw type as the web writes it (`pass_fail`, `button_submit`, or the unknown text).
    public var rawValue: String {
        switch self {
        case .text: "text"
        case .textarea: "textarea"
        case .number: "number"
        case .date: "date"
        case .email: "email"
        case .checkbox: "checkbox"
        case .checkboxGroup: "checkbox_group"
        case .radio: "radio"
        case .select: "select"
        case .rating: "rating"
        case .passFail: "pass_fail"
        case .signature: "signature"
        case .image: "image"
        case .table: "table"
        case .section: "section"
        case .label: "label"
        case .button(let raw), .unknown(let raw): raw
        }
    }

    /// The raw type.
    public var description: String { rawValue }

    /// Whether the type is one the web backend defines (every case but ``unknown(_:)``). Only known
    /// types claim a field id (SCORING.md: a field of an unknown type is ignored).
    public var isKnown: Bool {
        if case .unknown = self { return false }
        return true
    }

    /// Whether the field only shows something and never takes an answer: `section`, `label`,
    /// `button_*` and unknown types (SCORING.md "Display-only types").
    public var isDisplayOnly: Bool {
        switch self {
        case .section, .label, .button, .unknown: true
        default: false
        }
    }

    /// Whether the field counts towards the score: `rating`, `checkbox`, `radio`, `pass_fail`
    /// (SCORING.md; seed 001 §18).
    public var isScoreable: Bool {
        switch self {
        case .rating, .checkbox, .radio, .passFail: true
        default: false
        }
    }

    /// Whether a re-inspection leaves this field blank instead of copying the parent's answer:
    /// `rating`, `pass_fail`, `image`, `signature` (seed 001 §15, rule 79).
    public var isExcludedFromPrefill: Bool {
        switch self {
        case .rating, .passFail, .image, .signature: true
        default: false
        }
    }

    /// Whether the answer is a photo path (`image`, `signature`).
    public var isPhoto: Bool {
        switch self {
        case .image, .signature: true
        default: false
        }
    }
}
