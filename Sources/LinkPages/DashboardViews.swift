import Mustache

// The values the dashboard's templates are rendered with. Each stored property is a name its
// template uses (Mustache reads stored properties, never computed ones): an optional that is nil
// is absent, a `Bool` a section shown when true, an array a section repeated per item.

/// The body of a dashboard page: the values its template's `main` block uses.
package protocol DashboardBody: Sendable {
    /// The template that renders it.
    static var page: DashboardPages.Page { get }
}

/// The signed-in user in the page's header.
package struct DashboardUser: Sendable, Equatable {
    package var name: String
    package var scopes: String
    /// The session's form token, sent back by the sign-out form.
    package var csrf: String

    package init(name: String, scopes: String, csrf: String) { (self.name, self.scopes, self.csrf) = (name, scopes, csrf) }
}

/// A form's problems: one paragraph (`error`), or a list when there are several (`errorList`).
package struct FormErrors: Sendable, Equatable {
    /// Several problems, counted.
    package struct List: Sendable, Equatable {
        package var count: Int
        package var items: [String]
    }

    package var error: String?
    package var errorList: List?

    /// The problems `messages` (none: neither is shown).
    package init(_ messages: [String]) {
        switch messages.count {
        case 0: break
        case 1: error = messages[0]
        default: errorList = List(count: messages.count, items: messages)
        }
    }
}

/// What every dashboard template sees: the page's title, the user, a form's problems, then the
/// body's own names.
struct DashboardFrame<Body: DashboardBody>: MustacheParent {
    let title: String
    let user: DashboardUser?
    let errors: FormErrors
    let body: Body

    func child(named name: String) -> Any? {
        switch name {
        case "title": return title
        case "user": return user
        case "error": return errors.error
        case "errorList": return errors.errorList
        default:
            guard let child = Mirror(reflecting: body).children.first(where: { $0.label == name }) else { return nil }
            return ViewShape.unwrapped(child.value)
        }
    }
}

/// The sign-in form (the frame's errors say why a sign-in failed).
package struct SignInView: DashboardBody {
    package static var page: DashboardPages.Page { .signIn }
    package init() {}
}

/// An error or refusal with a way back.
package struct DashboardMessageView: DashboardBody {
    package static var page: DashboardPages.Page { .message }
    package var heading: String
    package init(heading: String) { self.heading = heading }
}

/// The list and search of links.
package struct LinksView: DashboardBody {
    package static var page: DashboardPages.Page { .links }

    /// One row of the list.
    package struct Row: Sendable {
        package var code: String
        package var linkTitle: String
        package var opens: String
        package var clicks: Int64
        package var created: String
        package init(code: String, linkTitle: String, opens: String, clicks: Int64, created: String) {
            (self.code, self.linkTitle, self.opens, self.clicks, self.created) = (code, linkTitle, opens, clicks, created)
        }
    }

    package var query: String
    package var canWrite: Bool
    package var links: [Row]
    package let hasLinks: Bool
    /// True when there are no links at all.
    package var noLinks: Bool
    /// The query that matched nothing.
    package var noMatch: String?
    /// How many are shown when there are more.
    package var shownOnly: Int?
    /// Every link's audience (on the list without a search).
    package var audienceSection: AudienceView?
    /// A domain of the service, as the list's switch between domains shows it.
    package struct DomainTab: Sendable {
        var name: String
        var href: String
        var current: Bool
        package init(name: String, href: String, current: Bool) { (self.name, self.href, self.current) = (name, href, current) }
    }
    /// The domains to switch between (none with one domain).
    package var domainTabs: [DomainTab]
    package var hasDomainTabs: Bool
    /// The domain listed, in the search form and the new link's address; nil: the first.
    package var domain: String?
    /// `/admin/new` with the domain listed.
    package var newLink: String
    /// `/admin/bulk` with the domain listed.
    package var bulkLinks: String

    package init(query: String, canWrite: Bool, links: [Row], shownOnly: Int?, audience: AudienceView? = nil, domainTabs: [DomainTab] = [], domain: String? = nil) {
        (self.query, self.canWrite, self.links, self.shownOnly, self.audienceSection) = (query, canWrite, links, shownOnly, audience)
        (self.domainTabs, self.hasDomainTabs, self.domain) = (domainTabs, !domainTabs.isEmpty, domain)
        newLink = "/admin/new" + (domain.map { "?domain=" + $0 } ?? "")
        bulkLinks = "/admin/bulk" + (domain.map { "?domain=" + $0 } ?? "")
        noLinks = links.isEmpty && query.isEmpty
        noMatch = links.isEmpty && !query.isEmpty ? query : nil
        hasLinks = !links.isEmpty
    }
}

