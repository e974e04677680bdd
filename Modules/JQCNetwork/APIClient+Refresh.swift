import Foundation
import JQCKit

/// How the token store compares with what this client last saw there (issue 15).
enum StoredSession {
    /// No other process changed the store: this client's credentials are current.
    case current
    /// Another process stored a newer pair for the same person; it is held now.
    case adopted(Credentials)
    /// Another process signed out, or someone else signed in: this client's session is over here
    /// (the store is left as the other process wrote it). The sentence says which, for the log.
    case ended(String)
}

extension APIClient {
    /// Seconds a refresh waits for another process's refresh before giving up for now (a transient failure).
    static let sessionLockTimeout: Double = 60

    // MARK: - Proactive refresh

    /// Refreshes `held` before use when its `exp` is within the margin (`min(60 s, lifetime / 2)`) of the
    /// server's now — once per token, and never for a token received less than half a lifetime ago: a
    /// token that still looks near expiry right after a refresh is used, and the 401 path handles it.
    func refreshProactivelyIfNeeded(_ held: Credentials) async throws -> Credentials {
        if let task = refreshTask { return try await awaitRefresh(task) }
        guard let offset = serverClockOffset, proactivelyRefreshedToken != held.accessToken else { return held }
        let token = facts(of: held.accessToken)
        guard let expiry = token.expiry else { return held }
        let serverNow = clock.now.addingTimeInterval(offset)
        let lifetime = APIClient.lifetime(
            of: held, expiry: expiry, issuedAt: token.issuedAt, serverClockOffset: offset)
        let margin = AccessToken.refreshMargin(lifetime: lifetime)
        guard expiry.timeIntervalSince(serverNow) <= margin else { return held }
        if let received = held.accessTokenReceivedAt, let lifetime, clock.now >= received,
            clock.now.timeIntervalSince(received) < lifetime / 2
        {
            return held
        }
        proactivelyRefreshedToken = held.accessToken
        logger.info("the access token expires within \(Int(margin.rounded(.up))) s; refreshing")
        do {
            return try await refresh(replacing: held.accessToken)
        } catch APIError.signedOut {
            throw APIError.signedOut
        } catch APIError.updateRequired {
            throw APIError.updateRequired
        } catch {
            return credentials ?? held  // a failed early refresh is retried on a 401
        }
    }

    /// The token's lifetime in seconds: `exp − iat`, else `exp −` the time this client received it (moved
    /// onto the server's clock); `nil` when neither is known.
    static func lifetime(of held: Credentials, expiry: Date, issuedAt: Date?, serverClockOffset offset: Double)
        -> Double?
    {
        if let issued = issuedAt { return expiry.timeIntervalSince(issued) }
        if let received = held.accessTokenReceivedAt {
            return expiry.timeIntervalSince(received.addingTimeInterval(offset))
        }
        return nil
    }

    // MARK: - The refresh exchange

    /// New credentials after `token` was refused: the ones another request already obtained, the
    /// in-flight refresh's, or a new single refresh.
    func refresh(replacing token: String) async throws -> Credentials {
        guard let held = credentials else { throw APIError.signedOut }
        if held.accessToken != token { return held }
        if let task = refreshTask { return try await awaitRefresh(task) }
        let task = Task { try await self.performRefresh(from: held) }
        refreshTask = task
        return try await awaitRefresh(task)
    }

    private func awaitRefresh(_ task: Task<Credentials, any Error>) async throws -> Credentials {
        do {
            return try await task.value
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.connectionFailed(String(describing: error))
        }
    }

