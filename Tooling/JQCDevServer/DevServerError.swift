import Foundation
import JQCKit

/// The dev server's one error type: a stable code and a sentence a person can act on.
public struct DevServerError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The stable error codes.
    public enum Code: String, Sendable {
        /// The daemon could not bind its socket.
        case cannotListen = "devserver.cannot_listen"
        /// The data directory or its store could not be opened or written.
        case storage = "devserver.storage"
        /// The seed file is missing or malformed.
        case badSeed = "devserver.bad_seed"
        /// An option or configuration value is invalid.
        case badConfiguration = "devserver.bad_configuration"
    }

    /// The stable code.
    public let code: Code
    /// What went wrong and how to fix it, as a sentence.
    public let message: String

    /// An error with a code and a sentence.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}

/// A failed request inside the router: becomes an envelope with `status` and `message`.
struct APIError: Error {
    let status: Int
    let message: String
    init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// The `{ok, data, error}` envelope of every `/api/v1` reply (CONTRACT.md, Conventions).
enum Envelope {
    static func success(_ data: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json",
                     body: JSONValue.object(["ok": .bool(true), "data": data, "error": .null]).jsonData())
    }

    static func failure(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json",
                     body: JSONValue.object(["ok": .bool(false), "data": .null, "error": .string(message)]).jsonData())
    }
}