/// One link: its fields, QR code, visits and charts.
package struct LinkView: DashboardBody {
    package static var page: DashboardPages.Page { .link }

    /// Why the link answers 410, and what would serve it again.
    package struct Gone: Sendable {
        package var why: String
        package var state: String
        package var remedy: String
        /// Where its page sends visitors instead (its `expiredURL`, or the domain's); nil: 410.
        package var sentTo: String?
        package init(why: String, state: String, remedy: String, sentTo: String? = nil) {
            (self.why, self.state, self.remedy, self.sentTo) = (why, state, remedy, sentTo)
        }
    }

    /// A stored field, labelled.
    package struct Field: Sendable {
        package var label: String
        package var value: String
        package init(label: String, value: String) { (self.label, self.value) = (label, value) }
    }

    /// A platform's colour and name in the chart's key.
    package struct LegendItem: Sendable {
        package var colour: String
        package var label: String
    }

    /// Visits per day, stacked by platform, as SVG coordinates.
    package struct ClicksChart: Sendable {
        package struct Rect: Sendable { var x, y, width, height, colour: String }
        package struct Bar: Sendable { var day: String; var clicks: Int64; var detail: String; var rects: [Rect] }
        var width, height: Int
        var left, axis, labelX, mostY: String
        var most, total: Int64
        var first, last: String
        var bars: [Bar]
        var dayLabels: [DayLabel]
    }

    /// Visits by platform as horizontal bars.
    package struct PlatformChart: Sendable {
        package struct Row: Sendable {
            var platform: String, clicks: Int64, label: String, colour: String
            var textY, barX, barY, barWidth, barHeight, countX: String
            var share: Int
        }
        var width, height: Int
        var empty: Bool
        var rows: [Row]
        var summary: String
    }

    /// A host people came from, with its share of the listed visits.
    package struct Referrer: Sendable {
        var host: String
        var visits: Int64
        var share: Int
    }

    package var code: String
    package var pageURL: String
    /// Where the link's QR images are: `/i/CODE` on this host, or on its own domain's.
    package var qrBase: String
    /// The file name of a downloaded QR image, without extension.
    package var qrName: String
    package var canWrite: Bool
    package var csrf: String
    package var notice: String?
    package var appButtonWarning: String?
    package var gone: Gone?
    package var fields: [Field]
    package var clicks: Int64
    package var clicksWord: String
    package var chartDays: Int
    package var clicksChart: ClicksChart
    package var legend: [LegendItem]
    package var platformChart: PlatformChart
    package var botVisits: Int64
    package var referrers: [Referrer]
    package var hasReferrers: Bool
    package var noReferrers: Bool
    package var retentionDays: Int
    /// Who visited in the chart's days.
    package var audienceSection: AudienceView

    package init(code: String, pageURL: String, qrBase: String? = nil, canWrite: Bool, csrf: String, notice: String?, appButtonWarning: String?, gone: Gone?,
                 fields: [Field], clicks: Int64, chartDays: Int, clicksChart: ClicksChart, platformChart: PlatformChart, botVisits: Int64,
                 referrers: [Referrer], retentionDays: Int, audience: AudienceView) {
        audienceSection = audience
        self.qrBase = qrBase ?? "/i/" + code
        qrName = String(code.map { $0 == ":" ? "-" : $0 })
        (self.code, self.pageURL, self.canWrite, self.csrf, self.notice, self.appButtonWarning, self.gone) = (code, pageURL, canWrite, csrf, notice, appButtonWarning, gone)
        (self.fields, self.clicks, self.clicksWord, self.chartDays) = (fields, clicks, clicks == 1 ? "click" : "clicks", chartDays)
        (self.clicksChart, self.legend, self.platformChart, self.botVisits) = (clicksChart, DashboardPages.legend, platformChart, botVisits)
        (self.referrers, self.hasReferrers, self.noReferrers, self.retentionDays) = (referrers, !referrers.isEmpty, referrers.isEmpty, retentionDays)
    }
}

