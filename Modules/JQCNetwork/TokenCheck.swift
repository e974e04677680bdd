import Foundation

/// The one check every token from the server passes before it is stored or sent (issue 21): a token that
/// would break a request header (CR, LF, NUL or any other control character), or that is too long to be
/// sent back (the server would answer 431 for ever), is refused as a malformed reply.
///
/// Login and refresh call ``validate(accessToken:refreshToken:)`` on the reply before storing it; the API
/// client also checks the stored access token before replaying it (credentials written by an older build).
/// Tokens are never put in the sentence.
public enum TokenCheck {
    /// The longest token accepted, in UTF-8 bytes: 8 KiB (a JWT of the contract is a few hundred).
    public static let maximumBytes = 8192

    /// Checks both tokens of a login or refresh reply.
    /// - Throws: ``APIError/undecodable(_:)`` naming which token is wrong and how (never its value).
    public static func validate(accessToken: String, refreshToken: String) throws {
        if let problem = problem(accessToken: accessToken) { throw APIError.undecodable(problem) }
        if let problem = problem(refreshToken: refreshToken) { throw APIError.undecodable(problem) }
    }

    /// Why `token` cannot be sent as `Authorization: Bearer <token>`, or `nil` when it can: it must be
    /// 1…``maximumBytes`` bytes of visible ASCII (`!`…`~`, RFC 6750's `b64token` and then some).
    public static func problem(accessToken token: String) -> String? {
        if let shared = lengthProblem(token, named: "access token") { return shared }
        guard token.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
            return token.unicodeScalars.contains(where: isControl)
                ? "the access token from the server contains control characters (such as a line break)"
                : "the access token from the server contains spaces or characters outside ASCII"
        }
        return nil
    }

    /// Why `token` cannot be kept as a refresh token, or `nil` when it can: 1…``maximumBytes`` bytes with
    /// no control character (it is sent back in a JSON body, never a header).
    public static func problem(refreshToken token: String) -> String? {
        if let shared = lengthProblem(token, named: "refresh token") { return shared }
        if token.unicodeScalars.contains(where: isControl) {
            return "the refresh token from the server contains control characters (such as a line break)"
        }
        return nil
    }

    private static func lengthProblem(_ token: String, named name: String) -> String? {
        let bytes = token.utf8.count
        if bytes == 0 { return "the \(name) from the server is empty" }
        if bytes > maximumBytes {
            return "the \(name) from the server is \(bytes) bytes long; at most \(maximumBytes) are accepted"
        }
        return nil
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
