/// Standalone SVG pictures of ``ChartModel``s and heat maps: titles, axes, legends and a caption,
/// no external fonts or scripts, readable on white and on dark backgrounds (the colours switch
/// with `prefers-color-scheme`; the series are mid tones that read on both and carry a pattern
/// each). Every drawn value carries `data-value` (plain digits) and a `<title>` with the figure
/// as the tables print it.
public enum ChartSVG {
    static let width = 800
    static let panelHeight = 320
    static let left = 96
    static let right = 24
    static let top = 58

    /// The SVG colour of a theme role (mid tones, legible on white and on black).
    static func colour(_ role: ThemeRole) -> String {
        switch role {
        case .success: "#2e9e4f"
        case .accent: "#2b8cc4"
        case .standard: "#6a5acd"
        case .warning: "#d98a00"
        case .error: "#d6453d"
        case .muted, .gap: "#8a8a8a"
        case .freeTrial: "#3fa7a0"
        case .gracePeriod: "#c9a227"
        case .billingRetry: "#c0504d"
        default: "#4a7fd0"
        }
    }

    static let style = """
        <style>
        .bg{fill:#ffffff}.fg{fill:#1f1f1f}.dim{fill:#5c5c5c}.grid{stroke:#d0d0d0}.axis{stroke:#5c5c5c}
        text{font-family:sans-serif;font-size:12px}.title{font-size:16px;font-weight:bold}.caption{font-size:11px}
        .incomplete{opacity:0.45}.gap{stroke:#8a8a8a;stroke-dasharray:3 3}
        @media (prefers-color-scheme: dark){.bg{fill:#161616}.fg{fill:#e6e6e6}.dim{fill:#a8a8a8}.grid{stroke:#3a3a3a}.axis{stroke:#a8a8a8}}
        </style>
        """

    /// Fill patterns for the bar series (k-th series, k-th pattern): solid, diagonal, cross-hatch, dots, stripes.
    static func patterns(_ colours: [String]) -> String {
        var out = "<defs>"
        for (k, c) in colours.enumerated() {
            let id = "p\(k)"
            switch k % 5 {
            case 0:
                out += "<pattern id=\"\(id)\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
                out += "<rect width=\"6\" height=\"6\" fill=\"\(c)\"/></pattern>"
            case 1:
                out +=
                    "<pattern id=\"\(id)\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
                out += "<rect width=\"6\" height=\"6\" fill=\"\(c)\" fill-opacity=\"0.35\"/>"
                out += "<rect width=\"3\" height=\"6\" fill=\"\(c)\"/></pattern>"
            case 2:
                out += "<pattern id=\"\(id)\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
                out += "<rect width=\"6\" height=\"6\" fill=\"\(c)\" fill-opacity=\"0.35\"/>"
                out += "<path d=\"M0 0L6 6M6 0L0 6\" stroke=\"\(c)\" stroke-width=\"1.5\"/></pattern>"
            case 3:
                out += "<pattern id=\"\(id)\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\">"
                out += "<rect width=\"5\" height=\"5\" fill=\"\(c)\" fill-opacity=\"0.35\"/>"
                out += "<circle cx=\"2.5\" cy=\"2.5\" r=\"1.4\" fill=\"\(c)\"/></pattern>"
            default:
                out += "<pattern id=\"\(id)\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
                out += "<rect width=\"6\" height=\"6\" fill=\"\(c)\" fill-opacity=\"0.35\"/>"
                out += "<rect width=\"6\" height=\"3\" fill=\"\(c)\"/></pattern>"
            }
        }
        return out + "</defs>"
    }