    /// `POST /auth/refresh` with its own decoder (seed 001 rule 14), under the store's cross-process lock.
    /// A process that waited for the lock first re-reads the store and uses what another process stored.
    /// 400, 401 and 403 are a refused refresh: signed out (when the store still holds the token sent).
    /// Any other 4xx is the server's problem, not the session's (``APIError/server(status:message:)``),
    /// so no outbox item is failed because of it.
    private func performRefresh(from held: Credentials) async throws -> Credentials {
        defer { refreshTask = nil }
        if isUpdateRequired { throw APIError.updateRequired }
        let hold = try await takeSessionLock()
        defer { hold?.release() }
        switch reconcileWithStore(held) {
        case .current:
            break
        case .adopted(let newer):
            logger.info("another process renewed the sign-in; using its credentials")
            return newer
        case .ended(let reason):
            logger.info(reason)
            throw APIError.signedOut
        }
        let sent = credentials?.refreshToken ?? held.refreshToken
        refreshCount += 1
        var request = HTTPRequest(
            method: .post, url: config.url(path: "/api/v1/auth/refresh"),
            body: .data(JSONValue.object(["refresh_token": .string(sent)]).jsonData()))
        request.headers.set("Accept", "application/json")
        request.headers.set("Content-Type", "application/json")
        request.headers.set("X-JQC-Client", identity.build)
        request.headers.set("X-JQC-API-Version", String(identity.apiVersion))
        let response = try await transmit(request, progress: nil)
        if [400, 401, 403].contains(response.status) {
            return try refused(sent: sent, status: response.status)
        }
        let data: JSONValue
        do {
            data = try interpret(response, path: "/api/v1/auth/refresh")
        } catch APIError.rejected(let status, let message) {
            throw APIError.server(status: status, message: "The server could not renew the sign-in: \(message)")
        }
        struct RefreshReply: Decodable {
            let accessToken: String
            let refreshToken: String
        }
        let decoder = JSONDecoder()  // its own decoder, never a shared one (rule 14)
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let reply: RefreshReply
        do {
            reply = try decoder.decode(RefreshReply.self, from: data.jsonData())
        } catch {
            throw APIError.undecodable("the refresh reply had no tokens")
        }
        try TokenCheck.validate(accessToken: reply.accessToken, refreshToken: reply.refreshToken)
        guard let now = credentials else { throw APIError.signedOut }  // signed out meanwhile
        guard now.refreshToken == sent else { return now }  // a new login replaced the session
        let updated = Credentials(
            accessToken: reply.accessToken, refreshToken: reply.refreshToken, user: now.user,
            accessTokenReceivedAt: clock.now)
        credentials = updated
        persist(updated)  // written before it is used; on failure it is kept here and retried
        logger.info("the access token was refreshed")
        return updated
    }

    /// The server refused the refresh token `sent` (HTTP `status`): signs out once — when the store still
    /// holds `sent` or what this client last saw there — and throws ``APIError/signedOut``. When another
    /// process stored a newer pair meanwhile (without the lock), the store is left alone: that pair is used
    /// when it is the same person's, else this run's session ends here.
    private func refused(sent: String, status: Int) throws -> Credentials {
        if let stored = tokens.load(), stored.refreshToken != sent, stored.refreshToken != storedRefreshToken {
            storedRefreshToken = stored.refreshToken
            unsavedReason = nil
            if let held = credentials, stored.user.id == held.user.id {
                credentials = stored
                logger.info("the refresh token was replaced by another process; using its credentials")
                return stored
            }
            credentials = nil
            logger.info("someone else signed in to this data directory in another process; this run stops")
            throw APIError.signedOut
        }
        logger.warning("the server refused the refresh token (HTTP \(status)); signing out (local work is kept)")
        signOutLocally()
        warnings.emit(
            "The server refused the saved sign-in (HTTP \(status)), so you are signed out: it expired or was "
                + "revoked, or an earlier run renewed it and could not save the new one. Log in again to sync; "
                + "your work on this device is kept.")
        throw APIError.signedOut
    }

    /// The store's cross-process lock, waited for up to ``sessionLockTimeout``; `nil` when the store has
    /// none, or when its lock file cannot be used (then the exchange runs unlocked, as before, and says so
    /// in the log).
    /// - Throws: ``APIError/connectionFailed(_:)`` when another process held it too long (transient),
    ///   ``APIError/cancelled``.
    func takeSessionLock(timeout: Double = APIClient.sessionLockTimeout) async throws -> FileLockHold? {
        guard let lock = tokens.lock else { return nil }
        do {
            return try await lock.acquire(timeout: timeout)
        } catch let error as FileLock.LockError where error.kind == .timedOut {
            throw APIError.connectionFailed(
                "another jqc process has been renewing the sign-in for \(Int(error.waited.rounded())) s")
        } catch is CancellationError {
            throw APIError.cancelled
        } catch {
            logger.warning("\(error) Going on without the session lock.")
            return nil
        }
    }

