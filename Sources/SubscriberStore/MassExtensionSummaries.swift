import Foundation
import GRDB
import SubscriptionModel

/// A RENEWAL_EXTENSION notification of subtype SUMMARY: Apple's word that a mass extension
/// (`subdash extend --all`) finished, with how many subscriptions it extended (README, "Support
/// actions").
public struct MassExtensionSummary: Hashable, Sendable {
    public var notificationId: String
    public var at: Instant
    /// The request identifier the mass extension was asked with.
    public var requestIdentifier: String
    public var productId: String?
    public var storefronts: [String]
    public var succeeded: Int64?
    public var failed: Int64?
}

extension AppDatabase {
    /// Every RENEWAL_EXTENSION/SUMMARY stored, oldest first, read from its archived signed payload
    /// (verified when it was applied). One whose payload holds no request identifier is left out.
    public func massExtensionSummaries() throws -> [MassExtensionSummary] {
        let rows = try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT notificationId, instant, documentSha256 FROM notification
                    WHERE notificationType = 'RENEWAL_EXTENSION' AND subtype = 'SUMMARY' ORDER BY instant, notificationId
                    """)
        }
        return try rows.compactMap { row in
            let id: String = row[0]
            guard let body = try archivedBody(sha256: row[2]),
                let summary = Self.notificationPayload(in: body, notificationId: id)?["summary"] as? [String: Any],
                let request = summary["requestIdentifier"] as? String
            else { return nil }
            return MassExtensionSummary(
                notificationId: id, at: Instant(milliseconds: row[1]), requestIdentifier: request,
                productId: summary["productId"] as? String, storefronts: summary["storefrontCountryCodes"] as? [String] ?? [],
                succeeded: (summary["succeededCount"] as? NSNumber)?.int64Value,
                failed: (summary["failedCount"] as? NSNumber)?.int64Value)
        }
    }

    /// The decoded payload of the notification `notificationId` in an archived document (a
    /// signed payload, `{"signedPayload": …}`, or a page of notification history).
    static func notificationPayload(in body: Data, notificationId: String) -> [String: Any]? {
        var payloads: [String] = []
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
            if let signed = object["signedPayload"] as? String { payloads.append(signed) }
            for entry in object["notificationHistory"] as? [[String: Any]] ?? [] {
                if let signed = entry["signedPayload"] as? String { payloads.append(signed) }
            }
        } else {
            payloads.append(String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        for jws in payloads {
            let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while text.count % 4 != 0 { text += "=" }
            guard let data = Data(base64Encoded: text),
                let payload = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                payload["notificationUUID"] as? String == notificationId
            else { continue }
            return payload
        }
        return nil
    }
}