    /// `&`, `<`, `>`, quotes escaped, control characters dropped: text from the store is hostile.
    public static func escape(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case _ where u.value < 0x20 || (0x7F...0x9F).contains(u.value): continue
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    static func number(_ v: Double) -> String {
        let r = (v * 100).rounded() / 100
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    /// The value as `data-value` keeps it, exactly as the JSON writes it: `14.998`, `-5`.
    static func plain(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)"
    }

    /// The charts one above the other in one picture, with one caption (the first chart's).
    public static func render(_ models: [ChartModel]) -> String {
        let height = top + models.count * panelHeight + 30
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out +=
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\">\n"
        out += style + "\n"
        let barColours = models.first.map { $0.series.filter { $0.kind == .bar }.map { colour($0.role) } } ?? []
        out += patterns(barColours) + "\n"
        out += "<rect class=\"bg\" width=\"100%\" height=\"100%\"/>\n"
        if models.isEmpty { return out + "</svg>\n" }
        out += "<text class=\"fg title\" x=\"16\" y=\"26\">\(escape(models[0].title))</text>\n"
        out += legend(models[0], y: 46)
        for (k, model) in models.enumerated() {
            out += panel(model, y: top + k * panelHeight, showsTitle: k > 0)
        }
        out += "<text class=\"dim caption\" x=\"16\" y=\"\(height - 10)\">\(escape(models[0].caption))</text>\n"
        return out + "</svg>\n"
    }

    public static func render(_ model: ChartModel) -> String { render([model]) }

    /// The stroke of a dashed line (a comparison such as the previous period).
    static let dash = " stroke-dasharray=\"6 4\""

    static func legend(_ model: ChartModel, y: Int) -> String {
        var out = ""
        var x = 16
        var bar = 0
        for s in model.series {
            switch s.kind {
            case .bar:
                out +=
                    "<rect x=\"\(x)\" y=\"\(y - 10)\" width=\"12\" height=\"12\" fill=\"url(#p\(bar))\" stroke=\"\(colour(s.role))\"/>"
                bar += 1
            case .line:
                out +=
                    "<line x1=\"\(x)\" y1=\"\(y - 4)\" x2=\"\(x + 12)\" y2=\"\(y - 4)\" stroke=\"\(colour(s.role))\" stroke-width=\"2.5\"\(s.dashed ? dash : "")/>"
            }
            out += "<text class=\"fg\" x=\"\(x + 17)\" y=\"\(y)\">\(escape(s.name))</text>\n"
            x += 17 + 7 * s.name.count + 18
        }
        return out
    }

    /// One chart in a band of the picture starting at `y`.
    static func panel(_ model: ChartModel, y: Int, showsTitle: Bool) -> String {
        var out = "<g>\n"
        let plotTop = Double(y + (showsTitle ? 28 : 12))
        let plotBottom = Double(y + panelHeight - 40)
        let plotLeft = Double(left)
        let plotRight = Double(width - right)
        if showsTitle {
            out += "<text class=\"fg\" x=\"16\" y=\"\(y + 16)\" font-weight=\"bold\">\(escape(model.title))</text>\n"
        }
        let n = model.count
        guard n > 0 else { return out + "<text class=\"dim\" x=\"\(left)\" y=\"\(Int(plotTop) + 20)\">no data</text></g>\n" }
        let range = model.valueRange()
        let (low, high, ticks) = ChartModel.niceScale(low: range.low, high: range.high, count: 6)
        let decimals = model.tickDecimals(ticks)
        func yOf(_ v: Double) -> Double { plotBottom - (v - low) / (high - low) * (plotBottom - plotTop) }
        let slot = (plotRight - plotLeft) / Double(n)
        func xOf(_ i: Int) -> Double { plotLeft + slot * (Double(i) + 0.5) }

        // Grid, value labels, the unit.
        for t in ticks {
            let ty = number(yOf(t))
            out += "<line class=\"grid\" x1=\"\(left)\" y1=\"\(ty)\" x2=\"\(width - right)\" y2=\"\(ty)\"/>"
            out +=
                "<text class=\"fg\" x=\"\(left - 6)\" y=\"\(number(yOf(t) + 4))\" text-anchor=\"end\">\(model.format(t, decimals: decimals))</text>\n"
        }
        if let unit = model.unit {
            out +=
                "<text class=\"dim\" x=\"\(left - 6)\" y=\"\(number(plotBottom + 16))\" text-anchor=\"end\">\(escape(unit))</text>\n"
        }
        out += "<line class=\"axis\" x1=\"\(left)\" y1=\"\(number(plotTop))\" x2=\"\(left)\" y2=\"\(number(plotBottom))\"/>"
        if low <= 0 && high >= 0 {
            out +=
                "<line class=\"axis\" x1=\"\(left)\" y1=\"\(number(yOf(0)))\" x2=\"\(width - right)\" y2=\"\(number(yOf(0)))\"/>\n"
        }

        // Bucket labels, thinned so they do not overlap (about 7 px a character).
        let labelWidth = Double((model.labels.map(\.count).max() ?? 1) * 7 + 8)
        let every = max(1, Int((labelWidth / slot).rounded(.up)))
        for i in 0..<n where (n - 1 - i) % every == 0 {
            let cls = model.incomplete.contains(i) ? "fg incomplete" : "fg"
            out +=
                "<text class=\"\(cls)\" x=\"\(number(xOf(i)))\" y=\"\(number(plotBottom + 16))\" text-anchor=\"middle\">\(escape(model.labels[i]))</text>\n"
        }

        // Gaps: a dashed line where no series has a value.
        for i in 0..<n where model.series.allSatisfy({ i >= $0.values.count || $0.values[i] == nil }) {
            out +=
                "<line class=\"gap\" x1=\"\(number(xOf(i)))\" y1=\"\(number(plotTop))\" x2=\"\(number(xOf(i)))\" y2=\"\(number(plotBottom))\"><title>\(escape(model.labels[i])): no data</title></line>\n"
        }

        // Bars, stacked.
        let barWidth = max(1, slot * 0.7)
        var bar = 0
        var ups = [Double](repeating: 0, count: n)
        var downs = [Double](repeating: 0, count: n)
        for s in model.series where s.kind == .bar {
            out += "<g data-series=\"\(escape(s.name))\">\n"
            for i in 0..<min(n, s.values.count) {
                guard let v = s.values[i] else { continue }
                let (from, to): (Double, Double) = v >= 0 ? (ups[i], ups[i] + v) : (downs[i] + v, downs[i])
                if v >= 0 { ups[i] += v } else { downs[i] += v }
                let cls = model.incomplete.contains(i) ? " class=\"incomplete\"" : ""
                let text = "\(model.labels[i]) \(s.name): \(model.format(v, withUnit: true))"
                out +=
                    "<rect\(cls) data-bucket=\"\(escape(model.labels[i]))\" data-value=\"\(plain(v))\" x=\"\(number(xOf(i) - barWidth / 2))\" y=\"\(number(yOf(to)))\" width=\"\(number(barWidth))\" height=\"\(number(max(0, yOf(from) - yOf(to))))\" fill=\"url(#p\(bar))\" stroke=\"\(colour(s.role))\" stroke-width=\"0.5\"><title>\(escape(text))</title></rect>\n"
            }
            out += "</g>\n"
            bar += 1
        }

        // Lines, broken at gaps; a dot per value.
        for s in model.series where s.kind == .line {
            let c = colour(s.role)
            out += "<g data-series=\"\(escape(s.name))\">\n"
            var path = ""
            var pen = false
            for i in 0..<min(n, s.values.count) {
                guard let v = s.values[i] else {
                    pen = false
                    continue
                }
                path += "\(pen ? "L" : "M")\(number(xOf(i))) \(number(yOf(v)))"
                pen = true
            }
            if !path.isEmpty {
                out +=
                    "<path d=\"\(path)\" fill=\"none\" stroke=\"\(c)\" stroke-width=\"2.5\" stroke-linejoin=\"round\"\(s.dashed ? dash : "")/>\n"
            }
            for i in 0..<min(n, s.values.count) {
                guard let v = s.values[i] else { continue }
                let cls = model.incomplete.contains(i) ? " class=\"incomplete\"" : ""
                let text = "\(model.labels[i]) \(s.name): \(model.format(v, withUnit: true))"
                out +=
                    "<circle\(cls) data-bucket=\"\(escape(model.labels[i]))\" data-value=\"\(plain(v))\" cx=\"\(number(xOf(i)))\" cy=\"\(number(yOf(v)))\" r=\"3\" fill=\"\(c)\"><title>\(escape(text))</title></circle>\n"
            }
            out += "</g>\n"
        }
        return out + "</g>\n"
    }

    /// A heat map (a retention grid): rows of cells shaded by a rate in 0…1, nil drawn as `–`.
    public static func heatMap(
        title: String, rowLabels: [String], columnLabels: [String], values: [[Double?]], caption: String
    ) -> String {
        let cell = 44
        let labelWidth = 84
        let gridWidth = max(1, columnLabels.count) * cell
        let pictureWidth = max(420, labelWidth + gridWidth + 32)
        let height = 70 + (rowLabels.count + 1) * 24 + 40
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out +=
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(pictureWidth)\" height=\"\(height)\" viewBox=\"0 0 \(pictureWidth) \(height)\" role=\"img\">\n"
        out += style + "\n<rect class=\"bg\" width=\"100%\" height=\"100%\"/>\n"
        out += "<text class=\"fg title\" x=\"16\" y=\"26\">\(escape(title))</text>\n"
        out +=
            "<text class=\"dim\" x=\"16\" y=\"46\">share reaching the next paid period; darker is higher; – not known yet</text>\n"
        let gridTop = 70
        for (j, label) in columnLabels.enumerated() {
            out +=
                "<text class=\"fg\" x=\"\(labelWidth + j * cell + cell / 2)\" y=\"\(gridTop + 14)\" text-anchor=\"middle\">\(escape(label))</text>"
        }
        out += "\n"
        for (i, label) in rowLabels.enumerated() {
            let y = gridTop + (i + 1) * 24
            out += "<text class=\"fg\" x=\"16\" y=\"\(y + 16)\">\(escape(label))</text>"
            for j in 0..<columnLabels.count {
                let x = labelWidth + j * cell
                let v = i < values.count && j < values[i].count ? values[i][j] : nil
                guard let v else {
                    out +=
                        "<text class=\"dim\" x=\"\(x + cell / 2)\" y=\"\(y + 16)\" text-anchor=\"middle\" data-row=\"\(escape(label))\" data-column=\"\(escape(columnLabels[j]))\">–</text>"
                    continue
                }
                let rate = min(1, max(0, v))
                let percent = ChartModel.grouped(v * 100, decimals: 1) + "%"
                // A blue whose opacity is the rate; the figure is written in the cell too.
                out +=
                    "<rect data-row=\"\(escape(label))\" data-column=\"\(escape(columnLabels[j]))\" data-value=\"\(v)\" x=\"\(x + 1)\" y=\"\(y + 1)\" width=\"\(cell - 2)\" height=\"22\" fill=\"#2b6cb0\" fill-opacity=\"\(number(0.12 + 0.88 * rate))\"><title>\(escape(label)) \(escape(columnLabels[j])): \(percent)</title></rect>"
                let textClass = rate > 0.55 ? "" : "fg"
                let fill = rate > 0.55 ? " fill=\"#ffffff\"" : ""
                out +=
                    "<text class=\"\(textClass)\"\(fill) x=\"\(x + cell / 2)\" y=\"\(y + 16)\" text-anchor=\"middle\" font-size=\"11\">\(ChartModel.grouped(v * 100, decimals: 0))%</text>"
            }
            out += "\n"
        }
        out += "<text class=\"dim caption\" x=\"16\" y=\"\(height - 10)\">\(escape(caption))</text>\n"
        return out + "</svg>\n"
    }
}
