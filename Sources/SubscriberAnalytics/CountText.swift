/// How a count is written for people (report tables, the dashboard): `12,345`. JSON and CSV keep
/// plain digits for scripts.
public enum CountText {
    public static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return (n < 0 ? "-" : "") + out
    }
}
