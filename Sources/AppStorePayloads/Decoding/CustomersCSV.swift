import Foundation
import SubscriptionModel

/// A customers CSV: a header naming any subset, in any order, of `userId`, `email`,
/// `appAccountToken`, `originalTransactionId`, then one customer per line. Fields may be quoted
/// (`"Doe, Jane"`, `""` for a quote inside); a quoted field cannot span lines.
///
/// `DocumentReader` cuts the file into one document per row, each holding the header line and
/// the row, so a row decodes (and is archived and rejected) on its own.
enum CustomersCSV {
    enum Column: String, CaseIterable {
        case userId, email, appAccountToken, originalTransactionId
    }

    /// The columns of a header line, or nil when it is not a customers CSV header.
    static func header(_ line: Substring) -> [Column]? {
        guard let fields = try? fields(line) else { return nil }
        var columns: [Column] = []
        for field in fields {
            let name = field.trimmingCharacters(in: .whitespaces).lowercased()
            guard let column = Column.allCases.first(where: { $0.rawValue.lowercased() == name }),
                !columns.contains(column)
            else { return nil }
            columns.append(column)
        }
        return columns.isEmpty ? nil : columns
    }

    /// Why a header line that should be a customers CSV header is not one.
    static func headerProblem(_ line: Substring) -> String {
        let names = ((try? fields(line)) ?? []).map { $0.trimmingCharacters(in: .whitespaces) }
        let known = Column.allCases.map(\.rawValue)
        if let unknown = names.first(where: { name in !known.contains { $0.lowercased() == name.lowercased() } }) {
            return "unknown column \"\(unknown)\" in the CSV header (expected any of \(known.joined(separator: ", ")))"
        }
        return "the CSV header names a column twice or none at all (expected any of \(known.joined(separator: ", ")))"
    }

    /// Decodes a document of a header line and one or more rows.
    static func decode(_ text: String) throws(PayloadError) -> DocumentFacts {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)[...]
        while let last = lines.last, last.allSatisfy(\.isWhitespace) { lines.removeLast() }
        guard let headerLine = lines.first else { throw PayloadError("empty CSV document") }
        guard let columns = header(headerLine) else { throw PayloadError(headerProblem(headerLine)) }
        var customers: [CustomerFact] = []
        for (i, line) in lines.dropFirst().enumerated() where !line.allSatisfy(\.isWhitespace) {
            do throws(PayloadError) {
                customers.append(try customer(line, columns: columns))
            } catch {
                throw lines.count > 2 ? PayloadError("row \(i + 1): \(error.reason)") : error
            }
        }
        guard !customers.isEmpty else { throw PayloadError("the CSV document has a header but no row") }
        return DocumentFacts(format: .customersCSV, customers: customers)
    }

    static func customer(_ line: Substring, columns: [Column]) throws(PayloadError) -> CustomerFact {
        let values = try fields(line)
        guard values.count == columns.count else {
            throw PayloadError("expected \(columns.count) field\(columns.count == 1 ? "" : "s"), found \(values.count)")
        }
        var customer = CustomerFact()
        for (column, raw) in zip(columns, values) {
            let value = raw.trimmingCharacters(in: .whitespaces)
            let field: String? = value.isEmpty ? nil : value
            switch column {
            case .userId: customer.userId = field
            case .email: customer.email = field
            case .appAccountToken: customer.appAccountToken = field?.lowercased()
            case .originalTransactionId: customer.originalTransactionId = field
            }
        }
        guard
            customer.userId != nil || customer.email != nil || customer.appAccountToken != nil
                || customer.originalTransactionId != nil
        else {
            throw PayloadError("the row has no value in any column")
        }
        return customer
    }

    /// Splits one line into fields (RFC 4180 quoting, within the line).
    static func fields(_ line: Substring) throws(PayloadError) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var atFieldStart = true
        var iterator = line.makeIterator()
        var pending: Character?
        while let c = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if c == "\"" {
                    let next = iterator.next()
                    if next == "\"" {
                        current.append("\"")
                    } else {
                        quoted = false
                        pending = next
                    }
                } else {
                    current.append(c)
                }
            } else if c == "\"" && atFieldStart {
                quoted = true
                atFieldStart = false
            } else if c == "," {
                fields.append(current)
                current = ""
                atFieldStart = true
            } else if c == "\r" || c == "\n" {
                continue
            } else {
                if c == "\"" {
                    throw PayloadError("a quote inside an unquoted field (quote the whole field and double the quote)")
                }
                current.append(c)
                atFieldStart = false
            }
        }
        if quoted { throw PayloadError("a quoted field is not closed before the end of the line") }
        fields.append(current)
        return fields
    }
}
