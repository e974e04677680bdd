import Foundation
import JQCKit
import JQCTestSupport

@testable import JQCDevServer

/// The dev server's store and router without the HTTP layer: requests go straight to
/// ``DevServerRouter/handle(_:)``, so tests on big seeds spend their time in the server, not in curl.
final class DirectServer: @unchecked Sendable {  // because: used from one test at a time.
    let directory: TemporaryDirectory
    let store: ServerStore
    let router: DevServerRouter
    let configuration: DevServerConfiguration

    /// A store seeded with `seed` (a JSON value, written to a file first) and today fixed to `today`.
    convenience init(seed: JSONValue, today: String = "2026-07-14", admin: Bool = true) throws {
        let directory = TemporaryDirectory(prefix: "jqc-devserver-direct")
        let seedFile = directory.path("seed.json")
        try seed.jsonData().write(to: seedFile)
        try self.init(directory: directory, seed: .file(seedFile), today: today, admin: admin)
    }

    /// A store on the demo seed.
    convenience init(today: String = "2026-07-14", etags: Bool = true) throws {
        try self.init(
            directory: TemporaryDirectory(prefix: "jqc-devserver-direct"), seed: .demo, today: today, etags: etags)
    }

    private init(
        directory: TemporaryDirectory, seed: DevServerConfiguration.Seed, today: String, admin: Bool = true,
        etags: Bool = true
    ) throws {
        self.directory = directory
        let day = try requireDay(today)
        configuration = DevServerConfiguration(
            dataDirectory: directory.path("data"), seed: seed, today: day, admin: admin, etags: etags)
        let fixed: @Sendable (String) -> CalendarDay = { _ in day }
        store = try ServerStore(directory: configuration.dataDirectory, seed: seed, today: fixed, now: Date())
        router = DevServerRouter(
            store: store, configuration: configuration, today: fixed, logger: .disabled)
        router.boundPort.store(5055, ordering: .relaxed)  // the port of the Host header requests carry
    }

    deinit { store.queue.close() }

    /// Sends one request; `body` as JSON.
    func request(
        _ method: String, _ path: String, _ body: JSONValue? = nil, token: String? = nil,
        query: [String: String] = [:], headers: [String: String] = [:]
    ) -> (status: Int, json: JSONValue?, response: HTTPResponse) {
        var all = ["host": "127.0.0.1:5055"]
        if let token { all["authorization"] = "Bearer \(token)" }
        if body != nil { all["content-type"] = "application/json" }
        all.merge(headers) { _, new in new }
        let request = HTTPRequest(
            method: method, path: path.hasPrefix("/__admin") ? path : "/api/v1" + path, query: query, headers: all,
            body: body?.jsonData() ?? Data(), bodyFile: nil, bodyTooLarge: false, clientIsLoopback: true)
        let response = router.handle(request)
        return (response.status, try? JSONValue.parse(response.body), response)
    }

    /// Signs in and returns the access token ("" when refused).
    func token(_ username: String) -> String {
        let password = username == "dana" ? "admin-demo" : "inspect-demo"
        let reply = request("POST", "/auth/login", ["username": .string(username), "password": .string(password)])
        return reply.json?["data"]?["access_token"]?.stringValue ?? ""
    }
}

/// A calendar day from `text`, or a thrown error naming it.
func requireDay(_ text: String) throws -> CalendarDay {
    guard let day = CalendarDay(text) else { throw TestFailure("'\(text)' is not a yyyy-MM-dd day.") }
    return day
}

/// A test precondition that did not hold.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
