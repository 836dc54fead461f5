import Foundation

/// A JSON object that keeps its keys in insertion order.
public struct JSONOutputObject: Sendable, Equatable {
    public private(set) var keys: [String] = []
    private var values: [String: JSONOutput] = [:]

    public init() {}

    public subscript(key: String) -> JSONOutput? {
        get { values[key] }
        set {
            if values[key] == nil, newValue != nil { keys.append(key) }
            if newValue == nil { keys.removeAll { $0 == key } }
            values[key] = newValue
        }
    }
}

/// A JSON value as subdash writes it, with a compact, deterministic rendering (the reports, and
/// the `--format json` of flags, consumption and support commands). Reading JSON is
/// AppStorePayloads' own `JSONValue`, a different type.
public indirect enum JSONOutput: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONOutput])
    case object(JSONOutputObject)

    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isFinite { out += d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : "\(d)" } else { out += "null" }
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, k) in o.keys.enumerated() {
                if i > 0 { out += "," }
                Self.writeString(k, to: &out)
                out += ":"
                o[k]!.write(to: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += s
            out += "\""
            return
        }
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20: out += String(format: "\\u%04x", u.value)
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }
}

extension JSONOutput {
    /// An amount in currency units (milliunits / 1000).
    static func amount(_ milliunits: Int64) -> JSONOutput { .double(Double(milliunits) / 1000) }

}
