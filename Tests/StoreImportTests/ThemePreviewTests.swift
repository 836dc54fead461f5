import TerminalUI
import Testing

@testable import subdash

/// `subdash themes preview`: the sample screen it draws, as text (blanks at the ends of lines
/// left out).
@Suite struct ThemePreviewTests {
    static func screen(_ preview: ThemePreview, width: Int = 80, height: Int = 24) -> String {
        var buffer = Buffer(width: width, height: height)
        _ = preview.render(into: &buffer, palette: Theme.builtinDefault.palette(for: .none), support: .none)
        return buffer.lines().map { line in String(line.reversed().drop { $0 == " " }.reversed()) }
            .joined(separator: "\n")
    }

    static let preview = ThemePreview(names: ["default", "light"], theme: Theme.builtinDefault)

    /// Every widget in the theme's roles; the third row marked, the second selected, a name too
    /// wide for its column cut with an ellipsis.
    @Test func theSampleScreen() {
        #expect(
            Self.screen(Self.preview) == """
                 1 Subscribers  2 Subscriber  3 Cohorts  4 States & Events  5 Offers
                 Themes  ›  Default (dark)  ›  preview (none)
                ┌ Subscribers ─────────────────────────────┐┌ Cohorts ─────────────────────────┐
                │ ID         State        Plan    Pa…↓ Auto││           M1    M2    M3    M4   │
                │ 1000000101 standard     monthly   14 on  ││2025-01 █ 92% ▓ 71% ▒ 55% ▒ 41% ░ │
                │ 1000000102 freeTrial    yearly     0 on  ││2025-02 █ 88% ▓ 64% ▒ 47%   19%   │
                │*1000000103 billingRetry monthly    7 off ││2025-03 █ 81% ▒ 52%    5%     –   │
                │ 1000000104 gracePeriod  monthly    3 on  ││2025-04 █ 97%     –     –     –   │
                │ 100000010… expired      weekly    22 off ││avg     █ 90% ▓ 62% ░ 36% ░ 30% ░ │
                │                                          ││                                  │
                └──────────────────────────────────────────┘│▁▂▂▃▅▇▅▃▂▂▁ ▂▃▄▅▇█▆▄              │
                ┌ Timeline ────────────────────────────────┐│                                  │
                │░░░░▒▒▒▒▒▒▒▒▒██████████┅┅xxxx─▞▞▞▞▞▞!!!!!!││⠋ loading cohorts                 │
                │            ▲                 ▲           ││                                  │
                │error: the quick brown fox                ││                                  │
                │warning: the quick brown fox              ││                                  │
                │success: the quick brown fox              ││                                  │
                │muted: the quick brown fox                ││                                  │
                │accent: the quick brown fox               ││                                  │
                │                                          ││                                  │
                │                                          ││                                  │
                └──────────────────────────────────────────┘└──────────────────────────────────┘
                 t next theme · : command · f dialog · space mark · q quit
                ? help  t next theme  : command  f flag  space mark  q quit
                """)
    }

    /// `f` opens the confirm dialog over the screen.
    @Test func theDialogOverTheScreen() {
        var preview = Self.preview
        _ = preview.handle(KeyEvent(.char("f")))
        #expect(
            Self.screen(preview) == """
                 1 Subscribers  2 Subscriber  3 Cohorts  4 States & Events  5 Offers
                 Themes  ›  Default (dark)  ›  preview (none)
                ┌ Subscribers ─────────────────────────────┐┌ Cohorts ─────────────────────────┐
                │ ID         State        Plan    Pa…↓ Auto││           M1    M2    M3    M4   │
                │ 1000000101 standard     monthly   14 on  ││2025-01 █ 92% ▓ 71% ▒ 55% ▒ 41% ░ │
                │ 1000000102 freeTrial    yearly     0 on  ││2025-02 █ 88% ▓ 64% ▒ 47%   19%   │
                │*1000000103 billingRetry monthly    7 off ││2025-03 █ 81% ▒ 52%    5%     –   │
                │ 1000000104 gracePeriod  monthly    3 on  ││2025-04 █ 97%     –     –     –   │
                │ 100000010… expired      weekly    22 off ││avg     █ 90% ▓ 62% ░ 36% ░ 30% ░ │
                │                 ┌ Flag subscribers ────────────────────────┐                 │
                └─────────────────│                                          │█▆▄              │
                ┌ Timeline ───────│ Flag 1 subscribers for a win-back offer? │                 │
                │░░░░▒▒▒▒▒▒▒▒▒████│                                          │                 │
                │            ▲    │           [ Flag ]  [ Cancel ]           │                 │
                │error: the quick └──────────────────────────────────────────┘                 │
                │warning: the quick brown fox              ││                                  │
                │success: the quick brown fox              ││                                  │
                │muted: the quick brown fox                ││                                  │
                │accent: the quick brown fox               ││                                  │
                │                                          ││                                  │
                │                                          ││                                  │
                └──────────────────────────────────────────┘└──────────────────────────────────┘
                 t next theme · : command · f dialog · space mark · q quit
                ? help  t next theme  : command  f flag  space mark  q quit
                """)
    }

    @Test func aTerminalTooSmallIsSaidSo() {
        #expect(Self.screen(Self.preview, width: 50, height: 3) == "terminal too small: need 60×20, have 50×3\n\n")
    }
}
