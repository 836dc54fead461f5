import Foundation
import SubscriptionModel
import Testing

@testable import LifecycleSimulator

@Suite("v1 bodies")
struct V1PayloadTests {
    static let rowFields = [
        "expires_date", "expires_date_ms", "expires_date_pst", "in_app_ownership_type",
        "is_in_intro_offer_period", "is_trial_period", "original_purchase_date", "original_purchase_date_ms",
        "original_purchase_date_pst", "original_transaction_id", "product_id", "purchase_date",
        "purchase_date_ms", "purchase_date_pst", "quantity", "subscription_group_identifier",
        "transaction_id", "web_order_line_item_id",
    ]

    @Test func everyBodyHasTheFieldsAppleSends() throws {
        let dir = Scratch.directory("v1")
        defer { try? FileManager.default.removeItem(at: dir) }
        let manifest = try Simulator(configuration: SimulationConfiguration(seed: 4, subscribers: 400, format: .v1)).generate(
            into: dir)
        #expect(manifest.documents.v2 == 0)
        let lines = Scratch.lines(try Data(contentsOf: dir.appendingPathComponent("v1/notifications-0001.ndjson")))
        #expect(lines.count == manifest.documents.v1)
        var types = Set<String>()
        var sawUnsorted = false
        var sawUpgrade = false
        var sawRefund = false
        for line in lines {
            let body = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
            let type = try #require(body["notification_type"] as? String)
            types.insert(type)
            #expect(["PROD", "Sandbox"].contains(body["environment"] as? String ?? ""))
            #expect(["true", "false"].contains(body["auto_renew_status"] as? String ?? ""))
            for key in ["auto_renew_product_id", "auto_renew_adam_id", "bid", "bvrs", "password"] {
                #expect(body[key] is String, "\(type) lacks \(key)")
            }
            #expect(body["original_transaction_id"] is NSNumber)
            if type == "DID_CHANGE_RENEWAL_STATUS" {
                #expect(Int64(body["auto_renew_status_change_date_ms"] as? String ?? "") != nil)
                #expect((body["auto_renew_status_change_date"] as? String)?.hasSuffix(" Etc/GMT") == true)
                #expect((body["auto_renew_status_change_date_pst"] as? String)?.hasSuffix(" America/Los_Angeles") == true)
            }
            let receipt = try #require(body["unified_receipt"] as? [String: Any])
            #expect((receipt["status"] as? NSNumber)?.intValue == 0)
            #expect(["Production", "Sandbox"].contains(receipt["environment"] as? String ?? ""))
            #expect(receipt["latest_receipt"] is String)
            let rows = try #require(receipt["latest_receipt_info"] as? [[String: Any]])
            #expect(!rows.isEmpty)
            for row in rows {
                for key in Self.rowFields { #expect(row[key] is String, "\(type) row lacks \(key)") }
                #expect(row.values.allSatisfy { $0 is String }, "v1 rows hold only strings")
                if row["is_upgraded"] != nil {
                    sawUpgrade = true
                    #expect(row["cancellation_date_ms"] is String)
                }
                if row["cancellation_reason"] != nil { sawRefund = true }
            }
            let purchases = rows.compactMap { Int64($0["purchase_date_ms"] as? String ?? "") }
            if purchases != purchases.sorted(by: >) { sawUnsorted = true }
            let pending = try #require(receipt["pending_renewal_info"] as? [[String: Any]])
            #expect(pending.count == 1)
            #expect(["1", "0"].contains(pending.first?["auto_renew_status"] as? String ?? ""))
            #expect(pending.first?["original_transaction_id"] as? String == rows.first?["original_transaction_id"] as? String)
            if type == "DID_FAIL_TO_RENEW" { #expect(pending.first?["is_in_billing_retry_period"] as? String == "1") }
        }
        #expect(
            types.isSuperset(of: [
                "INITIAL_BUY", "DID_RENEW", "DID_CHANGE_RENEWAL_STATUS", "DID_FAIL_TO_RENEW",
                "DID_RECOVER", "INTERACTIVE_RENEWAL", "CANCEL", "DID_CHANGE_RENEWAL_PREF",
                "PRICE_INCREASE_CONSENT",
            ]))
        #expect(sawUnsorted && sawUpgrade && sawRefund)
    }

    @Test func pacificTimeFollowsDaylightSaving() {
        var out: [UInt8] = []
        WireDate.pacific(UTCCalendar.instant(year: 2020, month: 11, day: 25, hour: 8, minute: 26, second: 2), into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "2020-11-25 00:26:02 America/Los_Angeles")
        out = []
        WireDate.pacific(UTCCalendar.instant(year: 2024, month: 7, day: 1, hour: 12), into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "2024-07-01 05:00:00 America/Los_Angeles")
        out = []
        WireDate.gmt(UTCCalendar.instant(year: 2024, month: 3, day: 10, hour: 9, minute: 59, second: 59), into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "2024-03-10 09:59:59 Etc/GMT")
        #expect(!WireDate.isPacificDaylightTime(UTCCalendar.instant(year: 2024, month: 3, day: 10, hour: 9, minute: 59)))
        #expect(WireDate.isPacificDaylightTime(UTCCalendar.instant(year: 2024, month: 3, day: 10, hour: 10)))
        #expect(!WireDate.isPacificDaylightTime(UTCCalendar.instant(year: 2024, month: 11, day: 3, hour: 9)))
    }
}
