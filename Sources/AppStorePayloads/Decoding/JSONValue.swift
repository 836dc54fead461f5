/// A parsed JSON value. Objects keep their members in document order; lookups are linear,
/// which beats hashing for the dozen-key objects Apple sends.
enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    var object: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
    var array: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    var string: String? { if case .string(let s) = self { return s } else { return nil } }

    /// How a value is named in a rejection: `true`, `12`, `"abc"`, `an object`.
    var foundDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s):
            let shown = s.count > 40 ? String(s.prefix(40)) + "…" : s
            return "\"" + shown + "\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The kind of a value in a sentence: `an object`, `an array`, `a string`.
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON object's members in document order.
struct JSONObject: Sendable {
    var members: [(key: String, value: JSONValue)]

    subscript(key: String) -> JSONValue? {
        for member in members where member.key == key { return member.value }
        return nil
    }

    var keys: [String] { members.map(\.key) }
}
