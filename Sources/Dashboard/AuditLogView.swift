import Foundation
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// Entries `:log` shows at most: the newest; `subdash log` prints them all.
let auditLogShown = 30

/// `:log`: the rows `subdash log` prints (who, when, what was asked, the environment, Apple's
/// answer), newest first, sanitised; an overlay any key closes.
func auditLogOverlay(target: String?, _ entries: [AuditEntry]) -> Overlay {
    let title = "Audit log" + (target.map { " of \(TextSanitizer.visible($0))" } ?? "")
    guard !entries.isEmpty else {
        return .message(title: title, text: target == nil ? "The audit log is empty." : "No entry names this subscription.")
    }
    var lines = entries.reversed().prefix(auditLogShown).map { e in
        [e.at.iso8601, e.operatorName, e.target, e.what, e.environment ?? "", readableAnswer(e.answer)]
            .filter { !$0.isEmpty }.map(TextSanitizer.visible).joined(separator: " · ")
    }
    if entries.count > auditLogShown {
        lines.append(
            "(\(entries.count - auditLogShown) older: subdash log\(target.map { " --subscription " + TextSanitizer.visible($0) } ?? ""))"
        )
    }
    return .message(title: title, text: lines.joined(separator: "\n"))
}

/// An extension's answer as the agent reads it: Apple's JSON (which `subdash log` prints whole)
/// becomes the new renewal date it gives; any other answer is shown as stored.
func readableAnswer(_ answer: String) -> String {
    guard let brace = answer.firstIndex(of: "{"),
        let object = try? JSONSerialization.jsonObject(with: Data(answer[brace...].utf8)) as? [String: Any],
        let effective = (object["effectiveDate"] as? NSNumber)?.int64Value
    else { return answer }
    return answer[..<brace] + "Apple's new renewal date " + Instant(milliseconds: effective).iso8601
}
