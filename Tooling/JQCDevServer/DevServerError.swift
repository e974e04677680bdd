import Foundation
import JQCKit

/// The dev server's one error type: a stable code and a sentence a person can act on.
public struct DevServerError: CodedError, Equatable {
    /// The stable error codes.
    public enum Kind: String, CodedErrorKind {
        /// The daemon could not bind its socket.
        case cannotListen = "cannot_listen"
        /// The data directory or its store could not be opened or written.
        case storage = "storage"
        /// The data directory is not private: other users can write it, or it belongs to another user
        /// (issue 19); the server refuses to start on it.
        case unsafeDataDirectory = "unsafe_data_directory"
        /// The seed file is missing or malformed.
        case badSeed = "bad_seed"
        /// An option or configuration value is invalid.
        case badConfiguration = "bad_configuration"
        /// A request was refused; ``DevServerError/httpStatus`` is its reply's status (400, 401, 404, 413…).
        case request = "request"
        /// The codes' module part, `devserver`.
        public static var module: String { "devserver" }
    }

    /// The finer kind.
    public let kind: Kind
    /// What went wrong and how to fix it, as a sentence.
    public let message: String
    /// The HTTP status of the envelope a refused request is answered with (500 for the other codes).
    public let httpStatus: Int

    /// An error with a kind and a sentence.
    public init(_ kind: Kind, _ message: String, httpStatus: Int = 500) {
        self.kind = kind
        self.message = message
        self.httpStatus = httpStatus
    }

    /// A refused request: answered with an envelope of `status` whose `error` is `message` (CONTRACT.md).
    static func request(_ status: Int, _ message: String) -> DevServerError {
        DevServerError(.request, message, httpStatus: status)
    }

    /// `devserver.<kind>`.
    public var code: String { kind.code }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

/// The `{ok, data, error}` envelope of every `/api/v1` reply (CONTRACT.md, Conventions).
enum Envelope {
    static func success(_ data: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            status: status, contentType: "application/json",
            body: JSONValue.object(["ok": .bool(true), "data": data, "error": .null]).jsonData())
    }

    static func failure(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(
            status: status, contentType: "application/json",
            body: JSONValue.object(["ok": .bool(false), "data": .null, "error": .string(message)]).jsonData())
    }
}

/// A refused request (``DevServerError/Kind/request``) answered with `status` and `message`.
func refuse(_ status: Int, _ message: String) -> DevServerError {
    DevServerError.request(status, message)
}
