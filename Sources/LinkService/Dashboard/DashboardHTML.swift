import LinkPages
import SwitchyardCore
import Foundation

/// The dashboard's HTML: server-rendered pages with inline SVG charts, no script and no asset
/// from anywhere but the service itself.
enum DashboardHTML {
    static func escape(_ s: String) -> String { LandingPage.escape(s) }

    /// The whole page around `main`. `user` is nil on the sign-in page.
    static func page(title: String, user: (name: String, scopes: String, csrf: String)?, main: String) -> String {
        var header = #"<header><a class="home" href="/admin">Switchyard links</a>"#
        if let user {
            header += #"<span class="who">signed in with token <b>\#(escape(user.name))</b> (\#(escape(user.scopes)))</span>"#
            header += #"<form method="post" action="/admin/sign-out" class="inline">\#(csrfField(user.csrf))<button type="submit" id="sign-out">Sign out</button></form>"#
        }
        header += "</header>"
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="robots" content="noindex"><title>\(escape(title)) — Switchyard</title>
            <style>\(style)</style></head>
            <body>\(header)<main>\(main)</main></body></html>

            """
    }

    static func csrfField(_ csrf: String) -> String { #"<input type="hidden" name="csrf" value="\#(escape(csrf))">"# }

    static func error(_ message: String?) -> String {
        guard let message else { return "" }
        return #"<p class="error" id="error" role="alert">\#(escape(message))</p>"#
    }

    /// Every problem of a form, in one alert: one paragraph, or a list when there are several.
    static func errors(_ messages: [String]) -> String {
        switch messages.count {
        case 0: return ""
        case 1: return error(messages[0])
        default:
            return #"<div class="error" id="error" role="alert"><p>\#(messages.count) fields need a change:</p><ul>"#
                + messages.map { "<li>\(escape($0))</li>" }.joined() + "</ul></div>"
        }
    }

    static let style = """
        body{font:15px/1.45 system-ui,-apple-system,sans-serif;margin:0;color:#1c1c1e;background:#f7f7f8}
        header{display:flex;gap:1em;align-items:center;padding:.6em 1.2em;background:#1c1c1e;color:#fff}
        header a.home{color:#fff;font-weight:600;text-decoration:none}header .who{margin-left:auto;opacity:.85}
        main{max-width:980px;margin:1.2em auto;padding:0 1.2em}
        table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:.45em .6em;border-bottom:1px solid #e5e5ea;vertical-align:top}
        td.num,th.num{text-align:right}code{font:13px ui-monospace,monospace;word-break:break-all}h1 code{font-size:.8em}
        form.inline{display:inline}label{display:block;margin:.6em 0 .2em;font-weight:600}
        input[type=text],input[type=password],input[type=search],textarea{width:100%;box-sizing:border-box;padding:.4em;font:inherit}
        .field small{color:#636366}.error{background:#ffe5e5;border:1px solid #ff3b30;padding:.6em;border-radius:6px}
        .notice{background:#e5f1ff;border:1px solid #0a84ff;padding:.6em;border-radius:6px}
        .card{background:#fff;border:1px solid #e5e5ea;border-radius:8px;padding:1em;margin:1em 0}
        .grid{display:grid;grid-template-columns:1fr 220px;gap:1em}dl{display:grid;grid-template-columns:max-content 1fr;gap:.3em 1em;margin:0}
        dt{color:#636366}dd{margin:0}button,.button{font:inherit;padding:.4em .9em;border-radius:6px;border:1px solid #0a84ff;background:#0a84ff;color:#fff;text-decoration:none;cursor:pointer}
        button.danger{background:#ff3b30;border-color:#ff3b30}.legend span{display:inline-block;margin-right:1em}
        .swatch{display:inline-block;width:.8em;height:.8em;border-radius:2px;margin-right:.3em;vertical-align:-1px}
        """

    // MARK: Charts

    static let platformColours: [(platform: String, label: String, colour: String)] = [
        ("ios", "iOS", "#0a84ff"), ("android", "Android", "#34c759"), ("desktop", "Desktop", "#8e8e93"), ("unknown", "Other", "#c7c7cc"),
        ("bot", "Previews and bots", "#ff9f0a"),
    ]

    static func colour(_ platform: String) -> String { platformColours.first { $0.platform == platform }?.colour ?? "#c7c7cc" }
    static func label(_ platform: String) -> String { platformColours.first { $0.platform == platform }?.label ?? platform }

    static func date(ofDay day: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date(timeIntervalSince1970: Double(day) * 86_400))
    }

    /// Visits per day over `days` days ending with `lastDay`, one bar per day stacked by platform.
    static func clicksChart(_ rows: [(day: Int64, platform: String, clicks: Int64)], lastDay: Int64, days: Int = 30) -> String {
        let width = 640.0, height = 180.0, left = 36.0, bottom = 22.0, top = 10.0
        let firstDay = lastDay - Int64(days) + 1
        var perDay: [Int64: [(String, Int64)]] = [:]
        for row in rows where row.day >= firstDay && row.day <= lastDay { perDay[row.day, default: []].append((row.platform, row.clicks)) }
        let most = max(1, perDay.values.map { $0.reduce(0) { $0 + $1.1 } }.max() ?? 0)
        let total = perDay.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.1 } }
        let slot = (width - left) / Double(days), plot = height - bottom - top
        var svg = #"<svg id="clicks-chart" class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(Int(width)) \#(Int(height))" width="100%" role="img" "#
        svg += #"aria-label="Visits per day, \#(date(ofDay: firstDay)) to \#(date(ofDay: lastDay)): \#(total) in all">"#
        svg += #"<line x1="\#(left)" y1="\#(top + plot)" x2="\#(width)" y2="\#(top + plot)" stroke="rgb(199,199,204)"/>"#
        svg += #"<text x="\#(left - 4)" y="\#(top + 10)" text-anchor="end" font-size="11" fill="rgb(99,99,102)">\#(most)</text>"#
        svg += #"<text x="\#(left - 4)" y="\#(top + plot)" text-anchor="end" font-size="11" fill="rgb(99,99,102)">0</text>"#
        for index in 0..<days {
            let day = firstDay + Int64(index)
            let x = left + Double(index) * slot + 1
            var y = top + plot
            let parts = (perDay[day] ?? []).sorted { order($0.0) < order($1.0) }
            let sum = parts.reduce(0) { $0 + $1.1 }
            if sum > 0 {
                let detail = parts.map { "\(label($0.0)) \($0.1)" }.joined(separator: ", ")
                svg += #"<g class="bar" data-day="\#(date(ofDay: day))" data-clicks="\#(sum)"><title>\#(date(ofDay: day)): \#(sum) (\#(escape(detail)))</title>"#
                for (platform, n) in parts {
                    let h = plot * Double(n) / Double(most)
                    y -= h
                    svg += #"<rect x="\#(fmt(x))" y="\#(fmt(y))" width="\#(fmt(slot - 2))" height="\#(fmt(h))" fill="\#(colour(platform))"/>"#
                }
                svg += "</g>"
            }
        }
        for (index, anchor) in [(0, "start"), (days - 1, "end")] {
            let x = left + Double(index) * slot + (anchor == "end" ? slot : 0)
            svg += #"<text x="\#(fmt(x))" y="\#(height - 6)" text-anchor="\#(anchor)" font-size="11" fill="rgb(99,99,102)">\#(date(ofDay: firstDay + Int64(index)))</text>"#
        }
        return svg + "</svg>"
    }

    /// Visits by platform as horizontal bars, with counts and shares.
    static func platformChart(_ rows: [(platform: String, clicks: Int64)]) -> String {
        let total = rows.reduce(0) { $0 + $1.clicks }
        let rowHeight = 26.0, width = 640.0, labelWidth = 90.0
        let height = Double(max(rows.count, 1)) * rowHeight + 4
        var svg = #"<svg id="platform-chart" class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(Int(width)) \#(Int(height))" width="100%" role="img" "#
        svg += #"aria-label="Visits by platform: \#(rows.map { "\(label($0.platform)) \($0.clicks)" }.joined(separator: ", "))">"#
        if rows.isEmpty {
            svg += #"<text x="0" y="18" font-size="13" fill="rgb(99,99,102)">No visits recorded yet.</text>"#
        }
        for (index, row) in rows.enumerated() {
            let y = Double(index) * rowHeight + 2
            let share = total > 0 ? Double(row.clicks) / Double(total) : 0
            let barWidth = max(1, (width - labelWidth - 110) * share)
            svg += #"<g class="platform" data-platform="\#(escape(row.platform))" data-clicks="\#(row.clicks)">"#
            svg += #"<text x="0" y="\#(fmt(y + 16))" font-size="13" fill="rgb(28,28,30)">\#(escape(label(row.platform)))</text>"#
            svg += #"<rect x="\#(labelWidth)" y="\#(fmt(y + 3))" width="\#(fmt(barWidth))" height="\#(rowHeight - 8)" rx="3" fill="\#(colour(row.platform))"/>"#
            svg += #"<text x="\#(fmt(labelWidth + barWidth + 6))" y="\#(fmt(y + 16))" font-size="13" fill="rgb(28,28,30)">\#(row.clicks) (\#(Int((share * 100).rounded())) %)</text></g>"#
        }
        return svg + "</svg>"
    }

    /// The hosts people came from, most first, with counts and shares of the listed visits.
    static func referrerTable(_ rows: [(host: String, visits: Int64)]) -> String {
        guard !rows.isEmpty else { return #"<p id="referrers">No referrers recorded: visits came without one, or none yet.</p>"# }
        let total = rows.reduce(0) { $0 + $1.visits }
        var html = #"<table id="referrers"><thead><tr><th>Host</th><th class="num">Visits</th><th class="num">Share</th></tr></thead><tbody>"#
        for row in rows {
            let share = total > 0 ? Int((Double(row.visits) / Double(total) * 100).rounded()) : 0
            html += #"<tr><td><code>\#(escape(row.host))</code></td><td class="num">\#(row.visits)</td><td class="num">\#(share) %</td></tr>"#
        }
        return html + "</tbody></table>"
    }

    static func legend() -> String {
        #"<p class="legend">"# + platformColours.map { #"<span><i class="swatch" style="background:\#($0.colour)"></i>\#($0.label)</span>"# }.joined() + "</p>"
    }

    private static func order(_ platform: String) -> Int { platformColours.firstIndex { $0.platform == platform } ?? platformColours.count }
    private static func fmt(_ value: Double) -> String { String(format: "%.1f", value) }
}
