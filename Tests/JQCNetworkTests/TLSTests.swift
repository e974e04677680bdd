import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCNetwork

/// TLS against `openssl s_server` on loopback, with certificates made in the test (issue 21).
@Suite("TLS: verification always on, private CAs added, each refusal said")
struct TLSTests {
    /// Sends one GET through a transport trusting `trust` to a server presenting `certificate`; the
    /// server (driven on a thread of its own) answers a small JSON reply when the request gets through.
    func get(_ certificate: URL, key: URL, trust: TLSTrust) async throws -> (
        Result<HTTPResponse, TransportError>, requestLine: String?
    ) {
        let server = try TLSServer(certificate: certificate, key: key)
        defer { server.stop() }
        let requestLine = Mutex2<String?>(nil)
        let finished = Latch()
        let driver = Thread {
            let line = server.awaitRequest()
            requestLine.set(line)
            if line != nil {
                let body = #"{"ok":true,"data":{"status":"ok"},"error":null}"#
                server.write(
                    "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            }
            finished.signal()
        }
        let transport = CurlTransport(configuration: CurlTransport.Configuration(trust: trust))
        let url = try #require(URL(string: "https://localhost:\(server.port)/api/v1/health"))
        driver.start()
        let outcome: Result<HTTPResponse, TransportError>
        do {
            outcome = .success(try await transport.send(HTTPRequest(method: .get, url: url, timeoutOverride: 10)))
        } catch let error as TransportError {
            outcome = .failure(error)
        }
        server.stop()  // ends s_server (and so the driver's read) whatever happened
        await finished.wait()
        return (outcome, requestLine.get())
    }

    @Test("a certificate from an unknown authority is refused with a sentence and nothing is sent")
    func unknownAuthority() async throws {
        let certificates = try TestCertificates()
        let (outcome, requestLine) = try await get(
            certificates.validCertificate, key: certificates.serverKey, trust: .systemOnly)
        #expect(outcome.failure == .tls(.unknownAuthority(host: "localhost")))
        #expect(requestLine == nil)
        let error = APIError(try #require(outcome.failure))
        #expect(error.code == "network.certificate_unknown_authority")
        #expect(
            error.message
                == "The certificate of localhost is not signed by an authority this device trusts, so nothing was "
                + "sent. If the server uses a private certificate authority, start jqc-shell with --ca-file PATH "
                + "(or set JQC_CA_FILE) naming that authority's certificate; otherwise the connection may be "
                + "intercepted.")
    }

    @Test("the same certificate is accepted once its CA is trusted with --ca-file")
    func privateCAAccepted() async throws {
        let certificates = try TestCertificates()
        let trust = TLSTrust.standard(caFile: certificates.caFile.path, environment: [:])
        let (outcome, requestLine) = try await get(
            certificates.validCertificate, key: certificates.serverKey, trust: trust)
        #expect(requestLine == "GET /api/v1/health HTTP/1.1")
        #expect(try outcome.get().status == 200)
    }

    @Test("a CA directory from SSL_CERT_DIR and a bundle from SSL_CERT_FILE are honoured too")
    func standardVariables() async throws {
        let certificates = try TestCertificates()
        let hashed = try certificates.hashedDirectory()
        let fromDirectory = TLSTrust.standard(
            caFile: nil, environment: ["SSL_CERT_DIR": "/nonexistent-empty:" + hashed.path])
        #expect(fromDirectory.directories.map(\.path) == ["/nonexistent-empty", hashed.path])
        let usable = TLSTrust(directories: [TLSTrust.Source(path: hashed.path, origin: "SSL_CERT_DIR")])
        #expect(
            try await get(certificates.validCertificate, key: certificates.serverKey, trust: usable).0.get().status
                == 200)
        let fromFile = TLSTrust.standard(caFile: nil, environment: ["SSL_CERT_FILE": certificates.caFile.path])
        #expect(
            try await get(certificates.validCertificate, key: certificates.serverKey, trust: fromFile).0.get().status
                == 200)
    }

