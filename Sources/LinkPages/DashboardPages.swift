import Foundation
import Mustache
import SwitchyardCore

/// The dashboard's pages, from the built-in templates `dashboard-*.mustache`: server-rendered,
/// with inline SVG charts, no script and no asset from anywhere but the service itself. Every
/// value is HTML-escaped by the templates; the views (``DashboardViews``) are plain values.
package enum DashboardPages {
    /// A dashboard page, by template.
    package enum Page: String, Sendable, CaseIterable {
        /// The sign-in form.
        case signIn = "dashboard-sign-in"
        /// An error or refusal, with a way back.
        case message = "dashboard-message"
        /// The list and search of links.
        case links = "dashboard-links"
        /// One link: its fields, QR code, visits and charts.
        case link = "dashboard-link"
        /// The form that creates or edits a link.
        case form = "dashboard-form"
        /// The form that creates several links from CSV, with what became of each.
        case bulk = "dashboard-bulk"
    }

    /// Reads and compiles the dashboard's templates now (the service does so at start, so no
    /// request reads a file on an event loop).
    package static func load() { _ = library }

    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for name in Page.allCases.map(\.rawValue) + ["dashboard", "dashboard-errors", "dashboard-audience"] {
            guard let path = PageResources.path(name + ".mustache"), let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                fatalError(PageResources.missing(name + ".mustache"))
            }
            do { library.register(try ScalarHTMLEscaping.template(text), named: name) } catch { fatalError("the built-in template \(name) is broken: \(error)") }
        }
        return library
    }()

    /// The page of `body` around `title`, the signed-in user (nil on the sign-in page) and a
    /// form's problems.
    package static func render<Body: DashboardBody>(_ body: Body, title: String, user: DashboardUser?, errors: [String] = []) -> String {
        library.render(DashboardFrame(title: title, user: user, errors: FormErrors(errors), body: body), withTemplate: Body.page.rawValue) ?? ""
    }

    // MARK: Charts

    static let platformColours: [(platform: String, label: String, colour: String)] = [
        ("ios", "iOS", "#0a84ff"), ("android", "Android", "#34c759"), ("desktop", "Desktop", "#8e8e93"), ("unknown", "Other", "#c7c7cc"),
        ("bot", "Previews and bots", "#ff9f0a"),
    ]

    static func colour(_ platform: String) -> String { platformColours.first { $0.platform == platform }?.colour ?? "#c7c7cc" }
    static func label(_ platform: String) -> String { platformColours.first { $0.platform == platform }?.label ?? platform }

    /// The chart's key: each platform's colour and name.
    package static var legend: [LinkView.LegendItem] { platformColours.map { .init(colour: $0.colour, label: $0.label) } }

    /// Where the bars of a chart with one bar per day go (640 wide, the counts' axis on the
    /// left), and the day labels under it: what the clicks chart and the audience's daily chart share.
    struct DayBars {
        static let width = 640.0, left = 36.0, bottom = 22.0, top = 10.0
        let height: Double, firstDay: Int64, days: Int
        /// The width each day has.
        var slot: Double { (Self.width - Self.left) / Double(days) }
        /// The height a day with the most visits fills.
        var plot: Double { height - Self.bottom - Self.top }
        /// The y of the baseline.
        var axis: Double { Self.top + plot }
        /// The left edge of day `index`'s slot.
        func x(_ index: Int) -> Double { Self.left + Double(index) * slot }
        /// The first day under the start of the axis, the last under its end.
        var dayLabels: [DayLabel] {
            [(0, "start"), (days - 1, "end")].map { index, anchor in
                .init(x: fmt(x(index) + (anchor == "end" ? slot : 0)), y: "\(height - 6)", anchor: anchor, day: Timestamp.formatDay(firstDay + Int64(index)))
            }
        }
    }

    /// Visits per day over `days` days ending with `lastDay`, one bar per day stacked by platform.
    package static func clicksChart(_ rows: [(day: Int64, platform: String, clicks: Int64)], lastDay: Int64, days: Int = 30) -> LinkView.ClicksChart {
        let firstDay = lastDay - Int64(days) + 1
        let frame = DayBars(height: 180, firstDay: firstDay, days: days)
        var perDay: [Int64: [(String, Int64)]] = [:]
        for row in rows where row.day >= firstDay && row.day <= lastDay { perDay[row.day, default: []].append((row.platform, row.clicks)) }
        let most = max(1, perDay.values.map { $0.reduce(0) { $0 + $1.1 } }.max() ?? 0)
        let total = perDay.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.1 } }
        var bars: [LinkView.ClicksChart.Bar] = []
        for index in 0..<days {
            let day = firstDay + Int64(index)
            let x = frame.x(index) + 1
            var y = frame.axis
            let parts = (perDay[day] ?? []).sorted { order($0.0) < order($1.0) }
            let sum = parts.reduce(0) { $0 + $1.1 }
            guard sum > 0 else { continue }
            var rects: [LinkView.ClicksChart.Rect] = []
            for (platform, n) in parts {
                let h = frame.plot * Double(n) / Double(most)
                y -= h
                rects.append(.init(x: fmt(x), y: fmt(y), width: fmt(frame.slot - 2), height: fmt(h), colour: colour(platform)))
            }
            bars.append(.init(day: Timestamp.formatDay(day), clicks: sum, detail: parts.map { "\(label($0.0)) \($0.1)" }.joined(separator: ", "), rects: rects))
        }
        return .init(width: Int(DayBars.width), height: Int(frame.height), left: "\(DayBars.left)", axis: "\(frame.axis)", labelX: "\(DayBars.left - 4)",
                     mostY: "\(DayBars.top + 10)", most: most, total: total, first: Timestamp.formatDay(firstDay), last: Timestamp.formatDay(lastDay),
                     bars: bars, dayLabels: frame.dayLabels)
    }

    /// People's visits and visitors per day from `firstDay` to `lastDay` (UTC days) as bars;
    /// `rows` are the `day` breakdown's (days without visits may be missing).
    package static func dailyChart(_ rows: [(day: Int64, visits: Int64, uniques: Int64)], firstDay: Int64, lastDay: Int64, countsVisitors: Bool) -> AudienceView.DailyChart {
        let frame = DayBars(height: 160, firstDay: firstDay, days: Int(max(1, lastDay - firstDay + 1)))
        var perDay: [Int64: (Int64, Int64)] = [:]
        for row in rows where row.day >= firstDay && row.day <= lastDay { perDay[row.day] = (row.visits, row.uniques) }
        let most = max(1, perDay.values.map(\.0).max() ?? 0)
        let (slot, plot) = (frame.slot, frame.plot)
        var bars: [AudienceView.DailyChart.Bar] = []
        for index in 0..<frame.days {
            let day = firstDay + Int64(index)
            guard let (visits, uniques) = perDay[day], visits > 0 else { continue }
            let vh = plot * Double(visits) / Double(most), uh = countsVisitors ? plot * Double(min(uniques, visits)) / Double(most) : 0
            bars.append(.init(day: Timestamp.formatDay(day), visits: visits, uniques: countsVisitors ? uniques : nil,
                              x: fmt(frame.x(index) + min(1, slot / 4)), width: fmt(max(0.5, slot - min(2, slot / 2))),
                              visitsY: fmt(frame.axis - vh), visitsHeight: fmt(vh), uniquesY: fmt(frame.axis - uh), uniquesHeight: fmt(uh)))
        }
        let total = perDay.values.reduce(0) { $0 + $1.0 }
        let summary = "Visits per day, \(Timestamp.formatDay(firstDay)) to \(Timestamp.formatDay(lastDay)): \(total) in all"
            + (countsVisitors ? ", visitors of each day in front" : "")
        return .init(width: Int(DayBars.width), height: Int(frame.height), left: "\(DayBars.left)", axis: "\(frame.axis)", labelX: "\(DayBars.left - 4)",
                     mostY: "\(DayBars.top + 10)", most: most, bars: bars, dayLabels: frame.dayLabels, countsVisitors: countsVisitors, summary: summary)
    }

    /// Visits by platform as horizontal bars, with counts and shares.
    package static func platformChart(_ rows: [(platform: String, clicks: Int64)]) -> LinkView.PlatformChart {
        let total = rows.reduce(0) { $0 + $1.clicks }
        let rowHeight = 26.0, width = 640.0, labelWidth = 90.0
        let height = Double(max(rows.count, 1)) * rowHeight + 4
        let shown: [LinkView.PlatformChart.Row] = rows.enumerated().map { index, row in
            let y = Double(index) * rowHeight + 2
            let share = total > 0 ? Double(row.clicks) / Double(total) : 0
            let barWidth = max(1, (width - labelWidth - 110) * share)
            return .init(platform: row.platform, clicks: row.clicks, label: label(row.platform), colour: colour(row.platform),
                         textY: fmt(y + 16), barX: "\(labelWidth)", barY: fmt(y + 3), barWidth: fmt(barWidth), barHeight: "\(rowHeight - 8)",
                         countX: fmt(labelWidth + barWidth + 6), share: Int((share * 100).rounded()))
        }
        return .init(width: Int(width), height: Int(height), empty: rows.isEmpty, rows: shown,
                     summary: rows.map { "\(label($0.platform)) \($0.clicks)" }.joined(separator: ", "))
    }

    /// The hosts people came from, most first, with their shares of the listed visits.
    package static func referrers(_ rows: [(host: String, visits: Int64)]) -> [LinkView.Referrer] {
        let total = rows.reduce(0) { $0 + $1.visits }
        return rows.map { row in
            .init(host: row.host, visits: row.visits, share: total > 0 ? Int((Double(row.visits) / Double(total) * 100).rounded()) : 0)
        }
    }

    /// A ranked list of the audience: each group with its share of the listed visits; a group
    /// not known is "Unknown", a country its English name (`United Kingdom (GB)`).
    package static func ranking(id: String, title: String, _ rows: [(value: String?, visits: Int64, uniques: Int64)], countries: Bool = false,
                                countsVisitors: Bool = true) -> AudienceView.Ranking {
        let total = rows.reduce(0) { $0 + $1.visits }
        return .init(id: id, title: title, rows: rows.map { row in
            .init(label: row.value.map { countries ? countryName($0) : $0 } ?? "Unknown", visits: row.visits, uniques: countsVisitors ? row.uniques : nil,
                  share: total > 0 ? Int((Double(row.visits) / Double(total) * 100).rounded()) : 0)
        }, empty: rows.isEmpty, countsVisitors: countsVisitors)
    }

    /// A country's English name with its code (`United Kingdom (GB)`), or the code alone when it names no country.
    package static func countryName(_ code: String) -> String {
        guard let name = englishNames.localizedString(forRegionCode: code), name != code else { return code }
        return "\(name) (\(code))"
    }

    private static let englishNames = Locale(identifier: "en_US")

    private static func order(_ platform: String) -> Int { platformColours.firstIndex { $0.platform == platform } ?? platformColours.count }
    private static func fmt(_ value: Double) -> String { String(format: "%.1f", value) }
}
