/// The semantic roles a theme gives a style to. Widgets and panes ask for roles, never colours.
///
/// The raw value is the key used in `Themes/*.theme` files.
public enum ThemeRole: String, CaseIterable, Hashable, Sendable {
    // MARK: Text and chrome
    case text, muted, accent
    case border, borderFocused, title
    case selection, marked, header, sortIndicator
    case statusBar, tab, tabActive, crumb, crumbActive
    case helpKey, helpText, prompt, dialog
    case error, warning, success
    // MARK: Subscription timeline (offer kinds of docs/metrics.md, retry windows, refunds)
    case standard, freeTrial, introductory, promotional, offerCode
    /// Periods bought with a win-back offer; the key `winBack` in theme files.
    case winBackPeriod = "winBack"
    case gracePeriod, billingRetry, refund, gap, marker
    // MARK: Heat map, coldest to hottest
    case heat0, heat1, heat2, heat3, heat4, heat5

    /// The heat roles in order, for mapping a rate 0…1 onto six steps.
    public static let heat: [ThemeRole] = [.heat0, .heat1, .heat2, .heat3, .heat4, .heat5]

    /// Attributes this role gets when colours are off and the theme gives no `mono=`:
    /// what keeps it distinguishable with attributes alone.
    public var monoAttributes: Attributes {
        switch self {
        case .title, .accent, .borderFocused, .sortIndicator, .crumbActive, .helpKey, .error, .warning, .marker: return .bold
        case .selection, .statusBar: return .reverse
        case .tabActive: return [.reverse, .bold]
        case .marked, .header: return [.bold, .underline]
        case .muted, .gap: return .dim
        default: return []
        }
    }
}
