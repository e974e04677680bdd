import Foundation
import JQCKit

/// How a launch found the session (seed 001 §5 "Session restore", rule 20).
public enum SessionRestore: Sendable, Hashable {
    /// Nobody was signed in, or the server said the session is over (the credentials were cleared).
    case signedOut
    /// The server confirmed the session (`/auth/me`); the stored identity was updated from it.
    case online(User)
    /// The server could not confirm it (offline, timeout, 5xx, …): the stored identity is used (rule 20).
    case offline(User, APIError)

    /// The signed-in person, or `nil` when signed out.
    public var user: User? {
        switch self {
        case .signedOut: nil
        case .online(let user), .offline(let user, _): user
        }
    }
}

extension APIClient {
    /// Signs in: `POST /api/v1/auth/login` with `{username, password}`; stores the tokens and identity
    /// (under the session lock, so a refresh in another process cannot write over them). The password is
    /// sent once and kept nowhere.
    /// - Returns: the signed-in person.
    /// - Throws: ``APIError``: ``APIError/unauthorized(_:)`` with the server's sentence for bad credentials,
    ///   ``APIError/offline`` and the rest as classified.
    public func login(username: String, password: String) async throws -> User {
        struct LoginReply: Decodable {
            let accessToken: String
            let refreshToken: String
            let user: User
        }
        let body: JSONValue = ["username": .string(username), "password": .string(password)]
        let data = try await exchange(
            .post, path: "/api/v1/auth/login", query: [], body: .data(body.jsonData()),
            kind: .api, authenticated: false, carriesPassword: true)
        let reply = try APIClient.decode(LoginReply.self, from: data)
        try TokenCheck.validate(accessToken: reply.accessToken, refreshToken: reply.refreshToken)
        let hold = try? await takeSessionLock()
        defer { hold?.release() }
        signOutLocally()
        persist(
            Credentials(
                accessToken: reply.accessToken, refreshToken: reply.refreshToken, user: reply.user,
                accessTokenReceivedAt: clock.now))
        return reply.user
    }

    /// Signs out: tells the server (`POST /api/v1/auth/logout`, best-effort, 5 s limit, no refresh), then
    /// clears the credentials whatever the answer (seed 001 §5), under the session lock. Local work is not
    /// touched. Other processes sharing the data directory find the store empty at their next refresh and
    /// sign out too.
    public func logout() async {
        if let held = currentCredentials, !isUpdateRequired {
            var request = HTTPRequest(
                method: .post, url: configURL("/api/v1/auth/logout"),
                body: .data(
                    JSONValue.object(["refresh_token": .string(held.refreshToken)])
                        .jsonData()),
                kind: .probe)
            request.headers.set("Content-Type", "application/json")
            request.headers.set("X-JQC-Client", identity.build)
            request.headers.set("X-JQC-API-Version", String(identity.apiVersion))
            request.headers.set("Authorization", "Bearer \(held.accessToken)")
            _ = try? await transportSend(request)
        }
        let hold = try? await takeSessionLock()
        defer { hold?.release() }
        signOutLocally()
    }

    /// Restores the stored session at launch: `GET /api/v1/auth/me` (refreshing the token when needed).
    /// Not authenticated (the refresh refused, or a 401 after it) → the credentials are cleared and the
    /// result is ``SessionRestore/signedOut``; any other failure → ``SessionRestore/offline(_:_:)`` with
    /// the stored identity (rule 20).
    public func restoreSession() async -> SessionRestore {
        guard let held = currentCredentials else { return .signedOut }
        do {
            let user = try await get(User.self, path: "/api/v1/auth/me")
            await updateStoredUser(user)
            return .online(user)
        } catch APIError.signedOut {
            return .signedOut
        } catch let error as APIError where error.kind == .unauthorized {
            guard await endSessionRefusedByServer() else {
                return .offline(currentCredentials?.user ?? held.user, error)
            }
            return .signedOut
        } catch let error as APIError {
            return .offline(currentCredentials?.user ?? held.user, error)
        } catch {
            return .offline(held.user, .connectionFailed(String(describing: error)))
        }
    }

    /// The credentials held now (internal: the session helpers and tests).
    var currentCredentials: Credentials? { credentialsSnapshot() }

    /// Writes `user` into the stored credentials when it changed, under the session lock and only over the
    /// pair this client holds (a pair another process stored meanwhile is adopted first).
    private func updateStoredUser(_ user: User) async {
        guard let held = credentials, held.user != user else { return }
        let hold = try? await takeSessionLock()
        defer { hold?.release() }
        switch reconcileWithStore(held) {
        case .current, .adopted:
            guard var now = credentials else { return }
            now.user = user
            persist(now)
        case .ended:
            return
        }
    }

    /// A 401 even after a refresh: the server does not accept this session. Signs out — unless another
    /// process stored a newer pair meanwhile (then that pair is used from the next request on).
    /// - Returns: whether this run is signed out now.
    private func endSessionRefusedByServer() async -> Bool {
        guard let held = credentials else { return true }
        let hold = try? await takeSessionLock()
        defer { hold?.release() }
        if case .current = reconcileWithStore(held) {
            logger.warning("the server refused the session after a refresh; signing out (local work is kept)")
            signOutLocally()
            return true
        }
        return credentials == nil
    }
}
