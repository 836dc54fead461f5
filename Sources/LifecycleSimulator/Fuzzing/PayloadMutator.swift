import Foundation

/// Hostile variants of well-formed documents, for fuzzing the importer: each is what a broken
/// sender, a truncated download or an attacker could hand subdash. Deterministic for a seed.
public struct PayloadMutator: Sendable {
    /// The kinds of damage, one per mutant.
    public enum Kind: String, CaseIterable, Sendable {
        case truncate, flipBytes, deepNesting, hugeNumber, wrongType, invalidUTF8, nul, bom, crlf,
            duplicateKey, hugeString, jwsAlgNone, jwsHS256, jwsBadBase64, jwsX5cCount, jwsSwapPayload
    }

    /// The size of the `hugeString` mutants' string (10 MB).
    public var hugeStringBytes = 10_000_000

    public init() {}

    /// One mutant of `seed` of the given kind, drawing from `rng`.
    public func mutate(_ seed: [UInt8], kind: Kind, rng: inout SplitMix64) -> [UInt8] {
        var bytes = seed
        func index(_ count: Int) -> Int { count <= 0 ? 0 : Int(rng.next() % UInt64(count)) }
        switch kind {
        case .truncate:
            bytes = Array(bytes.prefix(index(bytes.count)))
        case .flipBytes:
            for _ in 0..<(1 + index(8)) where !bytes.isEmpty {
                bytes[index(bytes.count)] ^= UInt8(truncatingIfNeeded: 1 << index(8))
            }
        case .deepNesting:
            let depth = 1 + index(200_000)
            bytes =
                [UInt8](repeating: UInt8(ascii: "["), count: depth) + bytes + [UInt8](repeating: UInt8(ascii: "]"), count: depth)
        case .hugeNumber:
            bytes = replaceNumber(
                bytes,
                with: Array(
                    [
                        "1e999999", "-0", "18446744073709551616000", "9" + String(repeating: "9", count: 400),
                        "1.5e-400", "-9223372036854775809",
                    ][index(6)].utf8), at: index(1000))
        case .wrongType:
            bytes = replaceValue(bytes, with: Array(["true", "null", "[]", "{}", "\"x\"", "1"][index(6)].utf8), at: index(1000))
        case .invalidUTF8:
            let bad: [[UInt8]] = [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]]
            bytes.insert(contentsOf: bad[index(bad.count)], at: index(bytes.count + 1))
        case .nul:
            let nul: [UInt8] = index(2) == 0 ? [0] : Array(#"\u0000"#.utf8)
            bytes = insertInString(bytes, nul, at: index(1000))
        case .bom:
            bytes = [0xEF, 0xBB, 0xBF] + bytes
        case .crlf:
            bytes = bytes.flatMap { $0 == 0x0A ? [0x0D, 0x0A] : [$0] } + [0x0D, 0x0A]
        case .duplicateKey:
            if let open = bytes.firstIndex(of: UInt8(ascii: "{")), let comma = bytes[open...].firstIndex(of: UInt8(ascii: ",")) {
                bytes.insert(contentsOf: Array(bytes[(open + 1)...comma]), at: open + 1)
            }
        case .hugeString:
            bytes = insertInString(bytes, [UInt8](repeating: UInt8(ascii: "a"), count: hugeStringBytes), at: index(1000))
        case .jwsAlgNone, .jwsHS256, .jwsBadBase64, .jwsX5cCount, .jwsSwapPayload:
            bytes = mutateJWS(bytes, kind: kind, rng: &rng)
        }
        return bytes
    }

    // MARK: - JSON surgery (by bytes: the mutants need not stay JSON)

    /// The start offsets of every JSON string token (after its quote).
    private func strings(_ bytes: [UInt8]) -> [Int] {
        var starts: [Int] = []
        var i = 0
        var inString = false
        while i < bytes.count {
            let b = bytes[i]
            if inString {
                if b == UInt8(ascii: "\\") {
                    i += 2
                    continue
                }
                if b == UInt8(ascii: "\"") { inString = false }
            } else if b == UInt8(ascii: "\"") {
                inString = true
                starts.append(i + 1)
            }
            i += 1
        }
        return starts
    }

    private func insertInString(_ bytes: [UInt8], _ insert: [UInt8], at pick: Int) -> [UInt8] {
        let starts = strings(bytes)
        guard !starts.isEmpty else { return insert + bytes }
        var out = bytes
        out.insert(contentsOf: insert, at: starts[pick % starts.count])
        return out
    }

    /// Replaces the value after the `pick`-th `:`.
    private func replaceValue(_ bytes: [UInt8], with value: [UInt8], at pick: Int) -> [UInt8] {
        let colons = bytes.indices.filter { bytes[$0] == UInt8(ascii: ":") }
        guard !colons.isEmpty else { return value }
        let start = colons[pick % colons.count] + 1
        var end = start
        var depth = 0
        var inString = false
        while end < bytes.count {
            let b = bytes[end]
            if inString {
                if b == UInt8(ascii: "\\") {
                    end += 2
                    continue
                }
                if b == UInt8(ascii: "\"") { inString = false }
            } else {
                switch b {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { return Array(bytes[..<start]) + value + Array(bytes[end...]) }
                    depth -= 1
                case UInt8(ascii: ","):
                    if depth == 0 { return Array(bytes[..<start]) + value + Array(bytes[end...]) }
                default: break
                }
            }
            end += 1
        }
        return Array(bytes[..<start]) + value
    }

    /// Replaces a run of digits (a number, or the digits of a millisecond string).
    private func replaceNumber(_ bytes: [UInt8], with number: [UInt8], at pick: Int) -> [UInt8] {
        var runs: [Range<Int>] = []
        var i = 0
        while i < bytes.count {
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) {
                let start = i
                while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
                if i - start >= 4 { runs.append(start..<i) }
            } else {
                i += 1
            }
        }
        guard !runs.isEmpty else { return bytes + number }
        var out = bytes
        out.replaceSubrange(runs[pick % runs.count], with: number)
        return out
    }

    // MARK: - JWS

    /// The first compact JWS in `bytes` (`eyJ…`), mutated in its header or segments.
    private func mutateJWS(_ bytes: [UInt8], kind: Kind, rng: inout SplitMix64) -> [UInt8] {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let start = text.range(of: "eyJ") else { return bytes }
        let tail = text[start.lowerBound...]
        let end = tail.firstIndex { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") } ?? tail.endIndex
        let jws = String(tail[..<end])
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { return bytes }
        var header = parts[0]
        var payload = parts[1]
        var signature = parts[2]
        switch kind {
        case .jwsAlgNone:
            header = Self.base64URL(#"{"alg":"none","typ":"JWT"}"#)
            signature = ""
        case .jwsHS256:
            header = Self.base64URL(#"{"alg":"HS256","typ":"JWT"}"#)
        case .jwsBadBase64:
            payload = String(payload.prefix(payload.count / 2)) + "!*" + String(payload.dropFirst(payload.count / 2))
        case .jwsX5cCount:
            let counts = [0, 1, 2, 4]
            let certificates = (0..<counts[Int(rng.next() % 4)]).map { _ in #""MIIB""# }.joined(separator: ",")
            header = Self.base64URL(#"{"alg":"ES256","x5c":[\#(certificates)]}"#)
        case .jwsSwapPayload:
            payload = Self.base64URL(#"{"notificationType":"DID_RENEW","notificationUUID":"forged","signedDate":1735689600000}"#)
        default:
            break
        }
        let forged = [header, payload, signature].joined(separator: ".")
        return Array(text.replacingCharacters(in: start.lowerBound..<end, with: forged).utf8)
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
