import Foundation
import Testing

@testable import JQCLint

@Suite("A malformed policy is refused with a sentence saying what to fix")
struct PolicyTests {
    static let valid = """
        {"policyVersion": 2, "platformModules": [], "protected": [], "forbidden": [], "exceptions": [],
         "tiers": [{"name": "base", "modules": ["Base"], "mayImport": []}],
         "textRules": [{"id": "no-print", "check": "call", "names": ["print"], "message": "m", "because": "b"}]}
        """

    func error(_ text: String) -> LintError? {
        do {
            _ = try Policy.decode(Data(text.utf8), source: "p.json")
            return nil
        } catch let error as LintError {
            return error
        } catch {
            return LintError(.usage, "unexpected \(error)")
        }
    }

    @Test("the minimal valid policy decodes")
    func validDecodes() throws {
        let policy = try Policy.decode(Data(PolicyTests.valid.utf8), source: "p.json")
        #expect(policy.placedModules == ["Base"])
    }

    @Test("text that is not JSON is refused as unreadable")
    func notJSON() {
        let failure = error("{ tiers: ")
        #expect(failure?.code == .policyUnreadable)
        #expect(failure?.message.hasPrefix("The policy file p.json is not valid JSON") == true)
        #expect(failure?.message.hasSuffix("; fix its syntax.") == true)
    }

    @Test("a missing key is named with its place")
    func missingKey() {
        let failure = error(PolicyTests.valid.replacingOccurrences(of: "\"modules\": [\"Base\"], ", with: ""))
        #expect(
            failure
                == LintError(
                    .policyUnreadable,
                    "The policy file p.json lacks the key \"modules\" at tiers[0]; add it."))
    }

    @Test("an unknown kind of text rule is refused with its place")
    func unknownCheck() {
        let failure = error(
            PolicyTests.valid.replacingOccurrences(
                of: "\"call\", \"names\"",
                with: "\"tokens\", \"names\""))
        #expect(failure?.code == .policyUnreadable)
        #expect(failure?.message.hasPrefix("The policy file p.json has an invalid value at textRules[0].check") == true)
    }

    @Test("an exception without a reason is refused")
    func exceptionWithoutBecause() {
        let failure = error(
            PolicyTests.valid.replacingOccurrences(
                of: "\"exceptions\": []",
                with: "\"exceptions\": [{\"rule\": \"no-print\", \"path\": \"A/\", \"because\": \" \"}]"))
        #expect(
            failure
                == LintError(
                    .policyInvalid,
                    "The policy file p.json has an exception without a reason at "
                        + "exceptions[0]; fill in \"because\"."))
    }

    @Test("an exception for an unknown rule, or one naming no path or module, is refused")
    func exceptionShape() {
        let unknown = error(
            PolicyTests.valid.replacingOccurrences(
                of: "\"exceptions\": []",
                with: "\"exceptions\": [{\"rule\": \"nope\", \"path\": \"A/\", \"because\": \"x\"}]"))
        #expect(unknown?.code == .policyInvalid)
        #expect(unknown?.message.contains("unknown rule \"nope\" at exceptions[0]") == true)
        let broad = error(
            PolicyTests.valid.replacingOccurrences(
                of: "\"exceptions\": []", with: "\"exceptions\": [{\"rule\": \"no-print\", \"because\": \"x\"}]"))
        #expect(
            broad
                == LintError(
                    .policyInvalid,
                    "The policy file p.json has an exception naming neither \"path\" "
                        + "nor \"module\" at exceptions[0]; narrow it so it cannot silence the rule everywhere."))
    }

    @Test("a misspelt name, a duplicate rule id and a second placement are refused")
    func contradictions() {
        let misspelt = error(
            PolicyTests.valid.replacingOccurrences(
                of: "\"mayImport\": []",
                with: "\"mayImport\": [\"bsae\"]"))
        #expect(
            misspelt
                == LintError(
                    .policyInvalid,
                    "The policy file p.json names \"bsae\" in tiers[0].mayImport, "
                        + "which is neither a tier nor a module the policy places; fix the spelling or place the module in a tier."
                ))
        let duplicate = error(
            PolicyTests.valid.replacingOccurrences(
                of: "\"protected\": []",
                with:
                    "\"protected\": [{\"id\": \"no-print\", \"module\": \"C\", \"onlyFrom\": [\"Base\"], \"because\": \"b\"}]"
            ))
        #expect(duplicate?.message.contains("uses the rule id \"no-print\" twice") == true)
        let twice = error(
            PolicyTests.valid.replacingOccurrences(
                of: "\"modules\": [\"Base\"]",
                with: "\"modules\": [\"Base\", \"Base\"]"))
        #expect(
            twice
                == LintError(
                    .policyInvalid,
                    "The policy file p.json places the module Base in more than one tier; keep it in one."))
    }

    @Test("a policy of another version is refused, and a version 1 policy is told how to move to version 2")
    func version() {
        let later = error(
            PolicyTests.valid.replacingOccurrences(of: "\"policyVersion\": 2", with: "\"policyVersion\": 3"))
        #expect(
            later
                == LintError(
                    .policyInvalid,
                    "The policy file p.json has policyVersion 3; this jqc-lint understands version 2 only."))
        // A version 1 policy has token rules, which no longer decode: the version is judged first.
        let first = error(
            PolicyTests.valid.replacingOccurrences(of: "\"policyVersion\": 2", with: "\"policyVersion\": 1")
                .replacingOccurrences(of: "\"call\", \"names\"", with: "\"tokens\", \"tokens\""))
        #expect(first?.code == .policyInvalid)
        #expect(
            first?.message.hasPrefix(
                "The policy file p.json has policyVersion 1; this jqc-lint understands version 2 only. Version 2 "
                    + "reads the syntax tree: replace each \"check\": \"tokens\" rule") == true)
    }

    @Test("a syntax rule without names, an attribute without its @ and a name with a space are refused")
    func syntaxRuleNames() {
        let without = error(PolicyTests.valid.replacingOccurrences(of: "\"names\": [\"print\"], ", with: ""))
        #expect(
            without
                == LintError(
                    .policyInvalid,
                    "The policy file p.json has the call rule \"no-print\" without a \"names\" list; list the "
                        + "names it matches."))
        let attribute = error(
            PolicyTests.valid.replacingOccurrences(
                of: "\"call\", \"names\": [\"print\"]", with: "\"attribute\", \"names\": [\"unchecked\"]"))
        #expect(
            attribute
                == LintError(
                    .policyInvalid,
                    "The policy file p.json names \"unchecked\" in the attribute rule \"no-print\"; write an "
                        + "attribute with its @ (\"@unchecked\")."))
        let spaced = error(
            PolicyTests.valid.replacingOccurrences(
                of: "\"call\", \"names\": [\"print\"]", with: "\"modifier\", \"names\": [\"nonisolated (unsafe)\"]"))
        #expect(spaced?.message.contains("write names without spaces") == true)
    }
}

@Suite("A misspelt key cannot silently widen a rule")
struct PolicyKeyTests {
    @Test("an unknown key inside a text rule's scope is refused with its place")
    func misspeltScopeKey() {
        let text = PolicyTests.valid.replacingOccurrences(
            of: "\"message\": \"m\"", with: "\"message\": \"m\", \"except\": {\"path\": [\"Tests/\"]}")
        #expect(
            throws: LintError(
                .policyInvalid,
                "The policy file p.json has the unknown key \"path\" at "
                    + "textRules[0].except; fix its spelling or remove it.")
        ) {
            try Policy.decode(Data(text.utf8), source: "p.json")
        }
    }
}
