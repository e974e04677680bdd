import Foundation
import JQCKit

/// A list item of a pull that could not be read: where, its id when that much was readable, and why.
public struct ListItemFailure: Sendable, Hashable, CustomStringConvertible {
    /// The item's position in the list, from 0.
    public var index: Int
    /// The item's `id` when it is an integer (the item is then treated as present on the server), else `nil`.
    public var id: Int?
    /// The shape error with its path (`data[2].facility_id: expected an integer, got a string`).
    public var reason: String

    /// A failure.
    public init(index: Int, id: Int?, reason: String) {
        self.index = index
        self.id = id
        self.reason = reason
    }

    /// The reason (which names the path).
    public var description: String { reason }
}

/// A pulled list decoded item by item (issue 21): a malformed item fails that item only, and the list says which
/// ids the server proved present, so a deletion pass never deletes what an unreadable item stood for.
///
/// ``presentIDs`` holds the `id` of every element that has an integer `id` — decoded or not. When some element's
/// `id` itself cannot be read, the reply proves no id absent (``provesAbsent(_:)`` is always `false`) and
/// deletion passes are skipped for that pull.
public struct DecodedList<Item: Sendable>: Sendable {
    /// The items that decoded, in the reply's order.
    public var items: [Item]
    /// The items that did not, in order.
    public var failures: [ListItemFailure]
    /// The ids present in the reply (readable ids of decoded and failed items alike).
    public var presentIDs: Set<Int>
    /// Whether every element's `id` was readable.
    public var everyIDReadable: Bool

    /// A decoded list.
    public init(items: [Item], failures: [ListItemFailure], presentIDs: Set<Int>, everyIDReadable: Bool) {
        self.items = items
        self.failures = failures
        self.presentIDs = presentIDs
        self.everyIDReadable = everyIDReadable
    }

    /// Whether the reply proves that `id` is gone from the server: every id was readable and `id` is not among
    /// them. Deletion passes delete only such ids.
    public func provesAbsent(_ id: Int) -> Bool { everyIDReadable && !presentIDs.contains(id) }

    /// The failures as sentences for a stage report, each prefixed with `list` (`issues: data[2].id: …`).
    public func problems(_ list: String) -> [String] { failures.map { "\(list): \($0.reason)" } }

    /// Decodes `data` (which must be a list) item by item with `decodeItem`.
    /// - Parameters:
    ///   - data: the list, parsed losslessly.
    ///   - path: where the list sits (`data` itself by default; `data.inspections` inside an object).
    ///   - idKey: the member that identifies an item (`id`).
    ///   - decodeItem: reads one element at its path; throws ``ReplyShapeError`` or ``APIError`` for a bad one.
    /// - Throws: ``APIError/undecodable(_:)`` when `data` is not a list (nothing can be learnt from it).
    public static func decode(
        _ data: JSONValue, at path: ReplyPath = ReplyPath(), idKey: String = "id",
        _ decodeItem: (JSONValue, ReplyPath) throws -> Item
    ) throws -> DecodedList<Item> {
        guard case .array(let elements) = data else {
            throw APIError.undecodable(ReplyShapeError.mismatch(path, expected: "a list", got: data).description)
        }
        var list = DecodedList(items: [], failures: [], presentIDs: [], everyIDReadable: true)
        list.items.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let at = path.appending(index: index)
            let id = element[idKey].flatMap(DecodedList.integerID)
            if let id { list.presentIDs.insert(id) } else { list.everyIDReadable = false }
            do {
                list.items.append(try decodeItem(element, at))
            } catch let error as ReplyShapeError {
                list.failures.append(ListItemFailure(index: index, id: id, reason: error.description))
            } catch let error as APIError {
                if case .undecodable(let reason) = error {
                    list.failures.append(ListItemFailure(index: index, id: id, reason: reason))
                } else {
                    throw error
                }
            }
        }
        return list
    }

    /// An `id` that is an integer (or an integral number) in `Int`'s range, else `nil`.
    static func integerID(_ value: JSONValue) -> Int? {
        switch value {
        case .int(let number): Int(exactly: number)
        case .double(let number) where number.isFinite && number.rounded() == number: Int(exactly: number)
        default: nil
        }
    }
}

extension DecodedList where Item: Decodable {
    /// Decodes `data` (a list) as `Item`s with ``APIClient/decode(_:from:at:)``, item by item.
    /// - Throws: ``APIError/undecodable(_:)`` when `data` is not a list.
    public static func decode(_ data: JSONValue, at path: ReplyPath = ReplyPath(), idKey: String = "id") throws
        -> DecodedList<Item>
    {
        try decode(data, at: path, idKey: idKey) { element, at in
            try ReplyDecoder.decode(Item.self, from: element, at: at)
        }
    }
}
