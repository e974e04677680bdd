import Foundation
import JQCKit
import Testing

@testable import JQCNetwork

/// What the client keeps between requests (issue 17) gives the same answers as working it out each time.
@Suite("Client reuse: shared decoder, token facts, header names")
struct ClientReuseTests {
    struct Template: Decodable, Equatable {
        let id: Int64
        let templateName: String
        let formSchema: RawJSON
    }

    static func tree(_ index: Int) -> JSONValue {
        [
            "id": .int(Int64(index)), "template_name": .string("T\(index)"),
            "form_schema": ["col_headers": .array([.string("h\(index)")]), "max_score": .double(4.0)],
        ]
    }

    /// The decode before issue 17: a fresh decoder per call with the tree in `userInfo`.
    static func freshDecode(_ tree: JSONValue) throws -> Template {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.userInfo[RawJSON.rootKey] = tree
        return try decoder.decode(Template.self, from: tree.jsonData())
    }

    @Test("the shared decoder decodes as a fresh one did: snake_case converted, RawJSON members unconverted")
    func sharedDecoderSameOutput() throws {
        let tree = Self.tree(1)
        let shared = try APIClient.decode(Template.self, from: tree)
        #expect(shared == (try Self.freshDecode(tree)))
        #expect(shared.formSchema.value["col_headers"] == .array([.string("h1")]))
        #expect(shared.formSchema.value["max_score"] == .double(4.0))
    }

    @Test("concurrent decodes each see their own reply's RawJSON members")
    func concurrentDecodes() async throws {
        let decoded = try await withThrowingTaskGroup(of: (Int, Template).self) { group in
            for index in 0..<64 {
                group.addTask { (index, try APIClient.decode(Template.self, from: Self.tree(index))) }
            }
            var all: [Int: Template] = [:]
            for try await (index, template) in group { all[index] = template }
            return all
        }
        for index in 0..<64 {
            let template = try #require(decoded[index])
            #expect(template.id == Int64(index))
            #expect(template.formSchema.value["col_headers"] == .array([.string("h\(index)")]))
        }
    }

    @Test("token facts are the token's own claims, read again when the token changes")
    func tokenFacts() async throws {
        let first = Harness.jwt("alex", expiresAt: Harness.serverNow.addingTimeInterval(600))
        let second = Harness.jwt("alex", expiresAt: Harness.serverNow.addingTimeInterval(1200))
        let facts = TokenFacts(first)
        #expect(facts.problem == nil)
        #expect(facts.expiry == AccessToken.expiry(of: first))
        #expect(facts.issuedAt == AccessToken.issuedAt(of: first))
        #expect(TokenFacts("bad token\r\n").problem != nil)
        let client = Harness().client(tokens: InMemoryTokenStore())
        #expect(await client.facts(of: first) == facts)
        let renewed = await client.facts(of: second)
        #expect(renewed.token == second)
        #expect(renewed.expiry == AccessToken.expiry(of: second))
        #expect(renewed.expiry != facts.expiry)
    }

    @Test("header names match without case, and only ASCII letters fold")
    func headerNames() {
        var headers: HTTPHeaders = ["Content-Type": "a", "X-JQC-Client": "b"]
        headers.set("content-TYPE", "c")
        #expect(headers["CONTENT-type"] == "c")
        #expect(headers.fields.count == 2)
        #expect(headers["x-jqc-client"] == "b")
        #expect(headers["X-JQC-Clien"] == nil)
        #expect(!HTTPHeaders.sameName("a-b", "a\u{0D}b"))
        #expect(!HTTPHeaders.sameName("[", "{"))  // 0x5B and 0x7B differ only in bit 0x20 but are no letters
        #expect(HTTPHeaders.sameName("ETag", "etag"))
    }

    @Test("header values: C0 (but tab), DEL and C1 controls refused; other text kept")
    func headerValues() {
        #expect(HTTPHeaders.isSafeValue("Bearer abc.def\tx é ✓"))
        #expect(HTTPHeaders.isSafeValue("\u{A0}nbsp"))
        for bad in ["a\r\nb", "a\u{0}", "a\u{7F}", "a\u{85}", "a\u{9F}", "\u{80}"] {
            #expect(!HTTPHeaders.isSafeValue(bad), "\(bad.unicodeScalars.map(\.value))")
        }
        #expect(!HTTPHeaders.isSafeValue(String(repeating: "a", count: HTTPHeaders.maximumValueBytes + 1)))
        #expect(HTTPHeaders.isSafeValue(String(repeating: "a", count: HTTPHeaders.maximumValueBytes)))
    }

    @Test("the header callback's trim: ASCII white space at both ends only")
    func trimmed() {
        let text = Array(" \t X-Name : va lue \r\n".utf8)
        text.withUnsafeBytes { bytes in
            #expect(Array(CurlTransport.trimmed(bytes[...])) == Array("X-Name : va lue".utf8))
            #expect(Array(CurlTransport.trimmed(bytes[0..<3])).isEmpty)
        }
    }
}
