import Foundation

/// Certificates made for one test with the `openssl` command (a `make deps` package): a private CA and
/// three server certificates it signed — valid for `localhost`, expired (January 2020, via `openssl ca
/// -startdate/-enddate`; OpenSSL 3.0 has no `-not_after` on `req`/`x509`), and valid but for another host
/// name. Keys are P-256 (fast to make). ``TLSServer`` serves any of them.
public final class TestCertificates: Sendable {
    /// Where the files are (removed with this value).
    public let directory = TemporaryDirectory(prefix: "jqc-tls")

    /// The `openssl` program, or `nil` when it is not installed.
    public static let openssl: URL? = ["/usr/bin/openssl", "/usr/local/bin/openssl"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }

    /// The CA's certificate (PEM): what `--ca-file` names.
    public var caFile: URL { directory.path("ca.pem") }
    /// The server's private key (shared by the three certificates).
    public var serverKey: URL { directory.path("server.key") }
    /// Valid now, for `localhost` and `127.0.0.1`.
    public var validCertificate: URL { directory.path("valid.pem") }
    /// Expired on 1 February 2020, for `localhost`.
    public var expiredCertificate: URL { directory.path("expired.pem") }
    /// Valid now, but for `other.example` only.
    public var wrongHostCertificate: URL { directory.path("wrong-host.pem") }

    /// A failure of one `openssl` step, with its output.
    public struct Failure: Error, CustomStringConvertible {
        /// The step and what openssl said.
        public let description: String
    }

    /// Makes the CA and the three certificates.
    /// - Throws: ``Failure`` when `openssl` is missing or a step fails.
    public init() throws {
        guard let openssl = TestCertificates.openssl else {
            throw Failure(description: "openssl is not installed; run make deps (APT_PACKAGES has openssl)")
        }
        let dir = directory.url.path
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(
            openssl,
            ["req", "-x509"] + curve + [
                "-keyout", "\(dir)/ca.key", "-out", "\(dir)/ca.pem", "-days", "30", "-subj", "/CN=JQC Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try run(
            openssl,
            ["req", "-new"] + curve + [
                "-keyout", "\(dir)/server.key", "-out", "\(dir)/localhost.csr", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ])
        try run(
            openssl,
            [
                "req", "-new", "-key", "\(dir)/server.key", "-out", "\(dir)/other.csr", "-subj", "/CN=other.example",
                "-addext", "subjectAltName=DNS:other.example",
            ])
        let config = """
            [ ca ]
            default_ca = test
            [ test ]
            database = \(dir)/index.txt
            new_certs_dir = \(dir)
            serial = \(dir)/serial
            default_md = sha256
            policy = any
            copy_extensions = copy
            unique_subject = no
            [ any ]
            commonName = supplied
            """
        try Data(config.utf8).write(to: directory.path("ca.cnf"))
        try Data().write(to: directory.path("index.txt"))
        try Data("1000\n".utf8).write(to: directory.path("serial"))
        func sign(_ csr: String, _ output: String, start: String, end: String) throws {
            try run(
                openssl,
                [
                    "ca", "-batch", "-notext", "-config", "\(dir)/ca.cnf", "-cert", "\(dir)/ca.pem", "-keyfile",
                    "\(dir)/ca.key", "-in", "\(dir)/\(csr)", "-out", "\(dir)/\(output)", "-startdate", start,
                    "-enddate", end,
                ])
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        let start = formatter.string(from: Date().addingTimeInterval(-86_400))
        let end = formatter.string(from: Date().addingTimeInterval(30 * 86_400))
        try sign("localhost.csr", "valid.pem", start: start, end: end)
        try sign("localhost.csr", "expired.pem", start: "20200101000000Z", end: "20200201000000Z")
        try sign("other.csr", "wrong-host.pem", start: start, end: end)
    }

    /// A directory holding the CA in OpenSSL's hashed layout (`openssl rehash`), for `SSL_CERT_DIR`.
    /// - Throws: ``Failure`` when openssl fails.
    public func hashedDirectory() throws -> URL {
        let hashed = directory.path("hashed")
        try FileManager.default.createDirectory(at: hashed, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: caFile, to: hashed.appendingPathComponent("jqc-test-ca.pem"))
        guard let openssl = TestCertificates.openssl else { throw Failure(description: "openssl is not installed") }
        try run(openssl, ["rehash", hashed.path])
        return hashed
    }

    private func run(_ openssl: URL, _ arguments: [String]) throws {
        let child = try ChildProcess(openssl, arguments)
        let result = child.finish()
        guard result.status == 0 else {
            throw Failure(description: "openssl \(arguments.prefix(2).joined(separator: " ")): \(result.stderr)")
        }
    }
}

/// `openssl s_server` on a free loopback port serving one certificate, as a relay the test drives: what a
/// client sends appears on ``readLine()``, what the test ``write(_:)``s goes to the client. It accepts one
/// connection, then exits.
public final class TLSServer: @unchecked Sendable {  // because: used from one test at a time.
    private let child: ChildProcess
    /// The port it listens on (IPv4 and IPv6).
    public let port: Int

    /// Starts serving `certificate` with `key`.
    /// - Throws: ``TestCertificates/Failure`` when openssl is missing or does not start.
    public init(certificate: URL, key: URL) throws {
        guard let openssl = TestCertificates.openssl else {
            throw TestCertificates.Failure(description: "openssl is not installed")
        }
        child = try ChildProcess(
            openssl, ["s_server", "-accept", "0", "-naccept", "1", "-cert", certificate.path, "-key", key.path])
        var found: Int?
        while found == nil, let line = child.readLine() {
            // "ACCEPT [::]:44345"
            if line.hasPrefix("ACCEPT"), let text = line.split(separator: ":").last { found = Int(text) }
        }
        guard let found else {
            child.kill()
            throw TestCertificates.Failure(description: "openssl s_server did not start")
        }
        port = found
    }

    /// `https://localhost:<port>`.
    public var baseURL: String { "https://localhost:\(port)" }

    /// The next line the client sent (or s_server printed), or `nil` once s_server has exited.
    public func readLine() -> String? { child.readLine() }

    /// Reads until the client's request head has ended (the blank line after its fields); returns the
    /// request line, or `nil` when the connection ended first (a refused handshake).
    public func awaitRequest() -> String? {
        var requestLine: String?
        while let line = child.readLine() {
            let trimmed = line.trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            if requestLine == nil, trimmed.hasPrefix("GET ") || trimmed.hasPrefix("POST ") {
                requestLine = trimmed
            } else if requestLine != nil && trimmed.isEmpty {
                return requestLine
            }
        }
        return nil
    }

    /// Sends `text` to the connected client.
    public func write(_ text: String) { child.write(text) }

    /// Stops s_server and waits for it.
    public func stop() { child.kill() }
}
