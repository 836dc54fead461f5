import SubscriberAnalytics
import Testing

@Suite struct CSVInjectionTests {
    @Test func formulaCellsGetALeadingQuote() {
        let csv = CSV.render(
            header: ["operator", "note", "n"],
            rows: [
                ["=cmd|' /C calc'!A0", #"=HYPERLINK("http://x","y")"#, "-3"],
                ["+1+1", "@SUM(A1)", "-0.25"],
                ["\tx", "\rtab", "-x"],
                ["ann", "ok = fine", "+44"],
            ])
        #expect(
            csv == """
                operator,note,n
                '=cmd|' /C calc'!A0,"'=HYPERLINK(""http://x"",""y"")",-3
                '+1+1,'@SUM(A1),-0.25
                '\tx,"'\rtab",'-x
                ann,ok = fine,+44
                """)
    }
}
