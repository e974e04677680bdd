import Foundation
import JQCKit

/// Calls a dev server's `/__admin` endpoint with curl, kept apart from the client under test.
public enum AdminRequest {
    /// Sends `method path` to `baseURL` with `body` as JSON, and parses the reply.
    /// - Returns: the parsed reply (the envelope).
    /// - Throws: `POSIXError` when curl cannot start, `JSONValue`'s error when the reply is not JSON.
    @discardableResult
    public static func send(_ baseURL: URL, _ method: String, _ path: String, _ body: JSONValue? = nil) throws
        -> JSONValue
    {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        var arguments = ["-s", "-X", method, baseURL.absoluteString + path]
        if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body.jsonString()] }
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try JSONValue.parse(data)
    }
}
