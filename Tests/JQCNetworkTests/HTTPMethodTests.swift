import Testing

@testable import JQCNetwork

@Test("GET is idempotent and POST is not (a retry on a closed connection depends on it)")
func methodIdempotence() {
    #expect(HTTPMethod.get.isIdempotent)
    #expect(!HTTPMethod.post.isIdempotent)
}
