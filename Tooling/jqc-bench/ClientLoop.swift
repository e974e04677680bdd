import Foundation
import JQCKit
import JQCNetwork

/// `jqc-bench client-loop BASE_URL N [typed]`: signs in as alex on a running dev server, sends 20 warm-up
/// requests, then N `GET /api/v1/auth/me` through ``APIClient`` (the raw tree, or decoded as `User` with
/// `typed`), and prints the wall time. The profile harness of issue 17: run it under
/// `valgrind --tool=callgrind` for two values of N; the difference of the instruction counts over the
/// difference of N is the client's cost per request, start-up and sign-in cancelled out.
enum ClientLoop {
    static func run(_ arguments: [String]) async throws {
        guard arguments.count >= 2, let count = Int(arguments[1]), count >= 0 else {
            throw BenchError("usage", "client-loop BASE_URL N [typed]")
        }
        let typed = arguments.count > 2 && arguments[2] == "typed"
        let api = APIClient(
            config: ServerConfig(store: InMemorySelectionStore(arguments[0])),
            transport: CurlTransport(), tokens: InMemoryTokenStore(), refusals: InMemoryUpdateRefusalMemory(),
            identity: ClientIdentity(version: "bench"))
        _ = try await api.login(username: "alex", password: "inspect-demo")
        for _ in 0..<20 { _ = try await api.getJSON("/api/v1/auth/me") }
        let elapsed = try await seconds {
            for _ in 0..<count {
                if typed {
                    _ = try await api.get(User.self, path: "/api/v1/auth/me")
                } else {
                    _ = try await api.getJSON("/api/v1/auth/me")
                }
            }
        }
        print(String(format: "%d requests in %.1f ms", count, elapsed * 1000))
    }
}