    // MARK: - The stored pair

    /// Compares the store with what this client last saw there (call it holding the session lock). When
    /// nobody else changed it, a pair whose write failed earlier is written now; when another process
    /// stored a pair for the same person, that pair is held instead; when it cleared the store or stored
    /// someone else's, this client's session ends here (the store is left as it is).
    func reconcileWithStore(_ held: Credentials) -> StoredSession {
        let stored = tokens.load()
        if stored?.refreshToken == storedRefreshToken {
            if unsavedReason != nil, let current = credentials { persist(current) }
            return .current
        }
        storedRefreshToken = stored?.refreshToken
        unsavedReason = nil
        proactivelyRefreshedToken = nil
        guard let stored else {
            credentials = nil
            return .ended("another process signed out of this data directory; this run is signed out too")
        }
        guard stored.user.id == held.user.id else {
            credentials = nil
            return .ended("someone else signed in to this data directory in another process; this run stops")
        }
        credentials = stored
        return .adopted(stored)
    }

    /// Holds `updated` and writes it to the token store atomically. When the write fails the pair stays
    /// held (the session goes on in this process), the first failure is said at once through ``warnings``,
    /// and the write is retried before later requests and at shutdown.
    func persist(_ updated: Credentials) {
        credentials = updated
        do {
            try tokens.save(updated)
            storedRefreshToken = updated.refreshToken
            if unsavedReason != nil { logger.info("the new sign-in is saved now") }
            unsavedReason = nil
        } catch {
            let first = unsavedReason == nil
            unsavedReason = "\(error)"
            logger.error("could not save the credentials: \(error)")
            if first {
                warnings.emit(
                    "\(error) You stay signed in for this run and jqc keeps trying to save the new sign-in; "
                        + "if it is still not saved when this run ends, the next run will ask you to log in again. "
                        + "Your work on this device is kept.")
            }
        }
    }

    /// Tries once more to write a pair whose write failed, when the session lock is free right now.
    func retrySavingCredentials() async {
        guard unsavedReason != nil, let held = credentials else { return }
        let hold: FileLockHold?
        if let lock = tokens.lock {
            guard let taken = try? lock.tryAcquire() else { return }  // busy or unusable: next time
            hold = taken
        } else {
            hold = nil
        }
        defer { hold?.release() }
        _ = reconcileWithStore(held)
    }

    /// Writes a renewed pair whose write failed (call before the process ends): waits up to 5 s for the
    /// session lock. When it still cannot be written, ``warnings`` says that the next run will be signed out.
    public func saveUnsavedCredentials() async {
        guard unsavedReason != nil, let held = credentials else { return }
        let hold = try? await takeSessionLock(timeout: 5)
        defer { hold?.release() }
        _ = reconcileWithStore(held)
        if let reason = unsavedReason {
            warnings.emit(
                "The new sign-in is still not saved (\(reason)); the next run will ask you to log in again. "
                    + "Your work on this device is kept.")
        }
    }

    /// Whether the held credentials are written to the token store (`false` while a write is pending).
    public var credentialsAreSaved: Bool { unsavedReason == nil }

    // MARK: - Credentials

    func credentialsSnapshot() -> Credentials? { credentials }

    func configURL(_ path: String) -> URL { config.url(path: path) }

    /// Sends without the session logic (best-effort calls such as logout).
    func transportSend(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await transmit(request, progress: nil)
    }

    /// Forgets the credentials here and in the token store. Nothing else is touched (local work stays).
    public func signOutLocally() {
        credentials = nil
        proactivelyRefreshedToken = nil
        unsavedReason = nil
        do {
            try tokens.clear()
            storedRefreshToken = nil
        } catch {
            storedRefreshToken = tokens.load()?.refreshToken
            logger.error("could not remove the stored credentials: \(error)")
        }
    }
}