/// The form that creates or edits a link.
package struct LinkFormView: DashboardBody {
    package static var page: DashboardPages.Page { .form }

    /// One field: a line, a text area, or the picker of the configuration's routes.
    package struct Field: Sendable {
        /// The configuration's routes to pick from.
        package struct Routes: Sendable {
            package struct Option: Sendable { var option: String; var selected: Bool }
            var options: [Option]
        }

        package var name: String
        package var label: String
        package var value: String
        package var hint: String?
        package var routes: Routes?
        package var textarea: Bool
        package var line: Bool

        /// A text area for `description` and `parameters`, the routes (`routeNames`, the stored
        /// one kept) for `route`, else a line.
        package init(name: String, label: String, hint: String, value: String?, routeNames: [String]) {
            (self.name, self.label, self.value, self.hint) = (name, label, value ?? "", hint.isEmpty ? nil : hint)
            if name == "route" {
                var names = routeNames
                if let value, !value.isEmpty, !names.contains(value) { names.append(value) }
                routes = Routes(options: names.map { Routes.Option(option: $0, selected: $0 == value) })
            }
            textarea = name == "description" || name == "parameters"
            line = name != "route" && !textarea
        }
    }

    /// A value the form showed, sent back so only the changed fields become the edit.
    package struct Shown: Sendable {
        var name: String
        var value: String
        package init(name: String, value: String) { (self.name, self.value) = (name, value) }
    }

    package var csrf: String
    /// Nil for a new link.
    package var code: String?
    package let editing: Bool
    package var fields: [Field]
    package var shown: [Shown]

    /// The domain a new link is made on (a hidden field); nil: the first.
    package var domain: String?
    /// Whether the link being edited asks for a password (the form offers to remove it).
    package var protected: Bool

    package init(csrf: String, code: String?, fields: [Field], shown: [Shown] = [], domain: String? = nil, protected: Bool = false) {
        (self.csrf, self.code, self.fields, self.shown, self.domain, self.protected) = (csrf, code, fields, shown, domain, protected)
        editing = code != nil
    }
}

/// The form that creates several links from CSV, and what became of each.
package struct BulkFormView: DashboardBody {
    package static var page: DashboardPages.Page { .bulk }

    /// One link of the CSV: made (its code and page), or why not.
    package struct Result: Sendable {
        var line: Int
        var code: String?
        var href: String?
        var problem: String?
        package init(line: Int, code: String?, href: String?, problem: String?) {
            (self.line, self.code, self.href, self.problem) = (line, code, href, problem)
        }
    }

    package var csrf: String
    /// The domain the links are made on (a hidden field); nil: the first.
    package var domain: String?
    /// The CSV as submitted, shown again.
    package var csv: String
    /// The columns the header may name.
    package var columns: String
    /// The most links at once.
    package var most: Int
    package var results: [Result]
    package let hasResults: Bool
    package let created: Int
    package let failed: Int

    package init(csrf: String, domain: String?, csv: String, columns: [String], most: Int, results: [Result] = []) {
        (self.csrf, self.domain, self.csv, self.columns, self.most, self.results) = (csrf, domain, csv, columns.joined(separator: ","), most, results)
        hasResults = !results.isEmpty
        created = results.count { $0.code != nil }
        failed = results.count - created
    }
}

/// Who visited (a link's, or every link's): people's visits and visitors over some days, ranked
/// lists with bars, and where places come from.
package struct AudienceView: Sendable {
    /// One ranked list of the audience (countries, browsers, …): most visits first, with bars.
    package struct Ranking: Sendable {
        package struct Row: Sendable {
            var label: String
            var visits: Int64
            /// Nil when visitors are not counted.
            var uniques: Int64?
            var share: Int
        }
        var id: String
        var title: String
        var rows: [Row]
        var empty: Bool
        var countsVisitors: Bool
    }

    /// People's visits (and visitors) per day of the range, as bars: visits light, the
    /// day's visitors dark in front of them.
    package struct DailyChart: Sendable {
        package struct Bar: Sendable {
            var day: String, visits: Int64, uniques: Int64?
            var x, width, visitsY, visitsHeight, uniquesY, uniquesHeight: String
        }
        var width, height: Int
        var left, axis, labelX, mostY: String
        var most: Int64
        var bars: [Bar]
        var dayLabels: [DayLabel]
        var countsVisitors: Bool
        var summary: String
    }

    package var days: Int
    /// "day" or "days", as `days` needs (stored: templates read stored properties).
    package var dayWord: String
    /// The range shown: first and last UTC day (`YYYY-MM-DD`, what the date inputs hold).
    package var from: String
    package var to: String
    /// Why the range asked for was not shown (the default is shown instead), or nil.
    package var rangeError: String?
    package var dailyChart: DailyChart
    /// Of every link (the list page), not one.
    package var overall: Bool
    package var visits: Int64
    /// Nil when visitors are not counted (`visits.uniques: false`).
    package var visitors: Int64?
    package var countsVisitors: Bool
    package var rankings: [Ranking]
    /// Where places come from (the attribution a geo database's licence asks for); nil: none recorded.
    package var placeSource: String?

    package init(from: String, to: String, days: Int, rangeError: String?, dailyChart: DailyChart, overall: Bool, visits: Int64, visitors: Int64?,
                 rankings: [Ranking], placeSource: String?) {
        (self.from, self.to, self.days, self.rangeError, self.dailyChart) = (from, to, days, rangeError, dailyChart)
        dayWord = days == 1 ? "day" : "days"
        (self.overall, self.visits, self.visitors, self.countsVisitors) = (overall, visits, visitors, visitors != nil)
        (self.rankings, self.placeSource) = (rankings, placeSource)
    }
}

/// The first or last day written under a chart with a bar per day.
package struct DayLabel: Sendable { var x, y, anchor, day: String }
