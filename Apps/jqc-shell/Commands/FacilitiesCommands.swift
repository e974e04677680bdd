import Foundation
import JQCFacilities
import JQCKit

/// `contracts`, `facilities`, `areas`, `templates`, `clear-cache` (SHELL.md; seed 001 §8 step 4, §20).
/// They read the local store only and say when cached content is shown after a failed refresh.
enum FacilitiesCommands {
    static let commands: [Command] = [contracts, facilities, areas, templates, clearCache]

    /// The phase keys every read surface adds to its JSON, and the note for people.
    static func phase<T>(_ loaded: Loaded<T>, noun: String) -> (data: [String: JSONValue], note: String?) {
        let data: [String: JSONValue] = [
            "phase": .string(loaded.phase.rawValue), "stale": .bool(loaded.isStale),
            "stale_reason": loaded.staleReason.map(JSONValue.string) ?? .null,
        ]
        let note: String?
        switch loaded.phase {
        case .content:
            note = loaded.staleReason.map { "showing cached \(noun) — last refresh failed: \(Cell.shown($0))" }
        case .loading: note = "No \(noun) on this device yet; run 'sync' (online, signed in) to pull them."
        case .failed: note = "No \(noun) on this device: the last refresh failed. Run 'sync' when online."
        case .empty: note = "The server has no \(noun) for you."
        }
        return (data, note)
    }

    static func render(_ lines: [String], note: String?) -> String {
        ([note].compactMap { $0 } + lines).joined(separator: "\n")
    }

    static func read<T>(_ body: () throws -> T) throws -> T {
        try body()
    }

    static let contracts = Command("contracts", summary: "Contracts of the active facilities (cached).") { context, _ in
        let engine = try await context.engine()
        let loaded = try read { try engine.app.reference.contracts() }
        let (data, note) = phase(loaded, noun: "contracts")
        let lines = loaded.value.map { "\($0.id)  \(Cell.shown($0.name))" }
        return CommandOutput(
            render(lines, note: note),
            data: data.merging([
                "contracts": .array(loaded.value.map { ViewJSON.value(ContractView($0)) })
            ]) { $1 })
    }

    static let facilities = Command(
        "facilities", arguments: [.option("contract", "ID", .integer, help: "only the facilities of this contract")],
        summary: "Active facilities (cached), optionally of one contract."
    ) { context, arguments in
        let usage = arguments.usage
        guard arguments.positionals.isEmpty else {
            throw ShellError.usage("facilities takes no words. Usage: \(usage)")
        }
        let contract = try arguments.intOption("contract")
        let engine = try await context.engine()
        let loaded = try read { try engine.app.reference.facilities(contractID: contract) }
        let (data, note) = phase(loaded, noun: "facilities")
        let lines = loaded.value.map {
            "\($0.id)  \(Cell.shown($0.name))  — \(Cell.shown($0.projectName) ?? "no contract")"
        }
        let items = loaded.value.map { ViewJSON.value(FacilityView($0)) }
        return CommandOutput(render(lines, note: note), data: data.merging(["facilities": .array(items)]) { $1 })
    }

    static let areas = Command(
        "areas", arguments: [.positional("FACILITY_ID", .integer, help: "a facility id from 'facilities'")],
        summary: "Areas of one facility (cached)."
    ) { context, arguments in
        let usage = arguments.usage
        guard arguments.positionals.count == 1, let facility = Int(arguments.positionals[0]) else {
            throw ShellError.usage("Give one FACILITY_ID (a number from 'facilities'). Usage: \(usage)")
        }
        let engine = try await context.engine()
        let loaded = try read { try engine.app.reference.areas(facilityID: facility) }
        if loaded.value.isEmpty, try read({ try engine.app.reference.store.facility(id: facility) }) == nil,
            try !read({ try engine.app.reference.store.facilities(activeOnly: false) }).isEmpty
        {
            // The facilities are on the device and this id is not one of them: say so, not "run sync".
            throw ShellError.failed("There is no facility \(facility) on this device; 'facilities' lists them.")
        }
        let (data, note) = phase(loaded, noun: "areas")
        let lines = loaded.value.map {
            "\($0.id)  \(Cell.shown($0.name))" + ($0.areaType.map { " (\(Cell.shown($0)))" } ?? "")
        }
        let items = loaded.value.map { ViewJSON.value(AreaView($0)) }
        return CommandOutput(render(lines, note: note), data: data.merging(["areas": .array(items)]) { $1 })
    }

    static let templates = Command("templates", summary: "Active inspection templates (cached).") { context, _ in
        let engine = try await context.engine()
        let loaded = try read { try engine.app.reference.templates() }
        let (data, note) = phase(loaded, noun: "templates")
        let lines = loaded.value.map {
            "\($0.id)  \(Cell.shown($0.name))" + ($0.description.map { " — \(Cell.shown($0))" } ?? "")
        }
        let items = loaded.value.map { ViewJSON.value(TemplateView($0)) }
        return CommandOutput(render(lines, note: note), data: data.merging(["templates": .array(items)]) { $1 })
    }

    static let clearCache = Command(
        "clear-cache", summary: "Delete cached facilities, areas and templates (never inspections, issues or photos).",
        help: "The next 'sync' pulls them again (seed 001 §20, rule 19)."
    ) { context, _ in
        let engine = try await context.engine()
        try read { try engine.app.reference.clearCache() }
        return CommandOutput(
            "Reference cache cleared; run 'sync' to pull facilities, areas and templates again.",
            data: ["cleared": ["facilities", "areas", "templates"]])
    }
}
