import Foundation
import JQCKit
import JQCNetworkTestSupport
import JQCTestSupport

@testable import JQCNetwork

/// Everything an API client test needs, each in its own temporary directory.
final class Harness: Sendable {
    let directory = TemporaryDirectory(prefix: "jqc-network")
    let transport: ScriptedTransport
    let clock: ManualClock
    let config = ServerConfig(store: InMemorySelectionStore("http://127.0.0.1:5055"))
    let logSink = MemoryLogSink()

    /// The server's real "now" in these tests.
    static let serverNow = Date(timeIntervalSince1970: 1_784_000_000)

    init(_ steps: [ScriptedTransport.Step] = [], deviceClockAhead: Double = 0) {
        transport = ScriptedTransport(steps)
        clock = ManualClock(start: Harness.serverNow.addingTimeInterval(deviceClockAhead))
    }

    var credentialsURL: URL { directory.path("credentials") }
    var refusalURL: URL { directory.path("update-refused") }

    func client(version: String = "1.0.0", tokens: (any TokenStore)? = nil, sink: (any LogSink)? = nil) -> APIClient {
        APIClient(
            config: config, transport: transport, tokens: tokens ?? FileTokenStore(url: credentialsURL),
            refusals: FileUpdateRefusalMemory(url: refusalURL),
            identity: ClientIdentity(app: "jqc-shell", version: version), clock: clock,
            logger: Logger(label: "test", minimumLevel: .debug, sink: sink ?? logSink, clock: clock))
    }

    /// Stores signed-in credentials whose access token expires `expiresIn` seconds after the server's now.
    func signIn(access: String = "a1", refresh: String = "r1", expiresIn: Double = 900) throws {
        try FileTokenStore(url: credentialsURL).save(
            Credentials(
                accessToken: Harness.jwt(access, expiresAt: Harness.serverNow.addingTimeInterval(expiresIn)),
                refreshToken: refresh, user: Harness.alice))
    }

    static let alice = User(
        id: 7, username: "alice", role: .inspector, fullName: "Alice Moreau",
        email: "alice@example.com")

    /// A JWT-shaped token whose subject is `name` and whose `exp` is `expiresAt` (unsigned).
    static func jwt(_ name: String, expiresAt: Date) -> String {
        func encode(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let exp = Int(expiresAt.timeIntervalSince1970)
        return encode(#"{"alg":"HS256","typ":"JWT"}"#) + "." + encode(#"{"sub":"\#(name)","exp":\#(exp)}"#) + ".c2ln"
    }

    /// The IMF-fixdate text of `date` (an HTTP `Date` header).
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static func bearer(_ request: HTTPRequest) -> String? {
        request.headers["authorization"].map { String($0.dropFirst("Bearer ".count)) }
    }

    static func tokenName(_ request: HTTPRequest) -> String? {
        guard let token = bearer(request) else { return nil }
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return token }
        var base64 = String(parts[1])
        while base64.count % 4 != 0 { base64 += "=" }
        let payload = Data(base64Encoded: base64).flatMap { try? JSONValue.parse($0) }
        return payload?["sub"]?.stringValue
    }
}

/// Suspends callers until `count` of them have arrived, then releases them all.
actor Barrier {
    private let count: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var arrived = 0

    init(count: Int) { self.count = count }

    func arrive() async {
        arrived += 1
        if arrived >= count {
            for continuation in waiting { continuation.resume() }
            waiting.removeAll()
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}

/// Captures the error an async call throws.
func thrownError(_ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}
