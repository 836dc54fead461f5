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

    /// The other shipped themes, verbatim copies of `Themes/NAME.theme` (a test keeps them
    /// identical), so `--theme light` works wherever the binary is, not only inside the checkout.
    static let otherSources: [String: String] = [
        "high-contrast": #"""
        # subdash theme: high-contrast, pure black and white with saturated accents.
        # Syntax (docs/themes.md describes it in full):
        #   role = "WORDS"          one role per line; "#" starts a comment; name = "…" sets the display name
        #   WORDS, any order:       [fg=]COLOURS   bg=COLOURS   bold dim italic underline reverse   mono=ATTR+ATTR|none
        #   COLOURS, best first:    #rrggbb (truecolor) / 0-255 (xterm 256) / ANSI name (black red green yellow
        #                           blue magenta cyan white, bright-*, grey) / default (the terminal's own colour)
        #   The terminal shows the first alternative it can; a hex colour alone is downgraded to the nearest.
        #   mono= replaces the attributes when colours are off (NO_COLOR, --color never, TERM=dumb).
        #   Every role is set here; a role left out of a theme falls back to the built-in default.

        name = "High contrast"

        # Text and chrome
        text          = "fg=#ffffff/231/bright-white bg=#000000/16/black"
        muted         = "fg=#d0d0d0/252/white bg=#000000/16/black"
        accent        = "fg=#ffff00/226/bright-yellow bg=#000000/16/black bold"
        border        = "fg=#ffffff/231/bright-white bg=#000000/16/black"
        borderFocused = "fg=#ffff00/226/bright-yellow bg=#000000/16/black bold"
        title         = "fg=#ffffff/231/bright-white bg=#000000/16/black bold underline"
        selection     = "fg=#000000/16/black bg=#ffff00/226/bright-yellow bold mono=reverse+bold"
        marked        = "fg=#00ffff/51/bright-cyan bg=#000000/16/black bold underline"
        header        = "fg=#ffffff/231/bright-white bg=#000000/16/black bold underline"
        sortIndicator = "fg=#ffff00/226/bright-yellow bg=#000000/16/black bold"
        statusBar     = "fg=#000000/16/black bg=#ffffff/231/bright-white bold mono=reverse"
        tab           = "fg=#ffffff/231/bright-white bg=#000000/16/black"
        tabActive     = "fg=#000000/16/black bg=#ffff00/226/bright-yellow bold mono=reverse+bold"
        crumb         = "fg=#ffffff/231/bright-white bg=#000000/16/black underline"
        crumbActive   = "fg=#000000/16/black bg=#ffffff/231/bright-white bold"
        helpKey       = "fg=#ffff00/226/bright-yellow bg=#000000/16/black bold"
        helpText      = "fg=#ffffff/231/bright-white bg=#000000/16/black"
        prompt        = "fg=#ffffff/231/bright-white bg=#000000/16/black bold"
        dialog        = "fg=#ffffff/231/bright-white bg=#000000/16/black bold"
        error         = "fg=#ffffff/231/bright-white bg=#d70000/160/red bold"
        warning       = "fg=#000000/16/black bg=#ffaf00/214/bright-yellow bold"
        success       = "fg=#00ff00/46/bright-green bg=#000000/16/black bold"

        # Subscription timeline: offer kinds, retry windows, refunds
        standard      = "fg=#ffffff/231/bright-white bg=#000000/16/black"
        freeTrial     = "fg=#00ff00/46/bright-green bg=#000000/16/black"
        introductory  = "fg=#00ffff/51/bright-cyan bg=#000000/16/black"
        promotional   = "fg=#ff00ff/201/bright-magenta bg=#000000/16/black"
        offerCode     = "fg=#ffff00/226/bright-yellow bg=#000000/16/black"
        winBack       = "fg=#ff8700/208/bright-red bg=#000000/16/black"
        gracePeriod   = "fg=#ffaf00/214/yellow bg=#000000/16/black bold"
        billingRetry  = "fg=#ff0000/196/bright-red bg=#000000/16/black bold"
        refund        = "fg=#ff0000/196/red bg=#000000/16/black bold underline"
        gap           = "fg=#808080/244/bright-black bg=#000000/16/black"
        marker        = "fg=#ffffff/231/bright-white bg=#000000/16/black bold"

        # Heat map (retention rates), coldest to hottest
        heat0         = "fg=#ffffff/231/bright-white bg=#000000/16/black"
        heat1         = "fg=#ffffff/231/bright-white bg=#00005f/17/blue"
        heat2         = "fg=#ffffff/231/bright-white bg=#0000d7/20/bright-blue"
        heat3         = "fg=#000000/16/black bg=#00d7d7/44/cyan"
        heat4         = "fg=#000000/16/black bg=#87ff00/118/bright-green"
        heat5         = "fg=#000000/16/black bg=#ffff00/226/bright-yellow"
        """#,
        "light": #"""
        # subdash theme: light, for light terminal backgrounds.
        # Syntax (docs/themes.md describes it in full):
        #   role = "WORDS"          one role per line; "#" starts a comment; name = "…" sets the display name
        #   WORDS, any order:       [fg=]COLOURS   bg=COLOURS   bold dim italic underline reverse   mono=ATTR+ATTR|none
        #   COLOURS, best first:    #rrggbb (truecolor) / 0-255 (xterm 256) / ANSI name (black red green yellow
        #                           blue magenta cyan white, bright-*, grey) / default (the terminal's own colour)
        #   The terminal shows the first alternative it can; a hex colour alone is downgraded to the nearest.
        #   mono= replaces the attributes when colours are off (NO_COLOR, --color never, TERM=dumb).
        #   Every role is set here; a role left out of a theme falls back to the built-in default.

        name = "Light"

        # Text and chrome
        # The background is set: black text on the terminal's own (often dark) background would vanish.
        text          = "fg=#000000/16/black bg=#ffffff/231/bright-white"
        muted         = "#6c6c6c/242/bright-black"
        accent        = "#005fd7/26/blue bold"
        border        = "#a8a8a8/248/bright-black"
        borderFocused = "#005fd7/26/blue bold"
        title         = "#000000/16/black bold"
        selection     = "fg=#ffffff/231/bright-white bg=#005fd7/26/blue mono=reverse"
        marked        = "#af5f00/130/magenta bold mono=bold+underline"
        header        = "#000000/16/black bold underline"
        sortIndicator = "#d75f00/166/red bold"
        statusBar     = "fg=#000000/16/black bg=#d0d0d0/252/white mono=reverse"
        tab           = "#6c6c6c/242/bright-black"
        tabActive     = "fg=#ffffff/231/bright-white bg=#005fd7/26/blue bold mono=reverse+bold"
        crumb         = "fg=#000000/16/black bg=#e4e4e4/254/white"
        crumbActive   = "fg=#ffffff/231/bright-white bg=#005fd7/26/blue bold"
        helpKey       = "#005fd7/26/blue bold"
        helpText      = "#4e4e4e/239/black"
        prompt        = "#000000/16/black"
        dialog        = "fg=#000000/16/black bg=#eeeeee/255/white"
        error         = "#d70000/160/red bold"
        warning       = "#af5f00/130/yellow bold"
        success       = "#008700/28/green"

        # Subscription timeline: offer kinds, retry windows, refunds
        standard      = "#005fd7/26/blue"
        freeTrial     = "#008700/28/green"
        introductory  = "#008787/30/cyan"
        promotional   = "#8700af/91/magenta"
        offerCode     = "#af8700/136/yellow"
        winBack       = "#d75f00/166/bright-red"
        gracePeriod   = "#d78700/172/yellow"
        billingRetry  = "#d70000/160/red"
        refund        = "#870000/88/red bold"
        gap           = "#c6c6c6/251/white"
        marker        = "#000000/16/black bold"

        # Heat map (retention rates), coldest to hottest
        heat0         = "fg=#000000/16/black bg=#fde0dd/224/white"
        heat1         = "fg=#000000/16/black bg=#fcc5c0/217/bright-magenta"
        heat2         = "fg=#000000/16/black bg=#c6dbef/153/bright-cyan"
        heat3         = "fg=#000000/16/black bg=#9ecae1/110/cyan"
        heat4         = "fg=#ffffff/231/bright-white bg=#4292c6/68/blue"
        heat5         = "fg=#ffffff/231/bright-white bg=#08519c/25/bright-blue"
        """#,
        "mono": #"""
        # subdash theme: mono, attributes only (no colour at all, whatever the terminal offers).
        # Syntax (docs/themes.md describes it in full):
        #   role = "WORDS"          one role per line; "#" starts a comment; name = "…" sets the display name
        #   WORDS, any order:       [fg=]COLOURS   bg=COLOURS   bold dim italic underline reverse   mono=ATTR+ATTR|none
        #   COLOURS, best first:    #rrggbb (truecolor) / 0-255 (xterm 256) / ANSI name (black red green yellow
        #                           blue magenta cyan white, bright-*, grey) / default (the terminal's own colour)
        #   The terminal shows the first alternative it can; a hex colour alone is downgraded to the nearest.
        #   mono= replaces the attributes when colours are off (NO_COLOR, --color never, TERM=dumb).
        #   Every role is set here; a role left out of a theme falls back to the built-in default.

        name = "Mono"

        # Text and chrome
        text          = ""
        muted         = "dim"
        accent        = "bold"
        border        = ""
        borderFocused = "bold"
        title         = "bold"
        selection     = "reverse"
        marked        = "bold underline"
        header        = "bold underline"
        sortIndicator = "bold"
        statusBar     = "reverse"
        tab           = ""
        tabActive     = "reverse bold"
        crumb         = ""
        crumbActive   = "bold"
        helpKey       = "bold"
        helpText      = ""
        prompt        = ""
        dialog        = ""
        error         = "bold"
        warning       = "bold"
        success       = ""

        # Subscription timeline: the timeline bar draws each kind with its own glyph when there is no colour
        standard      = ""
        freeTrial     = ""
        introductory  = ""
        promotional   = ""
        offerCode     = ""
        winBack       = ""
        gracePeriod   = ""
        billingRetry  = "bold"
        refund        = "bold"
        gap           = "dim"
        marker        = "bold"

        # Heat map: drawn with shade glyphs ░▒▓█ when a heat role has no colour
        heat0         = ""
        heat1         = ""
        heat2         = ""
        heat3         = ""
        heat4         = ""
        heat5         = "bold"
        """#,
        "solarized-dark": #"""
        # subdash theme: solarized-dark, on Ethan Schoonover's Solarized palette (base03 background).
        # Syntax (docs/themes.md describes it in full):
        #   role = "WORDS"          one role per line; "#" starts a comment; name = "…" sets the display name
        #   WORDS, any order:       [fg=]COLOURS   bg=COLOURS   bold dim italic underline reverse   mono=ATTR+ATTR|none
        #   COLOURS, best first:    #rrggbb (truecolor) / 0-255 (xterm 256) / ANSI name (black red green yellow
        #                           blue magenta cyan white, bright-*, grey) / default (the terminal's own colour)
        #   The terminal shows the first alternative it can; a hex colour alone is downgraded to the nearest.
        #   mono= replaces the attributes when colours are off (NO_COLOR, --color never, TERM=dumb).
        #   Every role is set here; a role left out of a theme falls back to the built-in default.

        name = "Solarized dark"

        # Text and chrome (base0 on the terminal background, base1 for emphasis)
        # The background is set: solarized text is meant for base03, not for whatever the terminal has.
        text          = "fg=#839496/244/white bg=#002b36/234/black"
        muted         = "#586e75/240/bright-black"
        accent        = "#268bd2/33/blue bold"
        border        = "#073642/235/bright-black"
        borderFocused = "#268bd2/33/blue bold"
        title         = "#93a1a1/245/bright-white bold"
        selection     = "fg=#fdf6e3/230/bright-white bg=#268bd2/33/blue mono=reverse"
        marked        = "#b58900/136/yellow bold mono=bold+underline"
        header        = "#93a1a1/245/bright-white bold"
        sortIndicator = "#cb4b16/166/bright-red bold"
        statusBar     = "fg=#93a1a1/245/white bg=#073642/235/black mono=reverse"
        tab           = "#586e75/240/bright-black"
        tabActive     = "fg=#002b36/234/black bg=#b58900/136/yellow bold mono=reverse+bold"
        crumb         = "fg=#839496/244/white bg=#073642/235/black"
        crumbActive   = "fg=#002b36/234/black bg=#2aa198/37/cyan bold"
        helpKey       = "#2aa198/37/cyan bold"
        helpText      = "#586e75/240/bright-black"
        prompt        = "#93a1a1/245/bright-white"
        dialog        = "fg=#93a1a1/245/bright-white bg=#073642/235/black"
        error         = "#dc322f/160/red bold"
        warning       = "#cb4b16/166/bright-red"
        success       = "#859900/64/green"

        # Subscription timeline: offer kinds, retry windows, refunds
        standard      = "#268bd2/33/blue"
        freeTrial     = "#859900/64/green"
        introductory  = "#2aa198/37/cyan"
        promotional   = "#d33682/125/magenta"
        offerCode     = "#b58900/136/yellow"
        winBack       = "#6c71c4/61/bright-magenta"
        gracePeriod   = "#cb4b16/166/bright-red"
        billingRetry  = "#dc322f/160/red"
        refund        = "#dc322f/160/red bold underline"
        gap           = "#073642/235/bright-black"
        marker        = "#fdf6e3/230/bright-white bold"

        # Heat map (retention rates), coldest to hottest
        heat0         = "fg=#93a1a1/245/white bg=#073642/235/black"
        heat1         = "fg=#fdf6e3/230/bright-white bg=#6c71c4/61/magenta"
        heat2         = "fg=#fdf6e3/230/bright-white bg=#268bd2/33/blue"
        heat3         = "fg=#002b36/234/black bg=#2aa198/37/cyan"
        heat4         = "fg=#002b36/234/black bg=#859900/64/green"
        heat5         = "fg=#002b36/234/black bg=#b58900/136/yellow"
        """#,
    ]

    /// Every built-in theme's source by name.
    static var sources: [String: String] { otherSources.merging(["default": defaultSource]) { first, _ in first } }
}
