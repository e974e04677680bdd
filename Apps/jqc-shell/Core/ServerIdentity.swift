import Foundation
import JQCKit

/// The server a data directory belongs to (SHELL.md): `embedded` (the dev server in-process), `primary`,
/// `secondary`, or a normalised URL. The embedded server's port changes from run to run; its identity does not.
enum ServerIdentity: Equatable, CustomStringConvertible {
    case embedded
    case remote(ServerSelection)

    /// Reads `embedded`, `primary`, `secondary` or an http(s) URL; `nil` for anything else.
    init?(text: String) {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() == "embedded" {
            self = .embedded
        } else if let selection = ServerSelection(storedValue: text) {
            self = .remote(selection)
        } else {
            return nil
        }
    }

    /// The recorded text (`embedded`, `primary`, `secondary`, `http://host:port`).
    var description: String {
        switch self {
        case .embedded: "embedded"
        case .remote(let selection): selection.storedValue
        }
    }
}