    @Test("an expired certificate is refused with its own sentence, even from a trusted CA")
    func expired() async throws {
        let certificates = try TestCertificates()
        let trust = TLSTrust(files: [TLSTrust.Source(path: certificates.caFile.path, origin: "--ca-file")])
        let (outcome, requestLine) = try await get(
            certificates.expiredCertificate, key: certificates.serverKey, trust: trust)
        #expect(outcome.failure == .tls(.expired(host: "localhost")))
        #expect(requestLine == nil)
        #expect(APIError(.tls(.expired(host: "localhost"))).code == "network.certificate_expired")
        #expect(
            TLSProblem.expired(host: "localhost").message
                == "The certificate of localhost has expired, so nothing was sent. Check that this device's date "
                + "and time are right; if they are, the server's administrator must renew the certificate.")
    }

    @Test("a certificate for another host name is refused with its own sentence")
    func wrongHost() async throws {
        let certificates = try TestCertificates()
        let trust = TLSTrust(files: [TLSTrust.Source(path: certificates.caFile.path, origin: "--ca-file")])
        let (outcome, requestLine) = try await get(
            certificates.wrongHostCertificate, key: certificates.serverKey, trust: trust)
        #expect(outcome.failure == .tls(.wrongHost(host: "localhost")))
        #expect(requestLine == nil)
        #expect(
            TLSProblem.wrongHost(host: "localhost").message
                == "The certificate presented by localhost was issued for another host name, so nothing was sent. "
                + "Check the server address (--server); the connection may be intercepted.")
    }

    @Test("a CA file that is missing or holds no certificate fails every https request with a sentence naming it")
    func unusableCAFile() async throws {
        let directory = TemporaryDirectory()
        let notPEM = directory.path("not-a-cert.pem")
        try Data("hello".utf8).write(to: notPEM)
        for (path, reason) in [
            (notPEM.path, "it holds no PEM certificate (-----BEGIN CERTIFICATE-----)"),
            (directory.path("missing.pem").path, "there is no such file"),
        ] {
            let transport = CurlTransport(
                configuration: CurlTransport.Configuration(
                    trust: TLSTrust(files: [TLSTrust.Source(path: path, origin: "JQC_CA_FILE")])))
            let url = try #require(URL(string: "https://localhost:1/api/v1/health"))
            let error = await thrownError { _ = try await transport.send(HTTPRequest(method: .get, url: url)) }
            let problem = TLSProblem.trustFileUnusable(path: path, origin: "JQC_CA_FILE", reason: reason)
            #expect(error as? TransportError == .tls(problem))
            #expect(
                problem.message
                    == "The certificate authority file \(path) named by JQC_CA_FILE cannot be used: \(reason). Fix the "
                    + "path, or leave it out to trust only the system's authorities; nothing was sent.")
        }
    }

    @Test("trust in a private CA keeps the system store: the bundle starts with libcurl's default bundle")
    func systemStoreKept() async throws {
        let certificates = try TestCertificates()
        let system = "/etc/ssl/certs/ca-certificates.crt"
        let store = CATrustStore(
            TLSTrust(files: [TLSTrust.Source(path: certificates.caFile.path, origin: "--ca-file")]),
            defaultBundle: system, defaultDirectory: "/etc/ssl/certs")
        let bundle = try #require(store.bundle)
        let ca = try Data(contentsOf: certificates.caFile)
        #expect(bundle.range(of: ca) != nil)
        if let systemBytes = FileManager.default.contents(atPath: system) {
            #expect(bundle.prefix(systemBytes.count) == systemBytes)
        }
        #expect(store.directories == nil)  // libcurl's default directory is left as it is
        #expect(store.problem == nil)
        let none = CATrustStore(.systemOnly, defaultBundle: system, defaultDirectory: "/etc/ssl/certs")
        #expect(none.bundle == nil && none.directories == nil)
        let withDirectory = CATrustStore(
            TLSTrust(directories: [TLSTrust.Source(path: certificates.directory.url.path, origin: "SSL_CERT_DIR")]),
            defaultBundle: system, defaultDirectory: "/etc/ssl/certs")
        #expect(withDirectory.directories == "/etc/ssl/certs:" + certificates.directory.url.path)
    }

    @Test("verification results map to the check that failed")
    func verificationCodes() {
        #expect(TLSProblem.verification(code: 10, host: "h", detail: "") == .expired(host: "h"))
        #expect(TLSProblem.verification(code: 9, host: "h", detail: "") == .notYetValid(host: "h"))
        #expect(TLSProblem.verification(code: 0, host: "h", detail: "") == .wrongHost(host: "h"))  // the chain passed
        #expect(TLSProblem.verification(code: 62, host: "h", detail: "") == .wrongHost(host: "h"))
        for code in [2, 18, 19, 20, 21] {
            #expect(TLSProblem.verification(code: code, host: "h", detail: "") == .unknownAuthority(host: "h"))
        }
        #expect(
            TLSProblem.verification(
                code: 0, host: "h", detail: "SSL: no alternative certificate subject name matches target host name 'h'")
                == .wrongHost(host: "h"))
        #expect(
            TLSProblem.verification(code: 23, host: "h", detail: "SSL certificate problem: certificate revoked")
                == .certificateRefused(host: "h", reason: "certificate revoked"))
    }
}

/// A value set by one task and read by another after a semaphore (test plumbing).
final class Mutex2<Value: Sendable>: @unchecked Sendable {  // because: an NSLock guards every access.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func get() -> Value { lock.withLock { value } }
}

/// Opens once: ``wait()`` returns when ``signal()`` has been called, before or after (test plumbing).
final class Latch: @unchecked Sendable {  // because: an NSLock guards both fields.
    private let lock = NSLock()
    private var open = false
    private var waiter: CheckedContinuation<Void, Never>?

    func signal() {
        let resumed = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            open = true
            defer { waiter = nil }
            return waiter
        }
        resumed?.resume()
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = lock.withLock { () -> Bool in
                if open { return true }
                waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

extension Result {
    /// The failure, or `nil` on success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
