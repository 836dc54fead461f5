import SubscriptionModel

/// One JSON object being read, with its path for messages such as
/// `unified_receipt.latest_receipt_info[2].expires_date_ms: expected a millisecond string, found true`.
///
/// v1 readers accept Apple's string encodings (`"1606292762000"`, `"true"`, `"1"`); v2 readers
/// accept JSON numbers and booleans. Absent, `null` and (for v1) empty strings read as nil.
struct FieldReader {
    let object: JSONObject
    private let basePath: String
    private let index: Int?
    let cursor = JSONCursor()

    /// The member `key`, looked up from after the last one read: reading members in document
    /// order (Apple and the simulator write them sorted) costs one comparison each.
    func value(_ key: String) -> JSONValue? { object.value(key, cursor: cursor) }

    init(_ object: JSONObject, path: String) {
        self.object = object
        self.basePath = path
        self.index = nil
    }

    /// The element `index` of the array at `arrayPath`; its path is only spelled out for a message.
    init(_ object: JSONObject, arrayPath: String, index: Int) {
        self.object = object
        self.basePath = arrayPath
        self.index = index
    }

    var path: String { index.map { "\(basePath)[\($0)]" } ?? basePath }

    func path(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func mismatch(_ key: String, expected: String, found: JSONValue) -> PayloadError {
        PayloadError("\(path(key)): expected \(expected), found \(found.foundDescription)")
    }

    func missing(_ key: String) -> PayloadError {
        PayloadError(path.isEmpty ? "missing \(key)" : "\(path): missing \(key)")
    }

    func has(_ key: String) -> Bool {
        switch value(key) {
        case nil, .null?: return false
        default: return true
        }
    }

    // MARK: - Structure

    func object(_ key: String) throws(PayloadError) -> FieldReader? {
        switch value(key) {
        case nil, .null?: return nil
        case .object(let o)?: return FieldReader(o, path: path(key))
        case let value?: throw mismatch(key, expected: "an object", found: value)
        }
    }

    /// The objects of an array; `[2]` is added to the path of the third.
    func objects(_ key: String) throws(PayloadError) -> [FieldReader] {
        switch value(key) {
        case nil, .null?: return []
        case .array(let elements)?:
            var readers: [FieldReader] = []
            readers.reserveCapacity(elements.count)
            let base = path(key)
            for (i, element) in elements.enumerated() {
                guard case .object(let o) = element else {
                    throw PayloadError("\(base)[\(i)]: expected an object, found \(element.foundDescription)")
                }
                readers.append(FieldReader(o, arrayPath: base, index: i))
            }
            return readers
        case let value?: throw mismatch(key, expected: "an array of objects", found: value)
        }
    }

    // MARK: - v2 (JSON types)

    func string(_ key: String) throws(PayloadError) -> String? {
        switch value(key) {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let value?: throw mismatch(key, expected: "a string", found: value)
        }
    }

    func requiredString(_ key: String) throws(PayloadError) -> String {
        guard let s = try string(key) else { throw missing(key) }
        return s
    }

    func int(_ key: String) throws(PayloadError) -> Int? {
        switch value(key) {
        case nil, .null?: return nil
        case .integer(let i)?: return Int(i)
        case .double(let d)? where d == d.rounded() && abs(d) < 1e15: return Int(d)
        case let value?: throw mismatch(key, expected: "an integer", found: value)
        }
    }

    func int64(_ key: String) throws(PayloadError) -> Int64? {
        switch value(key) {
        case nil, .null?: return nil
        case .integer(let i)?: return i
        case .double(let d)? where d == d.rounded() && abs(d) < 9e18: return Int64(d)
        case let value?: throw mismatch(key, expected: "an integer", found: value)
        }
    }

    func bool(_ key: String) throws(PayloadError) -> Bool? {
        switch value(key) {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        case let value?: throw mismatch(key, expected: "true or false", found: value)
        }
    }

    /// v2 dates: integer milliseconds, or fractional ones (Xcode) truncated toward the past. A
    /// date that lies too far ahead for its `kind` (``PlausibleDates``) rejects the document.
    func milliseconds(_ key: String, _ kind: PlausibleDates.Kind = .happened) throws(PayloadError) -> Instant? {
        switch value(key) {
        case nil, .null?: return nil
        case .integer(let i)?: return try plausible(key, Instant(milliseconds: i), kind)
        case .double(let d)? where d.isFinite && abs(d) < 9e18:
            return try plausible(key, Instant(milliseconds: Int64(d.rounded(.down))), kind)
        case let value?: throw mismatch(key, expected: "milliseconds since 1970 (a number)", found: value)
        }
    }

    /// `instant`, when it lies in ``PlausibleDates``' range for `kind`; otherwise the document is
    /// rejected naming the field, so that one forged date cannot move the data horizon.
    func plausible(_ key: String, _ instant: Instant, _ kind: PlausibleDates.Kind) throws(PayloadError) -> Instant {
        if let reason = PlausibleDates.rejection(path(key), instant, kind) { throw PayloadError(reason) }
        return instant
    }

    func environment(_ key: String) throws(PayloadError) -> StoreEnvironment? {
        guard let text = try string(key) else { return nil }
        return StoreEnvironment(wire: text)
    }

    // MARK: - v1 (everything is a string)

    /// A v1 identifier: a string, or a number written without quotes (top-level
    /// `original_transaction_id` is documented as a long).
    func v1String(_ key: String) throws(PayloadError) -> String? {
        switch value(key) {
        case nil, .null?: return nil
        case .string(let s)?: return s.isEmpty ? nil : s
        case .integer(let i)?: return String(i)
        case let value?: throw mismatch(key, expected: "a string", found: value)
        }
    }

    func requiredV1String(_ key: String) throws(PayloadError) -> String {
        guard let s = try v1String(key) else { throw missing(key) }
        return s
    }

    /// `*_date_ms`: a string of decimal milliseconds (a bare integer is tolerated). Read from
    /// the document's bytes without making a `String`: three of these per receipt row.
    func v1Milliseconds(_ key: String, _ kind: PlausibleDates.Kind = .happened) throws(PayloadError) -> Instant? {
        guard let i = object.valueIndex(key, cursor: cursor) else { return nil }
        let tape = object.tape
        switch tape.tokens[i].kind {
        case .null: return nil
        case .integer: return try plausible(key, Instant(milliseconds: tape.tokens[i].payload), kind)
        case .string:
            let parsed = tape.withPlainString(at: i) { bytes -> Int64?? in
                bytes.isEmpty ? .some(nil) : Self.decimal(bytes).map { .some($0) }
            }
            switch parsed {
            case .some(.some(.some(let ms))): return try plausible(key, Instant(milliseconds: ms), kind)
            case .some(.some(.none)): return nil
            default: throw mismatch(key, expected: "a millisecond string", found: tape.value(at: i))
            }
        default: throw mismatch(key, expected: "a millisecond string", found: tape.value(at: i))
        }
    }

    /// A v1 boolean: `"true"`/`"false"` (notification top level, receipt rows) or `"1"`/`"0"`
    /// (`pending_renewal_info`). Either spelling is read wherever it appears; `expected` names
    /// the documented one in messages.
    func v1Bool(_ key: String, expected: String = "\"true\" or \"false\"") throws(PayloadError) -> Bool? {
        guard let i = object.valueIndex(key, cursor: cursor) else { return nil }
        let tape = object.tape
        switch tape.tokens[i].kind {
        case .null: return nil
        case .true: return true
        case .false: return false
        case .integer where tape.tokens[i].payload == 0 || tape.tokens[i].payload == 1: return tape.tokens[i].payload == 1
        case .string:
            // 0 false, 1 true, 2 empty, 3 anything else
            let verdict = tape.withPlainString(at: i) { bytes -> Int in
                switch bytes.count {
                case 0: return 2
                case 1: return bytes[0] == UInt8(ascii: "1") ? 1 : bytes[0] == UInt8(ascii: "0") ? 0 : 3
                case 4: return bytes.elementsEqual("true".utf8) ? 1 : 3
                case 5: return bytes.elementsEqual("false".utf8) ? 0 : 3
                default: return 3
                }
            }
            switch verdict {
            case 0: return false
            case 1: return true
            case 2: return nil
            default: throw mismatch(key, expected: expected, found: tape.value(at: i))
            }
        default: throw mismatch(key, expected: expected, found: tape.value(at: i))
        }
    }

    /// A small v1 integer code (`"1"`…`"5"`, `0`, …): a decimal string or a bare integer.
    func v1Int(_ key: String) throws(PayloadError) -> Int? {
        switch value(key) {
        case nil, .null?: return nil
        case .string(let s)?:
            if s.isEmpty { return nil }
            guard let i = Self.decimal(s) else { throw mismatch(key, expected: "an integer string", found: .string(s)) }
            return Int(i)
        case .integer(let i)?: return Int(i)
        case let value?: throw mismatch(key, expected: "an integer string", found: value)
        }
    }

    /// A non-negative decimal of at most 18 digits, or nil.
    static func decimal(_ s: String) -> Int64? { decimal(s.utf8) }

    static func decimal<S: Sequence>(_ digits: S) -> Int64? where S.Element == UInt8 {
        var value: Int64 = 0
        var count = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), count < 18 else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            count += 1
        }
        return count == 0 ? nil : value
    }
}
