/// Theme sources compiled into the binary.
enum BuiltinThemes {
    /// A verbatim copy of `Themes/default.theme` (a test keeps the two identical), so the
    /// binary has a theme when no `Themes/` directory is around.
    static let defaultSource = #"""
        # subdash theme: default, for dark terminals.
        # Syntax (docs/themes.md describes it in full):
        #   role = "WORDS"          one role per line; "#" starts a comment; name = "…" sets the display name
        #   WORDS, any order:       [fg=]COLOURS   bg=COLOURS   bold dim italic underline reverse   mono=ATTR+ATTR|none
        #   COLOURS, best first:    #rrggbb (truecolor) / 0-255 (xterm 256) / ANSI name (black red green yellow
        #                           blue magenta cyan white, bright-*, grey) / default (the terminal's own colour)
        #   The terminal shows the first alternative it can; a hex colour alone is downgraded to the nearest.
        #   mono= replaces the attributes when colours are off (NO_COLOR, --color never, TERM=dumb).
        #   Every role is set here; a role left out of a theme falls back to the built-in default.

        name = "Default (dark)"

        # Text and chrome (on the terminal's own background: titles and headers in its own text colour,
        # so they read on a light terminal too)
        text          = "default"
        muted         = "#8a8a8a/245/bright-black"
        accent        = "#5fafff/75/bright-cyan bold"
        border        = "#585858/240/bright-black"
        borderFocused = "#5fafff/75/cyan bold"
        title         = "default bold"
        selection     = "fg=#000000/16/black bg=#5fafff/75/cyan mono=reverse"
        marked        = "#ffd75f/221/yellow bold mono=bold+underline"
        header        = "default bold"
        sortIndicator = "#ffaf00/214/yellow bold"
        statusBar     = "fg=#d0d0d0/252/white bg=#303030/236/blue mono=reverse"
        tab           = "#8a8a8a/245/white"
        tabActive     = "fg=#000000/16/black bg=#ffaf00/214/yellow bold mono=reverse+bold"
        crumb         = "fg=#d0d0d0/252/white bg=#3a3a3a/237/bright-black"
        crumbActive   = "fg=#000000/16/black bg=#ffaf00/214/yellow bold"
        helpKey       = "#5fafff/75/cyan bold"
        helpText      = "#8a8a8a/245/white"
        prompt        = "default"
        dialog        = "fg=#eeeeee/255/bright-white bg=#262626/235/blue"
        error         = "#ff5f5f/203/bright-red bold"
        warning       = "#ffaf00/214/yellow"
        success       = "#87d787/114/green"

        # Subscription timeline: offer kinds, retry windows, refunds
        standard      = "#5f87d7/68/blue"
        freeTrial     = "#87d787/114/green"
        introductory  = "#5fd7d7/80/cyan"
        promotional   = "#d787d7/176/magenta"
        offerCode     = "#ffd75f/221/yellow"
        winBack       = "#ff875f/209/bright-red"
        gracePeriod   = "#ffaf00/214/bright-yellow"
        billingRetry  = "#ff5f5f/203/red"
        refund        = "#d70000/160/bright-red bold"
        gap           = "#444444/238/bright-black"
        marker        = "#ffffff/231/bright-white bold"

        # Heat map (retention rates), coldest to hottest
        heat0         = "fg=#ffffff/231/bright-white bg=#3b0f70/54/magenta"
        heat1         = "fg=#ffffff/231/bright-white bg=#2c3e8c/61/blue"
        heat2         = "fg=#ffffff/231/bright-white bg=#21718c/31/cyan"
        heat3         = "fg=#000000/16/black bg=#27a17a/36/green"
        heat4         = "fg=#000000/16/black bg=#8fd744/113/bright-green"
        heat5         = "fg=#000000/16/black bg=#fde725/220/bright-yellow"
        """#
}
